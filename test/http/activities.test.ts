import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { ACTIVITY_COLUMNS } from '../../src/modules/activities/activity.schemas.ts';
import { ACTIVITY_TYPE_CATALOG } from '../../src/modules/activity-types/activity-type-catalog.ts';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { walkPages } from '../helpers/paging.ts';

interface Activity {
  id: string;
  type: string;
  activityTime: string;
  [column: string]: unknown;
}
type Page = { success: true; data: Activity[]; meta: { nextCursor: string | null; recordCount?: number } };
type Params = Record<string, string | number | null | undefined>;

const ALWAYS = ['id', 'type', 'activityTime'];
const EVERY_COL = ACTIVITY_COLUMNS.join(',');
const key = (id: string) => Number(id.replace(/^[a-z]+_/, ''));
const filter = (clauses: unknown[], type = 'and') => JSON.stringify({ type, clauses });

/**
 * GET /api/v2/activities, /activities/{id}, /activity-categories, /activity-sentiment (docs/behaviour.md: IDs,
 * Envelopes, Errors, cols, Sorting, Paging, lightFilter, Scopes, Record fields).
 */
describe.each(ENGINES)('activities (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');
  let forum: { id: number; name: string };
  let other: { communityId: number; sourceId: number; token: string; contactId: string; activityId: string; organizationId: number };
  const ids: Record<string, string> = {};
  const contacts: Record<string, string> = {};
  let acme: number;

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    const created = await t.services.sources.create(cliWriter(t.communityId), { name: 'Community Forum' });
    forum = { id: created.id, name: 'Community Forum' };
    const { communityId } = await t.services.communities.create('Other', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Other API' });
    other = {
      communityId,
      sourceId: source.id,
      token: await t.issueToken(['read', 'write', 'admin'], communityId),
      contactId: '',
      activityId: '',
      organizationId: 0,
    };
  });
  afterAll(() => t?.close());

  async function post(path: string, payload: Record<string, unknown>, token = t.token) {
    const response = await t.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${token}` }, payload });
    expect(response.statusCode, response.body).toBe(202);
    return response.json() as { contactId: string; activityId: string };
  }
  const pushUser = (user: Record<string, unknown>, sourceId = t.sourceId, token = t.token) => post(`/community/v1/source/${sourceId}/user`, user, token);
  const pushActivity = (activity: Record<string, unknown>, sourceId = t.sourceId, token = t.token) =>
    post(`/community/v1/source/${sourceId}/activity`, activity, token);

  function url(path: string, params: Params) {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(name, String(value));
    return `${path}?${search}`;
  }
  const list = (params: Params = {}, token: string | null = t.token) => t.get(url('/api/v2/activities', params), token);
  const getOne = (id: string, params: Params = {}, token: string | null = t.token) => t.get(url(`/api/v2/activities/${id}`, params), token);

  function walk(params: Params, limit: number, token = t.token): Promise<Activity[]> {
    return walkPages((cursor) => list({ ...params, limit, cursor }, token), limit);
  }

  async function expectError(response: Awaited<ReturnType<TestApp['get']>>, status: number, code: string, mentions?: string) {
    expect(response.statusCode, response.body).toBe(status);
    const body = response.json() as { success: boolean; error: { code: string; message: string } };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe(code);
    if (mentions) expect(body.error.message).toContain(mentions);
  }

  /** The community's activities as stored, in the order of a sort: what the API must answer. */
  async function stored(sort: 'id' | 'activityTime', direction: 'asc' | 'desc', communityId = t.communityId) {
    const rows = await t.services.db.selectFrom('activities').select(['id', 'activity_time', 'contact_id']).where('community_id', '=', communityId).execute();
    const sign = direction === 'asc' ? 1 : -1;
    rows.sort((a, b) => (sort === 'id' ? sign * (a.id - b.id) : sign * (a.activity_time.getTime() - b.activity_time.getTime() || a.id - b.id)));
    return rows;
  }

  it('takes pushed users and activities: threads, a reply before its parent, sub-sources, two providers', async () => {
    contacts.ann = (await pushUser({ id: 'ann', email: 'ann@acme-widgets.com', fullName: 'Ann', companyDomain: 'acme-widgets.com' })).contactId;
    contacts.bob = (await pushUser({ id: 'bob', email: 'bob@acme-widgets.com', fullName: 'Bob', companyDomain: 'acme-widgets.com' })).contactId;
    contacts.cy = (await pushUser({ id: 'cy', email: 'cy@example.org', fullName: 'Cy' })).contactId;
    contacts.dee = (await pushUser({ id: 'dee', email: 'dee@example.org', fullName: 'Dee' })).contactId;
    const org = await t.services.db
      .selectFrom('contacts')
      .select('organization_id')
      .where('community_id', '=', t.communityId)
      .where('id', '=', key(contacts.ann))
      .executeTakeFirstOrThrow();
    acme = org.organization_id!;
    expect(acme).toEqual(expect.any(Number));

    // A three-level thread: post <- reply-1 <- reply-2, and reply-3 directly under the post.
    ids.post = (
      await pushActivity({
        id: 'post-1',
        activityType: 'made_post_topic',
        user: { id: 'ann' },
        content: { type: 'text', value: 'I love this product, it works great and the docs are wonderful. Thank you!' },
        timestamp: '2026-03-01T09:00:00Z',
        subSource: { type: 'name', name: '#general' },
      })
    ).activityId;
    ids.reply1 = (
      await pushActivity({
        id: 'reply-1',
        activityType: 'commented_replied',
        user: { id: 'bob' },
        content: { type: 'markdown', value: 'This is **terrible**: the install is broken and the errors are awful.' },
        timestamp: '2026-03-01T10:00:00Z',
        parentActivity: { id: 'post-1', activityType: 'made_post_topic' },
      })
    ).activityId;
    ids.reply2 = (
      await pushActivity({
        id: 'reply-2',
        activityType: 'commented_replied',
        user: { id: 'cy' },
        content: { type: 'text', value: 'The meeting is on Tuesday.' },
        timestamp: '2026-03-01T11:00:00Z',
        parentActivity: { id: 'reply-1', activityType: 'commented_replied' },
      })
    ).activityId;
    ids.reply3 = (
      await pushActivity({
        id: 'reply-3',
        activityType: 'commented_replied',
        user: { id: 'ann' },
        timestamp: '2026-03-02T08:00:00Z',
        parentActivity: { id: 'post-1' },
      })
    ).activityId;
    // A reply that arrives before its parent.
    ids.early = (
      await pushActivity({
        id: 'early-child',
        activityType: 'commented_replied',
        user: { id: 'dee' },
        timestamp: '2026-03-03T08:00:00Z',
        parentActivity: { id: 'late-parent', activityType: 'made_post_topic' },
      })
    ).activityId;
    ids.late = (await pushActivity({ id: 'late-parent', activityType: 'made_post_topic', user: { id: 'cy' }, timestamp: '2026-03-03T07:00:00Z' })).activityId;
    // Two at the same instant (ties are broken by ID), and one from the second provider.
    ids.tieA = (await pushActivity({ id: 'tie-a', activityType: 'tweet', user: { id: 'dee' }, timestamp: '2026-03-04T00:00:00Z' })).activityId;
    ids.tieB = (await pushActivity({ id: 'tie-b', activityType: 'tweet', user: { id: 'cy' }, timestamp: '2026-03-04T00:00:00Z' })).activityId;
    ids.forum = (
      await pushActivity(
        { id: 'forum-1', activityType: 'forum_topic', user: { id: 'bob-forum', email: 'bob@acme-widgets.com' }, timestamp: '2026-03-05T00:00:00Z' },
        forum.id,
      )
    ).activityId;
    // Older than everything else, to check sorting by time is not sorting by ID.
    ids.old = (await pushActivity({ id: 'old-1', activityType: 'pr_opened', user: { id: 'cy' }, timestamp: '2025-12-31T23:59:59Z' })).activityId;

    const pushedOther = await pushActivity(
      { id: 'other-1', activityType: 'tweet', user: { id: 'zed', email: 'zed@globex-corp.com', companyDomain: 'globex-corp.com' } },
      other.sourceId,
      other.token,
    );
    other.contactId = pushedOther.contactId;
    other.activityId = pushedOther.activityId;
    const otherOrg = await t.services.db
      .selectFrom('contacts')
      .select('organization_id')
      .where('community_id', '=', other.communityId)
      .where('id', '=', key(other.contactId))
      .executeTakeFirstOrThrow();
    other.organizationId = otherOrg.organization_id!;
    expect(other.organizationId).toEqual(expect.any(Number));
    expect((await stored('id', 'asc')).length).toBe(10);
  });

  it('answers the envelope with id, type and activityTime only; by activityTime ascending by default', async () => {
    const response = await list();
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Page;
    expect(Object.keys(body)).toEqual(['success', 'data', 'meta']);
    expect(body.success).toBe(true);
    expect(body.meta).toEqual({ nextCursor: null });
    for (const item of body.data) expect(Object.keys(item)).toEqual(ALWAYS);
    expect(body.data.map((item) => item.id)).toEqual((await stored('activityTime', 'asc')).map((row) => `a_${row.id}`));
    expect(body.data[0]).toEqual({ id: ids.old, type: 'pr_opened', activityTime: '2025-12-31T23:59:59.000Z' });
  });

  it('cols adds each opt-in column alone, in the documented order with url last; an unknown name is a 400', async () => {
    for (const column of ACTIVITY_COLUMNS) {
      const body = (await list({ cols: column })).json() as Page;
      for (const item of body.data) expect(Object.keys(item), column).toEqual([...ALWAYS, column]);
      expect(body.meta).toEqual({ nextCursor: null });
    }
    const all = (await list({ cols: ` ${ACTIVITY_COLUMNS.join(' , ')} ` })).json() as Page;
    for (const item of all.data) expect(Object.keys(item)).toEqual([...ALWAYS, ...ACTIVITY_COLUMNS]);
    expect(ACTIVITY_COLUMNS.at(-1)).toBe('url');
    expect(ACTIVITY_COLUMNS.at(-2)).toBe('subSourceNames');

    await expectError(await list({ cols: 'contactId,title' }), 400, 'invalid_parameters', '"title"');
    await expectError(await getOne(ids.post!, { cols: 'recordCount' }), 400, 'invalid_parameters', '"recordCount"');
    await expectError(await getOne(ids.post!, { cols: 'bogus' }), 400, 'invalid_parameters', '"bogus"');
  });

  it('every column holds what was pushed', async () => {
    const response = await getOne(ids.post!, { cols: EVERY_COL });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        id: ids.post,
        type: 'made_post_topic',
        activityTime: '2026-03-01T09:00:00.000Z',
        contactId: contacts.ann,
        content: 'I love this product, it works great and the docs are wonderful. Thank you!',
        isUserInitiated: true,
        participantCount: 3,
        providerId: `sig_${t.sourceId}`,
        providerName: 'API',
        replyCount: 3,
        sentiment: 'positive',
        subSourceNames: ['#general'],
        url: `${TEST_PUBLIC_URL}/activities/${ids.post}`,
      },
    });
    const reply = (await getOne(ids.reply1!, { cols: EVERY_COL })).json().data as Activity;
    expect(reply).toMatchObject({
      contactId: contacts.bob,
      content: 'This is **terrible**: the install is broken and the errors are awful.',
      sentiment: 'negative',
      subSourceNames: [],
    });
    expect(((await getOne(ids.reply2!, { cols: 'sentiment' })).json().data as Activity).sentiment).toBe('neutral');
    // No content: content and sentiment are null, never left out.
    expect((await getOne(ids.reply3!, { cols: 'content,sentiment' })).json().data).toEqual({
      id: ids.reply3,
      type: 'commented_replied',
      activityTime: '2026-03-02T08:00:00.000Z',
      content: null,
      sentiment: null,
    });
    expect((await getOne(ids.forum!, { cols: 'providerId,providerName,contactId' })).json().data).toMatchObject({
      providerId: `sig_${forum.id}`,
      providerName: forum.name,
      contactId: contacts.bob,
    });
    // Content erased (as erasure leaves it) reads as null.
    await t.services.db.updateTable('activities').set({ content: null }).where('community_id', '=', t.communityId).where('id', '=', key(ids.reply2!)).execute();
    expect(((await getOne(ids.reply2!, { cols: 'content' })).json().data as Activity).content).toBeNull();
  });

  it('replyCount and participantCount cover every depth of a thread, a parent that arrived late included', async () => {
    const body = (await list({ cols: 'replyCount,participantCount', limit: 1000 })).json() as Page;
    const counts = Object.fromEntries(body.data.map((item) => [item.id, [item.replyCount, item.participantCount]]));
    expect(counts[ids.post!]).toEqual([3, 3]); // reply-1, reply-2 (depth 2), reply-3; Ann, Bob, Cy
    expect(counts[ids.reply1!]).toEqual([1, 2]); // reply-2; Bob, Cy
    expect(counts[ids.reply2!]).toEqual([0, 1]);
    expect(counts[ids.reply3!]).toEqual([0, 1]);
    expect(counts[ids.late!]).toEqual([1, 2]); // the early child; Cy, Dee
    expect(counts[ids.early!]).toEqual([0, 1]);
    expect(counts[ids.tieA!]).toEqual([0, 1]);
    // A reply by the author does not add a participant.
    await pushActivity({
      id: 'reply-4',
      activityType: 'commented_replied',
      user: { id: 'cy' },
      timestamp: '2026-03-01T12:00:00Z',
      parentActivity: { id: 'reply-2' },
    });
    expect((await getOne(ids.reply1!, { cols: 'replyCount,participantCount' })).json().data).toMatchObject({ replyCount: 2, participantCount: 2 });
    expect((await getOne(ids.post!, { cols: 'replyCount,participantCount' })).json().data).toMatchObject({ replyCount: 4, participantCount: 3 });
    const reply4 = await t.services.db
      .selectFrom('activities')
      .select('id')
      .where('community_id', '=', t.communityId)
      .where('external_id', '=', 'reply-4')
      .executeTakeFirstOrThrow();
    ids.reply4 = `a_${reply4.id}`;
  });

  it('sorts by id and by activityTime, both directions; cursor walks return each record once, in order', async () => {
    for (const sort of ['id', 'activityTime'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const expected = (await stored(sort, direction)).map((row) => `a_${row.id}`);
        for (const limit of [1, 3, 1000]) {
          const seen = (await walk({ sort, direction }, limit)).map((item) => item.id);
          expect(seen, `${sort} ${direction} ${limit}`).toEqual(expected);
        }
      }
    }
    // Ties at one instant are ordered by ID, reversed with the direction.
    const asc = (await walk({}, 2)).map((item) => item.id);
    expect(asc.indexOf(ids.tieA!)).toBe(asc.indexOf(ids.tieB!) - 1);
    const desc = (await walk({ direction: 'desc' }, 2)).map((item) => item.id);
    expect(desc.indexOf(ids.tieB!)).toBe(desc.indexOf(ids.tieA!) - 1);
    // By time is not by ID: the oldest was pushed late.
    expect(asc[0]).toBe(ids.old);
    await expectError(await list({ sort: 'name' }), 400, 'invalid_parameters', '"name"');
    await expectError(await list({ direction: 'up' }), 400, 'invalid_parameters', 'direction');
  });

  it('a cursor is tied to its sort, direction and filters; a tampered one is a 400', async () => {
    const first = (await list({ limit: 2 })).json() as Page;
    const cursor = first.meta.nextCursor!;
    expect(cursor).toEqual(expect.any(String));
    expect((await list({ limit: 2, cursor })).statusCode).toBe(200);
    // limit may change between pages.
    expect((await list({ limit: 5, cursor })).statusCode).toBe(200);
    await expectError(await list({ limit: 2, cursor, sort: 'id' }), 400, 'invalid_cursor');
    await expectError(await list({ limit: 2, cursor, direction: 'desc' }), 400, 'invalid_cursor');
    await expectError(await list({ limit: 2, cursor, contactId: contacts.ann }), 400, 'invalid_cursor');
    await expectError(await list({ limit: 2, cursor, organizationId: `o_${acme}` }), 400, 'invalid_cursor');
    await expectError(await list({ limit: 2, cursor, startDate: '2026-01-01T00:00:00Z' }), 400, 'invalid_cursor');
    await expectError(await list({ limit: 2, cursor, endDate: '2027-01-01T00:00:00Z' }), 400, 'invalid_cursor');
    const typeFilter = filter([{ type: 'stringFilter', field: 'type', params: { op: 'eq', value: 'tweet' } }]);
    await expectError(await list({ limit: 2, cursor, lightFilter: typeFilter }), 400, 'invalid_cursor');
    await expectError(await list({ limit: 2, cursor: `${cursor.slice(0, -2)}xx` }), 400, 'invalid_cursor');
    await expectError(await list({ limit: 2, cursor: 'nonsense' }), 400, 'invalid_cursor');
    // A cursor of one community's list is no cursor for another's.
    await expectError(await list({ limit: 2, cursor }, other.token), 400, 'invalid_cursor');
  });

  it("contactId: that contact's activities; a merged contact's ID gives the survivor's; unknown, foreign and malformed IDs", async () => {
    const ann = await walk({ contactId: contacts.ann }, 1);
    const annRows = (await stored('activityTime', 'asc')).filter((row) => `c_${row.contact_id}` === contacts.ann);
    expect(ann.map((item) => item.id)).toEqual(annRows.map((row) => `a_${row.id}`));
    expect(ann.map((item) => item.id)).toEqual([ids.post, ids.reply3]);
    expect(await walk({ contactId: contacts.ann, sort: 'id', direction: 'desc' }, 1)).toEqual([...ann].sort((a, b) => key(b.id) - key(a.id)));

    // Merge: an older contact (email) and a newer one (GitHub), each with an activity, then a push naming both.
    const older = (await pushUser({ id: 'merge-a', email: 'merge@example.org', fullName: 'Merge A' })).contactId;
    const newer = (await pushUser({ id: 'merge-b', github: { type: 'handle', value: 'merge-b' } })).contactId;
    const byOlder = (await pushActivity({ id: 'merge-act-1', activityType: 'tweet', user: { id: 'merge-a' }, timestamp: '2026-03-06T00:00:00Z' })).activityId;
    const byNewer = (await pushActivity({ id: 'merge-act-2', activityType: 'tweet', user: { id: 'merge-b' }, timestamp: '2026-03-07T00:00:00Z' })).activityId;
    await pushUser({ id: 'merge-c', email: 'merge@example.org', github: { type: 'handle', value: 'merge-b' } });
    const survivor = (await walk({ contactId: older, cols: 'contactId' }, 1)).map((item) => [item.id, item.contactId]);
    expect(survivor).toEqual([
      [byOlder, older],
      [byNewer, older],
    ]);
    expect(await walk({ contactId: newer, cols: 'contactId' }, 1)).toEqual(await walk({ contactId: older, cols: 'contactId' }, 1));

    // A contact without activities: an empty page, not a 404.
    const quiet = (await pushUser({ id: 'quiet', email: 'quiet@example.org' })).contactId;
    expect((await list({ contactId: quiet })).json()).toEqual({ success: true, data: [], meta: { nextCursor: null } });

    await expectError(await list({ contactId: 'c_999999' }), 404, 'contact_not_found', 'c_999999');
    await expectError(await list({ contactId: other.contactId }), 404, 'contact_not_found');
    await expectError(await list({ contactId: '17' }), 400, 'invalid_contact_id', '"17"');
    await expectError(await list({ contactId: 'o_1' }), 400, 'invalid_contact_id');
    await expectError(await list({ contactId: 'c_x' }), 400, 'invalid_contact_id');
    await expectError(await list({ contactId: '' }), 400, 'invalid_contact_id');
  });

  it('organizationId: the activities of its contacts; unknown, foreign and malformed IDs', async () => {
    const acmeContacts = new Set([contacts.ann, contacts.bob]);
    const expected = (await stored('activityTime', 'asc')).filter((row) => acmeContacts.has(`c_${row.contact_id}`)).map((row) => `a_${row.id}`);
    expect(expected.length).toBe(4);
    expect((await walk({ organizationId: `o_${acme}` }, 1)).map((item) => item.id)).toEqual(expected);
    expect((await walk({ organizationId: `o_${acme}`, contactId: contacts.bob }, 1)).map((item) => item.id)).toEqual([ids.reply1, ids.forum]);
    expect(await walk({ organizationId: `o_${acme}`, contactId: contacts.cy }, 1)).toEqual([]);
    await expectError(await list({ organizationId: 'o_999999' }), 404, 'org_not_found', 'o_999999');
    await expectError(await list({ organizationId: `o_${other.organizationId}` }), 404, 'org_not_found');
    await expectError(await list({ organizationId: String(acme) }), 400, 'invalid_organization_id');
    await expectError(await list({ organizationId: `c_${acme}` }), 400, 'invalid_organization_id');
  });

  it('startDate and endDate are inclusive bounds on activityTime; a bad date is a 400 naming it', async () => {
    const between = async (startDate?: string, endDate?: string) => (await walk({ startDate, endDate }, 2)).map((item) => item.id);
    expect(await between('2026-03-01T10:00:00Z', '2026-03-01T11:00:00Z')).toEqual([ids.reply1, ids.reply2]);
    expect(await between('2026-03-01T10:00:00.001Z', '2026-03-01T10:59:59.999Z')).toEqual([]);
    // Offsets are read: 11:00+01:00 is 10:00Z.
    expect(await between('2026-03-01T11:00:00+01:00', '2026-03-01T11:00:00+01:00')).toEqual([ids.reply1]);
    expect(await between('2026-03-04T00:00:00Z')).toEqual(
      (await stored('activityTime', 'asc')).filter((row) => row.activity_time >= new Date('2026-03-04T00:00:00Z')).map((row) => `a_${row.id}`),
    );
    expect(await between(undefined, '2026-01-01T00:00:00Z')).toEqual([ids.old]);
    expect(await between('2026-03-05T00:00:00Z', '2026-03-01T00:00:00Z')).toEqual([]);
    expect(await walk({ startDate: '2026-03-01T00:00:00Z', contactId: contacts.ann, endDate: '2026-03-01T23:00:00Z' }, 1)).toEqual([
      { id: ids.post, type: 'made_post_topic', activityTime: '2026-03-01T09:00:00.000Z' },
    ]);
    for (const [name, value] of [
      ['startDate', 'yesterday'],
      ['startDate', '2026-03-01'],
      ['endDate', '2026-02-30T00:00:00Z'],
      ['endDate', '2026-03-01T10:00:00'],
      ['startDate', '0000-01-01T00:00:00Z'],
      ['endDate', '2026-03-01T23:59:60Z'],
    ] as const) {
      await expectError(await list({ [name]: value }), 400, 'invalid_parameters', name);
    }
  });

  it('lightFilter filters the list and is counted by recordCount; a bad one is a 400 naming its JSON path', async () => {
    const tweets = filter([{ type: 'stringFilter', field: 'type', params: { op: 'eq', value: 'tweet' } }]);
    const expected = (await walk({ cols: 'contactId' }, 1000)).filter((item) => item.type === 'tweet');
    expect(expected.length).toBeGreaterThan(2);
    expect(await walk({ lightFilter: tweets, cols: 'contactId' }, 1)).toEqual(expected);
    const counted = (await list({ lightFilter: tweets, cols: 'recordCount', limit: 1 })).json() as Page;
    expect(counted.meta).toEqual({ nextCursor: expect.any(String), recordCount: expected.length });

    const negative = filter([{ type: 'stringListFilter', field: 'sentiment', params: { op: 'any', value: ['negative'] } }]);
    expect((await walk({ lightFilter: negative }, 1)).map((item) => item.id)).toEqual([ids.reply1]);
    const byProvider = filter([{ type: 'stringListFilter', field: 'providerId', params: { op: 'any', value: [`sig_${forum.id}`] } }]);
    expect((await walk({ lightFilter: byProvider }, 1)).map((item) => item.id)).toEqual([ids.forum]);
    const combined = filter(
      [
        { type: 'stringFilter', field: 'type', params: { op: 'eq', value: 'commented_replied' } },
        { type: 'stringListFilter', field: 'subSourceNames', params: { op: 'any', value: ['#general'] } },
      ],
      'or',
    );
    expect((await walk({ lightFilter: combined, contactId: contacts.ann }, 1)).map((item) => item.id)).toEqual([ids.post, ids.reply3]);

    await expectError(
      await list({ lightFilter: filter([{ type: 'stringFilter', field: 'type', params: { op: 'bogus', value: 'x' } }]) }),
      400,
      'invalid_filter',
      'clauses[0].params.op',
    );
    await expectError(
      await list({ lightFilter: filter([{ type: 'booleanFilter', field: 'nope', params: { op: 'eq', value: true } }]) }),
      400,
      'invalid_filter',
      'clauses[0]',
    );
    await expectError(await list({ lightFilter: '{not json' }), 400, 'invalid_filter');
  });

  it('recordCount counts every record of the filtered list, whatever the page', async () => {
    const all = await stored('id', 'asc');
    const page = (await list({ cols: 'recordCount', limit: 2 })).json() as Page;
    expect(page.data).toHaveLength(2);
    expect(page.meta).toEqual({ nextCursor: expect.any(String), recordCount: all.length });
    const ann = (await list({ cols: 'recordCount,contactId', contactId: contacts.ann })).json() as Page;
    expect(ann.meta).toEqual({ nextCursor: null, recordCount: 2 });
    const acmeCount = (await list({ cols: 'recordCount', organizationId: `o_${acme}`, startDate: '2026-03-01T09:30:00Z' })).json() as Page;
    expect(acmeCount.meta.recordCount).toBe(3);
  });

  it('GET /activities/{id}: malformed IDs are 400, unknown and foreign ones 404', async () => {
    expect((await getOne(ids.tieA!)).json()).toEqual({
      success: true,
      data: { id: ids.tieA, type: 'tweet', activityTime: '2026-03-04T00:00:00.000Z' },
    });
    await expectError(await getOne('123'), 400, 'invalid_activity_id', '"123"');
    await expectError(await getOne('c_1'), 400, 'invalid_activity_id');
    await expectError(await getOne('a_'), 400, 'invalid_activity_id');
    await expectError(await getOne('a_99999999999999999'), 400, 'invalid_activity_id');
    await expectError(await getOne('a_999999'), 404, 'activity_not_found', 'a_999999');
    await expectError(await getOne(other.activityId), 404, 'activity_not_found');
    await expectError(await getOne(ids.post!, { limit: 1 }), 400, 'invalid_parameters', '"limit"');
  });

  it('rejects unknown query parameters', async () => {
    await expectError(await list({ query: 'x' }), 400, 'invalid_parameters', '"query"');
    await expectError(await list({ limit: 0 }), 400, 'invalid_parameters', 'limit');
    await expectError(await list({ limit: 1001 }), 400, 'invalid_parameters', 'limit');
  });

  it("isolation: another community's activities never appear, and its token sees only its own", async () => {
    const mine = await walk({ cols: EVERY_COL }, 1000);
    expect(mine.map((item) => item.id)).not.toContain(other.activityId);
    expect(mine.some((item) => item.contactId === other.contactId)).toBe(false);
    const theirs = await walk({ cols: 'providerId,providerName,url' }, 1, other.token);
    expect(theirs).toEqual([expect.objectContaining({ id: other.activityId, providerId: `sig_${other.sourceId}`, providerName: 'Other API' })]);
    await expectError(await getOne(ids.post!, {}, other.token), 404, 'activity_not_found');
    await expectError(await list({ contactId: contacts.ann }, other.token), 404, 'contact_not_found');
    await expectError(await list({ organizationId: `o_${acme}` }, other.token), 404, 'org_not_found');
  });

  it('scopes: activities need activities:read; categories and sentiments contacts:read', async () => {
    const activitiesOnly = await t.issueToken(['activities:read']);
    const contactsOnly = await t.issueToken(['contacts:read']);
    const read = await t.issueToken(['read']);
    expect((await list({}, activitiesOnly)).statusCode).toBe(200);
    expect((await getOne(ids.post!, {}, activitiesOnly)).statusCode).toBe(200);
    expect((await list({}, read)).statusCode).toBe(200);
    for (const response of [await list({}, contactsOnly), await getOne(ids.post!, {}, contactsOnly), await list({}, null)]) {
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ status: 'forbidden' });
    }
    for (const path of ['/api/v2/activity-categories', '/api/v2/activity-sentiment']) {
      expect((await t.get(path, contactsOnly)).statusCode, path).toBe(200);
      expect((await t.get(path, read)).statusCode, path).toBe(200);
      expect((await t.get(path, activitiesOnly)).statusCode, path).toBe(403);
    }
  });

  it('a thread whose parent links form a cycle still answers, each activity counted once', async () => {
    const a = (await pushActivity({ id: 'cycle-a', activityType: 'commented_replied', user: { id: 'cy' }, parentActivity: { id: 'cycle-b' } })).activityId;
    const b = (await pushActivity({ id: 'cycle-b', activityType: 'commented_replied', user: { id: 'dee' }, parentActivity: { id: 'cycle-a' } })).activityId;
    // Ingestion no longer links a loop (ingestion-activities.test.ts); a database written before it may hold one.
    await t.services.db
      .updateTable('activities')
      .set({ parent_id: key(b) })
      .where('community_id', '=', t.communityId)
      .where('id', '=', key(a))
      .execute();
    const rows = await t.services.db
      .selectFrom('activities')
      .select(['id', 'parent_id'])
      .where('community_id', '=', t.communityId)
      .where('external_id', 'in', ['cycle-a', 'cycle-b'])
      .execute();
    const parents = Object.fromEntries(rows.map((row) => [`a_${row.id}`, row.parent_id === null ? null : `a_${row.parent_id}`]));
    expect(parents).toEqual({ [a]: b, [b]: a });
    for (const id of [a, b]) {
      expect((await getOne(id, { cols: 'replyCount,participantCount' })).json().data).toMatchObject({ replyCount: 1, participantCount: 2 });
    }
  });

  it('byIds: every column, in the order asked, unknown and foreign keys left out', async () => {
    const keys = [ids.reply1!, ids.post!, other.activityId, 'a_999999', ids.post!, ids.forum!].map(key);
    const found = await t.services.activities.byIds(t.communityId, keys);
    expect(found.map((item) => item.id)).toEqual([ids.reply1, ids.post, ids.forum]);
    for (const item of found) expect(Object.keys(item)).toEqual([...ALWAYS, ...ACTIVITY_COLUMNS]);
    const viaApi = (await getOne(ids.post!, { cols: EVERY_COL })).json().data;
    expect(found[1]).toEqual(viaApi);
    expect(await t.services.activities.byIds(t.communityId, [])).toEqual([]);
  });

  it('GET /activity-sentiment: the three values sentiment takes', async () => {
    const response = await t.get('/api/v2/activity-sentiment');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: [
        { id: 'positive', name: 'Positive' },
        { id: 'negative', name: 'Negative' },
        { id: 'neutral', name: 'Neutral' },
      ],
    });
    await expectError(await t.get('/api/v2/activity-sentiment?cols=recordCount'), 400, 'invalid_parameters', '"cols"');
  });

  it("GET /activity-categories: every category of the catalog and of the community's own types, {id, name, value}", async () => {
    const categories = async (token = t.token) => {
      const response = await t.get('/api/v2/activity-categories', token);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as { success: true; data: { id: string; name: string; value: string }[] };
      expect(Object.keys(body)).toEqual(['success', 'data']);
      return body.data;
    };
    const catalog = [...new Set(ACTIVITY_TYPE_CATALOG.map((entry) => entry.category))].sort();
    const before = await categories();
    expect(before.map((category) => category.value)).toEqual(catalog);
    expect(before).toContainEqual({ id: 'cat_code', name: 'Code', value: 'code' });
    for (const category of before) expect(Object.keys(category)).toEqual(['id', 'name', 'value']);

    await t.services.activityTypes.add(cliWriter(t.communityId), { id: 'meetup_talk', displayName: 'Gave a meetup talk', category: 'public_speaking' });
    await t.services.activityTypes.add(cliWriter(t.communityId), { id: 'meetup_host', displayName: 'Hosted a meetup', category: 'public_speaking' });
    await t.services.activityTypes.add(cliWriter(t.communityId), { id: 'wrote_book', displayName: 'Wrote a book', category: 'content' });
    const after = await categories();
    expect(after.map((category) => category.value)).toEqual([...catalog, 'public_speaking'].sort());
    expect(after).toContainEqual({ id: 'cat_public_speaking', name: 'Public speaking', value: 'public_speaking' });
    // Another community's own categories are its own.
    expect((await categories(other.token)).map((category) => category.value)).toEqual(catalog);
    await expectError(await t.get('/api/v2/activity-categories?limit=1'), 400, 'invalid_parameters', '"limit"');
  });
});
