import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir, removeStaleLock } from '../../src/db/data-dir-lock.ts';

/** The pid of a process that has exited: its lock is stale. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

const dirs: string[] = [];
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-lock-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function writeLock(dir: string, pid: number, command: string): string {
  const text = JSON.stringify({ pid, host: os.hostname(), command, since: new Date().toISOString() });
  fs.writeFileSync(path.join(dir, 'hearth.lock'), text);
  return text;
}

describe('the data directory lock', () => {
  it('takes over a lock whose process is gone, and refuses one whose process runs', () => {
    const dir = dataDir();
    writeLock(dir, deadPid(), 'hearth serve');
    const lock = lockDataDir(dir, 'hearth token list');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'hearth.lock'), 'utf8'))).toMatchObject({ pid: process.pid, command: 'hearth token list' });
    lock.release();
    expect(fs.existsSync(path.join(dir, 'hearth.lock'))).toBe(false);

    writeLock(dir, process.ppid, 'hearth serve');
    expect(() => lockDataDir(dir, 'hearth init')).toThrow(DataDirLockedError);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'hearth.lock'), 'utf8'))).toMatchObject({ pid: process.ppid });
  });

  it('two processes finding one stale lock: the slower one does not remove the lock the faster one made', () => {
    const dir = dataDir();
    const lockPath = path.join(dir, 'hearth.lock');
    // Both read the stale lock; the first takes the directory before the second acts on what it read.
    const judgedBySecond = writeLock(dir, deadPid(), 'hearth serve');
    const first = lockDataDir(dir, 'hearth serve');
    const held = fs.readFileSync(lockPath, 'utf8');

    expect(removeStaleLock(lockPath, judgedBySecond)).toBe(false);
    expect(fs.readFileSync(lockPath, 'utf8')).toBe(held);
    expect(fs.readdirSync(dir)).toEqual(['hearth.lock']);
    first.release();
  });

  it('removes the lock it judged stale when it is still that lock', () => {
    const dir = dataDir();
    const lockPath = path.join(dir, 'hearth.lock');
    const judged = writeLock(dir, deadPid(), 'hearth serve');
    expect(removeStaleLock(lockPath, judged)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(removeStaleLock(lockPath, judged)).toBe(false);
  });
});
