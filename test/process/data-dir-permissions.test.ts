import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, freePort, Processes, REPO_ROOT, STARTUP_TIMEOUT_MS, type RunResult } from '../helpers/process.ts';

/**
 * The embedded data directory against the other users of the machine: what `hearth init` makes is its
 * user's alone, and Hearth refuses a directory that other users may enter or that another user owns. The
 * tests that act as a second user run as root, which can become `nobody` with setpriv.
 */

const processes = new Processes();
afterEach(() => processes.cleanup());

const SETPRIV = '/usr/bin/setpriv';
function nobody(): { uid: number; gid: number } | null {
  try {
    return { uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' })) };
  } catch {
    return null;
  }
}
const other = process.platform !== 'win32' && process.getuid?.() === 0 && fs.existsSync(SETPRIV) ? nobody() : null;
/** Said in the names of the tests that need a second user, when they are skipped. */
const SKIPPED = other ? '' : ' (skipped: acting as a second user takes root, /usr/bin/setpriv and a user "nobody")';

/** Runs `argv` as the user nobody: its exit code, stdout and stderr. */
function runAsNobody(argv: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      SETPRIV,
      [`--reuid=${other!.uid}`, `--regid=${other!.gid}`, '--clear-groups', ...argv],
      { cwd: '/', env: childEnv(env), timeout: STARTUP_TIMEOUT_MS },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, signal: null, stdout, stderr }),
    );
  });
}

const HEARTH = [process.execPath, path.join(REPO_ROOT, 'bin/hearth.mjs')];

/**
 * Whether the second user can run this checkout's `hearth` at all: a clone under a folder only its owner
 * may enter (root's home, say) is out of its reach, and that test would then prove nothing.
 */
function otherCanRunHearth(): boolean {
  if (!other) return false;
  try {
    execFileSync(SETPRIV, [`--reuid=${other.uid}`, `--regid=${other.gid}`, '--clear-groups', ...HEARTH, '--help'], {
      cwd: '/',
      env: childEnv({}),
      stdio: 'ignore',
      timeout: STARTUP_TIMEOUT_MS,
    });
    return true;
  } catch {
    return false;
  }
}
const otherRunsHearth = otherCanRunHearth();

/** Every file and directory under `dir` (symbolic links not followed), with its permission bits. */
function modes(dir: string): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name);
      found.set(file, fs.lstatSync(file).mode & 0o777);
      if (entry.isDirectory()) walk(file);
    }
  };
  walk(dir);
  return found;
}

function expectOneLine(result: RunResult, message: string) {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
  expect(result.stderr).toContain(message);
}

