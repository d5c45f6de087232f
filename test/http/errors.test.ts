import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

describe.each(ENGINES)('wire formats of errors (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.token}`, ...headers }, payload: payload as string });

  it('rejects unknown query parameters in the v2 format, naming each', async () => {
    const response = await t.get('/api/v2/providers?limit=5&foo=1&bar=2');
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('invalid_parameters');
    expect(body.error.message).toContain('unknown query parameter "foo"');
    expect(body.error.message).toContain('unknown query parameter "bar"');
  });

  it('rejects unknown query parameters on routes that take none', async () => {
    const response = await t.get('/api/v2/me?cols=name');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('"cols"');
  });

  it('rejects unknown query parameters in the core format', async () => {
    const response = await t.get('/community/v1/activityTypes?x=1');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      reason: 'invalid-request-parameters',
      docs: `${TEST_PUBLIC_URL}/docs`,
      detail: 'unknown query parameter "x"',
    });
  });

  it('says what is wrong with a query value', async () => {
    const response = await t.get('/api/v2/providers?limit=1001');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/limit.*1000/);
  });

  it('answers unknown routes with 404 in each family', async () => {
    const v2 = await t.get('/api/v2/nothing-here');
    expect(v2.statusCode).toBe(404);
    expect(v2.json()).toEqual({ success: false, error: { code: 'not_found', message: 'no route GET /api/v2/nothing-here' } });
    const core = await t.get('/community/v1/nothing-here');
    expect(core.statusCode).toBe(404);
    expect(core.json()).toEqual({ status: 'not-found', reason: 'no route GET /community/v1/nothing-here' });
  });

  it('rejects unknown body fields of a strict body, naming them', async () => {
    const response = await post('/api/v2/admin/sources', { name: 'Forum', colour: 'red' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toBe('unknown body field "colour"');
  });

  it('does not coerce body values', async () => {
    const response = await post('/api/v2/admin/tokens', { expiresInSeconds: '3600' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/expiresInSeconds.*integer/);
  });

  it('answers a body that is not JSON with a 400', async () => {
    const response = await post('/api/v2/admin/sources', '{"name": ', { 'content-type': 'application/json' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
  });

  it('answers a conflict with 409', async () => {
    expect((await post('/api/v2/admin/sources', { name: 'Discourse' })).statusCode).toBe(201);
    const again = await post('/api/v2/admin/sources', { name: 'discourse' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ success: false, error: { code: 'conflict' } });
  });

  it("keeps a caller's request ID and makes one otherwise", async () => {
    const given = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe.each(ENGINES)('rate limits (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { rateLimit: { perToken: 3, perAddress: 2, windowSeconds: 3600 } });
  });
  afterAll(() => t.close());

  it('counts per token, with headers on every response and a 429 body when exhausted', async () => {
    const token = await t.issueToken();
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await t.get('/api/v2/providers', token);
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
      remaining.push(String(response.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const limited = await t.get('/api/v2/providers', token);
    expect(limited.statusCode).toBe(429);
    const reset = Number(limited.headers['x-ratelimit-reset']);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.json()).toEqual({
      reason: expect.stringMatching(/rate limit/),
      rateLimit: { intervalLimit: 3, intervalRemaining: 0, intervalResetSeconds: retryAfter, waitMs: retryAfter * 1000 },
    });
    // The core family answers the same way.
    expect((await t.get('/community/v1/activityTypes', token)).statusCode).toBe(429);

    // Another token has its own count.
    expect((await t.get('/api/v2/providers', await t.issueToken())).statusCode).toBe(200);
  });

  it('limits requests without a valid token per client address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await t.app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: '10.9.8.7' })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const other = await t.app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: '10.9.8.6' });
    expect(other.statusCode).toBe(200);
    // Bad tokens count against the address too, so guessing tokens is limited.
    const guessing = await t.app.inject({
      method: 'GET',
      url: '/api/v2/providers',
      remoteAddress: '10.9.8.7',
      headers: { authorization: 'Bearer guess' },
    });
    expect(guessing.statusCode).toBe(429);
  });

  it('never refuses the health probes, which carry the headers too', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '10.1.1.1' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBeDefined();
    }
  });
});

describe.each(ENGINES)('failures of the service itself (%s)', (engine) => {
  it('answers 500 in the family format without details, and readyz says 503', async () => {
    const t = await createTestApp(engine);
    const token = t.token;
    // Take the database away under the running app.
    await t.db.drop();
    const v2 = await t.get('/api/v2/providers', token);
    expect(v2.statusCode).toBe(500);
    expect(v2.json()).toEqual({ success: false, error: { code: 'internal_server_error', message: 'internal server error' } });
    const core = await t.get('/community/v1/activityTypes', token);
    expect(core.statusCode).toBe(500);
    expect(core.json()).toEqual({ status: 'error', reason: 'internal-server-error' });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    await t.app.close();
  });
});

describe.each(ENGINES)('the NUL character (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('is refused wherever it appears, naming where, never a 500', async () => {
    const push = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/user`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: { id: 'nul', fullName: 'Ada\u0000Lovelace', tags: [{ type: 'name', name: 'ok' }] },
    });
    expect(push.statusCode).toBe(400);
    expect(push.json()).toMatchObject({ reason: 'invalid-request-body', detail: expect.stringContaining('"fullName"') });
    const nested = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/activity`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: { id: 'a', activityType: 'tweet', user: { id: 'u', github: { type: 'handle', value: 'x\u0000' } } },
    });
    expect(nested.json()).toMatchObject({ detail: expect.stringContaining('"user.github.value"') });
    const query = await t.get('/community/v1/members?email=a%00b%40example.org');
    expect(query.statusCode).toBe(400);
    const path = await t.get('/community/v1/user/a%00b%40example.org');
    expect(path.statusCode).toBe(400);
    const v2 = await t.get('/api/v2/contacts/c_1%00');
    expect(v2.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
  });
});
