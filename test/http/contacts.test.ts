import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { seedCustomField, seedLeadScore } from '../helpers/seed.ts';
import { pushUser } from '../helpers/ingest.ts';

type Contact = Record<string, unknown> & { id: string; name: string };
type Page = { success: true; data: Contact[]; meta: { nextCursor: string | null; recordCount?: number } };

const NOW = new Date('2026-06-15T12:00:00.000Z');
const DAY = 86_400_000;
const ago = (days: number, ms = 0) => new Date(NOW.getTime() - days * DAY + ms).toISOString();

/**
 * GET /api/v2/contacts and /contacts/{id} (docs/behaviour.md: IDs, Envelopes, Errors, cols, Sorting, Paging,
 * lightFilter, Record fields).
 */
describe.each(ENGINES)('contacts (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock(NOW);
  let ids: { alice: string; bob: string; carol: string; dave: string; erin: string };
  let plan: number;
  let seats: number;
  let score: number;
  let orgId: string;
  let segment: number;
  let orgSegment: number;
  let other: { communityId: number; token: string; contactId: string };

  const push = (body: Record<string, unknown>, sourceId = t.sourceId, token = t.token) => pushUser(t, body, { sourceId, token });

  async function activity(user: string, id: string, timestamp: string) {
    const response = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/activity`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: { id, activityType: 'made_post_topic', user: { id: user }, timestamp, content: { type: 'text', value: `post ${id}` } },
    });
    expect(response.statusCode, response.body).toBe(202);
    return (response.json() as { activityId: string }).activityId;
  }

  const key = (id: string) => Number(id.replace(/^[a-z]+_/, ''));

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    // The list assertions below name every contact of the community: remove the one made with the admin user.
    await t.services.db.deleteFrom('contacts').where('community_id', '=', t.communityId).execute();
    const db = t.services.db;
    const field = async (name: string, valueType: string, extra: Record<string, unknown> = {}) =>
      await seedCustomField(t, { name, entity_types: ['contact'], value_type: valueType, ...extra });
    plan = await field('Plan', 'enum', { enum_values: ['free', 'pro', 'enterprise'] });
    seats = await field('Seats', 'int');

    ids = {
      alice: await push({
        id: 'alice',
        fullName: 'Alice Adams',
        email: 'Alice@acme.io',
        github: { type: 'handle', value: 'alice-gh' },
        titleAtCompany: 'CTO',
        companyDomain: 'acme.io',
        rawLocation: 'Austin, Texas',
        country: 'US',
        phoneNumber: '(415) 555-2671',
        avatarUrl: 'https://example.org/alice.png',
        tags: [{ type: 'name', name: 'Champion' }],
        customFields: [
          { id: plan, value: { type: 'enum', value: 'pro' } },
          { id: seats, value: { type: 'int', value: 40 } },
        ],
      }),
      bob: await push({ id: 'bob', fullName: 'bob baker', email: 'bob@acme.io', customFields: [{ id: seats, value: { type: 'int', value: 5 } }] }),
      carol: await push({ id: 'carol', fullName: 'Carol Chen', email: 'carol@example.org' }),
      dave: await push({ id: 'dave', fullName: 'Alice Adams', twitter: { type: 'handle', value: 'dave_tw' } }),
      erin: await push({ id: 'erin', username: 'erin', customFields: [{ id: seats, value: { type: 'int', value: 40 } }] }),
    };
    const acme = await db
      .selectFrom('organizations')
      .select('id')
      .where('community_id', '=', t.communityId)
      .where('primary_domain', '=', 'acme.io')
      .executeTakeFirstOrThrow();
    orgId = `o_${acme.id}`;

    // Activity windows: boundaries at exactly 7 days (out) and just inside.
    await activity('alice', 'a-now', ago(0));
    await activity('alice', 'a-7d-edge', ago(7));
    await activity('alice', 'a-7d-in', ago(7, 1));
    await activity('alice', 'a-20d', ago(20));
    await activity('alice', 'a-100d', ago(100));
    await activity('alice', 'a-400d', ago(400));
    await activity('alice', 'a-future', new Date(NOW.getTime() + DAY).toISOString());
    await activity('bob', 'b-3d', ago(3));
    await activity('carol', 'c-300d', ago(300));

    score = await seedLeadScore(t, { name: 'Fit', entity_type: 'contact' });
    await db
      .insertInto('lead_scores')
      .values([
        {
          community_id: t.communityId,
          score_id: score,
          entity_type: 'contact',
          entity_id: key(ids.alice),
          score: 91.5,
          percentile: 99,
          key_factors: JSON.stringify([{ label: 'Activity', value: '7 posts', strength: 0.8 }]),
        },
        { community_id: t.communityId, score_id: score, entity_type: 'contact', entity_id: key(ids.bob), score: 12, percentile: 20 },
        { community_id: t.communityId, score_id: score, entity_type: 'contact', entity_id: key(ids.carol), score: 12, percentile: 20 },
      ])
      .execute();
    const newSegment = async (name: string, entityType: string) =>
      (await db.insertInto('segments').values({ community_id: t.communityId, name, entity_type: entityType }).returning('id').executeTakeFirstOrThrow()).id;
    segment = await newSegment('Champions', 'contact');
    orgSegment = await newSegment('Accounts', 'organization');
    await db
      .insertInto('segment_memberships')
      .values([ids.alice, ids.carol].map((id) => ({ community_id: t.communityId, segment_id: segment, entity_id: key(id) })))
      .execute();
    // An organization segment holding a row whose entity_id equals bob's ID must not show as bob's segment.
    await db
      .insertInto('segment_memberships')
      .values({ community_id: t.communityId, segment_id: orgSegment, entity_id: key(ids.bob) })
      .execute();
    await db
      .insertInto('website_visits')
      .values([
        { community_id: t.communityId, contact_id: key(ids.alice), url: 'https://acme.io/pricing', visit_time: new Date(ago(1)) },
        { community_id: t.communityId, contact_id: key(ids.alice), url: 'https://acme.io/pricing', visit_time: new Date(ago(2)) },
        { community_id: t.communityId, contact_id: key(ids.alice), url: 'https://acme.io/docs', visit_time: new Date(ago(3)) },
        { community_id: t.communityId, contact_id: key(ids.alice), url: 'https://acme.io/old', visit_time: new Date(ago(45)) },
      ])
      .execute();
    const objectType = (await db.insertInto('object_types').values({ community_id: t.communityId, name: 'Deal' }).returning('id').executeTakeFirstOrThrow()).id;
    const assoc = (
      await db
        .insertInto('object_type_assocs')
        .values({ community_id: t.communityId, object_type_id: objectType, assoc_type: 'owner', target_entity: 'contact' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    const deal = (
      await db
        .insertInto('objects')
        .values({ community_id: t.communityId, object_type_id: objectType, name: 'Big deal', record_key: 'D-1' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    await db
      .insertInto('object_associations')
      .values({ community_id: t.communityId, object_id: deal, assoc_id: assoc, target_id: key(ids.alice) })
      .execute();
    await db
      .updateTable('contacts')
      .set({
        job_history: JSON.stringify([{ company: 'Initech', title: 'Engineer', startDate: '2019-01-01', endDate: '2022-06-30' }]),
        activate_message: JSON.stringify({ title: 'Say hi', message: 'Alice posted twice this week' }),
        spark_summary: 'Active contributor',
        recent_spark_summaries: JSON.stringify(['Posted about ingress']),
      })
      .where('community_id', '=', t.communityId)
      .where('id', '=', key(ids.alice))
      .execute();

    const created = await t.services.communities.create('Other', cliActor());
    const source = await t.services.sources.create(cliWriter(created.communityId), { name: 'Other API' });
    const token = await t.issueToken(['read', 'write'], created.communityId);
    other = { communityId: created.communityId, token, contactId: await push({ id: 'zed', fullName: 'Zed Other', email: 'zed@acme.io' }, source.id, token) };
  });
  afterAll(() => t?.close());

  async function list(params: Record<string, string | number>, token = t.token) {
    return t.get(`/api/v2/contacts?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`, token);
  }
  async function page(params: Record<string, string | number>): Promise<Page> {
    const response = await list(params);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Page;
  }
  async function walk(params: Record<string, string | number>): Promise<Contact[]> {
    const all: Contact[] = [];
    let cursor: string | null = null;
    do {
      const next: Page = await page({ ...params, ...(cursor ? { cursor } : {}) });
      all.push(...next.data);
      cursor = next.meta.nextCursor;
    } while (cursor);
    return all;
  }
  const get = async (id: string, cols?: string) => {
    const response = await t.get(`/api/v2/contacts/${id}${cols ? `?cols=${encodeURIComponent(cols)}` : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: Contact }).data;
  };

  it('lists id and name only without cols, in ID order, with a null cursor on the last page', async () => {
    const body = await page({});
    expect(body).toEqual({ success: true, data: expect.any(Array), meta: { nextCursor: null } });
    expect(body.data.map((contact) => contact.id)).toEqual(Object.values(ids).sort((a, b) => key(a) - key(b)));
    expect(body.data[0]).toEqual({ id: ids.alice, name: 'Alice Adams' });
    expect(body.data.find((contact) => contact.id === ids.erin)).toEqual({ id: ids.erin, name: 'erin' });
  });

  it('returns every opt-in column asked for, with null and [] for missing values, and url last', async () => {
    const cols = [
      'fullName',
      'avatarUrl',
      'location',
      'primaryEmail',
      'phoneNumbers',
      'title',
      'companyName',
      'companyWebsite',
      'connectedCustomObjects',
      'profiles',
      'jobHistory',
      'leadScores',
      'leadScoreKeyFactors',
      'segments',
      'recentWebPages',
      'recentWebVisitsNumber',
      'activateMessage',
      'sparkSummary',
      'recentSparkSummaries',
      'tags',
      'url',
    ].join(',');
    const alice = await get(ids.alice, cols);
    expect(alice).toMatchObject({
      id: ids.alice,
      name: 'Alice Adams',
      fullName: 'Alice Adams',
      avatarUrl: 'https://example.org/alice.png',
      location: { city: 'Austin', region: 'Texas', country: 'United States' },
      primaryEmail: 'Alice@acme.io',
      phoneNumbers: [{ type: expect.any(String), value: '+14155552671' }],
      title: 'CTO',
      companyWebsite: 'https://acme.io',
      connectedCustomObjects: [{ id: expect.stringMatching(/^co_\d+$/), name: 'Big deal', objectType: 'Deal' }],
      profiles: expect.arrayContaining([
        { type: 'email', value: 'Alice@acme.io' },
        { type: 'github', value: 'alice-gh' },
      ]),
      jobHistory: [{ company: 'Initech', title: 'Engineer', startDate: '2019-01-01', endDate: '2022-06-30' }],
      leadScores: [{ scoreId: score, score: 91.5, percentile: 99 }],
      leadScoreKeyFactors: [{ scoreId: score, factors: [{ label: 'Activity', value: '7 posts', strength: 0.8 }] }],
      segments: [{ id: `s_${segment}`, name: 'Champions' }],
      recentWebPages: [
        { url: 'https://acme.io/pricing', numVisits: 2 },
        { url: 'https://acme.io/docs', numVisits: 1 },
      ],
      recentWebVisitsNumber: 3,
      activateMessage: { title: 'Say hi', message: 'Alice posted twice this week' },
      sparkSummary: 'Active contributor',
      recentSparkSummaries: ['Posted about ingress'],
      tags: [expect.stringMatching(/^l_\d+$/)],
      url: `${TEST_PUBLIC_URL}/contacts/${ids.alice}`,
    });
    expect(Object.keys(alice).at(-1)).toBe('url');
    expect(Object.keys(alice).at(-2)).toBe('tags');

    const erin = await get(ids.erin, cols);
    expect(erin).toEqual({
      id: ids.erin,
      name: 'erin',
      fullName: null,
      avatarUrl: null,
      location: null,
      primaryEmail: null,
      phoneNumbers: [],
      title: null,
      companyName: null,
      companyWebsite: null,
      connectedCustomObjects: [],
      profiles: [],
      jobHistory: [],
      leadScores: [],
      leadScoreKeyFactors: [],
      segments: [],
      recentWebPages: [],
      recentWebVisitsNumber: 0,
      activateMessage: null,
      sparkSummary: null,
      recentSparkSummaries: [],
      tags: [],
      url: `${TEST_PUBLIC_URL}/contacts/${ids.erin}`,
    });
    // Bob's ID is also the entity_id of an organization segment's row: it is not his segment.
    expect((await get(ids.bob, 'segments')).segments).toEqual([]);
  });

  it('recentActivities: the 5 latest, newest first, each with every activity column', async () => {
    const alice = await get(ids.alice, 'recentActivities');
    const recent = alice.recentActivities as Record<string, unknown>[];
    expect(recent.map((item) => item.content)).toEqual(['post a-future', 'post a-now', 'post a-7d-in', 'post a-7d-edge', 'post a-20d']);
    expect(recent[1]).toEqual({
      id: expect.stringMatching(/^a_\d+$/),
      type: 'made_post_topic',
      activityTime: ago(0),
      contactId: ids.alice,
      content: 'post a-now',
      isUserInitiated: true,
      participantCount: 1,
      providerId: `sig_${t.sourceId}`,
      providerName: expect.any(String),
      replyCount: 0,
      sentiment: expect.any(String),
      subSourceNames: [],
      url: expect.stringMatching(/\/activities\/a_\d+$/),
    });
    const rows = (await page({ cols: 'recentActivities' })).data;
    expect(rows.find((row) => row.id === ids.carol)?.recentActivities).toHaveLength(1);
    expect(rows.find((row) => row.id === ids.dave)?.recentActivities).toEqual([]);
  });

  it('counts activities in (now − window, now] for each window, and every activity for All', async () => {
    const cols = ['7d', '28d', '8w', '12w', '6m', '1y', 'All'].map((window) => `activityCount${window}`).join(',');
    expect(await get(ids.alice, cols)).toEqual({
      id: ids.alice,
      name: 'Alice Adams',
      activityCount7d: 2, // now and 7 days less 1 ms; exactly 7 days ago is out, tomorrow is not yet
      activityCount28d: 4,
      activityCount8w: 4,
      activityCount12w: 4,
      activityCount6m: 5,
      activityCount1y: 5,
      activityCountAll: 7,
    });
    const rows = (await page({ cols })).data;
    expect(rows.find((row) => row.id === ids.carol)).toMatchObject({ activityCount6m: 0, activityCount1y: 1, activityCountAll: 1 });
    expect(rows.find((row) => row.id === ids.dave)).toMatchObject({ activityCount7d: 0, activityCountAll: 0 });
    // The windows follow the service clock.
    clock.set(new Date(NOW.getTime() + 2 * DAY));
    try {
      expect((await get(ids.bob, 'activityCount7d')).activityCount7d).toBe(1);
      expect((await get(ids.alice, 'activityCount7d')).activityCount7d).toBe(2);
    } finally {
      clock.set(NOW);
    }
  });

  it('adds custom fields through cf_* and cf_<id>, and recordCount to meta', async () => {
    expect((await get(ids.alice, 'cf_*')).customFields).toEqual({
      [`cf_${plan}`]: { type: 'enum', value: 'pro' },
      [`cf_${seats}`]: { type: 'int', value: 40 },
    });
    expect((await get(ids.alice, `cf_${seats}`)).customFields).toEqual({ [`cf_${seats}`]: { type: 'int', value: 40 } });
    expect((await get(ids.carol, 'cf_*')).customFields).toEqual({});
    const counted = await page({ limit: 2, cols: 'recordCount' });
    expect(counted.meta).toEqual({ nextCursor: expect.any(String), recordCount: 5 });
    expect(counted.data[0]).toEqual({ id: ids.alice, name: 'Alice Adams' });
  });

  it('refuses unknown cols, unknown custom fields, and recordCount on a get, naming them', async () => {
    const bad = await list({ cols: 'name,fullName,shoeSize' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining('"name", "shoeSize"') } });
    const field = await list({ cols: 'cf_999999' });
    expect(field.statusCode).toBe(400);
    expect(field.json().error.message).toContain('cf_999999');
    const other = await t.get(`/api/v2/contacts/${ids.alice}?cols=recordCount`);
    expect(other.statusCode).toBe(400);
  });

  const names = (rows: Contact[]) => rows.map((row) => row.id);
  const byId = (a: string, b: string) => key(a) - key(b);

  it('sorts by id, name (case-insensitive, ties by id), latest activity (none last), lead score and custom field, both ways', async () => {
    const all = Object.values(ids).sort(byId);
    expect(names(await walk({ limit: 2 }))).toEqual(all);
    expect(names(await walk({ limit: 2, direction: 'desc' }))).toEqual([...all].reverse());

    // alice and dave share a name; bob sorts between alice and carol ignoring case.
    const byName = [ids.alice, ids.dave, ids.bob, ids.carol, ids.erin];
    expect(names(await walk({ sort: 'name', limit: 2 }))).toEqual(byName);
    expect(names(await walk({ sort: 'name', direction: 'desc', limit: 2 }))).toEqual([ids.erin, ids.carol, ids.bob, ids.dave, ids.alice]);

    // Latest activity: alice (tomorrow), bob (3 days ago), carol (300 days ago); dave and erin have none.
    expect(names(await walk({ sort: 'latest_activity', limit: 2 }))).toEqual([ids.carol, ids.bob, ids.alice, ids.dave, ids.erin]);
    expect(names(await walk({ sort: 'latest_activity', direction: 'desc', limit: 2 }))).toEqual([ids.alice, ids.bob, ids.carol, ids.erin, ids.dave]);

    // Lead score: bob and carol tie at 12 (by id); dave and erin have none and come last.
    expect(names(await walk({ sort: `ls_${score}`, limit: 1 }))).toEqual([ids.bob, ids.carol, ids.alice, ids.dave, ids.erin]);
    expect(names(await walk({ sort: `ls_${score}`, direction: 'desc', limit: 1 }))).toEqual([ids.alice, ids.carol, ids.bob, ids.erin, ids.dave]);

    // Seats: bob 5, alice 40, erin 40; carol and dave have none.
    expect(names(await walk({ sort: `cf_${seats}`, limit: 2 }))).toEqual([ids.bob, ids.alice, ids.erin, ids.carol, ids.dave]);
    expect(names(await walk({ sort: `cf_${seats}`, direction: 'desc', limit: 2 }))).toEqual([ids.erin, ids.alice, ids.bob, ids.dave, ids.carol]);
  });

  it('stores and sorts custom field text longer than an index entry may be, by its first 200 characters', async () => {
    const notes = await seedCustomField(t, { name: 'Notes', entity_types: ['contact'], value_type: 'string' });
    const long = (letter: string) => letter + '𐀀'.repeat(3_000);
    const first = await push({ id: 'long-b', fullName: 'Long B', customFields: [{ id: notes, value: { type: 'string', value: long('b') } }] });
    const second = await push({ id: 'long-a', fullName: 'Long A', customFields: [{ id: notes, value: { type: 'string', value: long('a') } }] });
    try {
      const sorted = await walk({ sort: `cf_${notes}`, limit: 1 });
      expect(names(sorted).slice(0, 2)).toEqual([second, first]);
      expect(((await get(first, `cf_${notes}`)).customFields as Record<string, { value: string }>)[`cf_${notes}`]!.value).toBe(long('b'));
    } finally {
      await t.services.db
        .deleteFrom('contacts')
        .where('community_id', '=', t.communityId)
        .where('id', 'in', [key(first), key(second)])
        .execute();
      await t.services.db.deleteFrom('custom_field_values').where('community_id', '=', t.communityId).where('custom_field_id', '=', notes).execute();
    }
  });

  it('refuses unknown sorts, lead scores and custom fields with 400', async () => {
    for (const sort of ['email', 'ls_999999', 'cf_999999', 'cf_x', 'member_count']) {
      const response = await list({ sort });
      expect(response.statusCode, sort).toBe(400);
      expect(response.json().error.code).toBe('invalid_parameters');
    }
  });

  it('binds a cursor to its sort, direction and filters', async () => {
    const first = await page({ limit: 1, sort: 'name' });
    const cursor = first.meta.nextCursor!;
    expect((await page({ limit: 3, sort: 'name', cursor })).data[0]!.id).toBe(ids.dave);
    for (const params of [{ sort: 'id' }, { sort: 'name', direction: 'desc' }, { sort: 'name', segmentId: `s_${segment}` }] as Record<string, string>[]) {
      const response = await list({ ...params, cursor });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid_cursor');
    }
    const filter = JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'fullName', params: { op: 'like', value: 'a' } }] });
    const filtered = await page({ limit: 1, lightFilter: filter });
    const changed = JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'fullName', params: { op: 'like', value: 'b' } }] });
    expect((await list({ lightFilter: changed, cursor: filtered.meta.nextCursor! })).statusCode).toBe(400);
  });

  it('filters by organizationId and segmentId, refusing malformed, unknown and wrong-kind IDs', async () => {
    expect(names((await page({ organizationId: orgId })).data)).toEqual([ids.alice, ids.bob]);
    expect(names((await page({ segmentId: `s_${segment}`, cols: 'recordCount' })).data)).toEqual([ids.alice, ids.carol]);
    expect((await page({ segmentId: `s_${segment}`, cols: 'recordCount' })).meta.recordCount).toBe(2);

    const cases: [Record<string, string>, number, string][] = [
      [{ organizationId: '12' }, 400, 'invalid_organization_id'],
      [{ organizationId: 'o_999999' }, 404, 'org_not_found'],
      [{ segmentId: 'segment' }, 400, 'invalid_segment_id'],
      [{ segmentId: 's_999999' }, 404, 'segment_not_found'],
      [{ segmentId: `s_${orgSegment}` }, 400, 'invalid_segment_id'],
    ];
    for (const [params, status, code] of cases) {
      const response = await list(params);
      expect(response.statusCode, JSON.stringify(params)).toBe(status);
      expect(response.json().error.code).toBe(code);
    }
  });

  it('filters by lightFilter, and names the path of a bad clause', async () => {
    const filter = (clauses: unknown[], type = 'and') => JSON.stringify({ type, clauses });
    const tagged = await page({
      lightFilter: filter([
        { type: 'stringListFilter', field: 'profiles', params: { op: 'any', value: ['email'] } },
        { type: 'numberFilter', field: 'activityCount28d', params: { op: 'gt', value: 0 } },
      ]),
    });
    expect(names(tagged.data)).toEqual([ids.alice, ids.bob]);
    const custom = await page({
      lightFilter: filter([{ type: 'numberFilter', field: `cf_${seats}`, params: { op: 'gte', value: 40 } }]),
      cols: 'recordCount',
    });
    expect(names(custom.data)).toEqual([ids.alice, ids.erin]);
    expect(custom.meta.recordCount).toBe(2);
    const scored = await page({ lightFilter: filter([{ type: 'numberFilter', field: `ls_${score}`, params: { op: 'lt', value: 50 } }]) });
    expect(names(scored.data)).toEqual([ids.bob, ids.carol]);

    const bad = await list({
      lightFilter: filter([
        { type: 'stringFilter', field: 'title', params: { op: 'eq', value: 'CTO' } },
        { type: 'or', clauses: [{ type: 'stringFilter', field: 'title', params: { op: 'near', value: 'x' } }] },
      ]),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('clauses[1].clauses[0].params.op');
    expect((await list({ lightFilter: '{not json' })).statusCode).toBe(400);
  });

  it('answers a merged contact with its survivor; refuses malformed IDs (400) and other communities (404)', async () => {
    const older = await push({ id: 'm1', fullName: 'Merge Older', email: 'merge@example.org' });
    const newer = await push({ id: 'm2', github: { type: 'handle', value: 'merge-gh' } });
    await push({ id: 'm3', email: 'merge@example.org', github: { type: 'handle', value: 'merge-gh' } });
    expect((await get(newer)).id).toBe(older);
    try {
      for (const [id, status, code] of [
        ['42', 400, 'invalid_contact_id'],
        ['o_1', 400, 'invalid_contact_id'],
        ['c_999999', 404, 'contact_not_found'],
        [other.contactId, 404, 'contact_not_found'],
      ] as const) {
        const response = await t.get(`/api/v2/contacts/${id}`);
        expect(response.statusCode, id).toBe(status);
        expect(response.json()).toMatchObject({ success: false, error: { code } });
      }
    } finally {
      await t.services.db.deleteFrom('contacts').where('community_id', '=', t.communityId).where('id', '=', key(older)).execute();
    }
  });

  it("never lists another community's contacts, and each community sees its own", async () => {
    expect(names(await walk({ limit: 1000 }))).not.toContain(other.contactId);
    const theirs = await list({ cols: 'primaryEmail' }, other.token);
    // Theirs: the contact they pushed (their admin user's own contact is staff, not a member: not listed).
    expect((theirs.json() as Page).data).toEqual([{ id: other.contactId, name: 'Zed Other', primaryEmail: 'zed@acme.io' }]);
    // Their organization is not ours, even with the same domain.
    expect((await list({ organizationId: orgId }, other.token)).statusCode).toBe(404);
  });

  it('needs contacts:read and refuses unknown parameters', async () => {
    expect((await list({}, await t.issueToken(['organizations:read']))).statusCode).toBe(403);
    expect((await list({}, await t.issueToken(['contacts:read']))).statusCode).toBe(200);
    const unknown = await list({ email: 'alice@acme.io' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toContain('email');
    expect((await list({ limit: 0 })).statusCode).toBe(400);
    expect((await list({ limit: 1001 })).statusCode).toBe(400);
  });
});
