import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliWriter } from '../../src/modules/audit/writer.ts';

describe.each(ENGINES)('GET /api/v2/me (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('describes the token\'s user, their community and company', async () => {
    const response = await t.get('/api/v2/me');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        id: null,
        communityId: `com_${t.communityId}`,
        name: 'Admin',
        title: null,
        role: 'admin',
        loginEmail: 'admin@hearth.local',
        profiles: [],
        segments: [],
        personas: [],
        company: { name: 'Default', domains: [], summary: '' },
      },
    });
  });

  it('names the user\'s contact, profiles, bookmarked segments and personas once they exist', async () => {
    const db = t.services.db;
    const c = t.communityId;
    const user = (await db.selectFrom('app_users').select('id').where('community_id', '=', c).executeTakeFirstOrThrow()).id;
    const contact = (
      await db.insertInto('contacts').values({ community_id: c, name: 'Ada Admin' }).returning('id').executeTakeFirstOrThrow()
    ).id;
    await db
      .insertInto('contact_identities')
      .values([
        { community_id: c, type: 'email', value: 'admin@hearth.local', display_value: 'Admin@Hearth.local', contact_id: contact },
        { community_id: c, type: 'github', value: 'ada', display_value: 'Ada', contact_id: contact },
      ])
      .execute();
    const segment = (
      await db
        .insertInto('segments')
        .values({ community_id: c, name: 'Champions', entity_type: 'contact' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    await db.insertInto('app_user_segment_bookmarks').values({ community_id: c, user_id: user, segment_id: segment }).execute();
    const persona = (
      await db.insertInto('personas').values({ community_id: c, name: 'DevRel' }).returning('id').executeTakeFirstOrThrow()
    ).id;
    await db.insertInto('app_user_personas').values({ community_id: c, user_id: user, persona_id: persona }).execute();

    const data = (await t.get('/api/v2/me')).json().data;
    expect(data.id).toBe(`c_${contact}`);
    expect(data.profiles).toEqual([
      { type: 'email', handle: 'Admin@Hearth.local' },
      { type: 'github', handle: 'Ada' },
    ]);
    expect(data.segments).toEqual([{ id: `s_${segment}`, name: 'Champions' }]);
    expect(data.personas).toEqual([{ id: String(persona), name: 'DevRel' }]);
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
