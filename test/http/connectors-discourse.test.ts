import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { discourseConnector } from '../../src/modules/connectors/discourse/discourse-connector.ts';
import { startDiscourseStandIn, type DiscourseStandIn } from '../stand-ins/discourse-api.ts';
import { bodies, signedDelivery } from '../stand-ins/discourse-webhooks.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with a real platform's connector: Discourse's, against the local forum built from its
 * published API description. Through the admin API, the worker and the public receiver, as in production.
 */

const WEBHOOK_SECRET = 'forum-webhook-secret-1';

/** Discourse's connector, whose second page fails once (a process dying mid-sync, an unexpected answer). */
let pages = 0;
const flaky: ConnectorKind<unknown, unknown> = {
  ...(discourseConnector as ConnectorKind<unknown, unknown>),
  async page(stream, checkpoint, settings, secrets, access) {
    pages += 1;
    if (pages === 2) throw new Error('the connection was reset');
    return (discourseConnector as ConnectorKind<unknown, unknown>).page(stream, checkpoint, settings, secrets, access);
  },
};
const API_KEY = 'admin-key';

describe.each(ENGINES)('connectors with the Discourse connector (%s)', (engine) => {
  let forum: DiscourseStandIn;
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    forum = await startDiscourseStandIn({ topics: 20, postsPerTopic: 3, users: 4 });
  });
  afterAll(() => forum.stop());

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    pages = 0;
    t = await createTestApp(engine, { clock, allowPrivateFetch: true, connectorKinds: [flaky] });
  });
  afterEach(() => t.close());

  const create = () =>
    t.send('POST', '/api/v2/admin/connectors', {
      kind: 'discourse',
      settings: { url: forum.url, apiUsername: 'system' },
      secrets: { apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET },
    });
  const activitiesOf = async (sourceId: number) =>
    (await t.services.db.selectFrom('activities').select('external_id').where('source_id', '=', sourceId).execute()).length;
  const show = async (id: string) => (await t.get(`/api/v2/admin/connectors/${id}`)).json().data;
  /** Posts a delivery to the connector's receiver, as the forum does. */
  const receive = (receiverUrl: string, delivery: { raw: Buffer; headers: Record<string, string> }) =>
    t.app.inject({ method: 'POST', url: new URL(receiverUrl).pathname, headers: delivery.headers, payload: delivery.raw });

  it('backfills the forum, goes on from its checkpoint after a failed page, and takes signed webhooks', async () => {
    const made = await create();
    expect(made.statusCode, made.body).toBe(201);
    const connector = made.json().data;
    expect(connector).toMatchObject({ name: 'Discourse', secrets: ['apiKey', 'webhookSecret'], state: 'backfilling' });
    expect(made.body).not.toContain(API_KEY);

    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toMatchObject({ ok: true, message: expect.stringContaining("forum 'Stand-in Forum' reached") });

    // The second page of posts fails once: the attempt fails with its reason, the first page's checkpoint stays.
    const worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs, backoff: () => 60_000 });
    await worker.runUntilIdle();
    let shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    const afterFirst = shown.streams[0].records;
    expect(afterFirst).toBeGreaterThan(0);
    expect(shown).toMatchObject({ state: 'backfilling', reason: 'the last sync attempt failed (it is retried): the connection was reset' });
    expect(shown.streams[0].done).toBe(false);
    const stored = await activitiesOf(connector.sourceId);

    clock.advance(60 * 60_000);
    await worker.runUntilIdle();
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'active', reason: null });
    expect(shown.streams[0]).toMatchObject({ stream: 'posts', done: true });
    expect(shown.streams[0].records).toBeGreaterThan(afterFirst);
    expect(await activitiesOf(connector.sourceId)).toBeGreaterThanOrEqual(stored);
    const backfilled = await activitiesOf(connector.sourceId);
    // 20 topics of 3 posts: 19 topics (topic 1's first post is the system user's), 40 replies, and the
    // accepted answers of topics 3, 6, 9, 12, 15 and 18.
    expect(backfilled).toBe(19 + 40 + 6);

    // A reply arrives by webhook: stored once, processed into an activity.
    const replyId = forum.addReply(2, 3);
    const delivery = signedDelivery({ secret: WEBHOOK_SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(forum.webhookPost(replyId)) });
    const path = new URL(connector.receiverUrl).pathname;
    const answer = await t.app.inject({ method: 'POST', url: path, headers: delivery.headers, payload: delivery.raw });
    expect(answer.statusCode, answer.body).toBe(202);
    expect(answer.json()).toEqual({ received: true, duplicate: false });
    const forged = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { ...delivery.headers, 'x-discourse-event-signature': 'sha256=00' },
      payload: delivery.raw,
    });
    expect(forged.statusCode).toBe(401);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    expect(await activitiesOf(connector.sourceId)).toBe(backfilled + 1);

    // The next sync reads what is new only, and the reply it brings again is the same activity.
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await worker.runUntilIdle();
    expect(await activitiesOf(connector.sourceId)).toBe(backfilled + 1);
  });

  it('waits out a 429 for as long as its Retry-After says and a run of 5xx for a minute, asking the forum nothing meanwhile', async () => {
    pages = 2; // no failing page here
    const connector = (await create()).json().data;
    forum.fail({ status: 429, retryAfter: 90, path: '/posts.json' });
    const worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    await worker.runUntilIdle();
    let shown = await show(connector.id);
    expect(shown, JSON.stringify(shown)).toMatchObject({
      state: 'waiting',
      waitingUntil: new Date(clock.now().getTime() + 90_000).toISOString(),
      reason: 'the forum asked to slow down (429 Too Many Requests)',
    });
    const asked = forum.requests.length;
    expect(await worker.runUntilIdle()).toBe(0);
    clock.advance(80_000);
    await t.services.connectors.enqueueDueSyncs();
    expect(await worker.runUntilIdle()).toBe(0);
    expect(forum.requests.length).toBe(asked);
    clock.set(new Date(Date.parse(shown.waitingUntil) + 1000));
    expect(await worker.runUntilIdle()).toBe(1);
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
    expect(shown.streams[0]).toMatchObject({ stream: 'posts', done: true });

    // A run of 5xx: asked three times, a quarter and half a second apart, then a minute's wait on the clock.
    forum.fail({ status: 503, times: 3, path: '/posts.json' });
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    const beforeErrors = forum.requests.length;
    expect(await worker.runUntilIdle()).toBe(1);
    expect(forum.requests.slice(beforeErrors)).toEqual(['GET /posts.json', 'GET /posts.json', 'GET /posts.json']);
    expect(await show(connector.id)).toMatchObject({
      state: 'waiting',
      waitingUntil: new Date(clock.now().getTime() + 60_000).toISOString(),
      reason: 'the forum answered 503 3 times for /posts.json; trying again later',
    });
    expect(await worker.runUntilIdle()).toBe(0);
    clock.advance(61_000);
    expect(await worker.runUntilIdle()).toBe(1);
    expect(await show(connector.id)).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
  });

  it('fails once when the forum revokes the key, asks it nothing more, and resumes with a new key', async () => {
    pages = 2; // no failing page here
    forum.addKey('key-to-be-revoked');
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'discourse',
      settings: { url: forum.url, apiUsername: 'system' },
      secrets: { apiKey: 'key-to-be-revoked', webhookSecret: WEBHOOK_SECRET },
    });
    const connector = made.json().data;
    const worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    await worker.runUntilIdle();
    expect(await show(connector.id)).toMatchObject({ state: 'active' });
    const backfilled = await activitiesOf(connector.sourceId);

    // The periodic sync after the key was revoked in the forum's admin panel.
    forum.revokeKey('key-to-be-revoked');
    const replyId = forum.addReply(7, 2);
    clock.advance(16 * 60_000);
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(1);
    const before = forum.requests.length;
    expect(await worker.runUntilIdle()).toBe(1);
    // One request, refused: no retry of it, and nothing after it.
    expect(forum.requests.slice(before)).toEqual(['GET /posts.json']);
    const refused = 'the forum refused the API key (403): check the key, and that it may act as the user "system"';
    expect(await show(connector.id)).toMatchObject({ state: 'failed', reason: refused, waitingUntil: null });
    const [job] = await t.services.db
      .selectFrom('jobs')
      .select(['status', 'attempts'])
      .where('kind', '=', 'connector.sync')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(job).toMatchObject({ status: 'completed', attempts: 1 });

    // No retry loop: hours pass, periodic syncs come due, and the forum is not asked again.
    for (let hour = 0; hour < 3; hour++) {
      clock.advance(3_600_000);
      expect(await t.services.connectors.enqueueDueSyncs()).toBe(0);
      expect(await worker.runUntilIdle()).toBe(0);
    }
    expect(forum.requests.length).toBe(before + 1);
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(409);
    expect(await show(connector.id)).toMatchObject({ state: 'failed', reason: refused });

    // A new key: the connector resumes and goes on from its checkpoint.
    forum.addKey('replacement-key');
    const patched = await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { apiKey: 'replacement-key' } });
    expect(patched.json().data).toMatchObject({ state: 'active', reason: null });
    expect(patched.body).not.toContain('replacement-key');
    expect(await worker.runUntilIdle()).toBe(1);
    expect(await show(connector.id)).toMatchObject({ state: 'active', reason: null });
    expect(await activitiesOf(connector.sourceId)).toBe(backfilled + 1);
    const [reply] = await t.services.db
      .selectFrom('activities')
      .select('external_id')
      .where('source_id', '=', connector.sourceId)
      .where('external_id', '=', `post:${replyId}`)
      .execute();
    expect(reply).toBeDefined();
  });

  it("threads replies, answers and likes under what they answer, with the category as sub-source and the forum's address and time", async () => {
    pages = 2; // no failing page here
    const connector = (await create()).json().data;
    await createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
    // Topic 6 (category "ideas"): posts 16 (the topic), 17 (its accepted answer) and 18. Member 4 likes the
    // topic and the answer, by webhook (likes have no list in the API).
    const liker = forum.user(4);
    for (const [eventId, postId] of [
      [501, 16],
      [502, 17],
    ] as const) {
      const like = signedDelivery({
        secret: WEBHOOK_SECRET,
        type: 'like',
        event: 'post_liked',
        instance: forum.url,
        eventId,
        body: bodies.postLiked(forum.webhookPost(postId), liker),
      });
      expect((await receive(connector.receiverUrl, like)).statusCode).toBe(202);
    }
    const likedAt = clock.now().toISOString();
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();

    const rows = await t.services.db
      .selectFrom('activities as a')
      .leftJoin('activities as p', (join) => join.onRef('p.community_id', '=', 'a.community_id').onRef('p.id', '=', 'a.parent_id'))
      .leftJoin('sub_sources as s', (join) => join.onRef('s.community_id', '=', 'a.community_id').onRef('s.id', '=', 'a.sub_source_id'))
      .select([
        'a.id',
        'a.external_id as externalId',
        'a.activity_type as type',
        'a.url',
        'a.activity_time as time',
        'a.title',
        'p.external_id as parent',
        's.name as subSource',
      ])
      .where('a.source_id', '=', connector.sourceId)
      .where('a.external_id', 'in', ['topic:6', 'post:17', 'post:18', 'accepted:17', 'like:16:4', 'like:17:4'])
      .orderBy('a.external_id')
      .execute();
    const at = (postId: number) => String(forum.webhookPost(postId).created_at);
    const address = (postNumber: number) => `${forum.url}/t/topic-number-6/6/${postNumber}`;
    expect(rows.map(({ id: _id, time, ...row }) => ({ ...row, time: new Date(time).toISOString() }))).toEqual([
      {
        externalId: 'accepted:17',
        type: 'forum_accepted_answer',
        parent: 'topic:6',
        subSource: 'ideas',
        url: address(2),
        time: at(17),
        title: 'Topic number 6',
      },
      { externalId: 'like:16:4', type: 'forum_like', parent: 'topic:6', subSource: 'ideas', url: address(1), time: likedAt, title: 'Topic number 6' },
      { externalId: 'like:17:4', type: 'forum_like', parent: 'post:17', subSource: 'ideas', url: address(2), time: likedAt, title: 'Topic number 6' },
      { externalId: 'post:17', type: 'forum_reply', parent: 'topic:6', subSource: 'ideas', url: address(2), time: at(17), title: 'Topic number 6' },
      { externalId: 'post:18', type: 'forum_reply', parent: 'topic:6', subSource: 'ideas', url: address(3), time: at(18), title: 'Topic number 6' },
      { externalId: 'topic:6', type: 'forum_topic', parent: null, subSource: 'ideas', url: address(1), time: at(16), title: 'Topic number 6' },
    ]);
    // The read API shows the thread: everything above is under the topic, at all depths.
    const topic = rows.find((row) => row.externalId === 'topic:6')!;
    const read = (await t.get(`/api/v2/activities/a_${String(topic.id)}?cols=subSourceNames,replyCount,providerName`)).json().data;
    expect(read).toMatchObject({ type: 'forum_topic', activityTime: at(16), subSourceNames: ['ideas'], replyCount: 5, providerName: 'Discourse' });
  });
});
