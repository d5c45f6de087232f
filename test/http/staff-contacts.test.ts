import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * Console users are not members (docs/console.md): the contact `/api/v2/me` gives a console user is left out
 * of every list, count and score of the community until a source knows the person, and answers by its ID.
 */
describe.each(ENGINES)('console users are not members (%s)', (engine) => {
  let t: TestApp;
  let worker: Worker;
  let me = '';
  let colleague = '';
  let org = '';
  let segment = '';
  let scoreId = '';

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const ok = async (response: { statusCode: number; body: string; json(): any }, status = 200) => {
    expect(response.statusCode, response.body).toBe(status);
    return response.json();
  };
  const listed = async (query = '') =>
    (await ok(await t.get(`/api/v2/contacts?limit=100&cols=recordCount${query}`))) as { data: { id: string }[]; meta: { recordCount: number } };
  const ids = async (query = '') => (await listed(query)).data.map((contact) => contact.id);
  const segmentCount = async () => (await ok(await t.get(`/api/v2/segments/${segment}?cols=entityCount`))).data.entityCount as number;
  const orgCount = async () => (await ok(await t.get(`/api/v2/organizations/${org}?cols=contactsCount,topContacts`))).data;
  const contactEvents = async (id: string) => {
    const rows = await t.services.db
      .selectFrom('webhook_events')
      .select('kind')
      .where('community_id', '=', t.communityId)
      .where('entity_type', '=', 'contact')
      .where('entity_id', '=', Number(id.slice(2)))
      .orderBy('id')
      .execute();
    return rows.map((row) => row.kind);
  };
  const scoresOf = async () => {
    const scored = await t.services.db
      .selectFrom('lead_scores')
      .select('entity_id')
      .where('community_id', '=', t.communityId)
      .where('entity_type', '=', 'contact')
      .execute();
    return scored.map((row) => `c_${row.entity_id}`).sort();
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    worker = createWorker({ db: t.services.db, clock: t.services.clock, queue: t.services.jobs });
    // A subscriber to contact events (disabled: its events are kept, nothing is sent).
    await t.services.db
      .insertInto('webhook_subscriptions')
      .values({
        community_id: t.communityId,
        url: 'https://example.org/hook',
        event_kinds: ['contact.created', 'contact.updated'],
        secret: 'whsec_x',
        enabled: false,
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
    me = (await ok(await t.get('/api/v2/me'))).data.id;
    const added = await ok(await t.send('POST', '/api/v2/admin/users', { name: 'Colleague', loginEmail: 'colleague@hearth.local' }), 201);
    expect(added.data.user).toMatchObject({ name: 'Colleague' });
    colleague = `c_${(await t.services.db.selectFrom('app_users').select('contact_id').where('community_id', '=', t.communityId).where('login_email', '=', 'colleague@hearth.local').executeTakeFirstOrThrow()).contact_id}`;
    // A member of the community, at an organization, with activity.
    await accepted(t, 'activity', {
      id: 'a-1',
      activityType: 'starred_repo',
      timestamp: new Date().toISOString(),
      user: { id: 'u-ada', email: 'ada@acme.io', fullName: 'Ada', companyDomain: 'acme.io' },
    });
    org = (await ok(await t.get('/api/v2/organizations'))).data[0].id;
    segment = (await ok(await t.send('POST', '/api/v2/segments', { name: 'Everyone', entityType: 'contact' }), 201)).data.id;
  });
  afterAll(() => t?.close());

  it('leaves console users out of contact lists and counts, and answers for them by ID', async () => {
    expect(colleague).toMatch(/^c_\d+$/);
    const { data, meta } = await listed();
    expect(data).toHaveLength(1);
    expect(meta.recordCount).toBe(1);
    expect(data.map((contact) => contact.id)).not.toContain(me);
    expect(await ids('&sort=name')).not.toContain(colleague);
    expect(await ids('&sort=latest_activity&direction=desc')).toHaveLength(1);
    const filter = JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'primaryEmail', params: { op: 'like', value: 'hearth.local' } }] });
    expect(await listed(`&lightFilter=${encodeURIComponent(filter)}`)).toMatchObject({ data: [], meta: { recordCount: 0 } });
    // The console links to "you": the contact answers by its ID, and /me keeps naming it.
    expect((await ok(await t.get(`/api/v2/contacts/${me}?cols=primaryEmail`))).data).toMatchObject({
      id: me,
      name: 'Admin',
      primaryEmail: 'admin@hearth.local',
    });
    expect((await ok(await t.get(`/api/v2/contacts/${colleague}`))).data.name).toBe('Colleague');
    // The core lookups find members only.
    expect((await t.get('/community/v1/members?email=admin@hearth.local')).statusCode).toBe(404);
    expect((await ok(await t.get('/community/v1/user/colleague@hearth.local'))).ids).toEqual([]);
    expect((await ok(await t.get('/community/v1/members?email=ada@acme.io'))).map((row: { fullName: string }) => row.fullName)).toEqual(['Ada']);
    // Webhooks tell of members: nothing of a console user's contact.
    expect(await contactEvents(colleague)).toEqual([]);
    expect(await contactEvents((await ids())[0]!)).toEqual(['contact.created']);
  });

  it('leaves them out of segment, organization and lead-score counts', async () => {
    const added = (id: string) => Number(id.slice(2));
    const emails = 'admin@hearth.local,colleague@hearth.local,ada@acme.io';
    await ok(await t.send('POST', `/community/v1/segments/${segment.slice(2)}`, { socialType: 'email', value: emails }));
    expect(await segmentCount()).toBe(1);
    expect(await ids(`&segmentId=${segment}`)).toHaveLength(1);
    // A console user put at the organization by hand is still not one of its contacts.
    await t.services.db
      .updateTable('contacts')
      .set({ organization_id: Number(org.slice(2)) })
      .where('community_id', '=', t.communityId)
      .where('id', '=', added(me))
      .execute();
    expect(await ids(`&organizationId=${org}`)).toHaveLength(1);
    expect((await orgCount()).topContacts.map((contact: { id: string }) => contact.id)).not.toContain(me);
    const score = await ok(
      await t.send('POST', '/api/v2/admin/lead-scores', {
        name: 'Active',
        entityType: 'contact',
        weights: [{ activityType: 'starred_repo', weight: 1 }],
        fit: [],
      }),
      201,
    );
    scoreId = score.data.id;
    await worker.runUntilIdle();
    expect(await scoresOf()).toEqual(await ids());
    expect(await scoresOf()).not.toContain(me);
  });

  it('makes a console user a member once a source sends them: listed, counted, scored', async () => {
    const before = (await listed()).meta.recordCount;
    const pushed = await accepted(t, 'activity', {
      id: 'a-2',
      activityType: 'starred_repo',
      timestamp: new Date().toISOString(),
      user: { id: 'u-admin', email: 'Admin@Hearth.local', fullName: 'Admin' },
    });
    expect(pushed.contactId).toBe(me);
    // Subscribers hear of the new member then.
    expect(await contactEvents(me)).toEqual(['contact.created']);
    expect((await ok(await t.get('/api/v2/me'))).data.id).toBe(me);
    expect(await ids()).toContain(me);
    expect((await listed()).meta.recordCount).toBe(before + 1);
    expect(await segmentCount()).toBe(2);
    expect((await ok(await t.get('/community/v1/members?email=admin@hearth.local'))).map((row: { url: string }) => row.url.endsWith(me))).toEqual([true]);
    await worker.runSteps();
    await worker.runUntilIdle();
    expect(await scoresOf()).toContain(me);
    expect(scoreId).toMatch(/^ls_\d+$/);
    // The colleague is still staff.
    expect(await ids()).not.toContain(colleague);
  });

  it('gives a member when a member is merged into a staff contact, or a staff contact into a member', async () => {
    const bee = (await accepted(t, 'user', { id: 'u-bee', email: 'bee@example.org', fullName: 'Bee' })).contactId;
    const merged = await t.send('POST', `/api/v2/contacts/${colleague}/merge`, { contactId: bee });
    expect(merged.statusCode, merged.body).toBe(200);
    const survivor = (await ok(await t.get(`/api/v2/contacts/${colleague}`))).data.id as string;
    expect(await ids()).toContain(survivor);
    // Undone, the colleague's contact has no source profile again: staff again, and the member listed.
    const undone = await t.send('POST', `/api/v2/contacts/${survivor}/unmerge`, { mergedId: survivor === colleague ? bee : colleague });
    expect(undone.statusCode, undone.body).toBe(200);
    expect(await ids()).toContain(bee);
    expect(await ids()).not.toContain(colleague);
  });
});
