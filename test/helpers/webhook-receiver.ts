import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, unknown> };
  path: string;
}

/**
 * Verifies a Standard Webhooks signature as a receiver would, written from the specification and not from
 * Hearth's code: the key is the base64 after `whsec_`; the signed content is `id.timestamp.body`; the
 * header holds space-separated `v1,<base64 HMAC-SHA256>` signatures, any of which may match.
 */
export function verifySignature(secret: string, message: Pick<Received, 'id' | 'timestamp' | 'signature' | 'body'>): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${message.id}.${message.timestamp}.${message.body}`).digest();
  return message.signature.split(' ').some((part) => {
    const [version, value] = part.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** A request as a stub server got it, its body read whole. */
export interface StubRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A local HTTP server on a loopback port, for what Hearth or a browser calls in a test: a webhook receiver,
 * a feed, a model's endpoint, a site. It reads each request's body whole, then `answer` answers it.
 */
export function stubServer(answer: (request: StubRequest, response: http.ServerResponse) => void) {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      answer({ method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers, body }, response);
    });
  });
  return {
    server,
    /** Listens, and answers the base URL: `http://127.0.0.1:<port>`. */
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    /** Closes, cutting what is still open (a response held back, a kept-alive connection). */
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A webhook delivery as a receiver reads it: its Standard Webhooks headers, its body and its JSON. */
export function webhookMessage(request: StubRequest): Received {
  return {
    id: String(request.headers['webhook-id']),
    timestamp: String(request.headers['webhook-timestamp']),
    signature: String(request.headers['webhook-signature']),
    body: request.body,
    json: JSON.parse(request.body) as Received['json'],
    path: request.path,
  };
}

/** A local webhook receiver: records every request, and answers what `respond` says (200 by default). */
export function webhookReceiver() {
  const received: Received[] = [];
  let respond: (message: Received) => number | Promise<number> = () => 200;
  const { start, stop } = stubServer((request, response) => {
    const message = webhookMessage(request);
    received.push(message);
    void Promise.resolve(respond(message)).then((status) => response.writeHead(status).end('ok'));
  });
  return {
    received,
    respondWith(handler: typeof respond) {
      respond = handler;
    },
    start,
    stop,
  };
}
