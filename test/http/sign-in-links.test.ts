import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Session {
  cookie: string;
  csrf: string;
}

/**
 * One-time sign-in links and the password they let a session set, through HTTP on both engines: a link
 * voids the user's other links, replaces a signed-in browser's session only when asked to, and stands for
 * the current password once.
 */
describe.each(ENGINES)('sign-in links and passwords (%s)', (engine) => {
  let t: TestApp;

  const sessionOf = (response: LightMyRequestResponse): Session => {
    expect(response.statusCode, response.body).toBe(201);
    return { cookie: String(response.headers['set-cookie']).split(';')[0]!, csrf: response.json().data.csrfToken };
  };
  const useLink = (link: string, headers: Record<string, string> = {}, extra: object = {}) =>
    t.app.inject({ method: 'POST', url: '/api/v2/session/link', headers, payload: { link, ...extra } });
  const get = (url: string, s: Session) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
  const setPassword = (s: Session, body: object) =>
    t.app.inject({ method: 'PUT', url: '/api/v2/session/password', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf }, payload: body });
  async function addUser(email: string, password?: string): Promise<{ id: string; link: string }> {
    const added = await t.send('POST', '/api/v2/admin/users', { name: email.split('@')[0], loginEmail: email, ...(password ? { password } : {}) });
    expect(added.statusCode, added.body).toBe(201);
    return { id: added.json().data.user.id, link: added.json().data.signInLink.url };
  }
  const newLink = async (userId: string): Promise<string> => (await t.send('POST', `/api/v2/admin/users/${userId}/sign-in-link`, undefined)).json().data.url;
  /** A second live link of a user, as one made before links voided each other would be. */
  async function olderLiveLink(userId: string): Promise<string> {
    const secret = randomBytes(32).toString('base64url');
    await t.services.db
      .insertInto('app_sign_in_links')
      .values({
        community_id: t.communityId,
        user_id: Number(userId.slice(2)),
        secret_hash: createHash('sha256').update(secret).digest('base64url'),
        expires_at: new Date(Date.now() + 3600_000),
      })
      .execute();
    return `http://hearth.test/sign-in#link=${t.communityId}.${secret}`;
  }

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t?.close());

  it('voids a user’s older links when an admin makes a new one, and the others when one is used', async () => {
    const ann = await addUser('ann@example.org');
    const reset = await newLink(ann.id);
    const refused = await useLink(ann.link);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().reason).toContain('unknown, used or expired');
    const older = await olderLiveLink(ann.id);
    sessionOf(await useLink(reset));
    expect((await useLink(older)).statusCode).toBe(403);
    // The command line's reset voids them too.
    const viaCli = await t.services.appUsers.issueLink({ communityId: t.communityId, actor: 'cli:test', tokenId: null }, Number(ann.id.slice(2)));
    const latest = await newLink(ann.id);
    expect((await useLink(viaCli.url)).statusCode).toBe(403);
    sessionOf(await useLink(latest));
  });

  it('lets one of two links used at once sign in, and refuses the other without an error', async () => {
    const pairs = await Promise.all(
      ['bea', 'ben', 'bob', 'bud', 'bix', 'bim'].map(async (name) => {
        const user = await addUser(`${name}@example.org`);
        return [user.link, await olderLiveLink(user.id)];
      }),
    );
    const answers = await Promise.all(pairs.map((links) => Promise.all(links.map((link) => useLink(link)))));
    for (const pair of answers)
      expect(pair.map((answer) => `${answer.statusCode} ${answer.statusCode === 500 ? answer.body : ''}`.trim()).sort()).toEqual(['201', '403']);
  });

  it('asks the current password of a link’s session once it has set one, and lets a reset set one without it', async () => {
    const cal = await addUser('cal@example.org');
    const first = sessionOf(await useLink(cal.link));
    expect((await get('/api/v2/session', first)).json().data).toMatchObject({ passwordRequired: true, currentPasswordNeeded: false });
    expect((await setPassword(first, { newPassword: 'cal password 1' })).statusCode).toBe(200);
    expect((await get('/api/v2/session', first)).json().data).toMatchObject({ passwordRequired: false, currentPasswordNeeded: true });
    // The same session may not change it again without it.
    const again = await setPassword(first, { newPassword: 'cal password 2' });
    expect(again.statusCode).toBe(403);
    expect(again.json().reason).toContain('current password');
    expect((await setPassword(first, { currentPassword: 'not it at all', newPassword: 'cal password 2' })).statusCode).toBe(403);
    expect((await setPassword(first, { currentPassword: 'cal password 1', newPassword: 'cal password 2' })).statusCode).toBe(200);

    // A forgotten password: an admin's link lets a new session set one without the old, once.
    const reset = sessionOf(await useLink(await newLink(cal.id)));
    expect((await get('/api/v2/session', reset)).json().data).toMatchObject({ passwordRequired: false, currentPasswordNeeded: false });
    expect((await setPassword(reset, { newPassword: 'cal password 3' })).statusCode).toBe(200);
    expect((await setPassword(reset, { newPassword: 'cal password 4' })).statusCode).toBe(403);
    const signedIn = await t.app.inject({ method: 'POST', url: '/api/v2/session', payload: { email: 'cal@example.org', password: 'cal password 3' } });
    expect(signedIn.statusCode).toBe(201);
    expect(signedIn.json().data.currentPasswordNeeded).toBe(true);
  });

  it('does not replace a signed-in browser’s session by a link unless asked, and then ends the old one', async () => {
    await addUser('dee@example.org', 'dee password 1');
    const eve = await addUser('eve@example.org');
    const signedIn = await t.app.inject({ method: 'POST', url: '/api/v2/session', payload: { email: 'dee@example.org', password: 'dee password 1' } });
    const dees = sessionOf(signedIn);
    // Eve's link opened in Dee's browser: Dee is asked, and stays signed in meanwhile.
    const asked = await useLink(eve.link, { cookie: dees.cookie });
    expect(asked.statusCode, asked.body).toBe(409);
    expect(asked.json().error).toMatchObject({ code: 'signed_in' });
    expect(asked.json().error.message).toContain('signed in as dee@example.org');
    expect(asked.headers['set-cookie']).toBeUndefined();
    expect((await get('/api/v2/session', dees)).json().data.user.loginEmail).toBe('dee@example.org');
    // The link was not used: confirmed, it signs in, and Dee's session ends.
    const replaced = await useLink(eve.link, { cookie: dees.cookie }, { replaceSession: true });
    const eves = sessionOf(replaced);
    expect(replaced.json().data.user.loginEmail).toBe('eve@example.org');
    expect((await get('/api/v2/session', eves)).json().data.user.loginEmail).toBe('eve@example.org');
    expect((await get('/api/v2/session', dees)).statusCode).toBe(403);
    // No session, or one that has ended: the link signs in at once, as a first sign-in does.
    const fresh = await addUser('fay@example.org');
    sessionOf(await useLink(fresh.link, { cookie: dees.cookie }));
    sessionOf(await useLink(await newLink(fresh.id)));
  });
});
