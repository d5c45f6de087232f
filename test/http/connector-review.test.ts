import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { createGitHubConnector } from '../../src/modules/connectors/github/github-connector.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { signedDelivery, standInDelivery } from '../stand-ins/github-webhooks.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework where a platform misbehaves, through GitHub's connector against the local GitHub: messages
 * that echo the credential, a rate limit already past, a list whose next page is itself, a delivery whose
 * outcome holds a NUL character, one that cannot be finished, a database busy with the rows every delivery
 * writes, and bad input.
 */

const TOKEN = 'ghp_review0secret0token0000000000000001';
const OTHER_TOKEN = 'ghp_review0secret0token0000000000000002';
const WEBHOOK_SECRET = 'whs-very-secret-5678';
const REPO = 'acme/widgets';
// The framework's waits are what is tested: no in-process throttling, 5xx tried twice then a minute's wait.
const github = createGitHubConnector({ retryBaseMs: 1, retries: 1, serverErrorWaitMs: 60_000, throttle: false }) as ConnectorKind<unknown, unknown>;

describe.each(ENGINES)('connectors under misbehaving platforms (%s)', (engine) => {
  let t: TestApp;
  let clock: ManualClock;
  let standIn: GitHubStandIn;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    standIn = await startGitHubStandIn({ tokens: [TOKEN, OTHER_TOKEN], repositories: [{ fullName: REPO, stargazers: 3, issues: 2, issueComments: 2 }] });
    t = await createTestApp(engine, { clock, allowPrivateFetch: true, connectorKinds: [github] });
  });
  afterEach(async () => {
    await t.close();
    await standIn.stop();
  });

  const settings = () => ({ repositories: [REPO], apiUrl: standIn.url });
  const worker = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs });
  const show = async (id: string) => (await t.get(`/api/v2/admin/connectors/${id}`)).json().data;
  const create = async () =>
    (
      await t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET } })
    ).json().data;
  /** Issue comment `index` of the stand-in as GitHub delivers it, changed by `change` when given. */
  const deliver = async (path: string, deliveryId: string, index: number, change?: (comment: Record<string, unknown>) => void) => {
    const { event, body: payload } = standInDelivery(standIn, REPO, 'issue-comment', index);
    change?.(payload.comment);
    const signed = await signedDelivery(event, payload, WEBHOOK_SECRET, deliveryId);
    return t.app.inject({ method: 'POST', url: path, headers: signed.headers, payload: signed.raw });
  };

  it("keeps the connector's secrets out of reasons, test answers and the job's error when the platform echoes them", async () => {
    const connector = await create();
    standIn.fault({ kind: 'echo-authorization' });
    await worker().runOnce();
    const shown = await t.get(`/api/v2/admin/connectors/${connector.id}`);
    expect(shown.json().data.reason).toMatch(
      /^the last sync attempt failed \(it is retried\): Problems parsing the Authorization header "token \[secret\]" \(token%20\[secret\]\)/,
    );
    const [job] = await t.services.jobs.list({ communityId: t.communityId, kind: 'connector.sync' });
    expect(job).toMatchObject({ status: 'queued', attempts: 1 });
    const jobs = JSON.stringify(job);
    expect(jobs).toContain('Problems parsing the Authorization header');

    standIn.fault({ kind: 'echo-authorization' }, { times: 2 });
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({
      ok: false,
      message: expect.stringMatching(/^Problems parsing the Authorization header "token \[secret\]" \(token%20\[secret\]\)/),
    });
    const testedNew = await t.send('POST', '/api/v2/admin/connectors/test', {
      kind: 'github',
      settings: settings(),
      secrets: { token: OTHER_TOKEN, webhookSecret: WEBHOOK_SECRET },
    });
    expect(testedNew.json().data.message).toMatch(/^Problems parsing the Authorization header "token \[secret\]" \(token%20\[secret\]\)/);

    // A refusal (401) that echoes the credential: the connector fails with GitHub's message, redacted.
    standIn.fault({ kind: 'echo-authorization', status: 401 });
    clock.advance(3_600_000);
    await worker().runUntilIdle();
    const failed = await t.get(`/api/v2/admin/connectors/${connector.id}`);
    expect(failed.json().data).toMatchObject({
      state: 'failed',
      reason: `GitHub refused the access token (401 Problems parsing the Authorization header "token [secret]" (token%20[secret])): it was revoked, expired or mistyped. Replace it in the connector's secrets.`,
    });
    const audit = await t.get('/api/v2/admin/audit-log?limit=100');
    for (const text of [shown.body, jobs, tested.body, testedNew.body, failed.body, audit.body]) {
      for (const token of [TOKEN, OTHER_TOKEN]) {
        expect(text).not.toContain(token);
        expect(text).not.toContain(encodeURIComponent(`token ${token}`));
      }
    }
  });

  it('waits at least 30 s for a platform whose wait is already over, instead of syncing again at once', async () => {
    const connector = await create();
    const run = worker();
    for (const fault of [
      { kind: 'too-many-requests', retryAfter: 0 },
      { kind: 'secondary-limit', retryAfter: 0 },
    ] as const) {
      standIn.fault(fault);
      await run.runUntilIdle();
      const until = new Date(clock.now().getTime() + 30_000).toISOString();
      expect(await show(connector.id), fault.kind).toMatchObject({
        state: 'waiting',
        waitingUntil: until,
        reason: expect.stringContaining('GitHub asked to wait 0s'),
      });
      // Nothing runs before then (a loop would ask GitHub again and again here).
      const asked = standIn.requests.length;
      expect(await run.runUntilIdle()).toBe(0);
      expect(standIn.requests.length).toBe(asked);
      clock.advance(30_000);
    }
    expect(await run.runUntilIdle()).toBe(1);
    expect(await show(connector.id)).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
  });

  it('stops a stream whose platform gives the same page again and again', async () => {
    const connector = await create();
    standIn.fault({ kind: 'next-is-itself' }, { times: Infinity, path: /\/stargazers\?/ });
    await worker().runOnce();
    const shown = await show(connector.id);
    expect(shown.reason).toMatch(
      /^the last sync attempt failed \(it is retried\): stream acme\/widgets:stargazers: the platform gave a page that leads back to itself/,
    );
    // The page was read twice (the second time showed the checkpoint going nowhere), stored and counted once.
    expect(standIn.requests.filter((r) => r.path.includes('/stargazers?'))).toHaveLength(2);
    expect(shown.streams).toContainEqual(expect.objectContaining({ stream: `${REPO}:stargazers`, done: false, records: 3, total: 3 }));
    expect(shown.last24h).toEqual({ deliveries: 0, records: 3 });
  });

  it('finishes a delivery whose outcome holds a NUL character, and sets aside one that keeps failing', async () => {
    const connector = await create();
    const path = new URL(connector.receiverUrl).pathname;
    // Values GitHub sent: a comment's body, and a bot's login that the outcome quotes (why the comment is left
    // out). Postgres keeps no NUL in text or jsonb: the comment is stored without it, the quote is kept without it.
    expect((await deliver(path, 'd-1', 1, (comment) => (comment.body = 'a\u0000b'))).statusCode).toBe(202);
    const bot = (comment: Record<string, unknown>) => (comment.user = { ...(comment.user as object), login: 'help\u0000er[bot]', type: 'Bot' });
    expect((await deliver(path, 'd-2', 2, bot)).statusCode).toBe(202);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    const processed = await t.services.db
      .selectFrom('connector_deliveries')
      .select(['delivery_id as id', 'processed_at as processedAt', 'error', 'outcome'])
      .orderBy('id')
      .execute();
    const commentId = standIn.record(REPO, 'issue-comment', 2).id as number;
    expect(processed).toEqual([
      {
        id: 'd-1',
        processedAt: expect.any(Date),
        error: null,
        outcome: expect.objectContaining({ activities: 1, rejected: 0 }),
      },
      {
        id: 'd-2',
        processedAt: expect.any(Date),
        error: null,
        outcome: expect.objectContaining({ activities: 0, skipped: [`comment ${commentId} on ${REPO}#2: bot helper[bot]`] }),
      },
    ]);

    // Tried five times, failing each time (its claim ran out): the sixth claim sets it aside; the next one is processed.
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/pause`, undefined);
    expect((await deliver(path, 'd-3', 1)).statusCode).toBe(202);
    expect((await deliver(path, 'd-4', 2)).statusCode).toBe(202);
    await t.services.db
      .updateTable('connector_deliveries')
      .set({ attempts: 5, error: 'connection terminated unexpectedly' })
      .where('delivery_id', '=', 'd-3')
      .execute();
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/resume`, undefined);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    const rows = await t.services.db
      .selectFrom('connector_deliveries')
      .select(['delivery_id as id', 'processed_at as processedAt', 'error', 'outcome'])
      .orderBy('id')
      .execute();
    expect(rows.slice(2)).toEqual([
      { id: 'd-3', processedAt: expect.any(Date), error: 'set aside after 5 failed attempts: connection terminated unexpectedly', outcome: { setAside: true } },
      { id: 'd-4', processedAt: expect.any(Date), error: null, outcome: expect.objectContaining({ activities: 1 }) },
    ]);
    // The comment whose body held a NUL is stored without it; the set-aside delivery made nothing.
    const activities = await t.services.db
      .selectFrom('activities')
      .select(['external_id', 'content'])
      .where('source_id', '=', connector.sourceId)
      .orderBy('external_id')
      .execute();
    expect(activities).toEqual([
      { external_id: `issue-comment:${standIn.record(REPO, 'issue-comment', 1).id as number}`, content: expect.stringContaining('ab') },
      { external_id: `issue-comment:${commentId}`, content: expect.any(String) },
    ]);
  });

  it('answers a delivery while another transaction holds the rows every delivery writes', async () => {
    const connector = await create();
    const path = new URL(connector.receiverUrl).pathname;
    expect((await deliver(path, 'd-0', 1)).statusCode).toBe(202);
    await t.services.connectors.settled();
    if (engine === 'postgres') {
      // The connector's row and the hour's count are locked (a sync's or another delivery's transaction): the answer does not wait for them.
      await t.services.db.transaction().execute(async (trx) => {
        await trx.updateTable('connectors').set({ reason: 'busy' }).where('source_id', '=', connector.sourceId).execute();
        await trx.updateTable('connector_hourly_counts').set({ deliveries: 1 }).where('source_id', '=', connector.sourceId).execute();
        const answer = await deliver(path, 'd-1', 2);
        expect(answer.statusCode).toBe(202);
      });
    } else {
      expect((await deliver(path, 'd-1', 2)).statusCode).toBe(202);
    }
    await t.services.connectors.settled();
    const shown = await show(connector.id);
    expect(shown.last24h.deliveries).toBe(2);
    expect(shown.lastEventAt).toBe('2026-01-15T12:00:00.000Z');
  });

  it('answers bad input with a 4xx that says what is wrong', async () => {
    const connector = await create();
    const path = new URL(connector.receiverUrl).pathname;
    const secrets = { token: TOKEN, webhookSecret: WEBHOOK_SECRET };
    // Each case: what is wrong, and what the answer says about it.
    const cases: [string, 'POST' | 'PATCH', string, unknown, string][] = [
      ['blank name', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { name: '   ' }, '"name" must not be empty'],
      ['settings of another shape', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { settings: [1, 2] }, '"settings" must be object'],
      ['secrets not an object', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: 'x' }, '"secrets" must be object'],
      ['secrets null', 'POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: null }, '"secrets" must be object'],
      ['kind a number', 'POST', '/api/v2/admin/connectors/test', { kind: 5, settings: {}, secrets: {} }, '"kind" must be string'],
      ['not a connector ID', 'POST', '/api/v2/admin/connectors/sig_x/sync', undefined, 'not a valid connector ID'],
      ['a huge connector ID', 'POST', '/api/v2/admin/connectors/sig_99999999999999999999999/pause', undefined, 'not a valid connector ID'],
      ['a NUL in the name', 'PATCH', `/api/v2/admin/connectors/${connector.id}`, { name: 'a\u0000b' }, '"name" contains the NUL character'],
      [
        'a NUL in a setting',
        'PATCH',
        `/api/v2/admin/connectors/${connector.id}`,
        { settings: { ...settings(), apiUrl: `${standIn.url}/a\u0000b` } },
        '"settings.apiUrl" contains the NUL character',
      ],
      [
        'a NUL in a new name',
        'POST',
        '/api/v2/admin/connectors',
        { kind: 'github', name: 'x\u0000', settings: settings(), secrets },
        '"name" contains the NUL character',
      ],
      [
        'a NUL in a setting key',
        'POST',
        '/api/v2/admin/connectors',
        { kind: 'github', settings: { ...settings(), 'k\u0000': 1 }, secrets },
        '"settings" contains the NUL character',
      ],
      [
        'a NUL in a secret',
        'PATCH',
        `/api/v2/admin/connectors/${connector.id}`,
        { secrets: { token: 'ghp_\u0000_long_enough' } },
        '"secrets.token" contains the NUL character',
      ],
    ];
    for (const [what, method, url, body, says] of cases) {
      const answer = await t.send(method, url, body);
      expect(answer.statusCode, `${what}: ${answer.body}`).toBe(400);
      expect(answer.json().error.message, what).toContain(says);
    }
    const receiver = [
      await t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'text/plain', 'x-github-event': 'issue_comment', 'x-hub-signature-256': 'zz' },
        payload: 'x',
      }),
      await t.app.inject({ method: 'POST', url: path, payload: '' }),
      await t.app.inject({
        method: 'POST',
        url: `/api/v2/receivers/github/${'k'.repeat(300)}`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      }),
      await t.app.inject({
        method: 'POST',
        url: '/api/v2/receivers/github/rk_99999999999999999999_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      }),
    ];
    expect(receiver.map((answer) => answer.statusCode)).toEqual([401, 401, 400, 404]);
  });
});
