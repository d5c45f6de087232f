import net from 'node:net';

/**
 * A loopback TCP port that was free a moment ago: listen on port 0, note what the system gave, close. For
 * a server that must know its own address before it listens (a browser's Origin is compared with it), or
 * an address where nothing listens.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
