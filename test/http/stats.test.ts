import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Pushed {
  id: string;
  day: string;
  source: string;
  type: string;
  user: string;
  contact: string;
}

interface ActivityStats {
  startDate: string;
  endDate: string;
  total: number;
  previousTotal: number;
  groups: { key: string; name: string; count: number; lightFilter: string }[];
  buckets: { start: string; end: string; total: number; counts: Record<string, number> }[];
  previous: { startDate: string; endDate: string; buckets: { start: string; end: string; total: number }[] };
}

const CATEGORY: Record<string, string> = { made_post_topic: 'content', commented_replied: 'conversation', tweet: 'social' };
const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const addDays = (day: string, n: number) => dayOf(Date.parse(`${day}T00:00:00Z`) + n * DAY);

/**
 * GET /api/v2/stats/activity, /contacts and /highlights (docs/stats.md): exact counts of what was pushed through
 * the ingestion API, before and after the fold step, through merges and deletions, per community.
 */
describe.each(ENGINES)('stats (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');
  const pushed: Pushed[] = [];
  const sources: Record<string, string> = {};
  const contacts: Record<string, string> = {};
  let forumId = 0;
  let other: { communityId: number; sourceId: number; token: string };

  async function post(path: string, payload: Record<string, unknown>, token = t.token) {
    const response = await t.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${token}` }, payload });
    expect(response.statusCode, response.body).toBe(202);
    return response.json() as { contactId: string; activityId: string };
  }

  async function push(user: string, day: string, type: string, source: 'api' | 'forum' = 'api') {
    const id = `act-${pushed.length + 1}`;
    // The clock moves with the pushes, as days pass on a live server.
    clock.set(`${day}T15:00:00.000Z`);
    const sourceId = source === 'api' ? t.sourceId : forumId;
    const made = await post(`/community/v1/source/${sourceId}/activity`, {
      id,
      activityType: type,
      user: { id: user },
      content: { type: 'text', value: `About Kubernetes release ${id}` },
      timestamp: `${day}T${String(pushed.length % 24).padStart(2, '0')}:30:00Z`,
    });
    contacts[`${source}:${user}`] = made.contactId;
    pushed.push({ id, day, source: sources[source]!, type, user, contact: made.contactId });
  }

  const get = async <T>(path: string, token = t.token): Promise<T> => {
    const response = await t.get(path, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as T;
  };

  /** What the pushes say: activities per day and key, and contacts per day. */
  function expected(first: string, last: string, key: (p: Pushed) => string, alive = (_p: Pushed) => true) {
    const rows = pushed.filter((p) => p.day >= first && p.day <= last && alive(p));
    const byKey: Record<string, number> = {};
    for (const p of rows) byKey[key(p)] = (byKey[key(p)] ?? 0) + 1;
    return { total: rows.length, byKey, rows };
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    const forum = await t.services.sources.create(cliWriter(t.communityId), { name: 'Forum' });
    forumId = forum.id;
    sources.api = `sig_${t.sourceId}`;
    sources.forum = `sig_${forumId}`;
    const { communityId } = await t.services.communities.create('Other', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Other API' });
    other = { communityId, sourceId: source.id, token: await t.issueToken(['read', 'write', 'admin'], communityId) };
    await post(`/community/v1/source/${t.sourceId}/user`, { id: 'ann', fullName: 'Ann Lee', email: 'ann@acme.com' });
    await post(`/community/v1/source/${t.sourceId}/user`, { id: 'bob', fullName: 'Bob Ray', email: 'bob@acme.com' });
    await post(`/community/v1/source/${t.sourceId}/user`, { id: 'cat', fullName: 'Cat Moe', email: 'cat@globex.com' });
    // The previous period (2026-01-14 .. 2026-02-10) and the default one (2026-02-11 .. 2026-03-10).
    await push('ann', '2026-01-20', 'made_post_topic');
    await push('bob', '2026-02-03', 'commented_replied', 'forum');
    await push('ann', '2026-02-10', 'tweet');
    await push('ann', '2026-02-11', 'made_post_topic');
    await push('bob', '2026-02-11', 'commented_replied', 'forum');
    await push('cat', '2026-02-16', 'commented_replied');
    await push('ann', '2026-02-22', 'tweet', 'forum');
    await push('cat', '2026-03-01', 'made_post_topic', 'forum');
    await push('cat', '2026-03-02', 'made_post_topic');
    await push('bob', '2026-03-09', 'tweet');
    await push('ann', '2026-03-10', 'commented_replied');
    // The other community's activity is never counted here.
    await post(
      `/community/v1/source/${other.sourceId}/activity`,
      {
        id: 'x-1',
        activityType: 'tweet',
        user: { id: 'zed' },
        timestamp: '2026-03-05T10:00:00Z',
      },
      other.token,
    );
    clock.set('2026-03-10T18:00:00.000Z');
  });
  afterAll(() => t?.close());

  const keys = {
    source: (p: Pushed) => p.source,
    type: (p: Pushed) => p.type,
    category: (p: Pushed) => CATEGORY[p.type]!,
  };

  async function checkActivity(query: string, first: string, last: string, alive = (_p: Pushed) => true) {
    for (const groupBy of ['source', 'type', 'category'] as const) {
      const data = await get<ActivityStats>(`/api/v2/stats/activity?groupBy=${groupBy}${query}`);
      const days = Math.round((Date.parse(last) - Date.parse(first)) / DAY) + 1;
      const now = expected(first, last, keys[groupBy], alive);
      const before = expected(addDays(first, -days), addDays(first, -1), keys[groupBy], alive);
      expect(data).toMatchObject({ startDate: first, endDate: last, total: now.total, previousTotal: before.total });
      expect(Object.fromEntries(data.groups.map((g) => [g.key, g.count]))).toEqual(now.byKey);
      expect(data.groups.map((g) => g.count)).toEqual([...data.groups.map((g) => g.count)].sort((a, b) => b - a));
      for (const bucket of data.buckets) {
        const inBucket = expected(bucket.start, bucket.end, keys[groupBy], alive);
        expect(bucket.total, `${groupBy} ${bucket.start}`).toBe(inBucket.total);
        expect(bucket.counts).toEqual(inBucket.byKey);
      }
      expect(data.buckets.reduce((sum, b) => sum + b.total, 0)).toBe(now.total);
      expect(data.previous.buckets.reduce((sum, b) => sum + b.total, 0)).toBe(before.total);
    }
  }

  it('counts activities by source, type and category, by day, with the previous period', async () => {
    await checkActivity('', '2026-02-11', '2026-03-10');
    const data = await get<ActivityStats>('/api/v2/stats/activity');
    expect(data.buckets).toHaveLength(28);
    expect(data.buckets[0]).toMatchObject({ start: '2026-02-11', end: '2026-02-11', total: 2 });
    expect(data.groups.find((g) => g.key === sources.forum)).toMatchObject({ name: 'Forum', count: 3 });
    expect(data.previous).toMatchObject({ startDate: '2026-01-14', endDate: '2026-02-10' });
    const categories = await get<ActivityStats>('/api/v2/stats/activity?groupBy=category');
    expect(categories.groups.map((g) => g.key).sort()).toEqual(['content', 'conversation', 'social']);
  });

  it('buckets weeks from Monday, the first and last cut to the period; the default period follows the clock', async () => {
    await checkActivity('&interval=week&startDate=2026-02-12&endDate=2026-03-04', '2026-02-12', '2026-03-04');
    const data = await get<ActivityStats>('/api/v2/stats/activity?interval=week&startDate=2026-02-12&endDate=2026-03-04');
    // 2026-02-12 is a Thursday, 2026-02-16 a Monday.
    expect(data.buckets.map((b) => [b.start, b.end])).toEqual([
      ['2026-02-12', '2026-02-15'],
      ['2026-02-16', '2026-02-22'],
      ['2026-02-23', '2026-03-01'],
      ['2026-03-02', '2026-03-04'],
    ]);
    clock.set('2026-03-02T01:00:00.000Z');
    expect(await get<ActivityStats>('/api/v2/stats/activity')).toMatchObject({ startDate: '2026-02-03', endDate: '2026-03-02' });
    clock.set('2026-03-10T18:00:00.000Z');
  });

  it("each group's lightFilter selects exactly its activities in GET /api/v2/activities, bucket by bucket", async () => {
    for (const groupBy of ['source', 'type', 'category'] as const) {
      for (const interval of ['day', 'week']) {
        const data = await get<ActivityStats>(`/api/v2/stats/activity?groupBy=${groupBy}&interval=${interval}&startDate=2026-02-09&endDate=2026-03-10`);
        for (const group of data.groups) {
          for (const bucket of data.buckets) {
            const search = new URLSearchParams({
              startDate: `${bucket.start}T00:00:00Z`,
              endDate: `${bucket.end}T23:59:59.999999Z`,
              lightFilter: group.lightFilter,
              cols: 'recordCount',
              limit: '1',
            });
            const listed = await t.get(`/api/v2/activities?${search}`);
            expect(listed.statusCode, listed.body).toBe(200);
            expect(listed.json().meta.recordCount, `${groupBy} ${group.key} ${bucket.start}`).toBe(bucket.counts[group.key] ?? 0);
          }
        }
      }
    }
  });

  it('a lightFilter narrows the counts, and the groups keep it', async () => {
    const filter = JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'type', params: { op: 'eq', value: 'tweet' } }] });
    const data = await get<ActivityStats>(`/api/v2/stats/activity?lightFilter=${encodeURIComponent(filter)}`);
    expect(data.total).toBe(2);
    expect(data.previousTotal).toBe(1);
    for (const group of data.groups) expect(JSON.parse(group.lightFilter).clauses[0]).toEqual(JSON.parse(filter));
  });

  it('counts active and new contacts with their change, and their lightFilters select them', async () => {
    const data = await get<{
      active: { count: number; previous: number; change: number | null; lightFilter: string | null };
      new: { count: number; previous: number; change: number | null; lightFilter: string | null };
      buckets: { start: string; active: number; new: number }[];
    }>('/api/v2/stats/contacts');
    const active = (first: string, last: string) => new Set(expected(first, last, (p) => p.contact).rows.map((p) => p.contact)).size;
    const firstDay = new Map<string, string>();
    for (const p of pushed) if (!firstDay.has(p.contact) || p.day < firstDay.get(p.contact)!) firstDay.set(p.contact, p.day);
    const fresh = (first: string, last: string) => [...firstDay.values()].filter((day) => day >= first && day <= last).length;
    // Per source, one person is a contact of its own: api ann, bob, cat; forum bob, ann, cat.
    expect(data.active).toMatchObject({ count: 6, previous: 2, change: 2 });
    expect(data.active.count).toBe(active('2026-02-11', '2026-03-10'));
    expect(data.new).toMatchObject({ count: fresh('2026-02-11', '2026-03-10'), previous: fresh('2026-01-14', '2026-02-10') });
    expect(data.new.change).toBe((data.new.count - data.new.previous) / data.new.previous);
    for (const bucket of data.buckets) {
      expect(bucket).toMatchObject({ active: active(bucket.start, bucket.start), new: fresh(bucket.start, bucket.start) });
    }
    for (const which of ['active', 'new'] as const) {
      const search = new URLSearchParams({ lightFilter: data[which].lightFilter!, cols: 'recordCount', limit: '1' });
      expect((await t.get(`/api/v2/contacts?${search}`)).json().meta.recordCount).toBe(data[which].count);
    }
    // A past period: contacts active since are not all in it, so no contact filter says who was.
    const past = await get<{ active: { count: number; lightFilter: string | null } }>('/api/v2/stats/contacts?startDate=2026-01-14&endDate=2026-02-10');
    expect(past.active).toMatchObject({ count: 2, lightFilter: null });
    const weeks = await get<{ buckets: { start: string; active: number }[] }>('/api/v2/stats/contacts?interval=week&startDate=2026-02-09&endDate=2026-02-22');
    expect(weeks.buckets).toMatchObject([
      { start: '2026-02-09', active: active('2026-02-09', '2026-02-15') },
      { start: '2026-02-16', active: active('2026-02-16', '2026-02-22') },
    ]);
  });

  it('highlights the top contributors, rising organizations and surging topics', async () => {
    const data = await get<{
      topContributors: { contact: { id: string; name: string }; count: number; previous: number }[];
      risingOrganizations: { organization: { name: string }; count: number; previous: number; change: number | null }[];
      surgingTopics: unknown[];
      leadScores: unknown[];
    }>('/api/v2/stats/highlights?limit=2');
    // API ann: 2 now (02-11, 03-10), 2 before; API cat: 2 now (02-16, 03-02), none before; the others 1 now.
    expect(data.topContributors).toEqual([
      { contact: { id: contacts['api:ann'], name: 'Ann Lee', avatarUrl: null }, count: 2, previous: 2 },
      { contact: { id: contacts['api:cat'], name: 'Cat Moe', avatarUrl: null }, count: 2, previous: 0 },
    ]);
    // Acme (API ann and bob): 3 now, 2 before; Globex (API cat): 2 now, none before. The increase ranks them.
    expect(data.risingOrganizations).toEqual([
      { organization: { id: expect.stringMatching(/^o_/), name: expect.any(String) }, count: 2, previous: 0, change: null },
      { organization: { id: expect.stringMatching(/^o_/), name: expect.any(String) }, count: 3, previous: 2, change: 0.5 },
    ]);
    expect(Array.isArray(data.surgingTopics) && Array.isArray(data.leadScores)).toBe(true);
  });

  it('stays exact through the fold step, a merge and a deletion, before and after folding', async () => {
    const statsOf = () => get<ActivityStats>('/api/v2/stats/activity?startDate=2026-02-11&endDate=2026-03-10');
    const activeOf = async () => (await get<{ active: { count: number } }>('/api/v2/stats/contacts')).active.count;
    const before = await statsOf();
    expect(await t.services.stats.fold()).toBeGreaterThanOrEqual(0);
    const waiting = await sql<{ n: number }>`select count(*)::int as n from activity_day_changes`.execute(t.services.db);
    expect(waiting.rows[0]!.n).toBe(0);
    expect(await statsOf()).toEqual(before);

    // A merge moves the forum's Bob's activities to the API's Ann: the same activities, one active contact fewer.
    expect(await activeOf()).toBe(6);
    const merged = await t.send('POST', `/api/v2/contacts/${contacts['api:ann']}/merge`, { contactId: contacts['forum:bob'] });
    expect(merged.statusCode, merged.body).toBe(200);
    expect(await activeOf()).toBe(5);
    expect(await statsOf()).toEqual(before);
    const top = await get<{ topContributors: { contact: { id: string }; count: number }[] }>('/api/v2/stats/highlights?limit=1');
    // The survivor holds both contacts' activities: 2 + 1 in the period, 2 + 1 before it.
    expect(top.topContributors).toEqual([expect.objectContaining({ count: 3, previous: 3 })]);
    expect([contacts['api:ann'], contacts['forum:bob']]).toContain(top.topContributors[0]!.contact.id);
    await t.services.stats.fold();
    expect(await activeOf()).toBe(5);

    // Deleting activities (as a source's deletion does) takes them out at once, and after the fold.
    const gone = pushed.find((p) => p.day === '2026-03-01')!;
    await sql`delete from activities where community_id = ${t.communityId} and external_id = ${gone.id}`.execute(t.services.db);
    await checkActivity('&startDate=2026-02-11&endDate=2026-03-10', '2026-02-11', '2026-03-10', (p) => p !== gone);
    await t.services.stats.fold();
    await checkActivity('&startDate=2026-02-11&endDate=2026-03-10', '2026-02-11', '2026-03-10', (p) => p !== gone);
    pushed.splice(pushed.indexOf(gone), 1);
  });

  it("an erasure keeps the person's activities (and so the counts), and takes their topics out", async () => {
    const topicsOf = async () =>
      (
        await sql<{ n: number }>`
      select coalesce(sum(n), 0)::int as n from (
        select activities as n from topic_day_counts where community_id = ${t.communityId}
        union all select delta from topic_day_changes where community_id = ${t.communityId}) x`.execute(t.services.db)
      ).rows[0]!.n;
    const links = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from activity_topics where community_id = ${t.communityId}`.execute(t.services.db)).rows[0]!.n;
    expect(await topicsOf()).toBe(await links());
    const before = await get<ActivityStats>('/api/v2/stats/activity');
    const erased = await t.app.inject({ method: 'DELETE', url: '/community/v1/user/cat%40globex.com', headers: { authorization: `Bearer ${t.token}` } });
    expect(erased.statusCode, erased.body).toBe(200);
    const { createWorker } = await import('../../src/jobs/worker.ts');
    await createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
    expect(await get<ActivityStats>('/api/v2/stats/activity')).toEqual(before);
    expect(await topicsOf()).toBe(await links());
    await t.services.stats.fold();
    expect(await topicsOf()).toBe(await links());
  });

  it('keeps communities apart', async () => {
    const theirs = await get<ActivityStats>('/api/v2/stats/activity', other.token);
    expect(theirs.total).toBe(1);
    expect(theirs.groups).toEqual([expect.objectContaining({ key: `sig_${other.sourceId}`, count: 1 })]);
    const ours = await get<ActivityStats>('/api/v2/stats/activity');
    expect(ours.groups.some((g) => g.key === `sig_${other.sourceId}`)).toBe(false);
  });

  it('answers 400 for bad dates, a start after the end, a span over 366 days and unknown parameters', async () => {
    for (const [query, message] of [
      ['startDate=2026-02-30', /startDate "2026-02-30" is not a calendar date/],
      ['endDate=2026-3-01', /endDate/],
      ['startDate=2026-03-02&endDate=2026-03-01', /after endDate/],
      ['startDate=2025-01-01&endDate=2026-01-02', /367 days; at most 366/],
      ['interval=month', /interval/],
      ['groupBy=contact', /groupBy/],
      ['foo=1', /foo/],
    ] as const) {
      const response = await t.get(`/api/v2/stats/activity?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.message).toMatch(message);
    }
    expect((await t.get('/api/v2/stats/highlights?limit=21')).statusCode).toBe(400);
    expect((await t.get('/api/v2/stats/contacts?startDate=2025-01-01&endDate=2026-01-01')).statusCode).toBe(200);
  });

  it('needs activities:read for activity and highlights, contacts:read for contacts', async () => {
    const contactsOnly = await t.issueToken(['contacts:read']);
    const activitiesOnly = await t.issueToken(['activities:read']);
    expect((await t.get('/api/v2/stats/activity', contactsOnly)).statusCode).toBe(403);
    expect((await t.get('/api/v2/stats/highlights', contactsOnly)).statusCode).toBe(403);
    expect((await t.get('/api/v2/stats/contacts', contactsOnly)).statusCode).toBe(200);
    expect((await t.get('/api/v2/stats/contacts', activitiesOnly)).statusCode).toBe(403);
    expect((await t.get('/api/v2/stats/activity', activitiesOnly)).statusCode).toBe(200);
    expect((await t.get('/api/v2/stats/highlights', activitiesOnly)).statusCode).toBe(200);
    expect((await t.get('/api/v2/stats/activity', null)).statusCode).toBe(403);
  });
});
