import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { TEST_PUBLIC_URL } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { walkPages } from '../helpers/paging.ts';

interface Segment {
  id: string;
  name: string;
  entityType: string;
  entityCount?: number;
  url?: string;
}
type Page = { success: true; data: Segment[]; meta: { nextCursor: string | null; recordCount?: number } };

/** GET /api/v2/segments and /segments/{id} (docs/behaviour.md: IDs, Envelopes, cols, Paging, Record fields). */
describe.each(ENGINES)('v2 segments (%s)', (engine) => {
  let t: TestContext;
  let other: { communityId: number; token: string };
  /** Segment keys by name, in creation (ID) order. */
  const ids: Record<string, number> = {};
  let theirs: number;

  const db = () => t.services.db;
  const s = (name: string) => `s_${ids[name]}`;
  /**
   * The segments' names in ID order, which is creation order on one server but not on a Citus cluster, where
   * a row inserted by a statement run on a worker takes that worker's range of IDs (docs/scaling.md).
   */
  const inIdOrder = (names: string[]) => [...names].sort((a, b) => ids[a]! - ids[b]!);

  async function seedSegment(communityId: number, name: string, entityType: 'contact' | 'organization' | 'object', objectTypeId: string | null = null) {
    return (await t.newSegment({ communityId, name, entityType, objectTypeId })).key;
  }

  const pushPerson = (id: string, email: string, companyDomain?: string) => t.newContact({ id, fullName: undefined, email, companyDomain });

  async function addBySegmentRoute(segmentId: number, emails: string[]) {
    const response = await t.app.inject({
      method: 'POST',
      url: `/community/v1/segments/${segmentId}`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: { socialType: 'email', value: emails.join(',') },
    });
    expect(response.statusCode, response.body).toBe(200);
  }

  async function list(params: Record<string, string | number | null | undefined>, token: string | null = t.token) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(key, String(value));
    return t.get(`/api/v2/segments?${search}`, token);
  }

  function walk(limit: number, params: Record<string, string | null> = {}, token = t.token): Promise<Segment[]> {
    return walkPages((cursor) => list({ ...params, limit, cursor }, token), limit);
  }

  beforeAll(async () => {
    t = await createTestContext(engine);
    const { communityId } = await t.newCommunity('Other');
    other = { communityId, token: await t.issueToken(['read'], communityId) };

    const objectType = await t.newObjectType({ name: 'Deal' });
    ids.Champions = await seedSegment(t.communityId, 'Champions', 'contact');
    ids['Key accounts'] = await seedSegment(t.communityId, 'Key accounts', 'organization');
    ids['Renewals 2026'] = await seedSegment(t.communityId, 'Renewals 2026', 'object', objectType.id);
    ids['Beta testers'] = await seedSegment(t.communityId, 'Beta testers', 'contact');
    ids['100% engaged_users'] = await seedSegment(t.communityId, '100% engaged_users', 'contact');
    ids['Champion orgs'] = await seedSegment(t.communityId, 'Champion orgs', 'organization');
    theirs = await seedSegment(communityId, 'Champions elsewhere', 'contact');

    await pushPerson('ann', 'ann@acme.io', 'acme.io');
    await pushPerson('bob', 'bob@acme.io', 'acme.io');
    await pushPerson('cy', 'cy@example.org');
    await addBySegmentRoute(ids.Champions!, ['ann@acme.io', 'bob@acme.io', 'cy@example.org']);
    await addBySegmentRoute(ids['Beta testers']!, ['cy@example.org']);
    const organization = await db()
      .selectFrom('organizations')
      .select('id')
      .where('community_id', '=', t.communityId)
      .where('primary_domain', '=', 'acme.io')
      .executeTakeFirstOrThrow();
    const object = await db()
      .insertInto('objects')
      .values({ community_id: t.communityId, object_type_id: objectType.key, name: 'Acme renewal', record_key: 'deal-1' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('segment_memberships')
      .values([
        { community_id: t.communityId, segment_id: ids['Key accounts']!, entity_id: organization.id },
        { community_id: t.communityId, segment_id: ids['Renewals 2026']!, entity_id: object.id },
      ])
      .execute();
    // Another community's members never count.
    const theirContact = await t.newContact({ communityId, fullName: 'Them' });
    await db().insertInto('segment_memberships').values({ community_id: communityId, segment_id: theirs, entity_id: theirContact.key }).execute();
  });
  afterAll(() => t?.close());

  it('lists every segment of every entity type in ID order: always id, name, entityType', async () => {
    const response = await list({});
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Page;
    expect(Object.keys(body)).toEqual(['success', 'data', 'meta']);
    expect(body.meta).toEqual({ nextCursor: null });
    const entityTypes: Record<string, string> = {
      Champions: 'contact',
      'Key accounts': 'organization',
      'Renewals 2026': 'object',
      'Beta testers': 'contact',
      '100% engaged_users': 'contact',
      'Champion orgs': 'organization',
    };
    expect(body.data).toEqual(inIdOrder(Object.keys(entityTypes)).map((name) => ({ id: s(name), name, entityType: entityTypes[name] })));
    for (const segment of body.data) expect(Object.keys(segment)).toEqual(['id', 'name', 'entityType']);
  });

  it('cols=entityCount counts the members of each segment; cols=url adds the console address, last', async () => {
    const body = (await list({ cols: 'url,entityCount' })).json() as Page;
    const counts = Object.fromEntries(body.data.map((segment) => [segment.name, segment.entityCount]));
    expect(counts).toEqual({
      Champions: 3,
      'Key accounts': 1,
      'Renewals 2026': 1,
      'Beta testers': 1,
      '100% engaged_users': 0,
      'Champion orgs': 0,
    });
    for (const segment of body.data) {
      expect(Object.keys(segment)).toEqual(['id', 'name', 'entityType', 'entityCount', 'url']);
      expect(segment.url).toBe(`${TEST_PUBLIC_URL}/segments/${segment.id}`);
    }
    const onlyUrl = (await list({ cols: 'url' })).json() as Page;
    for (const segment of onlyUrl.data) expect(Object.keys(segment)).toEqual(['id', 'name', 'entityType', 'url']);
    const onlyCount = (await list({ cols: 'entityCount', limit: 1 })).json() as Page;
    expect(onlyCount.data).toEqual([{ id: s('Champions'), name: 'Champions', entityType: 'contact', entityCount: 3 }]);
  });

  it('entityCount follows the core segment add (idempotent: a member added twice counts once)', async () => {
    await addBySegmentRoute(ids['Beta testers']!, ['cy@example.org', 'ann@acme.io']);
    const segment = (await t.get(`/api/v2/segments/${s('Beta testers')}?cols=entityCount`)).json() as { data: Segment };
    expect(segment.data.entityCount).toBe(2);
  });

  it('cols=recordCount adds meta.recordCount, counted with the same query; unknown cols are a 400 naming them', async () => {
    expect(((await list({ limit: 2, cols: 'recordCount' })).json() as Page).meta).toEqual({ nextCursor: expect.any(String), recordCount: 6 });
    expect(((await list({ query: 'champ', cols: 'recordCount' })).json() as Page).meta).toEqual({ nextCursor: null, recordCount: 2 });
    expect(((await list({ query: 'nothing like it', cols: 'recordCount' })).json() as Page).meta).toEqual({ nextCursor: null, recordCount: 0 });
    for (const cols of ['members', 'entityCount,bogus', 'cf_1', 'recentActivities']) {
      const bad = await list({ cols });
      expect(bad.statusCode, cols).toBe(400);
      expect(bad.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
      expect(bad.json().error.message).toContain(JSON.stringify(cols.split(',').pop()));
    }
  });

  it('query is a case-insensitive substring of the name; % and _ are plain characters', async () => {
    const cases: Record<string, string[]> = {
      CHAMP: ['Champions', 'Champion orgs'],
      ion: ['Champions', 'Champion orgs'],
      ACCOUNTS: ['Key accounts'],
      ' test': ['Beta testers'],
      '2026': ['Renewals 2026'],
      '%': ['100% engaged_users'],
      _: ['100% engaged_users'],
      zzz: [],
    };
    for (const [query, expected] of Object.entries(cases)) {
      expect(
        (await walk(100, { query })).map((segment) => segment.name),
        query,
      ).toEqual(expected);
      expect(
        (await walk(1, { query })).map((segment) => segment.name),
        query,
      ).toEqual(expected);
    }
  });

  it('pages every segment exactly once and in order; a cursor is bound to its query and community', async () => {
    const all = await walk(1000);
    expect(all.map((segment) => segment.name)).toEqual(inIdOrder(Object.keys(ids)));
    for (const limit of [1, 2, 4]) expect(await walk(limit)).toEqual(all);
    const keys = all.map((segment) => Number(segment.id.slice(2)));
    expect(keys).toEqual([...keys].sort((a, b) => a - b));

    const cursor = ((await list({ limit: 1, query: 'champ' })).json() as Page).meta.nextCursor!;
    const next = (await list({ limit: 1, query: 'champ', cursor })).json() as Page;
    expect(next.data.map((segment) => segment.name)).toEqual(['Champion orgs']);
    for (const params of [{ query: 'CHAMP' }, { query: 'ion' }, {}]) {
      const elsewhere = await list({ limit: 1, cursor, ...params });
      expect(elsewhere.statusCode).toBe(400);
      expect(elsewhere.json()).toMatchObject({ success: false, error: { code: 'invalid_cursor' } });
    }
    expect((await list({ limit: 1, query: 'champ', cursor }, other.token)).statusCode).toBe(400);
    expect((await list({ cursor: 'garbage' })).json().error.code).toBe('invalid_cursor');
    // The limit may change between pages of one cursor.
    const first = (await list({ limit: 2 })).json() as Page;
    const rest = (await list({ limit: 10, cursor: first.meta.nextCursor })).json() as Page;
    expect([...first.data, ...rest.data]).toEqual(all);
  });

  it('takes no sort, direction or other parameter; limit is 1..1000', async () => {
    for (const params of [{ sort: 'name' }, { direction: 'desc' }, { entityType: 'contact' }, { limit: 0 }, { limit: 1001 }, { limit: 'x' }]) {
      const response = await list(params);
      expect(response.statusCode, JSON.stringify(params)).toBe(400);
      expect(response.json().success).toBe(false);
    }
  });

  it('GET /segments/{id}: any entity type, with cols; recordCount is no get column', async () => {
    const object = await t.get(`/api/v2/segments/${s('Renewals 2026')}`);
    expect(object.statusCode, object.body).toBe(200);
    expect(object.json()).toEqual({ success: true, data: { id: s('Renewals 2026'), name: 'Renewals 2026', entityType: 'object' } });
    const full = await t.get(`/api/v2/segments/${s('Champions')}?cols=entityCount,url`);
    expect(full.json()).toEqual({
      success: true,
      data: { id: s('Champions'), name: 'Champions', entityType: 'contact', entityCount: 3, url: `${TEST_PUBLIC_URL}/segments/${s('Champions')}` },
    });
    expect(Object.keys(full.json().data)).toEqual(['id', 'name', 'entityType', 'entityCount', 'url']);
    for (const cols of ['recordCount', 'name']) {
      const bad = await t.get(`/api/v2/segments/${s('Champions')}?cols=${cols}`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.message).toContain(`"${cols}"`);
    }
    expect((await t.get(`/api/v2/segments/${s('Champions')}?query=x`)).statusCode).toBe(400);
  });

  it("a malformed ID is a 400 invalid_segment_id; a missing one or another community's a 404 segment_not_found", async () => {
    for (const bad of [String(ids.Champions), 's_', 's_x', 'c_1', 'S_1', 's_-1', 's_99999999999999999']) {
      const response = await t.get(`/api/v2/segments/${encodeURIComponent(bad)}`);
      expect(response.statusCode, bad).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_segment_id' } });
    }
    for (const missing of ['s_999999', `s_${theirs}`]) {
      const response = await t.get(`/api/v2/segments/${missing}`);
      expect(response.statusCode, missing).toBe(404);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'segment_not_found' } });
    }
  });

  it('needs segments:read (or read)', async () => {
    for (const scopes of [['contacts:read'], ['segments:write'], ['objects:read', 'organizations:read']]) {
      const token = await t.issueToken(scopes);
      expect((await list({}, token)).statusCode, scopes.join()).toBe(403);
      expect((await t.get(`/api/v2/segments/${s('Champions')}`, token)).statusCode).toBe(403);
    }
    for (const scopes of [['segments:read'], ['read']]) {
      const token = await t.issueToken(scopes);
      expect((await list({}, token)).statusCode).toBe(200);
      expect((await t.get(`/api/v2/segments/${s('Champions')}`, token)).statusCode).toBe(200);
    }
    expect((await list({}, null)).statusCode).toBe(403);
  });

  it('communities see only their own segments and members', async () => {
    const theirList = await walk(10, {}, other.token);
    expect(theirList).toEqual([{ id: `s_${theirs}`, name: 'Champions elsewhere', entityType: 'contact' }]);
    const counted = (await list({ cols: 'entityCount' }, other.token)).json() as Page;
    expect(counted.data.map((segment) => segment.entityCount)).toEqual([1]);
    expect((await walk(10, { query: 'elsewhere' })).length).toBe(0);
    expect((await t.get(`/api/v2/segments/${s('Champions')}`, other.token)).statusCode).toBe(404);
  });

  it('the core segment routes keep working: contact segments only, as {id: number, name}', async () => {
    const response = await t.get('/community/v1/segments');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      { id: ids.Champions, name: 'Champions' },
      { id: ids['Beta testers'], name: 'Beta testers' },
      { id: ids['100% engaged_users'], name: '100% engaged_users' },
    ]);
    const statuses = await t.get(`/community/v1/segments/${ids['Key accounts']}/status`);
    expect(statuses.statusCode).toBe(404);
  });
});
