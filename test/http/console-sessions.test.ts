import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { ManualClock } from '../../src/clock.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Session {
  cookie: string;
  csrf: string;
}

function cookieOf(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie'];
  const value = String(Array.isArray(header) ? header[0] : header);
  return value.split(';')[0]!;
}

/** The web console: sign-in, sessions in cookies, CSRF and roles, through HTTP on both engines. */
describe.each(ENGINES)('console sign-in and sessions (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));

  const signIn = (payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/v2/session', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });

  async function session(email: string, password: string): Promise<Session> {
    const response = await signIn({ email, password });
    expect(response.statusCode, response.body).toBe(201);
    return { cookie: cookieOf(response), csrf: response.json().data.csrfToken };
  }

  const get = (url: string, s: Session) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
  const write = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, s: Session, payload?: object, headers: Record<string, string> = {}) =>
    t.app.inject({
      method,
      url,
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    const admin = (await t.services.appUsers.list(t.communityId)).find((user) => user.role === 'admin')!;
    const link = await t.services.appUsers.firstRunLink(t.communityId, admin.id);
    const opened = await t.app.inject({ method: 'POST', url: '/api/v2/session/link', payload: { link: link.url } });
    expect(opened.statusCode, opened.body).toBe(201);
    const first: Session = { cookie: cookieOf(opened), csrf: opened.json().data.csrfToken };
    expect(opened.json().data).toMatchObject({ passwordRequired: true, user: { role: 'admin', loginEmail: 'admin@hearth.local' } });
    // The link's session sets the first password without an old one.
    const set = await write('PUT', '/api/v2/session/password', first, { newPassword: 'correct horse battery' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.hasPassword).toBe(true);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('signs in with a password: an HttpOnly, SameSite=Lax cookie whose secret is stored only hashed', async () => {
    const response = await signIn({ email: 'ADMIN@hearth.local', password: 'correct horse battery' });
    expect(response.statusCode, response.body).toBe(201);
    const header = String(response.headers['set-cookie']);
    expect(header).toMatch(/^hearth_session=\d+\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    expect(header).not.toContain('Secure'); // the test's public URL is http
    const secret = cookieOf(response).split('.')[1]!;
    const rows = await t.services.db.selectFrom('app_sessions').select('secret_hash').execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((row) => row.secret_hash).join(' ')).not.toContain(secret);
    const stored = await t.services.db
      .selectFrom('app_users')
      .select('password_hash')
      .where('login_email', '=', 'admin@hearth.local')
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a wrong password or an unknown address alike, and a malformed body with a 400 naming it', async () => {
    for (const payload of [
      { email: 'admin@hearth.local', password: 'wrong password!' },
      { email: 'nobody@hearth.local', password: 'correct horse battery' },
    ]) {
      const response = await signIn(payload);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ status: 'forbidden', reason: 'the email address or the password is wrong' });
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    const bad = await signIn({ email: 'admin@hearth.local' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('password');
  });

  it('authenticates the API with the session, with the scopes of the role, and without a token', async () => {
    const s = await session('admin@hearth.local', 'correct horse battery');
    const me = await get('/api/v2/session', s);
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().data).toMatchObject({ user: { loginEmail: 'admin@hearth.local', role: 'admin' }, scopes: ['read', 'write', 'admin'], csrfToken: s.csrf });
    expect((await get('/api/v2/contacts?limit=1', s)).statusCode).toBe(200);
    expect((await get('/api/v2/admin/tokens', s)).statusCode).toBe(200);
    // A bearer token still works as before, and the session routes say they need a session.
    expect((await t.get('/api/v2/contacts?limit=1')).statusCode).toBe(200);
    const bearer = await t.get('/api/v2/session');
    expect(bearer.statusCode).toBe(400);
    expect(bearer.json().error.code).toBe('session_required');
    // No cookie, or a forged one: refused.
    expect((await t.get('/api/v2/contacts', null)).statusCode).toBe(403);
    const forged = await get('/api/v2/contacts', { cookie: `hearth_session=${t.communityId}.${'A'.repeat(43)}`, csrf: '' });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().reason).toContain('session has ended');
  });

  it('refuses a write with the session but without its CSRF token, with a wrong one, or from another origin', async () => {
    const s = await session('admin@hearth.local', 'correct horse battery');
    const body = { name: 'Champions' };
    const attempts: Record<string, string>[] = [{ 'x-csrf-token': '' }, { 'x-csrf-token': 'x'.repeat(43) }, { origin: 'https://evil.example' }];
    for (const headers of attempts) {
      const refused = await write('POST', '/api/v2/segments', s, body, headers);
      expect(refused.statusCode, JSON.stringify(headers)).toBe(403);
      expect(refused.json().status).toBe('forbidden');
    }
    const other = await session('admin@hearth.local', 'correct horse battery');
    expect((await write('POST', '/api/v2/segments', { cookie: s.cookie, csrf: other.csrf }, body)).statusCode).toBe(403);
    const made = await write('POST', '/api/v2/segments', s, body, { origin: new URL(TEST_PUBLIC_URL).origin });
    expect(made.statusCode, made.body).toBe(201);
    // The write is recorded as the user's, with the session in place of a token.
    const entry = (await get('/api/v2/admin/audit-log?limit=1', s)).json().data[0];
    expect(entry).toMatchObject({ actor: 'user:admin@hearth.local', operation: 'segment.create' });
    expect(entry.tokenId).toMatch(/^session:\d+$/);
    // A sign-in posted by another site's page is refused (login CSRF).
    const cross = await signIn({ email: 'admin@hearth.local', password: 'correct horse battery' }, { origin: 'https://evil.example' });
    expect(cross.statusCode).toBe(403);
    expect(cross.json().reason).toContain('sign in on http://hearth.test');
  });

  it('gives members reads and writes but not tokens, users or sources', async () => {
    const admin = await session('admin@hearth.local', 'correct horse battery');
    const added = await write('POST', '/api/v2/admin/users', admin, { name: 'Mia Member', loginEmail: 'mia@example.org', password: 'member password 1' });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().data).toMatchObject({
      user: { role: 'member', hasPassword: true, name: 'Mia Member' },
      signInLink: { url: expect.stringMatching(/^http:\/\/hearth\.test\/sign-in#link=/) },
    });
    const mia = await session('mia@example.org', 'member password 1');
    expect((await get('/api/v2/session', mia)).json().data.scopes).toEqual(['read', 'write']);
    expect((await get('/api/v2/contacts', mia)).statusCode).toBe(200);
    expect((await write('POST', '/api/v2/segments', mia, { name: 'Mia’s' })).statusCode).toBe(201);
    for (const [method, url, payload] of [
      ['GET', '/api/v2/admin/tokens', undefined],
      ['POST', '/api/v2/admin/tokens', { name: 'mine' }],
      ['GET', '/api/v2/admin/users', undefined],
      ['POST', '/api/v2/admin/users', { name: 'X', loginEmail: 'x@example.org' }],
      ['POST', '/api/v2/admin/sources', { name: 'Forum' }],
    ] as const) {
      const refused = method === 'GET' ? await get(url, mia) : await write(method, url, mia, payload);
      expect(refused.statusCode, `${method} ${url}`).toBe(403);
      expect(refused.json().reason).toContain('role lacks the scope');
    }
    // An admin makes her an admin; her next request has the admin scope.
    const promoted = await write('PATCH', `/api/v2/admin/users/${added.json().data.user.id}`, admin, { role: 'admin' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect((await get('/api/v2/admin/tokens', mia)).statusCode).toBe(200);
    // Removing her ends her sessions at once.
    expect((await write('DELETE', `/api/v2/admin/users/${added.json().data.user.id}`, admin)).statusCode).toBe(200);
    expect((await get('/api/v2/contacts', mia)).statusCode).toBe(403);
  });

  it('keeps the last admin, and refuses a duplicate address or a short password with a 4xx naming it', async () => {
    const admin = await session('admin@hearth.local', 'correct horse battery');
    const me = (await get('/api/v2/session', admin)).json().data.user.id;
    const demote = await write('PATCH', `/api/v2/admin/users/${me}`, admin, { role: 'member' });
    expect(demote.statusCode).toBe(409);
    expect(demote.json().error.code).toBe('last_admin');
    expect((await write('DELETE', `/api/v2/admin/users/${me}`, admin)).statusCode).toBe(409);
    const duplicate = await write('POST', '/api/v2/admin/users', admin, { name: 'Again', loginEmail: 'Admin@Hearth.local' });
    expect(duplicate.statusCode).toBe(409);
    const short = await write('POST', '/api/v2/admin/users', admin, { name: 'Short', loginEmail: 'short@example.org', password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.message).toContain('at least 10 characters');
    expect((await write('PATCH', '/api/v2/admin/users/nope', admin, { role: 'admin' })).statusCode).toBe(400);
    expect((await write('PATCH', '/api/v2/admin/users/u_999999', admin, { role: 'admin' })).statusCode).toBe(404);
  });

  it('uses a sign-in link once, asks the current password otherwise, and ends sessions on sign-out and expiry', async () => {
    const admin = await session('admin@hearth.local', 'correct horse battery');
    const added = (await write('POST', '/api/v2/admin/users', admin, { name: 'Lin', loginEmail: 'lin@example.org' })).json().data;
    expect(added.user.hasPassword).toBe(false);
    const first = await t.app.inject({ method: 'POST', url: '/api/v2/session/link', payload: { link: added.signInLink.url } });
    expect(first.statusCode).toBe(201);
    const again = await t.app.inject({ method: 'POST', url: '/api/v2/session/link', payload: { link: added.signInLink.url } });
    expect(again.statusCode).toBe(403);
    const lin: Session = { cookie: cookieOf(first), csrf: first.json().data.csrfToken };
    expect((await write('PUT', '/api/v2/session/password', lin, { newPassword: 'lin password 1' })).statusCode).toBe(200);
    const withPassword = await session('lin@example.org', 'lin password 1');
    const wrong = await write('PUT', '/api/v2/session/password', withPassword, { currentPassword: 'not it at all', newPassword: 'lin password 2' });
    expect(wrong.statusCode).toBe(403);
    expect(
      (await write('PUT', '/api/v2/session/password', withPassword, { currentPassword: 'lin password 1', newPassword: 'lin password 2' })).statusCode,
    ).toBe(200);
    // The change ended her other session (the link's).
    expect((await get('/api/v2/contacts', lin)).statusCode).toBe(403);
    const out = await write('DELETE', '/api/v2/session', withPassword);
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await get('/api/v2/contacts', withPassword)).statusCode).toBe(403);
    // A session lasts a week.
    const later = await session('lin@example.org', 'lin password 2');
    clock.advance(7 * 24 * 3600 * 1000 + 1000);
    expect((await get('/api/v2/contacts', later)).statusCode).toBe(403);
    const link = await t.services.appUsers.issueLink(cliWriter(t.communityId), Number(added.user.id.slice(2)));
    clock.advance(24 * 3600 * 1000 + 1000);
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/session/link', payload: { link: link.url } })).statusCode).toBe(403);
  });

  it('keeps a session to its community; an address in several communities names one', async () => {
    const other = await t.services.communities.create('Other', 'test');
    const otherAdmin = (await t.services.appUsers.list(other.communityId)).find((user) => user.role === 'admin')!;
    const link = await t.services.appUsers.firstRunLink(other.communityId, otherAdmin.id);
    const opened = await t.app.inject({ method: 'POST', url: '/api/v2/session/link', payload: { link: link.url } });
    const first: Session = { cookie: cookieOf(opened), csrf: opened.json().data.csrfToken };
    expect((await write('PUT', '/api/v2/session/password', first, { newPassword: 'correct horse battery' })).statusCode).toBe(200);
    // The same address and password in two communities: the sign-in must say which.
    const ambiguous = await signIn({ email: 'admin@hearth.local', password: 'correct horse battery' });
    expect(ambiguous.statusCode).toBe(400);
    expect(ambiguous.json().error.code).toBe('community_required');
    const chosen = await signIn({ email: 'admin@hearth.local', password: 'correct horse battery', community: `com_${other.communityId}` });
    expect(chosen.statusCode, chosen.body).toBe(201);
    const s: Session = { cookie: cookieOf(chosen), csrf: chosen.json().data.csrfToken };
    expect((await get('/api/v2/session', s)).json().data.communityId).toBe(`com_${other.communityId}`);
    const names = ((await get('/api/v2/contacts?limit=1000', s)).json().data as { name: string }[]).map((contact) => contact.name);
    expect(names).not.toContain('Mia Member');
    // Nothing of this community's either: its only contact is its admin's own, a console user's, not listed.
    expect((await get('/api/v2/contacts?limit=1000', s)).json().data).toEqual([]);
    // A cookie naming another community with this secret finds no session there.
    const moved = s.cookie.replace(/=\d+\./, `=${t.communityId}.`);
    expect((await get('/api/v2/contacts', { cookie: moved, csrf: '' })).statusCode).toBe(403);
  });
});