describe.skipIf(process.platform === 'win32')('the embedded data directory and the other users of the machine', () => {
  it(
    `hearth init in an ordinary 0755 folder makes a 0700 directory whose every file is 0600: nobody cannot read the WAL${SKIPPED && " (the second user's part skipped)"}`,
    { timeout: 180_000 },
    async () => {
      const folder = processes.tempDir();
      fs.chmodSync(folder, 0o755);
      const dataDir = path.join(folder, 'data');
      const init = await processes.run(['init', '--json'], { HEARTH_DATA_DIR: dataDir });
      expect(init.code, init.stderr).toBe(0);

      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
      const inside = modes(dataDir);
      const wal = [...inside.keys()].filter((file) => file.includes(`${path.sep}pg_wal${path.sep}`) && /^[0-9A-F]{24}$/.test(path.basename(file)));
      expect(wal.length).toBeGreaterThan(0);
      expect(inside.size).toBeGreaterThan(100);
      const open = [...inside].filter(([, bits]) => (bits & 0o077) !== 0).map(([file, bits]) => `${bits.toString(8)} ${file}`);
      expect(open).toEqual([]);

      if (!other) return;
      // Another user can neither look into the directory nor, were its directories opened, read the files.
      const walFile = wal[0]!;
      const listing = await runAsNobody(['ls', dataDir]);
      expect(listing.code).not.toBe(0);
      expect(listing.stderr).toMatch(/Permission denied/);
      for (let dir = path.dirname(walFile); dir.startsWith(dataDir); dir = path.dirname(dir)) fs.chmodSync(dir, 0o711);
      const read = await runAsNobody(['cat', walFile, path.join(dataDir, 'pgdata', 'global', 'pg_control')]);
      expect(read.code).not.toBe(0);
      expect(read.stdout).toBe('');
      expect(read.stderr.trimEnd().split('\n')).toEqual([
        `cat: ${walFile}: Permission denied`,
        `cat: ${path.join(dataDir, 'pgdata', 'global', 'pg_control')}: Permission denied`,
      ]);

      // And opened so, the directory is refused.
      expectOneLine(
        await processes.run(['serve'], { HEARTH_DATA_DIR: dataDir, PORT: String(await freePort()) }),
        `hearth: refusing the data directory ${dataDir}: other users may enter it (mode 0711)`,
      );
    },
  );

  it('a server on a 0755 directory refuses to start, in one line, and writes nothing there', async () => {
    const dataDir = processes.tempDir();
    fs.chmodSync(dataDir, 0o755);
    const refused = await processes.run(['serve'], { HEARTH_DATA_DIR: dataDir, PORT: String(await freePort()) });
    expectOneLine(
      refused,
      `hearth: refusing the data directory ${dataDir}: other users may enter it (mode 0755), and it holds every record and the key that signs tokens. Make it this user's alone (chmod 700 ${dataDir}) and start again.`,
    );
    expect(refused.stdout).toBe('');
    expect(fs.readdirSync(dataDir)).toEqual([]);
    // A command says the same, restore too (which opens the directory itself).
    expectOneLine(
      await processes.run(['token', 'list'], { HEARTH_DATA_DIR: dataDir }),
      `hearth: refusing the data directory ${dataDir}: other users may enter it (mode 0755)`,
    );
    const backup = path.join(processes.tempDir(), 'hearth.backup');
    fs.writeFileSync(backup, Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
    const restore = await processes.run(['restore', backup], { HEARTH_DATA_DIR: dataDir });
    expectOneLine(restore, `hearth: refusing the data directory ${dataDir}: other users may enter it (mode 0755)`);
    expect(restore.stderr).toMatch(/^hearth: refusing/);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it.skipIf(!otherRunsHearth)(
    `a server run by another user on a directory it does not own refuses, though the directory lets it write${SKIPPED || (otherRunsHearth ? '' : ' (skipped: the user "nobody" cannot read this checkout)')}`,
    async () => {
      const dataDir = processes.tempDir();
      fs.chmodSync(dataDir, 0o777);
      const refused = await runAsNobody([...HEARTH, 'serve'], {
        HEARTH_DATA_DIR: dataDir,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      });
      expectOneLine(
        refused,
        `hearth: refusing the data directory ${dataDir}: it belongs to another user (uid 0), not to the user Hearth runs as (uid ${other!.uid}). Run Hearth as the user who owns it, or set HEARTH_DATA_DIR to a directory of this user.`,
      );
      expect(fs.readdirSync(dataDir)).toEqual([]);
    },
  );

  it.skipIf(!other)(`a command sends nothing to a socket in the data directory that another user owns${SKIPPED}`, async () => {
    const dataDir = processes.tempDir();
    const received: string[] = [];
    const listener = net.createServer((socket) => {
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => received.push(chunk));
      socket.on('error', () => undefined);
      socket.end();
    });
    const socketPath = path.join(dataDir, 'hearth.sock');
    await new Promise<void>((resolve) => listener.listen(socketPath, resolve));
    try {
      fs.chownSync(socketPath, other!.uid, other!.gid);
      const result = await processes.run(['token', 'create', '--name', 'secret-name'], { HEARTH_DATA_DIR: dataDir });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        `hearth: a server holds this data directory, but its socket ${socketPath} is not this user's: run hearth as the user who runs the server`,
      );
      expect(received).toEqual([]);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
