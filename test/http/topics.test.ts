import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { extractTopics } from '../../src/modules/activities/topics.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { walkPages } from '../helpers/paging.ts';

interface Topic {
  id: string;
  name: string;
}
type Page = { success: true; data: Topic[]; meta: { nextCursor: string | null; recordCount?: number } };

const TEXTS = {
  kube: { title: 'Kubernetes ingress', content: 'How do I configure the Kubernetes ingress controller with Helm charts?' },
  pg: { title: 'Postgres tuning', content: 'Vacuum settings for PostgreSQL and Kubernetes operators' },
  rust: { title: 'Rust async', content: 'Tokio runtime and async Rust patterns' },
  graphql: { title: 'GraphQL', content: 'Apollo server with GraphQL subscriptions' },
  docker: { title: 'Docker compose', content: 'Running **Docker** containers with compose files' },
};
const topicsOf = (text: { title: string; content: string }) => extractTopics(`${text.title}\n\n${text.content}`);
const byName = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);

/**
 * GET /api/v2/topics and /topics/{id}: topics extracted from activities at ingest (docs/behaviour.md: IDs,
 * cols, Paging, Record fields).
 */
describe.each(ENGINES)('topics (%s)', (engine) => {
  let t: TestApp;
  let worker: Worker;
  const clock = new ManualClock(new Date());
  let other: { sourceId: number; token: string };

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    const { communityId } = await t.services.communities.create('Beta', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Beta API' });
    other = { sourceId: source.id, token: await t.issueToken(['read', 'write', 'admin'], communityId) };
  });
  afterAll(() => t?.close());

  async function pushActivity(id: string, user: string, text: { title: string; content: string }, sourceId = t.sourceId, token = t.token) {
    const response = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${sourceId}/activity`,
      headers: { authorization: `Bearer ${token}` },
      payload: {
        id,
        activityType: 'made_post_topic',
        user: { id: user, email: `${user}@example.org` },
        activityTitle: { type: 'text', value: text.title },
        content: { type: 'markdown', value: text.content },
        timestamp: '2026-03-01T09:30:00Z',
      },
    });
    expect(response.statusCode, response.body).toBe(202);
    return (response.json() as { activityId: string }).activityId;
  }

  async function list(params: Record<string, string | number | null>, token = t.token) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== null) search.set(key, String(value));
    return t.get(`/api/v2/topics?${search}`, token);
  }

  function walk(limit: number, query: string | null = null, token = t.token): Promise<Topic[]> {
    return walkPages(
      (cursor) => list({ limit, cursor, query }, token),
      limit,
      (body) => expect(Object.keys(body.meta)).toEqual(['nextCursor']),
    );
  }

  /** The activity's linked topic names, as stored. */
  async function linksOf(activityId: string) {
    const rows = await t.services.db
      .selectFrom('activity_topics as at')
      .innerJoin('topics as tp', (join) => join.onRef('tp.community_id', '=', 'at.community_id').onRef('tp.id', '=', 'at.topic_id'))
      .select('tp.name')
      .where('at.community_id', '=', t.communityId)
      .where('at.activity_id', '=', Number(activityId.slice(2)))
      .execute();
    return rows.map((row) => row.name.toLowerCase()).sort();
  }
  const lowered = (names: string[]) => [...new Set(names.map((name) => name.toLowerCase()))].sort();

  const activities: Record<string, string> = {};

  it('links each activity to the topics of its title and content, one topic per name (case-insensitive)', async () => {
    activities.kube = await pushActivity('kube-1', 'ann', TEXTS.kube);
    activities.pg = await pushActivity('pg-1', 'bob', TEXTS.pg);
    activities.rust = await pushActivity('rust-1', 'cy', TEXTS.rust);
    await pushActivity('graphql-1', 'dee', TEXTS.graphql, other.sourceId, other.token);
    for (const key of ['kube', 'pg', 'rust'] as const) {
      expect(topicsOf(TEXTS[key]).length).toBeGreaterThan(0);
      expect(await linksOf(activities[key]!)).toEqual(lowered(topicsOf(TEXTS[key])));
    }
    const all = await walk(1000);
    const expected = lowered([...topicsOf(TEXTS.kube), ...topicsOf(TEXTS.pg), ...topicsOf(TEXTS.rust)]);
    expect(all.map((topic) => topic.name.toLowerCase())).toEqual(expected);
    expect(all.filter((topic) => topic.name === 'Kubernetes')).toHaveLength(1);
    for (const topic of all) expect(topic).toEqual({ id: expect.stringMatching(/^tp_\d+$/), name: expect.any(String) });
    // Sorted case-insensitively by name.
    expect(all.map((topic) => topic.name)).toEqual([...all.map((topic) => topic.name)].sort(byName));
  });

  it('pages every topic exactly once and in order, at limit 1, 3 and 1000', async () => {
    const all = await walk(1000);
    expect(all.length).toBeGreaterThan(5);
    for (const limit of [1, 3]) expect(await walk(limit)).toEqual(all);
  });

  it('query is a case-insensitive prefix of the name; cursors are bound to it', async () => {
    const all = await walk(1000);
    for (const query of ['k', 'POST', 'postgresq', 'r', 'zzz']) {
      const expected = all.filter((topic) => topic.name.toLowerCase().startsWith(query.toLowerCase()));
      expect(await walk(1000, query), query).toEqual(expected);
      expect(await walk(1, query), query).toEqual(expected);
    }
    expect((await walk(1000, 'POST')).map((topic) => topic.name)).toEqual(['Postgres', 'PostgreSQL']);
    // Wildcards are literal.
    expect(await walk(1000, '%')).toEqual([]);
    expect(await walk(1000, '_')).toEqual([]);
    const cursor = ((await list({ limit: 1, query: 'p' })).json() as Page).meta.nextCursor!;
    const elsewhere = await list({ limit: 1, query: 'r', cursor });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().error.code).toBe('invalid_cursor');
    expect((await list({ limit: 1, cursor })).statusCode).toBe(400);
  });

  it('cols: recordCount adds meta.recordCount; any other name is a 400 naming it', async () => {
    const all = await walk(1000);
    const counted = (await list({ limit: 2, cols: 'recordCount' })).json() as Page;
    expect(counted.meta).toEqual({ nextCursor: expect.any(String), recordCount: all.length });
    const prefixed = (await list({ query: 'post', cols: 'recordCount' })).json() as Page;
    expect(prefixed.meta).toEqual({ nextCursor: null, recordCount: 2 });
    const bad = await list({ cols: 'name' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('"name"');
    expect((await list({ sort: 'name' })).statusCode).toBe(400);
  });

  it('GET /topics/{id}; malformed IDs are 400, unknown ones 404; needs contacts:read', async () => {
    const [first] = await walk(1000, 'kubernetes');
    const response = await t.get(`/api/v2/topics/${first!.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, data: first });
    for (const bad of ['12', 'tp_', 'tp_x', 'loc_1']) {
      const failed = await t.get(`/api/v2/topics/${bad}`);
      expect(failed.statusCode).toBe(400);
      expect(failed.json()).toMatchObject({ success: false, error: { code: 'invalid_topic_id' } });
    }
    const missing = await t.get('/api/v2/topics/tp_999999');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ success: false, error: { code: 'topic_not_found' } });
    expect((await list({}, await t.issueToken(['organizations:read']))).statusCode).toBe(403);
    expect((await list({}, await t.issueToken(['contacts:read']))).statusCode).toBe(200);
  });

  it("a re-push replaces the activity's topics; a topic no activity carries leaves the list", async () => {
    const rust = (await walk(1000, 'rust'))[0]!;
    const again = await pushActivity('rust-1', 'cy', TEXTS.docker);
    expect(again).toBe(activities.rust);
    expect(await linksOf(activities.rust!)).toEqual(lowered(topicsOf(TEXTS.docker)));
    expect(await walk(1000, 'rust')).toEqual([]);
    expect((await t.get(`/api/v2/topics/${rust.id}`)).statusCode).toBe(404);
    const expected = lowered([...topicsOf(TEXTS.kube), ...topicsOf(TEXTS.pg), ...topicsOf(TEXTS.docker)]);
    expect((await walk(1000)).map((topic) => topic.name.toLowerCase())).toEqual(expected);
    // Pushing the old text again brings the same topic row back.
    await pushActivity('rust-1', 'cy', TEXTS.rust);
    expect((await walk(1000, 'rust'))[0]).toEqual(rust);
  });

  it('communities see only their own topics', async () => {
    const theirs = await walk(1000, null, other.token);
    expect(theirs.map((topic) => topic.name.toLowerCase())).toEqual(lowered(topicsOf(TEXTS.graphql)));
    expect(await walk(1000, 'graphql')).toEqual([]);
    const ours = await walk(1000);
    expect((await t.get(`/api/v2/topics/${theirs[0]!.id}`)).statusCode).toBe(404);
    expect((await t.get(`/api/v2/topics/${ours[0]!.id}`, other.token)).statusCode).toBe(404);
    const cursor = ((await list({ limit: 1 })).json() as Page).meta.nextCursor!;
    expect((await list({ limit: 1, cursor }, other.token)).statusCode).toBe(400);
  });

  it("erasure removes the person's activities' topic links", async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/community/v1/user/bob%40example.org', headers: { authorization: `Bearer ${t.token}` } });
    expect(response.statusCode, response.body).toBe(200);
    await worker.runUntilIdle();
    expect(await linksOf(activities.pg!)).toEqual([]);
    const expected = lowered([...topicsOf(TEXTS.kube), ...topicsOf(TEXTS.rust)]);
    expect((await walk(1000)).map((topic) => topic.name.toLowerCase())).toEqual(expected);
    expect(await walk(1000, 'postgresql')).toEqual([]);
    // The topics only the erased person's activities carried are gone from the table too.
    const left = await t.services.db.selectFrom('topics').select('name').where('community_id', '=', t.communityId).execute();
    expect(left.map((row) => row.name)).not.toContain('PostgreSQL');
    expect(left.map((row) => row.name)).toContain('Kubernetes');
    expect((await walk(1000, 'kubernetes')).map((topic) => topic.name)).toEqual(['Kubernetes']);
  });
});
