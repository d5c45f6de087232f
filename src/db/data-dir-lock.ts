import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * PGlite has no lock between processes: two of them on one data directory would corrupt it. Each process
 * that opens the directory first creates `hearth.lock` exclusively; the file names the holder. A lock left
 * by a process that no longer runs (after `kill -9`) is taken over, by one process only even when several
 * start at once (`removeStaleLock`).
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `The data directory ${dataDir} is in use by another Hearth process (pid ${holder.pid}, ` +
        `"${holder.command}", since ${holder.since}). The embedded database allows one process at a time: ` +
        `stop that process first (a running server serves the HTTP API, including /api/v2/admin for tokens ` +
        `and sources), or set DATABASE_URL to use PostgreSQL, which any number of processes can share.`,
    );
  }
}

export interface LockHolder {
  pid: number;
  host: string;
  command: string;
  since: string;
}

export interface DataDirLock {
  release(): void;
}

const LOCK_FILE = 'hearth.lock';

export function lockDataDir(dataDir: string, command: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockPath = path.join(dataDir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: os.hostname(), command, since: new Date().toISOString() };

  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, JSON.stringify(me), { flag: 'wx' });
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            fs.unlinkSync(lockPath);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const judged = readText(lockPath);
    const holder = judged === null ? null : parseHolder(judged);
    if (holder ? isAlive(holder) : isFresh(lockPath)) {
      throw new DataDirLockedError(dataDir, holder ?? UNKNOWN_HOLDER);
    }
    // The holder is gone (crashed or killed): its lock is stale. Whether this process or another one
    // removes it, the next exclusive create decides who holds the directory.
    if (judged !== null) removeStaleLock(lockPath, judged);
  }
  throw new DataDirLockedError(dataDir, readHolder(lockPath) ?? UNKNOWN_HOLDER);
}

/**
 * Removes the lock file if it still holds `judged`, the stale lock this process read, and answers whether
 * it did. Removing by name alone would be a race: between this process's read and its removal, another
 * process may have removed the stale lock and made its own, which must stand. So the file is first moved
 * aside (atomic: one process gets it), then checked; a live lock moved aside by mistake is put back.
 */
export function removeStaleLock(lockPath: string, judged: string): boolean {
  const aside = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (error) {
    // Another process moved it first.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    if (readText(aside) === judged) return true;
    try {
      // A link, not a rename: it fails rather than replace a lock yet another process made meanwhile.
      fs.linkSync(aside, lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return false;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

const UNKNOWN_HOLDER: LockHolder = { pid: 0, host: '?', command: 'unknown', since: 'unknown' };

/** An unreadable lock younger than a few seconds is most likely being written right now. */
function isFresh(lockPath: string): boolean {
  try {
    return Date.now() - fs.statSync(lockPath).mtimeMs < 5_000;
  } catch {
    return false;
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function readHolder(lockPath: string): LockHolder | null {
  const text = readText(lockPath);
  return text === null ? null : parseHolder(text);
}

function parseHolder(text: string): LockHolder | null {
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number') return null;
    return {
      pid: parsed.pid,
      host: String(parsed.host ?? ''),
      command: String(parsed.command ?? ''),
      since: String(parsed.since ?? ''),
    };
  } catch {
    return null;
  }
}

function isAlive(holder: LockHolder): boolean {
  // A lock written on another host (a shared volume) cannot be checked from here; respect it.
  if (holder.host !== os.hostname()) return true;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
