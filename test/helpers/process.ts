import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { freePort } from './free-port.ts';
import { createPostgresDatabase } from './test-database.ts';

export { freePort };

/**
 * Real `hearth` child processes for the process-level tests (test/process): spawn `node bin/hearth.mjs …`
 * with a given environment, capture its output, wait for a line, and make sure nothing outlives the tests.
 */

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(REPO_ROOT, 'bin/hearth.mjs');

/** Generous: a child compiles the sources through tsx and may initialize an embedded database. */
export const STARTUP_TIMEOUT_MS = 45_000;

export type Env = Record<string, string | undefined>;

/** This process's environment without anything that configures Hearth, then `extra` (undefined removes). */
export function childEnv(extra: Env = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(DATABASE_URL|HEARTH_\w+|PORT|HOST|LOG_LEVEL|TEST_DATABASE_URL)$/.test(key)) continue;
    env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunResult extends Exit {
  stdout: string;
  stderr: string;
}

type Stream = 'stdout' | 'stderr';

// Safety net: should a worker exit with children still running (a crash between hooks), take them along.
const everyLiveChild = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of everyLiveChild) child.kill('SIGKILL');
});

/** One running (or finished) `hearth` child process. */
export class HearthProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves once the process has exited and its output is fully read. */
  readonly exited: Promise<Exit>;
  readonly output: Record<Stream, string> = { stdout: '', stderr: '' };
  private exit: Exit | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly args: string[],
    env: Env,
    /** Where Hearth is installed (a copy laid out as an image has it); this checkout by default. */
    root = REPO_ROOT,
  ) {
    this.child = spawn(process.execPath, [root === REPO_ROOT ? BIN : path.join(root, 'bin/hearth.mjs'), ...args], {
      cwd: root,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (this.child.pid === undefined) throw new Error(`could not spawn hearth ${args.join(' ')}`);
    this.pid = this.child.pid;
    everyLiveChild.add(this.child);
    for (const stream of ['stdout', 'stderr'] as const) {
      this.child[stream]!.setEncoding('utf8');
      this.child[stream]!.on('data', (chunk: string) => {
        this.output[stream] += chunk;
        this.notify();
      });
    }
    this.child.on('exit', () => everyLiveChild.delete(this.child));
    this.exited = new Promise<Exit>((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('close', (code, signal) => {
        everyLiveChild.delete(this.child);
        this.exit = { code, signal };
        this.notify();
        resolve(this.exit);
      });
    });
  }

  get stdout() {
    return this.output.stdout;
  }

  get stderr() {
    return this.output.stderr;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Complete lines so far (the last, unterminated fragment too once the process has exited). */
  lines(stream: Stream = 'stdout'): string[] {
    const text = this.output[stream];
    const lines = text.split('\n');
    const rest = lines.pop()!;
    if (this.exit && rest !== '') lines.push(rest);
    return lines;
  }

  /** Resolves with the first line matching `pattern`; rejects if the process exits first or on timeout. */
  waitForLine(pattern: RegExp, options: { stream?: Stream; timeoutMs?: number } = {}): Promise<RegExpExecArray> {
    const stream = options.stream ?? 'stdout';
    return this.waitFor(
      () => {
        for (const line of this.lines(stream)) {
          const match = pattern.exec(line);
          if (match) return match;
        }
        return undefined;
      },
      `a line matching ${pattern} on ${stream}`,
      options.timeoutMs,
    );
  }

  /**
   * Resolves with the first defined result of `check`, which runs now and after every output; rejects if the
   * process exits first or on timeout (a guard against hanging, not an assertion about time).
   */
  waitFor<T>(check: () => T | undefined, what: string, timeoutMs = STARTUP_TIMEOUT_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const finish = (settle: () => void) => {
        this.listeners.delete(listener);
        clearTimeout(timer);
        settle();
      };
      const listener = () => {
        let result: T | undefined;
        try {
          result = check();
        } catch (error) {
          finish(() => reject(error as Error));
          return;
        }
        if (result !== undefined) finish(() => resolve(result));
        else if (this.exit) finish(() => reject(new Error(`${this.describe()} exited (${describeExit(this.exit!)}) before ${what}\n${this.transcript()}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`waited ${timeoutMs} ms for ${what} from ${this.describe()}, in vain\n${this.transcript()}`))),
        timeoutMs,
      );
      this.listeners.add(listener);
      listener();
    });
  }

  /** The exit, once the process has exited; rejects after `timeoutMs` (a guard against a hang). */
  async waitForExit(timeoutMs = STARTUP_TIMEOUT_MS): Promise<Exit> {
    await this.waitFor(() => this.exit ?? undefined, 'its exit', timeoutMs);
    return this.exited;
  }

  /** Sends `signal` if the process still runs. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGKILL, then wait until it is gone. */
  async destroy(): Promise<Exit> {
    this.kill('SIGKILL');
    return this.exited;
  }

  describe(): string {
    return `hearth ${this.args.join(' ')} (pid ${this.pid})`;
  }

  transcript(): string {
    return `--- stdout ---\n${this.output.stdout}--- stderr ---\n${this.output.stderr}--------------`;
  }

  private notify() {
    for (const listener of [...this.listeners]) listener();
  }
}

export function describeExit(exit: Exit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

export interface HearthServer {
  process: HearthProcess;
  port: number;
  /** http://127.0.0.1:PORT */
  url: string;
}

/**
 * The children and temporary directories of one test file (or one test): `cleanup()` kills whatever still
 * runs (SIGKILL) and removes the directories. Call it in afterEach or afterAll.
 */
export class Processes {
  private readonly processes = new Set<HearthProcess>();
  private readonly dirs = new Set<string>();

  spawn(args: string[], env: Env = {}, root?: string): HearthProcess {
    const child = new HearthProcess(args, env, root);
    this.processes.add(child);
    return child;
  }

  /** Runs a command to its end; a command that has not ended after `timeoutMs` is killed and fails the test. */
  async run(args: string[], env: Env = {}, timeoutMs = STARTUP_TIMEOUT_MS): Promise<RunResult> {
    const child = this.spawn(args, env);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${child.describe()} did not finish within ${timeoutMs} ms\n${child.transcript()}`));
      }, timeoutMs);
    });
    try {
      const exit = await Promise.race([child.exited, timedOut]);
      return { ...exit, stdout: child.stdout, stderr: child.stderr };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * `hearth serve` on a free port of 127.0.0.1; resolves once it says it is serving. SIGTERM stops it without
   * the drain (HEARTH_SHUTDOWN_GRACE 0) unless `env` sets one: only the drain's own test waits for it.
   */
  async serve(env: Env, options: { logLevel?: string; cwd?: string } = {}): Promise<HearthServer> {
    const port = await freePort();
    const child = this.spawn(
      ['serve'],
      { LOG_LEVEL: options.logLevel ?? 'warn', HEARTH_SHUTDOWN_GRACE: '0', ...env, PORT: String(port), HOST: '127.0.0.1' },
      options.cwd,
    );
    await child.waitForLine(/^Hearth is serving /);
    return { process: child, port, url: `http://127.0.0.1:${port}` };
  }

  /** A new empty directory (for HEARTH_DATA_DIR), removed by cleanup(). */
  tempDir(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-process-test-'));
    this.dirs.add(dir);
    return dir;
  }

  /**
   * A new data directory (for HEARTH_DATA_DIR) holding a migrated embedded database with nothing in it yet,
   * a copy of one made once per run (global-setup.ts), removed by cleanup(). Its first `hearth` command skips
   * making the database and migrating it (some 6 s of CPU) and is otherwise a first run: no community, no
   * signing key. For tests about something else; those about a new directory's first start use tempDir().
   */
  migratedDataDir(): string {
    const dir = this.tempDir();
    fs.cpSync(path.join(inject('pgliteDataDirTemplate'), 'pgdata'), path.join(dir, 'pgdata'), { recursive: true });
    return dir;
  }

  async cleanup(): Promise<void> {
    const processes = [...this.processes];
    this.processes.clear();
    await Promise.all(processes.map((child) => child.destroy()));
    for (const dir of this.dirs) fs.rmSync(dir, { recursive: true, force: true });
    this.dirs.clear();
  }
}

/** The lock file the embedded database keeps in its data directory, parsed; null when there is none. */
export function readLock(dataDir: string): { pid: number; command: string } | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'hearth.lock'), 'utf8')) as { pid: number; command: string };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The payload of a JWT, unverified (to compare its jti with what the service reports). */
export function jwtPayload(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) throw new Error(`not a JWT: ${token}`);
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** fetch with a bearer token; the body is parsed as JSON when there is one. */
export async function call(
  url: string,
  options: { token?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, headers: response.headers, body };
}

/**
 * The environment that points `hearth` processes at a new database of `engine` with nothing in it: a new data
 * directory holding a migrated embedded database (Processes.migratedDataDir, removed by the Processes'
 * cleanup), or a new empty database on the TEST_DATABASE_URL server (`drop` removes it), which the first
 * process migrates (about a second, where making and migrating an embedded database takes some 6 s of CPU).
 */
export async function freshDatabaseEnv(engine: Engine, processes: Processes): Promise<{ env: Env; drop(): Promise<void> }> {
  if (engine === 'pglite') return { env: { HEARTH_DATA_DIR: processes.migratedDataDir() }, drop: async () => {} };
  const database = await createPostgresDatabase();
  return { env: { DATABASE_URL: database.url }, drop: database.drop };
}

/** Resolves once `check` holds, asking every 100 ms; fails naming `what` after `timeoutMs`. */
export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}, in vain`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
