import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from '../../src/http/raw-input.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** Inputs a hostile or merely unusual client sends: each answers a documented 4xx, never a 500. */
describe.each(ENGINES)('hardening against odd input (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const send = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${t.token}`, ...headers }, payload: payload as string });

  describe('token lifetime', () => {
    it.each([1e30, 9e15, 315_360_001])('refuses expiresInSeconds %d with a 400 naming the ten-year limit', async (seconds) => {
      const response = await send('POST', '/api/v2/admin/tokens', { expiresInSeconds: seconds });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
      expect(response.json().error.message).toMatch(/expiresInSeconds.*315360000/);
    });

    it('issues a token of exactly ten years', async () => {
      const response = await send('POST', '/api/v2/admin/tokens', { expiresInSeconds: 315_360_000 });
      expect(response.statusCode).toBe(201);
    });

    it('refuses the same lifetimes in the service, which the CLI calls', async () => {
      await expect(t.services.tokens.issue(cliWriter(t.communityId), { expiresInSeconds: 9e15 })).rejects.toMatchObject({
        kind: 'invalid',
        message: expect.stringMatching(/ten years/),
      });
    });
  });

  describe('deeply nested JSON', () => {
    const nested = (levels: number, open = '{"a":', close = '}') => `${open.repeat(levels)}1${close.repeat(levels)}`;

    it.each([
      ['POST', '/api/v2/contacts/bulk-update'],
      ['POST', '/api/v2/segments'],
      ['POST', '/community/v1/source/1/user'],
      ['POST', '/community/v1/tags'],
      ['POST', '/api/v2/admin/objects'],
    ] as const)('answers %s %s with 10,000 levels by a 400 naming the limit', async (method, url) => {
      const response = await send(method, url, nested(10_000), { 'content-type': 'application/json' });
      expect(response.statusCode).toBe(400);
      const body = response.json();
      const message = url.startsWith('/community') ? body.detail : body.error.message;
      expect(message).toMatch(/nested deeper than 64 levels/);
      if (url.startsWith('/community')) expect(body).toMatchObject({ reason: 'invalid-request-body' });
      else expect(body).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
    });

    it('refuses deep arrays in a custom field value of the object admin upsert', async () => {
      const type = await send('POST', '/api/v2/admin/object-types', { name: 'Deep' });
      expect(type.statusCode, type.body).toBe(201);
      const payload = `{"objectTypeId":"${type.json().data.id}","records":[{"recordKey":"k","name":"n","customFields":{"x":${nested(6_000, '[', ']')}}}]}`;
      const response = await send('POST', '/api/v2/admin/objects', payload, { 'content-type': 'application/json' });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toMatch(/nested deeper than 64 levels/);
    });

    it('accepts ordinary nesting, and brackets inside strings do not count', async () => {
      expect(jsonDepthExceeds(nested(64), 64)).toBe(false);
      expect(jsonDepthExceeds(nested(65), 64)).toBe(true);
      expect(jsonDepthExceeds(`{"a":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}`, 64)).toBe(false);
      expect(jsonDepthExceeds(`["\\\\",${nested(70, '[', ']')}]`, 64)).toBe(true);
    });
  });

  describe('an empty body with a JSON content type is no body', () => {
    it.each([
      ['DELETE', '/community/v1/tags/l_987654'],
      ['DELETE', '/community/v1/user/nobody%40example.org'],
      ['GET', '/api/v2/providers'],
    ] as const)('%s %s', async (method, url) => {
      const response = await send(method, url, '', { 'content-type': 'application/json' });
      expect(response.statusCode, response.body).toBeLessThan(500);
      expect(response.body).not.toMatch(/Body cannot be empty/);
      expect([200, 404]).toContain(response.statusCode);
    });

    it('a route that needs a body says so in its own shape', async () => {
      const v2 = await send('POST', '/api/v2/segments', '', { 'content-type': 'application/json' });
      expect(v2.statusCode).toBe(400);
      expect(v2.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
      const core = await send('POST', '/community/v1/tags', '', { 'content-type': 'application/json' });
      expect(core.statusCode).toBe(400);
      expect(core.json()).toMatchObject({ reason: 'invalid-request-body' });
    });
  });

  describe('errors Node and the router would answer in their own words', () => {
    it('a path ID of 1,000 characters is a malformed ID, not a 414', async () => {
      const response = await send('GET', `/api/v2/contacts/c_${'9'.repeat(1000)}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_contact_id' } });
      const core = await send('DELETE', `/community/v1/user/${'a'.repeat(1000)}%40example.org`);
      expect(core.statusCode).toBe(400);
      expect(core.json()).toEqual({ reason: expect.any(String), docs: expect.any(String), detail: expect.any(String) });
    });

    it("headers over the limit answer 431 in the family's shape, over a real socket", async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const { port } = t.app.server.address() as AddressInfo;
        const request = (path: string) =>
          new Promise<{ status: number; type: string; nosniff: unknown; body: string }>((resolve, reject) => {
            const req = http.request({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${t.token}` } }, (res) => {
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (body += chunk));
              res.on('end', () =>
                resolve({ status: res.statusCode!, type: String(res.headers['content-type']), nosniff: res.headers['x-content-type-options'], body }),
              );
            });
            req.on('error', reject);
            req.end();
          });
        const huge = encodeURIComponent(JSON.stringify({ type: 'stringFilter', field: 'fullName', params: { op: 'like', value: 'x'.repeat(300_000) } }));
        const refused = await request(`/api/v2/contacts?lightFilter=${huge}`);
        expect(refused.status).toBe(431);
        expect(refused.type).toMatch(/application\/json/);
        expect(refused.nosniff).toBe('nosniff');
        expect(JSON.parse(refused.body)).toEqual({ success: false, error: { code: 'request_header_too_large', message: expect.stringMatching(/256 KB/) } });
        // Far above Node's default of 16 KB, a long request reaches its route, which answers in its family's words.
        const long = encodeURIComponent(
          JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'fullName', params: { op: 'like', value: 'x'.repeat(40_000) } }] }),
        );
        const answered = await request(`/api/v2/contacts?lightFilter=${long}`);
        expect(answered.status, answered.body).toBe(200);
        expect(JSON.parse(answered.body)).toMatchObject({ success: true, data: [] });
        const core = await request(`/community/v1/members?email=${'x'.repeat(70_000)}%40example.org`);
        expect(core.status).toBe(400);
        expect(JSON.parse(core.body)).toEqual({ reason: expect.any(String), docs: expect.any(String), detail: expect.any(String) });
      } finally {
        await t.app.close();
      }
    });
  });
});

