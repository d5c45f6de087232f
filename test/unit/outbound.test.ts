import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSpecialAddress, OutboundError, outboundGet, outboundRequest } from '../../src/core/outbound.ts';
import { freePort } from '../helpers/free-port.ts';
import { stubServer } from '../helpers/webhook-receiver.ts';

/** Outbound requests to addresses users give (src/core/outbound.ts), against a local server. */
describe('outbound requests', () => {
  let base: string;
  const server = stubServer((request, response) => {
    if (request.path === '/slow') return void setTimeout(() => response.end('late'), 2_000);
    if (request.path === '/big') return void response.end(Buffer.alloc(200_000, 'x'));
    if (request.path === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
    response.end(`hello ${request.headers['x-test'] ?? ''}`);
  });

  beforeAll(async () => {
    base = await server.start();
  });
  afterAll(() => server.stop());

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
    await expect(outboundGet(`http://localhost:${new URL(base).port}/`, {}, refused)).rejects.toThrow(/^refused: private address$/);
    await expect(outboundGet('ftp://example.com/', {}, allowed)).rejects.toThrow(/only http and https/);
    await expect(outboundGet('http://user:secret@example.com/', {}, allowed)).rejects.toThrow(/user name or password/);
  });

  it('says a private address was refused without saying which address a name resolved to', async () => {
    const refused = { allowPrivateAddresses: false };
    for (const url of [`http://localhost:${new URL(base).port}/`, `${base}/`, `http://[::ffff:127.0.0.1]:${new URL(base).port}/`]) {
      const error = await outboundGet(url, {}, refused).catch((failure: unknown) => failure);
      expect(error, url).toBeInstanceOf(OutboundError);
      expect((error as Error).message, url).toBe('refused: private address');
    }
    // A system error names the address it failed at; what is reported does not.
    const port = await freePort();
    const error = await outboundGet(`http://localhost:${port}/`, {}, allowed).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as Error).message).toMatch(/^connect ECONNREFUSED$/);
  });

  it('knows which addresses are special', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '192.88.99.1',
      '::1',
      '::',
      'fe80::1',
      'fe80::1%eth0',
      'fd00::1',
      '224.0.0.1',
      'ff02::1',
      'not an address',
      // IPv4-mapped, in both of its written forms (a URL's host is normalized to the second).
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      // IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96): refused whatever address they carry.
      '::127.0.0.1',
      '::7f00:1',
      '::8.8.8.8',
      '::ffff:0:7f00:1',
      '::ffff:0:8.8.8.8',
      // NAT64's well-known prefix and 6to4 carrying a private address; NAT64 for a local network, always.
      '64:ff9b::10.0.0.1',
      '64:ff9b::7f00:1',
      '64:ff9b::a9fe:a9fe',
      '2002:7f00:1::1',
      '2002:a00:1::',
      '2002:c0a8:101::1',
      '64:ff9b:1::8.8.8.8',
      // Site-local, discard-only, IETF protocol assignments (Teredo, ORCHID), documentation.
      'fec0::1',
      'feff::1',
      '100::1',
      '2001::1',
      '2001:0:4136:e378::1',
      '2001:10::1',
      '2001:db8::1',
      '3fff::1',
    ]) {
      expect(isSpecialAddress(address), address).toBe(true);
    }
    for (const address of [
      '8.8.8.8',
      '93.184.216.34',
      '2606:4700::1111',
      '172.32.0.1',
      '2a00:1450:4001::1',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect(isSpecialAddress(address), address).toBe(false);
    }
  });

  it('sends a GET again on a new connection when the server closed the kept-alive one it was sent on, never a POST', async () => {
    // The second request on each connection finds it closed without an answer, as when a server's idle
    // timeout closes a kept-alive connection just as it is reused.
    const seen: string[] = [];
    const server = http.createServer((request, response) => {
      const socket = request.socket as typeof request.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      seen.push(`${request.method} ${socket.served}`);
      if (socket.served > 1) return void socket.destroy();
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const get = () => outboundRequest(url, { method: 'GET', headers: {} }, allowed);
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200);
      expect(seen).toEqual(['GET 1', 'GET 2', 'GET 1']);
      // A POST on the kept connection may have been acted on: it is not sent again.
      await expect(outboundRequest(url, { method: 'POST', headers: {}, body: 'x' }, allowed)).rejects.toThrow(OutboundError);
      expect(seen).toEqual(['GET 1', 'GET 2', 'GET 1', 'POST 2']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
