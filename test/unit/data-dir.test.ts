import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { checkDataDir, DataDirRefusedError, prepareDataDir } from '../../src/db/data-dir.ts';
import { DatabaseUnavailableError } from '../../src/db/database-errors.ts';

/** The embedded database's directory: made owner-only, refused when others may enter it or own it. */

const POSIX = process.platform !== 'win32';
const ROOT = POSIX && process.getuid?.() === 0;
const mode = (file: string) => (fs.lstatSync(file).mode & 0o777).toString(8).padStart(4, '0');

// prepareDataDir narrows this process's umask for good, as the server's: put it back for the other files.
const umask = process.umask(0o022);
process.umask(umask);
afterAll(() => void process.umask(umask));

const dirs: string[] = [];
function parent(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-data-dir-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!POSIX)('the data directory', () => {
  it('is made 0700 when missing, in an ordinary 0755 folder, with missing parents', () => {
    const folder = parent();
    fs.chmodSync(folder, 0o755);
    const dataDir = path.join(folder, 'data');
    prepareDataDir(dataDir);
    expect(mode(dataDir)).toBe('0700');

    const deeper = path.join(folder, 'srv', 'hearth', 'data');
    prepareDataDir(deeper);
    expect([mode(path.join(folder, 'srv')), mode(path.join(folder, 'srv', 'hearth')), mode(deeper)]).toEqual(['0700', '0700', '0700']);
    // What the process creates afterwards is its owner's alone.
    fs.writeFileSync(path.join(dataDir, 'written-later'), 'x');
    expect(mode(path.join(dataDir, 'written-later'))).toBe('0600');
  });

  it('is refused, in one line saying what to do, when group or others may enter it; nothing is written in it', () => {
    for (const open of [0o755, 0o750, 0o701, 0o777]) {
      const dataDir = path.join(parent(), 'data');
      fs.mkdirSync(dataDir);
      fs.chmodSync(dataDir, open);
      const shown = open.toString(8).padStart(4, '0');
      const message = `refusing the data directory ${dataDir}: other users may enter it (mode ${shown}), and it holds every record and the key that signs tokens. Make it this user's alone (chmod 700 ${dataDir}) and start again.`;
      expect(() => prepareDataDir(dataDir)).toThrow(new DataDirRefusedError(message));
      expect(() => checkDataDir(dataDir)).toThrow(new DataDirRefusedError(message));
      expect(fs.readdirSync(dataDir)).toEqual([]);
      expect(mode(dataDir)).toBe(shown);
    }
  });

  it.skipIf(!ROOT)(
    `is refused when another user owns it, even if this user could write in it${ROOT ? '' : " (skipped: changing a directory's owner takes root)"}`,
    () => {
      const dataDir = path.join(parent(), 'data');
      fs.mkdirSync(dataDir, { mode: 0o700 });
      const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
      fs.chownSync(dataDir, nobody, nobody);
      const message = new DataDirRefusedError(
        `refusing the data directory ${dataDir}: it belongs to another user (uid ${nobody}), not to the user Hearth runs as (uid 0). Run Hearth as the user who owns it, or set HEARTH_DATA_DIR to a directory of this user.`,
      );
      expect(() => prepareDataDir(dataDir)).toThrow(message);
      expect(() => checkDataDir(dataDir)).toThrow(message);
    },
  );

  it('a file where the directory should be is said in one line', () => {
    const file = path.join(parent(), 'file');
    fs.writeFileSync(file, 'x');
    for (const check of [prepareDataDir, checkDataDir]) {
      expect(() => check(file)).toThrow(DatabaseUnavailableError);
      expect(() => check(file)).toThrow(`cannot use the data directory ${file}: it (or a parent) is not a directory. Set HEARTH_DATA_DIR to a directory.`);
    }
    // A missing directory is no refusal for a command that only looks.
    expect(() => checkDataDir(path.join(parent(), 'missing'))).not.toThrow();
  });

  it('narrows what an older Hearth left open inside to the owner, without following symbolic links', () => {
    const dataDir = path.join(parent(), 'data');
    fs.mkdirSync(path.join(dataDir, 'pgdata', 'pg_wal'), { recursive: true });
    fs.chmodSync(dataDir, 0o700);
    fs.chmodSync(path.join(dataDir, 'pgdata'), 0o755);
    fs.chmodSync(path.join(dataDir, 'pgdata', 'pg_wal'), 0o777);
    const wal = path.join(dataDir, 'pgdata', 'pg_wal', '000000010000000000000001');
    fs.writeFileSync(wal, 'x');
    fs.chmodSync(wal, 0o666);
    const control = path.join(dataDir, 'pgdata', 'pg_control');
    fs.writeFileSync(control, 'x');
    fs.chmodSync(control, 0o644);
    // A link to a file outside: the file it names is not the data directory's to change.
    const outside = path.join(parent(), 'outside');
    fs.writeFileSync(outside, 'x');
    fs.chmodSync(outside, 0o644);
    fs.symlinkSync(outside, path.join(dataDir, 'pgdata', 'link'));

    prepareDataDir(dataDir);
    expect([mode(path.join(dataDir, 'pgdata')), mode(path.join(dataDir, 'pgdata', 'pg_wal')), mode(wal), mode(control)]).toEqual([
      '0700',
      '0700',
      '0600',
      '0600',
    ]);
    expect(mode(outside)).toBe('0644');
  });
});
