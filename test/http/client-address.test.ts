import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import type { TrustProxy } from '../../src/config/config.ts';
import { serializeRequest } from '../../src/http/logging.ts';
import type { HearthApp } from '../../src/http/types.ts';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * HEARTH_TRUST_PROXY: which address every per-address limit counts, and the log shows. Each case is the app
 * again over the same services (one database, one set of counts), with a setting of its own and addresses
 * of its own.
 */
describe.each(ENGINES)('client addresses behind proxies (%s)', (engine) => {
  let t: TestApp;
  const apps: HearthApp[] = [];
  const clock = new ManualClock(new Date('2026-03-01T10:00:30Z'));

  async function appTrusting(trustProxy: TrustProxy, logLines?: string[]) {
    const app = await buildApp({
      services: t.services,
      publicUrl: TEST_PUBLIC_URL,
      logger: logLines ? { level: 'info', serializers: { req: serializeRequest }, stream: { write: (line: string) => void logLines.push(line) } } : false,
      trustProxy,
    });
    apps.push(app);
    return app;
  }

  /** An anonymous API request (a 403, counted against the client address's limit) from `peer`, forwarded for `forwardedFor`. */
  const anonymous = (app: HearthApp, peer: string, forwardedFor?: string) =>
    app.inject({ method: 'GET', url: '/api/v2/contacts', remoteAddress: peer, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
  const statuses = async (app: HearthApp, peer: string, forwardedFor: (string | undefined)[]) => {
    const seen = [];
    for (const header of forwardedFor) seen.push((await anonymous(app, peer, header)).statusCode);
    return seen;
  };

  beforeAll(async () => {
    t = await createTestApp(engine, { clock, rateLimit: { perAddress: 2, trackerPerAddress: 2 } });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await t?.close();
  });

  it('counts the connection’s address by default, whatever X-Forwarded-For says', async () => {
    expect(await statuses(t.app, '198.51.100.1', ['203.0.113.1', '203.0.113.2', '203.0.113.3'])).toEqual([403, 403, 429]);
  });

  it('counts the address the last trusted hop names, and only that one', async () => {
    const app = await appTrusting({ hops: 1 });
    // Each client behind the proxy has its own allowance.
    expect(await statuses(app, '10.0.0.1', ['203.0.113.10', '203.0.113.10', '203.0.113.10'])).toEqual([403, 403, 429]);
    expect(await statuses(app, '10.0.0.1', ['203.0.113.11'])).toEqual([403]);
    // What a client writes in front of the proxy's entry changes nothing.
    expect(await statuses(app, '10.0.0.1', ['192.0.2.99, 203.0.113.10'])).toEqual([429]);
  });

  it('believes X-Forwarded-For only from the listed proxies', async () => {
    const app = await appTrusting({ addresses: ['10.0.0.0/8', 'loopback'] });
    expect(await statuses(app, '10.1.2.3', ['203.0.113.20', '203.0.113.21', '203.0.113.22'])).toEqual([403, 403, 403]);
    // Through two listed proxies, the client is the first address no listed proxy has.
    expect(await statuses(app, '10.0.0.1', ['203.0.113.23, 10.0.0.7', '203.0.113.23, 10.9.9.9', '203.0.113.23'])).toEqual([403, 403, 429]);
    // A client that is no listed proxy is counted by its own address, whatever it sends.
    expect(await statuses(app, '198.51.100.9', ['203.0.113.24', '203.0.113.25', '203.0.113.26'])).toEqual([403, 403, 429]);
  });

  it('applies to sign-in and to the website tracker’s per-address limit', async () => {
    const app = await appTrusting({ addresses: ['10.0.0.0/8'] });
    const signIn = (forwardedFor: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v2/session',
        remoteAddress: '10.0.0.1',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        payload: JSON.stringify({ email: `${forwardedFor}@example.org`, password: 'not the password' }),
      });
    expect([(await signIn('203.0.113.30')).statusCode, (await signIn('203.0.113.31')).statusCode, (await signIn('203.0.113.32')).statusCode]).toEqual([
      403, 403, 403,
    ]);
    expect([(await signIn('203.0.113.30')).statusCode, (await signIn('203.0.113.30')).statusCode]).toEqual([403, 429]);

    const script = (forwardedFor: string) =>
      app.inject({ method: 'GET', url: '/t.js', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': forwardedFor } });
    expect([(await script('203.0.113.40')).statusCode, (await script('203.0.113.41')).statusCode, (await script('203.0.113.42')).statusCode]).toEqual([
      200, 200, 200,
    ]);
    expect([(await script('203.0.113.40')).statusCode, (await script('203.0.113.40')).statusCode]).toEqual([200, 429]);
  });

  it('logs the client’s address as the limits count it', async () => {
    const lines: string[] = [];
    const app = await appTrusting({ addresses: ['10.0.0.0/8'] }, lines);
    await anonymous(app, '10.0.0.1', '203.0.113.50');
    const incoming = lines.map((line) => JSON.parse(line)).find((entry) => entry.req);
    expect(incoming.req.remoteAddress).toBe('203.0.113.50');
  });
});
