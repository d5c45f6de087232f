import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSpecialAddress, OutboundError, outboundGet } from '../../src/core/outbound.ts';

/** Outbound requests to addresses users give (src/core/outbound.ts), against a local server. */
describe('outbound requests', () => {
  let base: string;
  const server = http.createServer((request, response) => {
    if (request.url === '/slow') return void setTimeout(() => response.end('late'), 2_000);
    if (request.url === '/big') return void response.end(Buffer.alloc(200_000, 'x'));
    if (request.url === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
    response.end(`hello ${request.headers['x-test'] ?? ''}`);
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const allowed = { allowPrivateAddresses: true };

  it('gets a body with the headers given', async () => {
    const response = await outboundGet(`${base}/`, { 'x-test': 'there' }, allowed);
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('hello there');
  });

  it('times out, caps the body and the redirects', async () => {
    await expect(outboundGet(`${base}/slow`, {}, { ...allowed, timeoutMs: 100 })).rejects.toThrow(/no answer within 100 ms/);
    await expect(outboundGet(`${base}/big`, {}, { ...allowed, maxBytes: 50_000 })).rejects.toThrow(/larger than 50000 bytes/);
    await expect(outboundGet(`${base}/loop`, {}, allowed)).rejects.toThrow(/more than 5 redirects/);
  });

  it('refuses private and special addresses unless allowed, also behind a name or a redirect', async () => {
    const refused = { allowPrivateAddresses: false };
    await expect(outboundGet(`${base}/`, {}, refused)).rejects.toBeInstanceOf(OutboundError);
    await expect(outboundGet(`http://localhost:${new URL(base).port}/`, {}, refused)).rejects.toThrow(/resolves to .*private or special address/);
    await expect(outboundGet('ftp://example.com/', {}, allowed)).rejects.toThrow(/only http and https/);
    await expect(outboundGet('http://user:secret@example.com/', {}, allowed)).rejects.toThrow(/user name or password/);
  });

  it('knows which addresses are special', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '224.0.0.1', 'not an address']) {
      expect(isSpecialAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700::1111', '172.32.0.1']) expect(isSpecialAddress(address), address).toBe(false);
  });
});
