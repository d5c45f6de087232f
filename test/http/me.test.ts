import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';

describe.each(ENGINES)('GET /api/v2/me (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it("describes the token's user, their contact, community and company", async () => {
    const response = await t.get('/api/v2/me');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^c_\d+$/),
        communityId: `com_${t.communityId}`,
        name: 'Admin',
        title: null,
        role: 'admin',
        loginEmail: 'admin@hearth.local',
        profiles: [{ type: 'email', handle: 'admin@hearth.local' }],
        segments: [],
        personas: [],
        company: { name: 'Default', domains: [], summary: '' },
      },
    });
  });

  it("names the user's contact, profiles, bookmarked segments and personas once they exist", async () => {
    const db = t.services.db;
    const c = t.communityId;
    const user = (await db.selectFrom('app_users').select('id').where('community_id', '=', c).executeTakeFirstOrThrow()).id;
    const contact = (await t.get('/api/v2/me')).json().data.id as string;
    // A push with the user's login email reaches the same contact.
    const pushed = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/user`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: { id: 'ada-admin', email: 'Admin@Hearth.local', github: { type: 'handle', value: 'Ada' } },
    });
    expect(pushed.json().contactId).toBe(contact);
    const segment = (
      await db.insertInto('segments').values({ community_id: c, name: 'Champions', entity_type: 'contact' }).returning('id').executeTakeFirstOrThrow()
    ).id;
    await db.insertInto('app_user_segment_bookmarks').values({ community_id: c, user_id: user, segment_id: segment }).execute();
    const persona = (await db.insertInto('personas').values({ community_id: c, name: 'DevRel' }).returning('id').executeTakeFirstOrThrow()).id;
    await db.insertInto('app_user_personas').values({ community_id: c, user_id: user, persona_id: persona }).execute();

    const data = (await t.get('/api/v2/me')).json().data;
    expect(data.id).toBe(contact);
    expect(data.profiles).toEqual([
      { type: 'email', handle: 'admin@hearth.local' },
      { type: 'github', handle: 'Ada' },
    ]);
    expect(data.segments).toEqual([{ id: `s_${segment}`, name: 'Champions' }]);
    expect(data.personas).toEqual([{ id: String(persona), name: 'DevRel' }]);
  });

  it('gives the admin of a new community a contact of that community', async () => {
    const { communityId } = await t.services.communities.create('Another', cliActor());
    const token = await t.issueToken(['read'], communityId);
    const id = (await t.get('/api/v2/me', token)).json().data.id as string;
    expect(id).toMatch(/^c_\d+$/);
    expect((await t.get(`/api/v2/contacts/${id}`, token)).statusCode).toBe(200);
    expect((await t.get(`/api/v2/contacts/${id}`)).statusCode).toBe(404);
  });

  it('gives users made before migration 0010 a contact: the one with their email, else a new one', async () => {
    const db = t.services.db;
    const { communityId } = await t.services.communities.create('Before 0010', cliActor());
    const token = await t.issueToken(['read'], communityId);
    const made = Number(((await t.get('/api/v2/me', token)).json().data.id as string).slice(2));
    // As a database made before 0010 had it: the user without a contact.
    await db.updateTable('app_users').set({ contact_id: null }).where('community_id', '=', communityId).execute();
    await db.deleteFrom('contacts').where('community_id', '=', communityId).where('id', '=', made).execute();
    const migration = fs.readFileSync(new URL('../../src/db/migrations/0010_app_user_contacts.sql', import.meta.url), 'utf8');
    // Only the backfill: the column exists already.
    await sql.raw(migration.slice(migration.indexOf('do $$'))).execute(db);
    const id = (await t.get('/api/v2/me', token)).json().data.id as string;
    expect(id).toMatch(/^c_\d+$/);
    expect((await t.get(`/api/v2/contacts/${id}?cols=primaryEmail`, token)).json().data).toMatchObject({ name: 'Admin', primaryEmail: 'admin@hearth.local' });
    // The bootstrapped community's user kept its contact.
    expect((await t.get('/api/v2/me')).json().data.id).toMatch(/^c_\d+$/);
  });

  it("keeps the id after the user's email identity is erased", async () => {
    const before = (await t.get('/api/v2/me')).json().data.id;
    await t.services.db
      .deleteFrom('contact_identities')
      .where('community_id', '=', t.communityId)
      .where('type', '=', 'email')
      .where('value', '=', 'admin@hearth.local')
      .execute();
    expect((await t.get('/api/v2/me')).json().data.id).toBe(before);
  });

  it('makes the user a new contact when theirs was removed by hand', async () => {
    const db = t.services.db;
    const { communityId } = await t.services.communities.create('Removed by hand', cliActor());
    const token = await t.issueToken(['read'], communityId);
    const first = (await t.get('/api/v2/me', token)).json().data.id as string;
    await db.deleteFrom('contacts').where('community_id', '=', communityId).execute();
    const second = (await t.get('/api/v2/me', token)).json().data.id as string;
    expect(second).toMatch(/^c_\d+$/);
    expect(second).not.toBe(first);
    expect((await t.get('/api/v2/me', token)).json().data.id).toBe(second);
  });

  it('needs contacts:read', async () => {
    expect((await t.get('/api/v2/me', await t.issueToken(['segments:read']))).statusCode).toBe(403);
  });

  it('answers 404 for a token made without a user', async () => {
    const { token } = await t.services.tokens.issue(cliWriter(t.communityId), {});
    const response = await t.get('/api/v2/me', token);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'user_not_found' } });
  });
});
