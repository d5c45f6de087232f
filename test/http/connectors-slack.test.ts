import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startSlackStandIn, type SlackStandIn } from '../stand-ins/slack-api.ts';
import { bodies, signedDelivery, type SignedDelivery } from '../stand-ins/slack-events.ts';
import { expectRateLimitWaitedOut } from '../helpers/connector-waits.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with Slack's connector, against the local Web API built from Slack's published description
 * and Events API deliveries signed as Slack signs them. Through the admin API, the worker and the public
 * receiver, as in production.
 */

const SIGNING_SECRET = 'slack-signing-secret-0123456789';
const TOKEN = 'xoxb-0000000001-0000000002-standintokenvalue';

describe.each(ENGINES)('connectors with the Slack connector (%s)', (engine) => {
  let slack: SlackStandIn;
  let t: TestApp;
  let clock: ManualClock;
  let parentTs: string;

  beforeAll(async () => {
    slack = await startSlackStandIn({
      token: TOKEN,
      pageSize: 2,
      channels: [
        { id: 'C0GENERAL', name: 'general' },
        { id: 'C0RANDOM', name: 'random' },
      ],
      users: [
        { id: 'U0ALICE', name: 'alice', realName: 'Alice Liddell', title: 'Maintainer', email: 'alice@example.org' },
        { id: 'U0BOB', name: 'bob', realName: 'Bob Builder', email: 'bob@example.org' },
      ],
    });
    parentTs = slack.post('C0GENERAL', { user: 'U0ALICE', text: 'Has anyone tried the new release?' }).ts;
    slack.post('C0GENERAL', { user: 'U0BOB', text: 'Yes, works for me', thread_ts: parentTs });
    slack.post('C0GENERAL', { user: 'U0BOB', text: 'Welcome everyone' });
    slack.post('C0GENERAL', { subtype: 'bot_message', bot_id: 'B0DEPLOY', text: 'deployed v2' });
    slack.post('C0RANDOM', { user: 'U0ALICE', text: 'not followed' });
  });
  afterAll(() => slack.stop());

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
  });
  afterEach(() => t.close());

  const create = async () => {
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'slack',
      settings: { channels: ['C0GENERAL'], apiUrl: slack.url },
      secrets: { botToken: TOKEN, webhookSecret: SIGNING_SECRET },
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.body).not.toContain(TOKEN);
    expect(made.body).not.toContain(SIGNING_SECRET);
    return made.json().data as { id: string; sourceId: number; receiverUrl: string };
  };
  const sync = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
  const show = async (id: string) => (await t.get(`/api/v2/admin/connectors/${id}`)).json().data;
  const activities = (sourceId: number) =>
    t.services.db
      .selectFrom('activities as a')
      .leftJoin('activities as p', (join) => join.onRef('p.community_id', '=', 'a.community_id').onRef('p.id', '=', 'a.parent_id'))
      .select(['a.external_id as externalId', 'a.activity_type as type', 'p.external_id as parent'])
      .where('a.source_id', '=', sourceId)
      .orderBy('a.external_id')
      .execute();
  const deliveries = async (sourceId: number) =>
    (await t.services.db.selectFrom('connector_deliveries').select('delivery_id').where('source_id', '=', sourceId).execute()).length;
  const receive = (receiverUrl: string, delivery: SignedDelivery) =>
    t.app.inject({ method: 'POST', url: new URL(receiverUrl).pathname, headers: delivery.headers, payload: delivery.raw });
  const processed = async () => {
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
  };

  it('answers the URL handshake, refuses bad signatures and stale timestamps, and stores nothing of them', async () => {
    const connector = await create();
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({
      ok: true,
      message: "workspace 'Stand-in Workspace' reached as 'hearth'; channels: #general (public, the bot is in it)",
    });

    const handshake = signedDelivery({ secret: SIGNING_SECRET, body: bodies.urlVerification('challenge-from-slack'), at: clock.now() });
    const answered = await receive(connector.receiverUrl, handshake);
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toEqual({ challenge: 'challenge-from-slack' });

    const event = bodies.eventCallback(bodies.message('C0GENERAL', { ts: '1768478400.000100', user: 'U0ALICE', text: 'hi' }));
    const forged = signedDelivery({ secret: 'not-the-signing-secret', body: event, at: clock.now() });
    const refused = await receive(connector.receiverUrl, forged);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ status: 'unauthorized' });
    expect(refused.body).not.toContain(SIGNING_SECRET);
    const stale = signedDelivery({ secret: SIGNING_SECRET, body: event, at: new Date(clock.now().getTime() - 6 * 60_000) });
    expect((await receive(connector.receiverUrl, stale)).statusCode).toBe(401);
    // A forged handshake is not answered either.
    const forgedHandshake = signedDelivery({ secret: 'not-the-signing-secret', body: bodies.urlVerification('x'), at: clock.now() });
    expect((await receive(connector.receiverUrl, forgedHandshake)).statusCode).toBe(401);
    expect(await deliveries(connector.sourceId)).toBe(0);

    const shown = await show(connector.id);
    expect(shown.secrets).toEqual(['botToken', 'webhookSecret']);
    expect(JSON.stringify(shown)).not.toContain(TOKEN);
    expect(JSON.stringify(shown)).not.toContain(SIGNING_SECRET);
  });

  it('backfills the channel with its threads; a webhook of the same message, and a retried delivery, are one activity; people get their profiles', async () => {
    const connector = await create();
    await sync();
    expect(await show(connector.id), 'after the backfill').toMatchObject({ state: 'active', reason: null });
    const backfilled = await activities(connector.sourceId);
    // The parent, its reply (read by conversations.replies) and the second message; the bot's message and the
    // unfollowed channel's are left out.
    expect(backfilled).toEqual([
      { externalId: `message:C0GENERAL:${parentTs}`, type: 'slack_message', parent: null },
      { externalId: expect.stringMatching(/^message:C0GENERAL:/), type: 'slack_thread_reply', parent: `message:C0GENERAL:${parentTs}` },
      expect.objectContaining({ type: 'slack_message', parent: null }),
    ]);

    // The parent message arrives by webhook too (Slack delivers it while the backfill reads it): one activity.
    const same = signedDelivery({
      secret: SIGNING_SECRET,
      body: bodies.eventCallback(bodies.message('C0GENERAL', { ts: parentTs, user: 'U0ALICE', text: 'Has anyone tried the new release?' }), 'Ev0SAME'),
      at: clock.now(),
    });
    expect((await receive(connector.receiverUrl, same)).json()).toEqual({ received: true, duplicate: false });
    // A new thread reply, then Slack's retry of it (the same event_id, X-Slack-Retry-Num: 1): stored once.
    const replyTs = '1768478500.000300';
    const reply = bodies.eventCallback(bodies.message('C0GENERAL', { ts: replyTs, user: 'U0ALICE', text: 'Thanks!', thread_ts: parentTs }), 'Ev0REPLY');
    expect((await receive(connector.receiverUrl, signedDelivery({ secret: SIGNING_SECRET, body: reply, at: clock.now() }))).json()).toEqual({
      received: true,
      duplicate: false,
    });
    clock.advance(3_000);
    const retried = await receive(connector.receiverUrl, signedDelivery({ secret: SIGNING_SECRET, body: reply, at: clock.now(), retryNum: 1 }));
    expect(retried.statusCode).toBe(202);
    expect(retried.json()).toEqual({ received: true, duplicate: true });
    // A reaction, by webhook only.
    const reaction = bodies.eventCallback(bodies.reactionAdded('C0GENERAL', parentTs, 'U0BOB', 'tada'), 'Ev0REACTION');
    expect((await receive(connector.receiverUrl, signedDelivery({ secret: SIGNING_SECRET, body: reaction, at: clock.now() }))).statusCode).toBe(202);
    await processed();
    expect(await deliveries(connector.sourceId)).toBe(3);

    const after = await activities(connector.sourceId);
    expect(after).toHaveLength(backfilled.length + 2);
    expect(after).toContainEqual({ externalId: `message:C0GENERAL:${replyTs}`, type: 'slack_thread_reply', parent: `message:C0GENERAL:${parentTs}` });
    expect(after).toContainEqual({ externalId: `reaction:C0GENERAL:${parentTs}:U0BOB:tada`, type: 'slack_reaction', parent: `message:C0GENERAL:${parentTs}` });

    // The next sync brings nothing new, and the same messages stay one activity each.
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    expect(await activities(connector.sourceId)).toHaveLength(after.length);

    // People: users.info filled their names, titles and emails.
    for (const [id, fullName, email] of [
      ['U0ALICE', 'Alice Liddell', 'alice@example.org'],
      ['U0BOB', 'Bob Builder', 'bob@example.org'],
    ] as const) {
      const profile = await t.services.db
        .selectFrom('source_profiles')
        .select('contact_id')
        .where('source_id', '=', connector.sourceId)
        .where('external_id', '=', id)
        .executeTakeFirst();
      expect(profile, id).toBeDefined();
      const contact = (await t.get(`/api/v2/contacts/c_${profile!.contact_id}?cols=fullName,primaryEmail`)).json().data;
      expect(contact).toMatchObject({ fullName, primaryEmail: email });
    }
  });

  it('waits out a 429 for as long as its Retry-After says, asking Slack nothing meanwhile, then goes on', async () => {
    slack.rateLimitOnce(90, 'conversations.history');
    const connector = await create();
    const shown = await expectRateLimitWaitedOut({
      clock,
      connectorId: connector.id,
      waitMs: 90_000,
      reason: 'Slack asked to slow down (429 on conversations.history)',
      probeMs: 80_000,
      sync,
      show,
      enqueueDueSyncs: () => t.services.connectors.enqueueDueSyncs(),
      requests: () => slack.requests.length,
    });
    expect(shown.streams[0]).toMatchObject({ stream: 'channel:C0GENERAL', done: true });
    expect(await activities(connector.sourceId)).toHaveLength(3);
  });

  it('says which field of bad settings or secrets is wrong, never their values', async () => {
    const answer = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'slack',
      settings: { channels: ['#general'], apiUrl: slack.url },
      secrets: { botToken: 'not-a-bot-token', webhookSecret: SIGNING_SECRET },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toMatch(/settings\.channels|secrets\.botToken/);
    expect(answer.body).not.toContain('not-a-bot-token');
    expect(answer.body).not.toContain(SIGNING_SECRET);
    // Slack issues the signing secret: a connector without it is refused, and the kinds' list says so.
    const unsigned = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'slack',
      settings: { channels: ['C0GENERAL1'], apiUrl: slack.url },
      secrets: { botToken: 'xoxb-0000000000-token' },
    });
    expect(unsigned.statusCode).toBe(400);
    expect(unsigned.json().error.message).toContain('body field "secrets.webhookSecret" is required');
    const kinds = await t.get('/api/v2/admin/connector-kinds');
    expect(kinds.json().data.find((one: { kind: string }) => one.kind === 'slack')).toMatchObject({ platformName: 'Slack', platformIssuesWebhookSecret: true });
  });
});