/** Headers every answer carries, added to what clients already read (nothing they rely on changes). */
describe.each(ENGINES)('what answers tell browsers and caches (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const bearer = () => ({ authorization: `Bearer ${t.token}` });

  it('says nosniff on every JSON answer, errors of both families included', async () => {
    for (const [method, url, headers, status] of [
      ['GET', '/api/v2/me', bearer(), 200],
      ['GET', '/api/v2/contacts/nonsense', bearer(), 400],
      ['GET', '/api/v2/contacts', {}, 403],
      ['GET', '/community/v1/members?github=x', { authorization: 'Bearer not-a-token' }, 403],
      ['GET', '/no/such/route', {}, 404],
      ['POST', `/community/v1/source/${t.sourceId}/user`, bearer(), 400],
      ['GET', '/healthz', {}, 200],
      ['GET', '/openapi.json', {}, 200],
    ] as const) {
      const response = await inject(method, url, headers, method === 'POST' ? {} : undefined);
      expect(response.statusCode, url).toBe(status);
      expect(response.headers['content-type'], url).toMatch(/^application\/json/);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('keeps no authenticated answer in any cache, and leaves public ones as they were', async () => {
    const member = await t.issueToken(['read']);
    for (const [method, url, headers] of [
      ['GET', '/api/v2/me', bearer()],
      ['GET', '/api/v2/contacts?limit=1', { authorization: `Bearer ${member}` }],
      ['GET', '/metrics', bearer()],
      // A route that needs a token says so on its refusals too.
      ['GET', '/api/v2/contacts', {}],
      ['POST', '/api/v2/segments', bearer()],
    ] as const) {
      const response = await inject(method, url, headers, method === 'POST' ? { name: 'Cached nowhere' } : undefined);
      expect(response.headers['cache-control'], `${method} ${url}`).toBe('no-store');
    }
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/no/such/route']) {
      expect((await inject('GET', url)).headers['cache-control'], url).toBeUndefined();
    }
    // The tracker's script keeps its own caching: every visitor's browser may keep it.
    expect((await inject('GET', '/t.js')).headers['cache-control']).toMatch(/max-age/);
  });
});

describe.each(ENGINES)('rate limits under concurrency, and on the probes (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { rateLimit: { perToken: 100, perAddress: 2 } });
  });
  afterAll(() => t.close());

  it('lets exactly the limit through when requests arrive at once', async () => {
    const token = await t.issueToken(['read']);
    const responses = await Promise.all(Array.from({ length: 160 }, () => t.get('/api/v2/providers', token)));
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(60);
  });

  it('puts the headers on /healthz and /readyz, counted per address, and never refuses a probe', async () => {
    for (const url of ['/healthz', '/readyz']) {
      const remaining: number[] = [];
      for (let i = 0; i < 25; i++) {
        const response = await t.get(url, null);
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['x-ratelimit-limit'], url).toBe('20');
        remaining.push(Number(response.headers['x-ratelimit-remaining']));
      }
      // Both probes count against one allowance per address (ten times the per-address limit).
      expect(remaining.slice(0, 3)).toEqual(url === '/healthz' ? [19, 18, 17] : [0, 0, 0]);
      expect(remaining.at(-1)).toBe(0);
    }
  });

  it('puts them on the documentation too', async () => {
    const response = await t.get('/openapi.json', null);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe('2');
    expect(response.headers['x-ratelimit-remaining']).toBeDefined();
  });
});
