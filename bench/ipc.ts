import fs from 'node:fs';
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';

/** The messages between the bench and its server children (Node's IPC channel, JSON). */

export interface CapturedQuery {
  sql: string;
  parameters: unknown[];
}

export type ToChild = { type: 'capture-start' } | { type: 'capture-stop' } | { type: 'stop' };
export type FromChild =
  { type: 'ready'; port: number } | { type: 'capture-started' } | { type: 'captured'; queries: CapturedQuery[] } | { type: 'error'; message: string };

/** In a child: send to the parent. */
export function send(message: FromChild): void {
  process.send?.(message);
}

/** In a child: handle the parent's messages; a failure is reported, then the child exits. */
export function onMessage(handle: (message: ToChild) => Promise<void>): void {
  process.on('message', (message: ToChild) => {
    handle(message).catch((error: unknown) => {
      send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    });
  });
  // The parent gone (killed, crashed): nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
}

/**
 * In a bare server child: listens on a free local port, tells the parent which, and on the parent's `stop`
 * closes the server and its pool and exits.
 */
export async function serveUntilStopped(app: FastifyInstance, pool: pg.Pool): Promise<void> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  onMessage(async (message) => {
    if (message.type === 'stop') {
      await app.close();
      await pool.end();
      process.exit(0);
    }
  });
  send({ type: 'ready', port: address.port });
}

/** A server child as the parent sees it. */
export class ServerChild {
  readonly url: string;
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  /**
   * Forks `script` (a TypeScript file beside this one, run through tsx) and waits for it to listen. A
   * generous limit guards against a child that hangs while starting; it is not a measurement.
   */
  static async start(script: string, env: Record<string, string>, timeoutMs = 120_000): Promise<ServerChild> {
    const child = fork(path.join(import.meta.dirname, script), [], {
      execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${script} did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      child.on('message', (message: FromChild) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve(message.port);
        } else if (message.type === 'error') {
          clearTimeout(timer);
          reject(new Error(`${script}: ${message.message}`));
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${script} exited (${signal ?? code}) before it listened`));
      });
    });
    return new ServerChild(child, port);
  }

  /** Sends a message and resolves with the first reply of the given type. */
  request<T extends FromChild['type']>(message: ToChild, replyType: T): Promise<Extract<FromChild, { type: T }>> {
    return new Promise((resolve, reject) => {
      const listener = (reply: FromChild) => {
        if (reply.type === replyType) {
          this.child.off('message', listener);
          resolve(reply as Extract<FromChild, { type: T }>);
        } else if (reply.type === 'error') {
          this.child.off('message', listener);
          reject(new Error(reply.message));
        }
      };
      this.child.on('message', listener);
      this.child.send(message);
    });
  }

  /**
   * CPU time the child has used so far (user and system), in milliseconds, read from /proc (Linux, whose
   * clock tick is 1/100 s for this file); null where there is no /proc.
   */
  cpuMs(): number | null {
    try {
      const fields = fs.readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return null;
    }
  }

  /** Asks the child to close; kills it if it has not exited after a few seconds. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ type: 'stop' } satisfies ToChild);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
