import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * PGlite has no lock between processes: two of them on one data directory would corrupt it. Each process
 * that opens the directory first creates `hearth.lock` exclusively; the file names the holder. A lock left
 * by a process that no longer runs (after `kill -9`) is taken over.
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
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: os.hostname(), command, since: new Date().toISOString() };

  for (let attempt = 0; attempt < 2; attempt++) {
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
    const holder = readHolder(lockPath);
    if (holder ? isAlive(holder) : isFresh(lockPath)) {
      throw new DataDirLockedError(dataDir, holder ?? UNKNOWN_HOLDER);
    }
    // The holder is gone (crashed or killed): its lock is stale.
    fs.rmSync(lockPath, { force: true });
  }
  throw new DataDirLockedError(dataDir, readHolder(lockPath) ?? UNKNOWN_HOLDER);
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

function readHolder(lockPath: string): LockHolder | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as Partial<LockHolder>;
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
