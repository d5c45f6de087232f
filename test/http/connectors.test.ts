import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Type from 'typebox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { CredentialRejected, RateLimitWait, type ConnectorKind, type Headers } from '../../src/modules/connectors/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The connector framework with a platform of its own: a kind written for these tests over a local server
 * ("TestHub": comments in pages, a rate limit, a credential it can refuse, profiles), so that every part of
 * the framework (admin API, receiver, sync, waits, failures, profiles) is exercised without a real platform.
 */

const TOKEN = 'tok-very-secret-1234';
const WEBHOOK_SECRET = 'whs-very-secret-5678';

interface Comment {
  id: number;
  userId: number;
  text: string;
}

/** The platform: comments 1..n, 2 a page; `rateLimitOnce` answers 429 to the next page request; `refuse` answers 401. */
const platform = {
  comments: [] as Comment[],
  rateLimitOnce: false,
  refuse: false,
  profileCalls: [] as string[][],
  url: '',
  /** Runs as a page is read (before the platform answers). */
  duringPage: null as (() => Promise<void>) | null,
};

let server: http.Server;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    if (platform.refuse || request.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { message: 'Bad credentials' });
    if (url.pathname === '/whoami') return send(200, { login: 'hearth-bot' });
    if (url.pathname === '/comments') {
      if (platform.rateLimitOnce) {
        platform.rateLimitOnce = false;
        return send(429, { message: 'slow down' }, { 'retry-after': '120' });
      }
      const after = Number(url.searchParams.get('after') ?? 0);
      const items = platform.comments.filter((comment) => comment.id > after).slice(0, 2);
      return send(200, { items, total: platform.comments.length });
    }
    if (url.pathname === '/users') {
      const ids = (url.searchParams.get('ids') ?? '').split(',');
      platform.profileCalls.push(ids);
      return send(200, ids.map((id) => ({ id, fullName: `Person ${id}`, email: `person${id}@example.org` })));
    }
    return send(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  platform.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Settings {
  baseUrl: string;
  project: string;
}
interface Secrets {
  token: string;
  webhookSecret: string;
}

const header = (headers: Headers, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const commentPush = (comment: { id: number; userId: number; text: string }) => ({
  id: `comment-${comment.id}`,
  activityType: 'issue_comment',
  user: { id: String(comment.userId), username: `user${comment.userId}` },
  content: comment.text,
  timestamp: '2026-01-15T10:00:00Z',
});

const testHub: ConnectorKind<Settings, Secrets> = {
  kind: 'github',
  platformName: 'TestHub',
  settingsSchema: Type.Object({ baseUrl: Type.String({ minLength: 1 }), project: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  secretsSchema: Type.Object({ token: Type.String({ minLength: 8 }), webhookSecret: Type.String({ minLength: 8 }) }, { additionalProperties: false }),
  async verify(raw, headers, secrets) {
    const given = header(headers, 'x-test-signature');
    if (!given) return false;
    const expected = `sha256=${createHmac('sha256', secrets.webhookSecret).update(raw).digest('hex')}`;
    return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  },
  deliveryId: (headers) => header(headers, 'x-test-delivery') ?? null,
  eventOf: (headers) => header(headers, 'x-test-event') ?? null,
  translate(delivery) {
    const body = delivery.body as { comment?: Comment };
    if (delivery.event !== 'comment' || !body.comment) return { users: [], activities: [], skipped: [`event ${delivery.event} is not followed`] };
    return { users: [], activities: [commentPush(body.comment)], skipped: [] };
  },
  async streams(settings) {
    return [`${settings.project}/comments`];
  },
  async page(_stream, checkpoint, settings, secrets, access) {
    await platform.duringPage?.();
    const after = (checkpoint as { after?: number } | null)?.after ?? 0;
    const response = await access.fetch(`${settings.baseUrl}/comments?after=${after}`, { headers: { authorization: `Bearer ${secrets.token}` } });
    if (response.status === 401) throw new CredentialRejected('TestHub refused the token (401 Bad credentials)');
    if (response.status === 429) throw new RateLimitWait(new Date(access.now().getTime() + Number(response.headers.get('retry-after')) * 1000), 'TestHub rate limit');
    const page = (await response.json()) as { items: Comment[]; total: number };
    const last = page.items.at(-1)?.id ?? after;
    return { translation: { users: [], activities: page.items.map(commentPush), skipped: [] }, checkpoint: { after: last }, done: page.items.length < 2, total: page.total };
  },
  async profiles(ids, settings, secrets, access) {
    const response = await access.fetch(`${settings.baseUrl}/users?ids=${ids.join(',')}`, { headers: { authorization: `Bearer ${secrets.token}` } });
    return (await response.json()) as { id: string; fullName: string; email: string }[];
  },
  async test(settings, secrets, access) {
    const response = await access.fetch(`${settings.baseUrl}/whoami`, { headers: { authorization: `Bearer ${secrets.token}` } });
    if (response.status === 401) throw new CredentialRejected('TestHub refused the token');
    return `signed in as ${((await response.json()) as { login: string }).login}`;
  },
};

const sign = (body: string, secret = WEBHOOK_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe.each(ENGINES)('connectors (%s)', (engine) => {
  let t: TestApp;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true, connectorKinds: [testHub as ConnectorKind<unknown, unknown>] });
    platform.comments = [1, 2, 3].map((id) => ({ id, userId: 100 + id, text: `comment ${id}` }));
    platform.rateLimitOnce = false;
    platform.refuse = false;
    platform.profileCalls = [];
    platform.duringPage = null;
  });
  afterEach(() => t.close());

  const settings = () => ({ baseUrl: platform.url, project: 'acme' });
  const create = (body: Record<string, unknown> = {}, token?: string) =>
    t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET }, ...body }, token);
  const worker = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs });
  const noSecrets = (text: string) => {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(WEBHOOK_SECRET);
  };

  it('makes connectors through the admin API: validation naming the field, default names, secrets never answered or audited', async () => {
    const kinds = await t.get('/api/v2/admin/connector-kinds');
    expect(kinds.statusCode).toBe(200);
    expect(kinds.json().data).toEqual([expect.objectContaining({ kind: 'github', platformName: 'TestHub' })]);

    const unknownKind = await create({ kind: 'myspace' });
    expect(unknownKind.statusCode).toBe(400);
    expect(unknownKind.json().error.message).toContain('kind');
    const badSettings = await create({ settings: { baseUrl: platform.url } });
    expect(badSettings.statusCode).toBe(400);
    expect(badSettings.json().error.message).toContain('settings.project');
    const badSecrets = await create({ secrets: { token: 'short', webhookSecret: WEBHOOK_SECRET } });
    expect(badSecrets.statusCode).toBe(400);
    expect(badSecrets.json().error.message).toContain('secrets.token');
    expect(badSecrets.body).not.toContain('short');
    noSecrets(badSecrets.body);

    const first = await create();
    expect(first.statusCode).toBe(201);
    noSecrets(first.body);
    const connector = first.json().data;
    expect(connector).toMatchObject({
      id: expect.stringMatching(/^sig_\d+$/),
      kind: 'github',
      name: 'TestHub',
      settings: settings(),
      secrets: ['token', 'webhookSecret'],
      receiverUrl: expect.stringMatching(/^http:\/\/hearth\.test\/api\/v2\/receivers\/github\/rk_\d+_[A-Za-z0-9_-]{32}$/),
      state: 'backfilling',
      reason: null,
      last24h: { deliveries: 0, records: 0 },
    });
    const second = await create();
    expect(second.json().data.name).toBe('TestHub 2');
    const taken = await create({ name: 'testhub' });
    expect(taken.statusCode).toBe(409);

    // The source is a provider of its platform.
    const providers = await t.get('/api/v2/providers');
    expect(providers.json().data).toContainEqual({ id: connector.id, name: 'TestHub', serviceName: 'TestHub' });

    const rotated = await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { token: 'tok-another-secret-9999' } });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().data.secrets).toEqual(['token', 'webhookSecret']);
    expect(rotated.body).not.toContain('tok-another-secret-9999');
    const badRotation = await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { extra: 'x' } });
    expect(badRotation.statusCode).toBe(400);

    for (const url of ['/api/v2/admin/connectors', `/api/v2/admin/connectors/${connector.id}`]) {
      const answer = await t.get(url);
      expect(answer.statusCode).toBe(200);
      noSecrets(answer.body);
      expect(answer.body).not.toContain('tok-another-secret-9999');
    }
    const audit = await t.get('/api/v2/admin/audit-log?operation=connector.*&limit=100');
    expect(audit.statusCode).toBe(200);
    expect(audit.json().data.map((entry: { operation: string }) => entry.operation)).toEqual(expect.arrayContaining(['connector.create', 'connector.update']));
    noSecrets(audit.body);
    expect(audit.body).not.toContain('tok-another-secret-9999');
    const { rows } = await t.services.db.selectFrom('connectors').select(['secrets']).execute().then((secrets) => ({ rows: secrets }));
    for (const row of rows) noSecrets(row.secrets ?? '');
  });

  it("keeps each community's connectors to itself", async () => {
    const connector = (await create()).json().data;
    const { communityId } = await t.services.communities.create('Elsewhere', cliActor());
    const other = await t.issueToken(['read', 'write', 'admin'], communityId);
    expect((await t.get('/api/v2/admin/connectors', other)).json().data).toEqual([]);
    expect((await t.get(`/api/v2/admin/connectors/${connector.id}`, other)).statusCode).toBe(404);
    expect((await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { name: 'Mine' }, other)).statusCode).toBe(404);
    for (const action of ['sync', 'pause', 'resume', 'test']) {
      expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/${action}`, undefined, other)).statusCode).toBe(404);
    }
    expect((await t.send('DELETE', `/api/v2/admin/connectors/${connector.id}`, undefined, other)).statusCode).toBe(404);
    const reader = await t.issueToken(['read', 'write']);
    expect((await t.get('/api/v2/admin/connectors', reader)).statusCode).toBe(403);
    expect((await t.get(`/api/v2/admin/connectors/${connector.id}`)).statusCode).toBe(200);
  });

  it('receives signed deliveries once, refuses bad signatures, and turns them into activities', async () => {
    const connector = (await create()).json().data;
    const path = new URL(connector.receiverUrl).pathname;
    const body = JSON.stringify({ comment: { id: 50, userId: 7, text: 'hello from a webhook' } });
    const deliver = (payload: string, headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json', 'x-test-event': 'comment', 'x-test-delivery': 'd-1', ...headers }, payload });

    const unsigned = await deliver(body, {});
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json()).toEqual({ status: 'unauthorized', reason: expect.any(String) });
    expect((await deliver(body, { 'x-test-signature': sign(body, 'another-secret') })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: `${path}x`, headers: { 'content-type': 'application/json' }, payload: body })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: path.replace('/github/', '/discourse/'), headers: { 'content-type': 'application/json' }, payload: body })).statusCode).toBe(404);
    expect(await t.services.db.selectFrom('connector_deliveries').select('id').execute()).toEqual([]);

    const first = await deliver(body, { 'x-test-signature': sign(body) });
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ received: true, duplicate: false });
    const again = await deliver(body, { 'x-test-signature': sign(body) });
    expect(again.json()).toEqual({ received: true, duplicate: true });
    const notJson = '{"comment": ';
    expect((await deliver(notJson, { 'x-test-signature': sign(notJson), 'x-test-delivery': 'd-2' })).statusCode).toBe(400);

    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    const deliveries = await t.services.db.selectFrom('connector_deliveries').select(['delivery_id', 'processed_at', 'outcome', 'error']).execute();
    expect(deliveries).toEqual([{ delivery_id: 'd-1', processed_at: expect.any(Date), outcome: expect.objectContaining({ activities: 1, rejected: 0 }), error: null }]);
    const activities = await t.services.db.selectFrom('activities').select(['external_id', 'source_id']).where('source_id', '=', connector.sourceId).execute();
    expect(activities).toEqual([{ external_id: 'comment-50', source_id: connector.sourceId }]);
    const shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown.last24h).toEqual({ deliveries: 1, records: 1 });
    expect(shown.lastEventAt).toBe('2026-01-15T12:00:00.000Z');
    const metrics = (await t.get('/metrics')).body;
    const labels = `community="com_${t.communityId}",source="${connector.id}",kind="github"`;
    expect(metrics).toContain(`hearth_connectors{community="com_${t.communityId}",kind="github",state="backfilling"} 1`);
    expect(metrics).toContain(`hearth_connector_deliveries_received_total{${labels}} 1`);
    expect(metrics).toContain(`hearth_connector_deliveries_processed_total{${labels}} 1`);
    expect(metrics).toContain(`hearth_connector_records_stored_total{${labels}} 1`);
    expect(metrics).toContain(`hearth_connector_waiting_until_seconds{${labels}} 0`);

    // A paused connector stores deliveries and processes them when it resumes.
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/pause`, undefined);
    const later = JSON.stringify({ comment: { id: 51, userId: 7, text: 'while paused' } });
    expect((await deliver(later, { 'x-test-signature': sign(later), 'x-test-delivery': 'd-3' })).statusCode).toBe(202);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    expect(await t.services.db.selectFrom('activities').select('id').where('source_id', '=', connector.sourceId).execute()).toHaveLength(1);
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/resume`, undefined)).json().data.state).toBe('backfilling');
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    expect(await t.services.db.selectFrom('activities').select('id').where('source_id', '=', connector.sourceId).execute()).toHaveLength(2);

    // Processed deliveries (their payloads hold what people wrote) are deleted after 14 days; what they made stays.
    clock.advance(15 * 24 * 3_600_000);
    await worker().runSteps();
    expect(await t.services.db.selectFrom('connector_deliveries').select('id').execute()).toEqual([]);
    expect(await t.services.db.selectFrom('activities').select('id').where('source_id', '=', connector.sourceId).execute()).toHaveLength(2);
  });

  it("counts receiver requests per connector, not against the anonymous per-address limit", async () => {
    const limited = await createTestApp(engine, { clock, connectorKinds: [testHub as ConnectorKind<unknown, unknown>], rateLimit: { perAddress: 1, trackerPerKey: 3 } });
    try {
      const connector = (await limited.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET } })).json().data;
      const post = (url: string) => limited.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{}' });
      const path = new URL(connector.receiverUrl).pathname;
      expect([(await post(path)).statusCode, (await post(path)).statusCode, (await post(path)).statusCode]).toEqual([401, 401, 401]);
      expect((await post(path)).statusCode).toBe(429);
      // Addresses that are no receiver's key are anonymous requests.
      expect([(await post('/api/v2/receivers/github/x')).statusCode, (await post('/api/v2/receivers/github/y')).statusCode]).toEqual([404, 429]);
    } finally {
      await limited.close();
    }
  });

  it('stops a running sync at the next page boundary when paused, and goes on from there when resumed', async () => {
    const connector = (await create()).json().data;
    platform.duringPage = async () => {
      platform.duringPage = null;
      await t.services.connectors.pause(cliWriter(t.communityId), connector.sourceId);
    };
    const run = worker();
    await run.runUntilIdle();
    let shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'paused' });
    expect(shown.streams[0]).toMatchObject({ done: false, records: 2 });
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/resume`, undefined);
    await run.runUntilIdle();
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'active' });
    expect(shown.streams[0]).toMatchObject({ done: true, records: 3 });
  });

  it('gives the sync back when the worker stops, and a new worker goes on from the checkpoint', async () => {
    const connector = (await create()).json().data;
    const stopping = worker();
    let calls = 0;
    platform.duringPage = async () => {
      calls += 1;
      // The second page is being read when the process is told to stop.
      if (calls === 2) void stopping.stop();
    };
    await stopping.runOnce();
    let shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown.streams[0]).toMatchObject({ done: false, records: 2 });
    const [job] = await t.services.jobs.list({ communityId: t.communityId, kind: 'connector.sync' });
    expect(job).toMatchObject({ status: 'queued' });
    await worker().runUntilIdle();
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'active' });
    expect(shown.streams[0]).toMatchObject({ done: true, records: 3 });
  });

  it('syncs stream pages from checkpoints, waits out a rate limit on the clock, then reads profiles', async () => {
    const connector = (await create()).json().data;
    platform.comments = [1, 2, 3, 4, 5].map((id) => ({ id, userId: 100 + (id % 2), text: `comment ${id}` }));
    platform.rateLimitOnce = false;
    const run = worker();
    await run.runOnce();
    let shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown.state).toBe('active');
    expect(shown.streams).toEqual([{ stream: 'acme/comments', done: true, records: 5, total: 5, updatedAt: expect.any(String) }]);
    expect(shown.lastSyncAt).toBe('2026-01-15T12:00:00.000Z');
    expect(platform.profileCalls).toEqual([['100', '101']]);

    // An incremental sync reads on from the checkpoint; a 429 makes it wait on the clock.
    platform.comments.push({ id: 6, userId: 102, text: 'new' });
    platform.rateLimitOnce = true;
    const sync = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined);
    expect(sync.statusCode).toBe(200);
    await run.runOnce();
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'waiting', waitingUntil: '2026-01-15T12:02:00.000Z', reason: 'TestHub rate limit' });
    expect(await run.runUntilIdle()).toBe(0);
    clock.advance(120_000);
    expect(await run.runUntilIdle()).toBe(1);
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
    expect(shown.streams[0].records).toBe(6);
    expect(platform.profileCalls).toEqual([['100', '101'], ['102']]);
    const profiled = await t.services.db.selectFrom('contacts').select('primary_email').where('primary_email', '=', 'person102@example.org').execute();
    expect(profiled).toHaveLength(1);

    // Every connector is synced again after the interval (15 minutes by default).
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(0);
    clock.advance(15 * 60_000);
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(1);
    expect(await run.runUntilIdle()).toBe(1);

    // data-available for the connector's source is a sync.
    const available = await t.send('POST', '/api/v2/data-available', { sourceId: connector.sourceId });
    expect(available.statusCode).toBe(200);
    const job = await t.services.jobs.findById(available.json().jobId);
    expect(job?.kind).toBe('connector.sync');
  });

  it('fails on a refused credential until its secrets change; a removed connector leaves its source and data', async () => {
    const connector = (await create()).json().data;
    platform.refuse = true;
    const run = worker();
    await run.runUntilIdle();
    let shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'failed', reason: 'TestHub refused the token (401 Bad credentials)' });
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(409);
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({ ok: false, message: 'TestHub refused the token' });

    platform.refuse = false;
    const patched = await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { token: TOKEN } });
    expect(patched.json().data).toMatchObject({ state: 'backfilling', reason: null });
    await run.runUntilIdle();
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'active' });
    expect(shown.streams[0]).toMatchObject({ done: true, records: 3 });

    const paused = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/pause`, undefined);
    expect(paused.json().data.state).toBe('paused');
    const removed = await t.send('DELETE', `/api/v2/admin/connectors/${connector.id}`, undefined);
    expect(removed.statusCode).toBe(200);
    expect((await t.get(`/api/v2/admin/connectors/${connector.id}`)).statusCode).toBe(404);
    // The source and its data stay.
    expect(await t.services.db.selectFrom('activities').select('id').where('source_id', '=', connector.sourceId).execute()).toHaveLength(3);

    const check = await t.send('POST', '/api/v2/admin/connectors/test', { kind: 'github', settings: settings(), secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET } });
    expect(check.json().data).toEqual({ ok: true, message: 'signed in as hearth-bot' });
    noSecrets(check.body);
  });
});
