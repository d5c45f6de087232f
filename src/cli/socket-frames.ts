import type net from 'node:net';

// The framing of the command socket (command-socket.ts, remote.ts), both ways: one JSON object a line.

/** Sends one frame; false when the socket's buffer is full, and the sender should wait for 'drain'. */
export function writeFrame(socket: net.Socket, frame: object): boolean {
  return socket.write(`${JSON.stringify(frame)}\n`);
}

/**
 * Calls `each` with every frame the socket sends, parsed, once its line is complete: a chunk may end in the
 * middle of a line. A line that is not JSON ends the connection, since whatever sent it does not speak
 * this protocol.
 */
export function readFrames<Frame>(socket: net.Socket, each: (frame: Frame) => void): void {
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let frame: Frame;
      try {
        frame = JSON.parse(line) as Frame;
      } catch {
        socket.destroy();
        return;
      }
      each(frame);
    }
  });
}
