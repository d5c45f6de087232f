import { createHmac } from 'node:crypto';
import Type from 'typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { CredentialRejected, RateLimitWait, type ConnectorKind, type Headers } from '../../src/modules/connectors/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework where a platform misbehaves: messages that echo the credential, a rate limit already past,
 * a delivery that cannot be finished, a database busy with the rows every delivery writes, and bad input.
 * The kind ("EchoHub") does what each test sets in `platform`; it reaches no server.
 */

const TOKEN = 'tok-very-secret-1234';
const WEBHOOK_SECRET = 'whs-very-secret-5678';

const platform = {
  /** What the next page does. */
  page: 'ok' as 'ok' | 'echo-token' | 'refuse-echoing' | 'wait-now' | 'same-page',
  skipped: [] as string[],
};

const header = (headers: Headers, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const echoHub: ConnectorKind<{ room: string }, { token: string; webhookSecret: string }> = {
  kind: 'github',
  platformName: 'EchoHub',
  settingsSchema: Type.Object({ room: Type.String() }),
  secretsSchema: Type.Object({ token: Type.String({ minLength: 8 }), webhookSecret: Type.String({ minLength: 8 }) }),
  async verify(raw, headers, secrets) {
    return header(headers, 'x-echo-signature') === createHmac('sha256', secrets.webhookSecret).update(raw).digest('hex');
  },
  deliveryId: (headers) => header(headers, 'x-echo-delivery') ?? null,
  eventOf: () => 'message',
  translate(delivery) {
    const body = delivery.body as { id: number };
    return {
      users: [],
      activities: [{ id: `m-${body.id}`, activityType: 'issue_comment', user: { id: '1', username: 'someone' }, content: 'hi', timestamp: '2026-01-15T10:00:00Z' }],
      skipped: platform.skipped,
    };
  },
  async streams() {
    return ['messages'];
  },
  async page(_stream, _checkpoint, _settings, secrets, access) {
    // As some platforms do: the error names what it was sent.
    if (platform.page === 'echo-token') throw new Error(`400 Bad Request: {"message":"malformed header Authorization: Bearer ${secrets.token}"} (${encodeURIComponent(secrets.token)})`);
    if (platform.page === 'refuse-echoing') throw new CredentialRejected(`EchoHub refused the token ${secrets.token}`);
    if (platform.page === 'wait-now') throw new RateLimitWait(access.now(), 'EchoHub said: wait until now');
    if (platform.page === 'same-page') return { translation: { users: [], activities: [], skipped: [] }, checkpoint: { next: '/messages?page=2' }, done: false, records: 0 };
    return { translation: { users: [], activities: [], skipped: [] }, checkpoint: {}, done: true, total: 0, records: 0 };
  },
  async test(_settings, secrets) {
    throw new Error(`EchoHub answered 401 for token=${secrets.token}`);
  },
};

describe.each(ENGINES)('connectors under misbehaving platforms (%s)', (engine) => {
  let t: TestApp;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    platform.page = 'ok';
    platform.skipped = [];
    t = await createTestApp(engine, { clock, connectorKinds: [echoHub as ConnectorKind<unknown, unknown>] });
  });
  afterEach(() => t.close());

  const worker = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs });
  const create = async () =>
    (await t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: { room: 'general' }, secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET } })).json().data;
  const deliver = (path: string, deliveryId: string, body: unknown) => {
    const raw = JSON.stringify(body);
    return t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', 'x-echo-delivery': deliveryId, 'x-echo-signature': createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex') },
      payload: raw,
    });
  };

  it("keeps the connector's secrets out of reasons, test answers and the job's error when the platform echoes them", async () => {
    const connector = await create();
    platform.page = 'echo-token';
    await worker().runOnce();
    const shown = await t.get(`/api/v2/admin/connectors/${connector.id}`);
    expect(shown.json().data.reason).toContain('malformed header Authorization: Bearer [secret]');
    const [job] = await t.services.jobs.list({ communityId: t.communityId, kind: 'connector.sync' });
    const jobs = JSON.stringify(job);
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({ ok: false, message: 'EchoHub answered 401 for token=[secret]' });
    const testedNew = await t.send('POST', '/api/v2/admin/connectors/test', { kind: 'github', settings: { room: 'x' }, secrets: { token: 'tok-another-one-777', webhookSecret: WEBHOOK_SECRET } });
    expect(testedNew.json().data.message).toBe('EchoHub answered 401 for token=[secret]');

    platform.page = 'refuse-echoing';
    clock.advance(3_600_000);
    await worker().runUntilIdle();
    const failed = await t.get(`/api/v2/admin/connectors/${connector.id}`);
    expect(failed.json().data).toMatchObject({ state: 'failed', reason: 'EchoHub refused the token [secret]' });
    const audit = await t.get('/api/v2/admin/audit-log?limit=100');
    for (const text of [shown.body, jobs, tested.body, failed.body, audit.body]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(encodeURIComponent(TOKEN));
    }
  });

  it('waits at least 30 s for a platform whose wait is already over, instead of syncing again at once', async () => {
    const connector = await create();
    platform.page = 'wait-now';
    const run = worker();
    await run.runOnce();
    expect((await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data).toMatchObject({ state: 'waiting', waitingUntil: '2026-01-15T12:00:30.000Z' });
    // Nothing runs before then (a loop would run the job again and again here).
    expect(await run.runUntilIdle()).toBe(0);
    platform.page = 'ok';
    clock.advance(30_000);
    expect(await run.runUntilIdle()).toBe(1);
    expect((await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data).toMatchObject({ state: 'active', waitingUntil: null });
  });

  it('stops a stream whose platform gives the same page again and again', async () => {
    const connector = await create();
    platform.page = 'same-page';
    await worker().runOnce();
    const shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown.reason).toMatch(/^the last sync attempt failed \(it is retried\): stream messages: the platform gave a page that leads back to itself/);
    expect(shown.streams).toEqual([expect.objectContaining({ stream: 'messages', done: false, records: 0 })]);
  });

  it('finishes a delivery whose outcome holds a NUL character, and sets aside one that keeps failing', async () => {
    const connector = await create();
    const path = new URL(connector.receiverUrl).pathname;
    // A value the platform sent, quoted in the outcome: Postgres keeps no NUL in text or jsonb.
    platform.skipped = ['label "a\u0000b": not followed'];
    expect((await deliver(path, 'd-1', { id: 1 })).statusCode).toBe(202);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    expect(await t.services.db.selectFrom('connector_deliveries').select(['processed_at as processedAt', 'outcome']).execute()).toEqual([
      { processedAt: expect.any(Date), outcome: expect.objectContaining({ activities: 1, skipped: ['label "ab": not followed'] }) },
    ]);

    // Tried five times, failing each time (its claim ran out): the sixth claim sets it aside; the next one is processed.
    platform.skipped = [];
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/pause`, undefined);
    expect((await deliver(path, 'd-2', { id: 2 })).statusCode).toBe(202);
    expect((await deliver(path, 'd-3', { id: 3 })).statusCode).toBe(202);
    await t.services.db.updateTable('connector_deliveries').set({ attempts: 5, error: 'connection terminated unexpectedly' }).where('delivery_id', '=', 'd-2').execute();
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/resume`, undefined);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    const rows = await t.services.db.selectFrom('connector_deliveries').select(['delivery_id as id', 'processed_at as processedAt', 'error', 'outcome']).orderBy('id').execute();
    expect(rows.slice(1)).toEqual([
      { id: 'd-2', processedAt: expect.any(Date), error: 'set aside after 5 failed attempts: connection terminated unexpectedly', outcome: { setAside: true } },
      { id: 'd-3', processedAt: expect.any(Date), error: null, outcome: expect.objectContaining({ activities: 1 }) },
    ]);
  });

  it('answers a delivery while another transaction holds the rows every delivery writes', async () => {
    const connector = await create();
    const path = new URL(connector.receiverUrl).pathname;
    expect((await deliver(path, 'd-0', { id: 0 })).statusCode).toBe(202);
    await t.services.connectors.settled();
    if (engine === 'postgres') {
      // The connector's row and the hour's count are locked (a sync's or another delivery's transaction): the answer does not wait for them.
      await t.services.db.transaction().execute(async (trx) => {
        await trx.updateTable('connectors').set({ reason: 'busy' }).where('source_id', '=', connector.sourceId).execute();
        await trx.updateTable('connector_hourly_counts').set({ deliveries: 1 }).where('source_id', '=', connector.sourceId).execute();
        const answer = await deliver(path, 'd-1', { id: 1 });
        expect(answer.statusCode).toBe(202);
      });
    } else {
      expect((await deliver(path, 'd-1', { id: 1 })).statusCode).toBe(202);
    }
    await t.services.connectors.settled();
    const shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown.last24h.deliveries).toBe(2);
    expect(shown.lastEventAt).toBe('2026-01-15T12:00:00.000Z');
  });

  it('answers bad input with a 4xx that says what is wrong', async () => {
    const connector = await create();
    const path = new URL(connector.receiverUrl).pathname;
    const cases: [string, 'POST' | 'PATCH', string, unknown][] = [
      ['blank name', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { name: '   ' }],
      ['settings of another shape', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { settings: [1, 2] }],
      ['secrets not an object', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: 'x' }],
      ['secrets null', 'POST', '/api/v2/admin/connectors', { kind: 'github', settings: { room: 'a' }, secrets: null }],
      ['kind a number', 'POST', '/api/v2/admin/connectors/test', { kind: 5, settings: {}, secrets: {} }],
      ['not a connector ID', 'POST', '/api/v2/admin/connectors/sig_x/sync', undefined],
      ['a huge connector ID', 'POST', '/api/v2/admin/connectors/sig_99999999999999999999999/pause', undefined],
      ['a NUL in the name', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { name: 'a\u0000b' }],
      ['a NUL in a setting', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { settings: { room: 'a\u0000b' } }],
      ['a NUL in a new name', 'POST', '/api/v2/admin/connectors', { kind: 'github', name: 'x\u0000', settings: { room: 'a' }, secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET } }],
      ['a NUL in a setting key', 'POST', '/api/v2/admin/connectors', { kind: 'github', settings: { room: 'a', 'k\u0000': 1 }, secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET } }],
      ['a NUL in a secret', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { token: 'tok-\u0000-long-enough' } }],
    ];
    for (const [what, method, url, body] of cases) {
      const answer = await t.send(method, url, body);
      expect(answer.statusCode, `${what}: ${answer.body}`).toBeGreaterThanOrEqual(400);
      expect(answer.statusCode, `${what}: ${answer.body}`).toBeLessThan(500);
    }
    const receiver = [
      await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain', 'x-echo-signature': 'zz' }, payload: 'x' }),
      await t.app.inject({ method: 'POST', url: path, payload: '' }),
      await t.app.inject({ method: 'POST', url: `/api/v2/receivers/github/${'k'.repeat(300)}`, headers: { 'content-type': 'application/json' }, payload: '{}' }),
      await t.app.inject({ method: 'POST', url: '/api/v2/receivers/github/rk_99999999999999999999_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', headers: { 'content-type': 'application/json' }, payload: '{}' }),
    ];
    for (const answer of receiver) expect(answer.statusCode, answer.body).toBeLessThan(500);
  });
});
