import { sql } from 'kysely';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliWriter } from '../../src/core/writer.ts';

const FORBIDDEN = { status: 'forbidden' };

function decodePart(token: string, index: number): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe.each(ENGINES)('authentication and scopes (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
  });
  afterAll(() => t.close());

  async function expectForbidden(headers: Record<string, string>, url = '/api/v2/providers') {
    const response = await t.app.inject({ method: 'GET', url, headers });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject(FORBIDDEN);
    return response.json() as { reason: string };
  }

  it('accepts a valid token', async () => {
    expect((await t.get('/api/v2/providers')).statusCode).toBe(200);
  });

  it('refuses a request without a token', async () => {
    const body = await expectForbidden({});
    expect(body.reason).toMatch(/bearer token is required/);
  });

  it('refuses an Authorization header of another scheme', async () => {
    await expectForbidden({ authorization: `Basic ${t.token}` });
  });

  it('refuses a garbage token', async () => {
    const body = await expectForbidden({ authorization: 'Bearer not-a-jwt' });
    expect(body.reason).toMatch(/malformed/);
  });

  it('refuses a token signed with another key', async () => {
    const claims = decodePart(t.token, 1);
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode('another secret that is long enough to be a key'));
    const body = await expectForbidden({ authorization: `Bearer ${forged}` });
    expect(body.reason).toMatch(/signature/);
  });

  it('refuses an unsigned token (alg: none)', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = t.token.split('.')[1]!;
    await expectForbidden({ authorization: `Bearer ${header}.${payload}.` });
  });

  it('refuses a token whose signature is not in canonical base64url', async () => {
    const [header, payload, signature] = t.token.split('.') as [string, string, string];
    const body = await expectForbidden({ authorization: `Bearer ${header}.${payload}.${signature}=` });
    expect(body.reason).toMatch(/malformed/);
    // The last character of a 32-byte signature carries two unused bits: another letter decodes the same.
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    expect(Buffer.from(signature.slice(0, -1) + sibling, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    await expectForbidden({ authorization: `Bearer ${header}.${payload}.${signature.slice(0, -1)}${sibling}` });
    await expectForbidden({ authorization: `Bearer ${header}=.${payload}.${signature}` });
    expect((await t.get('/api/v2/providers')).statusCode).toBe(200);
  });

  it('refuses a token whose claims were altered', async () => {
    const [header, , signature] = t.token.split('.');
    const claims = { ...decodePart(t.token, 1), scope: 'read write admin prospector:read' };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    await expectForbidden({ authorization: `Bearer ${header}.${payload}.${signature}` });
  });

  it('refuses an expired token', async () => {
    const { token } = await t.services.tokens.issue(cliWriter(t.communityId), { expiresInSeconds: 60 });
    expect((await t.get('/api/v2/providers', token)).statusCode).toBe(200);
    clock.advance(61_000);
    try {
      const body = await expectForbidden({ authorization: `Bearer ${token}` });
      expect(body.reason).toMatch(/expired/);
    } finally {
      clock.set(new Date());
    }
  });

  it('refuses a revoked token at once', async () => {
    const { token, jti } = await t.services.tokens.issue(cliWriter(t.communityId), {});
    expect((await t.get('/api/v2/providers', token)).statusCode).toBe(200);
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/api/v2/admin/tokens/${jti}`,
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(revoke.statusCode).toBe(200);
    expect(revoke.json().data).toMatchObject({ jti, revokedAt: expect.any(String) });
    const body = await expectForbidden({ authorization: `Bearer ${token}` });
    expect(body.reason).toMatch(/revoked/);
  });

  it('refuses a token revoked behind its back (a plain UPDATE, announced as docs/scaling.md says) once the change is heard', async () => {
    const { token, jti } = await t.services.tokens.issue(cliWriter(t.communityId), {});
    // Read and kept in memory by the guard.
    expect((await t.get('/api/v2/providers', token)).statusCode).toBe(200);
    expect((await t.get('/api/v2/providers', token)).statusCode).toBe(200);
    await t.services.db.transaction().execute(async (trx) => {
      await trx.updateTable('api_tokens').set({ revoked_at: new Date() }).where('jti', '=', jti).execute();
      await sql`select pg_notify('hearth_tokens_changed', ${jti})`.execute(trx);
    });
    // The notification travels on its own connection (PostgreSQL): it arrives within moments, never not at all.
    const deadline = Date.now() + 5_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await t.get('/api/v2/providers', token)).statusCode;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(403);
  });

  it('refuses a well-signed token that the database does not know', async () => {
    const { token, jti } = await t.services.tokens.issue(cliWriter(t.communityId), {});
    await t.services.db.deleteFrom('api_tokens').where('jti', '=', jti).execute();
    await expectForbidden({ authorization: `Bearer ${token}` });
  });

  it('refuses a token that lacks the scope', async () => {
    const token = await t.issueToken(['segments:read']);
    const body = await expectForbidden({ authorization: `Bearer ${token}` });
    expect(body.reason).toMatch(/contacts:read/);
  });

  it('answers 403 in the core family too, never 401', async () => {
    for (const headers of [{}, { authorization: 'Bearer nonsense' }]) {
      const response = await t.app.inject({ method: 'GET', url: '/community/v1/activityTypes', headers });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject(FORBIDDEN);
    }
  });

  it('lets the encompassing read scope stand for every :read scope', async () => {
    const token = await t.issueToken(['read']);
    expect((await t.get('/api/v2/providers', token)).statusCode).toBe(200);
    expect((await t.get('/api/v2/me', token)).statusCode).toBe(200);
    // read does not reach admin routes.
    expect((await t.get('/api/v2/admin/tokens', token)).statusCode).toBe(403);
  });

  it('does not let write stand for read', async () => {
    const token = await t.issueToken(['write']);
    expect((await t.get('/api/v2/providers', token)).statusCode).toBe(403);
  });

  it('accepts either scope where a route takes any of several', async () => {
    const pushOnly = await t.issueToken(['sources:write']);
    expect((await t.get('/community/v1/activityTypes', pushOnly)).statusCode).toBe(200);
    const other = await t.issueToken(['segments:read']);
    expect((await t.get('/community/v1/activityTypes', other)).statusCode).toBe(403);
  });

  it('gives tokens made without scopes read and write', async () => {
    const { token } = await t.services.tokens.issue(cliWriter(t.communityId), {});
    expect(decodePart(token, 1)).toMatchObject({ scope: 'read write', com: `com_${t.communityId}`, iss: 'hearth' });
    expect(decodePart(token, 0)).toMatchObject({ alg: 'HS256' });
  });

  it('creates tokens through the admin route, validating scopes', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v2/admin/tokens',
      headers: { authorization: `Bearer ${t.token}` },
      payload: { name: 'reader', scopes: ['contacts:read'] },
    });
    expect(created.statusCode).toBe(201);
    const { token } = created.json().data as { token: string };
    expect((await t.get('/api/v2/providers', token)).statusCode).toBe(200);
    expect((await t.get('/api/v2/admin/tokens', token)).statusCode).toBe(403);

    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v2/admin/tokens',
      headers: { authorization: `Bearer ${t.token}` },
      payload: { scopes: ['contacts:read', 'everything'] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_parameters');
  });

  it('needs no token for the public routes', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    }
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
  });
});
