import fs from 'node:fs';
import net from 'node:net';
import { DatabaseUnavailableError } from '../db/database-errors.ts';
import { UsageError, type Invocation } from './command.ts';
import { readFrames, writeFrame } from './socket-frames.ts';

/**
 * The client side of command-socket.ts: sends a command to the embedded server that holds the data
 * directory, writes what it answers to this process's stdout and stderr, and passes Ctrl-C on. Answers
 * the command's exit code, or null when no server listens (the command then opens the database itself).
 */
export function runThroughServer(socketPath: string, invocation: Invocation): Promise<number | null> {
  // The command line (and, for some commands, what it prints: new tokens, secrets) goes to whoever listens
  // on the socket, so only to a socket of this user: a server run by the same user.
  let socketStat: fs.Stats;
  try {
    socketStat = fs.lstatSync(socketPath);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EACCES' || code === 'EPERM') return Promise.reject(notThisUsers(socketPath));
    // No socket, or no directory: no server holds it; the command opens it.
    return Promise.resolve(null);
  }
  const uid = process.geteuid?.();
  if (uid !== undefined && socketStat.uid !== uid) return Promise.reject(notThisUsers(socketPath));
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let connected = false;
    let exitCode: number | null = null;
    let interrupts = 0;
    const onInterrupt = () => {
      interrupts += 1;
      // A second Ctrl-C stops at once; the server takes the closed socket as the interrupt.
      if (interrupts > 1) process.exit(130);
      writeFrame(socket, { interrupt: true });
    };
    socket.once('connect', () => {
      connected = true;
      process.on('SIGINT', onInterrupt);
      process.on('SIGTERM', onInterrupt);
      writeFrame(socket, { invocation, cwd: process.cwd(), errIsTTY: Boolean(process.stderr.isTTY) });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (connected) return;
      // The socket belongs to the user who runs the server: another user's command cannot use it.
      if (error.code === 'EACCES' || error.code === 'EPERM') reject(notThisUsers(socketPath));
      // No socket, one a killed server left, or no directory: no server holds it; the command opens it.
      else resolve(null);
    });
    let paused: Promise<void> = Promise.resolve();
    readFrames<{ out?: string; err?: string; exit?: number }>(socket, (frame) => {
      if (frame.out !== undefined && !process.stdout.write(frame.out)) {
        // Keep pace with a slow reader of stdout (a pipe): the server waits as the socket fills.
        socket.pause();
        paused = new Promise((drained) => process.stdout.once('drain', () => (socket.resume(), drained())));
      }
      if (frame.err !== undefined) process.stderr.write(frame.err);
      if (frame.exit !== undefined) exitCode = frame.exit;
    });
    socket.on('close', () => {
      if (!connected) return;
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
      void paused.then(() => {
        if (exitCode !== null) resolve(exitCode);
        else
          reject(
            new DatabaseUnavailableError(
              'the server holding the data directory closed the connection before the command finished (was it stopped?); run the command again',
            ),
          );
      });
    });
  });
}

function notThisUsers(socketPath: string): UsageError {
  return new UsageError(`a server holds this data directory, but its socket ${socketPath} is not this user's: run hearth as the user who runs the server`);
}
