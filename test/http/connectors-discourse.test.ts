import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { discourseConnector } from '../../src/modules/connectors/discourse/discourse.connector.ts';
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
    t.send('POST', '/api/v2/admin/connectors', { kind: 'discourse', settings: { url: forum.url, apiUsername: 'system' }, secrets: { apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET } });
  const activitiesOf = async (sourceId: number) =>
    (await t.services.db.selectFrom('activities').select('external_id').where('source_id', '=', sourceId).execute()).length;

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
    expect(backfilled).toBeGreaterThan(0);

    // A reply arrives by webhook: stored once, processed into an activity.
    const replyId = forum.addReply(2, 3);
    const delivery = signedDelivery({ secret: WEBHOOK_SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(forum.webhookPost(replyId)) });
    const path = new URL(connector.receiverUrl).pathname;
    const answer = await t.app.inject({ method: 'POST', url: path, headers: delivery.headers, payload: delivery.raw });
    expect(answer.statusCode, answer.body).toBe(202);
    expect(answer.json()).toEqual({ received: true, duplicate: false });
    const forged = await t.app.inject({ method: 'POST', url: path, headers: { ...delivery.headers, 'x-discourse-event-signature': 'sha256=00' }, payload: delivery.raw });
    expect(forged.statusCode).toBe(401);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    expect(await activitiesOf(connector.sourceId)).toBe(backfilled + 1);

    // The next sync reads what is new only, and the reply it brings again is the same activity.
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await worker.runUntilIdle();
    expect(await activitiesOf(connector.sourceId)).toBe(backfilled + 1);
  });

  it('waits out a 429 on the clock, then goes on', async () => {
    pages = 2; // no failing page here
    const connector = (await create()).json().data;
    forum.fail({ status: 429, retryAfter: 90, path: '/posts.json' });
    const worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    await worker.runUntilIdle();
    let shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'waiting' });
    expect(Date.parse(shown.waitingUntil)).toBeGreaterThan(clock.now().getTime());
    expect(await worker.runUntilIdle()).toBe(0);
    clock.set(new Date(Date.parse(shown.waitingUntil) + 1000));
    expect(await worker.runUntilIdle()).toBe(1);
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null });
  });
});
