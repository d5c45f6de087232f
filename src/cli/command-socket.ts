import fs from 'node:fs';
import net from 'node:net';
import type { Database } from '../db/database.ts';
import type { Services } from '../services.ts';
import type { Invocation, Terminal } from './command.ts';
import { describeFailure } from './failure.ts';
import { runCommand } from './run.ts';
import { readFrames, writeFrame } from './socket-frames.ts';

/**
 * The embedded database is one process's (PGlite is single-process; data-dir-lock.ts), so while `hearth
 * serve` holds it, other `hearth` commands run inside the server: it listens on a Unix socket in the data
 * directory (mode 0600: only the user who owns the data can connect, as only they can read its files), a
 * `hearth` process sends its parsed command line, and the server runs it with its own services
 * (runCommand, as the process would have) and streams back stdout, stderr and the exit code as JSON
 * lines. Every command that touches the database goes through it, with no second API to keep in step.
 */
export interface CommandSocket {
  /** Stops accepting, interrupts the commands running and waits for them, removes the socket. */
  close(): Promise<void>;
}

interface Request {
  invocation: Invocation;
  cwd: string;
  errIsTTY: boolean;
}

export async function listenForCommands(
  socketPath: string,
  context: { services: Services; database: Database; warn(message: string): void },
): Promise<CommandSocket> {
  const running = new Set<Promise<void>>();
  const interrupts = new Set<() => void>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let request: Request | null = null;
    const handlers = new Set<() => void>();
    const interrupt = () => {
      for (const handler of [...handlers]) handler();
    };
    interrupts.add(interrupt);
    // A caller that goes away (a second Ctrl-C) interrupts its command.
    socket.on('close', interrupt);
    socket.on('error', () => undefined);
    readFrames<Partial<Request> & { interrupt?: boolean }>(socket, (frame) => {
      if (frame.interrupt) interrupt();
      else if (!request && frame.invocation) {
        request = frame as Request;
        const done = serveOne(request, socket, handlers).finally(() => {
          running.delete(done);
          interrupts.delete(interrupt);
        });
        running.add(done);
      }
    });
  });

  async function serveOne(request: Request, socket: net.Socket, handlers: Set<() => void>): Promise<void> {
    const send = (frame: object) =>
      new Promise<void>((resolve, reject) => {
        if (socket.destroyed) return reject(new Error('the hearth process that asked went away'));
        if (writeFrame(socket, frame)) resolve();
        else socket.once('drain', resolve);
      });
    const terminal: Terminal = {
      out: (text) => send({ out: text }),
      err: (text) => void send({ err: text }).catch(() => undefined),
      errIsTTY: request.errIsTTY,
      cwd: request.cwd,
      onInterrupt(handler) {
        handlers.add(handler);
        return () => handlers.delete(handler);
      },
    };
    let code: number;
    try {
      code = await runCommand(request.invocation, { services: context.services, database: context.database, terminal });
    } catch (error) {
      const failure = describeFailure(error);
      terminal.err(failure.text);
      code = failure.code;
    }
    await send({ exit: code }).catch(() => undefined);
    socket.end();
  }

  // This process holds the data directory (its lock), so a socket file there is one a killed server left.
  fs.rmSync(socketPath, { force: true });
  // Created 0600 by the umask in force while it binds. No chmod afterwards: a chmod by name follows a
  // symbolic link put in the socket's place.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  server.on('error', (error) => context.warn(`the command socket failed: ${error.message}`));

  return {
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const interrupt of interrupts) interrupt();
      await Promise.allSettled([...running]);
      for (const socket of sockets) socket.destroy();
      await closed;
      fs.rmSync(socketPath, { force: true });
    },
  };
}
