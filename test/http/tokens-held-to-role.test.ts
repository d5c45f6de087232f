import { sql } from 'kysely';
import fs from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Session {
  cookie: string;
  csrf: string;
}

/**
 * A token made through the API is held to the role of the user it was made for: demoting the user takes
 * from it what the new role lacks, removing the user revokes it. Tokens the operator made at the command
 * line are not held. Through HTTP, on both engines.
 */
describe.each(ENGINES)('tokens held to their user’s role (%s)', (engine) => {
  let t: TestApp;

  const opened = (response: LightMyRequestResponse): Session => {
    expect(response.statusCode, response.body).toBe(201);
    return { cookie: String(response.headers['set-cookie']).split(';')[0]!, csrf: response.json().data.csrfToken };
  };
  const signIn = async (email: string, password: string) =>
    opened(await t.app.inject({ method: 'POST', url: '/api/v2/session', payload: { email, password } }));
  const write = (method: 'POST' | 'PATCH' | 'DELETE', url: string, s: Session, payload?: object) =>
    t.app.inject({
      method,
      url,
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });
  /** A new admin who signs in with a password, and their session. */
  async function newAdmin(name: string, email: string): Promise<{ id: string; session: Session }> {
    const added = await t.send('POST', '/api/v2/admin/users', { name, loginEmail: email, role: 'admin', password: 'a long password 1' });
    expect(added.statusCode, added.body).toBe(201);
    return { id: added.json().data.user.id, session: await signIn(email, 'a long password 1') };
  }
  async function tokenMadeBy(s: Session, name: string, scopes: string[]): Promise<{ token: string; jti: string }> {
    const made = await write('POST', '/api/v2/admin/tokens', s, { name, scopes });
    expect(made.statusCode, made.body).toBe(201);
    return made.json().data;
  }
  const scopesOf = async (jti: string) =>
    ((await t.get('/api/v2/admin/tokens')).json().data as { jti: string; scopes: string[]; revokedAt: string | null }[]).find((row) => row.jti === jti)!;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t?.close());

  it('takes from a demoted admin’s tokens the admin scope, revokes those left with nothing, and says so in the answer', async () => {
    const ada = await newAdmin('Ada', 'ada@example.org');
    const both = await tokenMadeBy(ada.session, 'both', ['read', 'admin']);
    const adminOnly = await tokenMadeBy(ada.session, 'admin only', ['admin']);
    const reader = await tokenMadeBy(ada.session, 'reader', ['contacts:read']);
    expect((await t.get('/api/v2/admin/tokens', both.token)).statusCode).toBe(200);

    const demoted = await t.send('PATCH', `/api/v2/admin/users/${ada.id}`, { role: 'member' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    // The answer's fields are what they were; the warnings name each token changed, and only those.
    expect(demoted.json().data).toMatchObject({ id: ada.id, role: 'member', loginEmail: 'ada@example.org' });
    const warnings = demoted.json().warnings as string[];
    expect(warnings).toHaveLength(2);
    expect(warnings.find((warning) => warning.includes(both.jti))).toContain('lost the scope admin');
    expect(warnings.find((warning) => warning.includes(adminOnly.jti))).toContain('was revoked');

    // At once: the admin routes are refused, reads still work.
    const refused = await t.get('/api/v2/admin/tokens', both.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().reason).toContain('lacks the scope');
    expect((await t.get('/api/v2/contacts?limit=1', both.token)).statusCode).toBe(200);
    expect((await t.get('/api/v2/contacts?limit=1', adminOnly.token)).json().reason).toBe('token has been revoked');
    expect((await t.get('/api/v2/contacts?limit=1', reader.token)).statusCode).toBe(200);
    expect(await scopesOf(both.jti)).toMatchObject({ scopes: ['read'], revokedAt: null });
    expect(await scopesOf(reader.jti)).toMatchObject({ scopes: ['contacts:read'], revokedAt: null });

    // Made an admin again, she gets her session's admin scope back, not the token's: it was taken for good.
    const promoted = await t.send('PATCH', `/api/v2/admin/users/${ada.id}`, { role: 'admin' });
    expect(promoted.json().warnings).toBeUndefined();
    expect((await t.get('/api/v2/admin/tokens', both.token)).statusCode).toBe(403);

    // The audit log records each change to a token with the admin's demotion.
    const audit = (await t.get('/api/v2/admin/audit-log?limit=10')).json().data as { operation: string; entityIds: string[] }[];
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operation: 'token.update', entityIds: [both.jti] }),
        expect.objectContaining({ operation: 'token.revoke', entityIds: [adminOnly.jti] }),
      ]),
    );
  });

  it('revokes the tokens of a removed user, and those made with a token of theirs', async () => {
    const bo = await newAdmin('Bo', 'bo@example.org');
    const first = await tokenMadeBy(bo.session, 'bo’s', ['read', 'write', 'admin']);
    // A token made with Bo's token is Bo's too.
    const second = await t.send('POST', '/api/v2/admin/tokens', { name: 'made by bo’s token', scopes: ['read'] }, first.token);
    expect(second.statusCode, second.body).toBe(201);
    expect((await t.get('/api/v2/me', second.json().data.token)).json().data.loginEmail).toBe('bo@example.org');

    const removed = await t.send('DELETE', `/api/v2/admin/users/${bo.id}`, undefined);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json().data).toMatchObject({ id: bo.id, loginEmail: 'bo@example.org' });
    expect(removed.json().warnings).toHaveLength(2);
    for (const token of [first.token, second.json().data.token as string]) {
      const refused = await t.get('/api/v2/contacts?limit=1', token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().reason).toBe('token has been revoked');
    }
  });

  it('leaves the operator’s command-line tokens alone: their user is only who /me names', async () => {
    // t.token and issueToken's are made as `hearth token create` makes them: for the community's first admin.
    const operatorToken = await t.issueToken(['read', 'admin']);
    const firstAdmin = ((await t.get('/api/v2/admin/users')).json().data as { id: string; loginEmail: string }[]).find(
      (user) => user.loginEmail === 'admin@hearth.local',
    )!;
    expect((await t.get('/api/v2/me', operatorToken)).json().data.loginEmail).toBe('admin@hearth.local');
    const cy = await newAdmin('Cy', 'cy@example.org');

    const demoted = await write('PATCH', `/api/v2/admin/users/${firstAdmin.id}`, cy.session, { role: 'member' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect(demoted.json().warnings).toBeUndefined();
    expect((await t.get('/api/v2/admin/tokens', operatorToken)).statusCode).toBe(200);

    const removed = await write('DELETE', `/api/v2/admin/users/${firstAdmin.id}`, cy.session);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json().warnings).toBeUndefined();
    expect((await t.get('/api/v2/admin/tokens', operatorToken)).statusCode).toBe(200);
    expect((await t.get('/api/v2/admin/tokens')).statusCode).toBe(200);
    // Tied to no one now, as before.
    expect((await t.get('/api/v2/me', operatorToken)).statusCode).toBe(404);
  });

  it('holds a token to its user’s role as it is, even when the role was changed by hand or raced the token', async () => {
    const di = await newAdmin('Di', 'di@example.org');
    const made = await tokenMadeBy(di.session, 'di’s', ['read', 'admin']);
    const id = Number(di.id.slice(2));
    // What a token made while its user was being demoted would hold: the admin scope, for a member.
    await t.services.db.updateTable('app_users').set({ role: 'member' }).where('community_id', '=', t.communityId).where('id', '=', id).execute();
    // A change by hand announces itself as Hearth's writers do (docs/scaling.md, "Notifications").
    const announce = () => sql`select pg_notify('hearth_tokens_changed', ${made.jti})`.execute(t.services.db);
    await announce();
    await expect.poll(async () => (await t.get('/api/v2/admin/tokens', made.token)).statusCode).toBe(403);
    expect((await t.get('/api/v2/contacts?limit=1', made.token)).statusCode).toBe(200);
    // A user deleted by hand: the token's user is gone, and so is the token.
    await t.services.db.deleteFrom('app_users').where('community_id', '=', t.communityId).where('id', '=', id).execute();
    await announce();
    await expect
      .poll(async () => (await t.get('/api/v2/contacts?limit=1', made.token)).json().reason)
      .toBe('the user this token was made for has been removed');
  });

  it('migration 0033 holds the API-made tokens of existing users, and not the command line’s', async () => {
    const ed = await newAdmin('Ed', 'ed@example.org');
    const viaApi = await tokenMadeBy(ed.session, 'api', ['read']);
    const pruned = await tokenMadeBy(ed.session, 'entry pruned', ['read']);
    const operator = await t.issueToken(['read']);
    const operatorJti = JSON.parse(Buffer.from(operator.split('.')[1]!, 'base64url').toString()).jti as string;
    const db = t.services.db;
    await db
      .deleteFrom('audit_log')
      .where('operation', '=', 'token.create')
      .where(sql<boolean>`entity_ids[1] = ${pruned.jti}`)
      .execute();
    await sql`alter table api_tokens drop column held_to_role`.execute(db);
    await sql.raw(fs.readFileSync(new URL('../../src/db/migrations/0033_tokens_held_to_role.sql', import.meta.url), 'utf8')).execute(db);
    const held = Object.fromEntries(
      (await db.selectFrom('api_tokens').select(['jti', 'held_to_role']).where('community_id', '=', t.communityId).execute()).map((row) => [
        row.jti,
        row.held_to_role,
      ]),
    );
    expect(held[viaApi.jti]).toBe(true);
    expect(held[pruned.jti]).toBe(true);
    expect(held[operatorJti]).toBe(false);
  });
});
