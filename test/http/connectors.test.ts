import { sign } from '@octokit/webhooks-methods';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { createGitHubConnector } from '../../src/modules/connectors/github/github-connector.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { signedDelivery, standInDelivery } from '../stand-ins/github-webhooks.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The connector framework (admin API, receiver, sync, waits, failures, profiles), through GitHub's connector
 * against the local GitHub built from its published API description and webhook examples.
 */

const TOKEN = 'ghp_hearth_test';
const WEBHOOK_SECRET = 'whs-very-secret-5678';
const REPO = 'acme/widgets';
// The framework's waits are what is tested: no in-process throttling, 5xx tried twice then a minute's wait.
const github = createGitHubConnector({ retryBaseMs: 1, retries: 1, serverErrorWaitMs: 60_000, throttle: false }) as ConnectorKind<unknown, unknown>;

/** GitHub's connector, with something run as each page is asked for (before GitHub answers). */
let duringPage: (() => Promise<void>) | null = null;
const watched: ConnectorKind<unknown, unknown> = {
  ...github,
  async page(stream, checkpoint, settings, secrets, access) {
    await duringPage?.();
    return github.page(stream, checkpoint, settings, secrets, access);
  },
};

/**
 * The repository: 3 stars, 1 fork, issues #1 and #2 (#2 closed), pull request #3 (open) with 1 review, 2 issue
 * comments, 1 release: 3 + 1 + 2 + 1 + 2 + 1 + 1 + 1 = 12 activities, one page per stream.
 */
const ACTIVITIES = 12;

describe.each(ENGINES)('connectors (%s)', (engine) => {
  let t: TestApp;
  let clock: ManualClock;
  let standIn: GitHubStandIn;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    duringPage = null;
    standIn = await startGitHubStandIn({
      repositories: [{ fullName: REPO, stargazers: 3, forks: 1, issues: 3, pullEvery: 3, issueComments: 2, reviewsPerPull: 1, releases: 1 }],
    });
    t = await createTestApp(engine, { clock, allowPrivateFetch: true, connectorKinds: [watched] });
  });
  afterEach(async () => {
    await t.close();
    await standIn.stop();
  });

  const settings = () => ({ repositories: [REPO], apiUrl: standIn.url });
  const create = (body: Record<string, unknown> = {}, token?: string) =>
    t.send(
      'POST',
      '/api/v2/admin/connectors',
      { kind: 'github', settings: settings(), secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET }, ...body },
      token,
    );
  const worker = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs });
  const show = async (id: string) => (await t.get(`/api/v2/admin/connectors/${id}`)).json().data;
  const stream = (shown: { streams: { stream: string }[] }, kind: string) => shown.streams.find((s) => s.stream === `${REPO}:${kind}`);
  const activities = (sourceId: number) => t.services.db.selectFrom('activities').select(['external_id']).where('source_id', '=', sourceId).execute();
  const noSecrets = (text: string) => {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(WEBHOOK_SECRET);
  };

  it('makes connectors through the admin API: validation naming the field, default names, secrets never answered or audited', async () => {
    const kinds = await t.get('/api/v2/admin/connector-kinds');
    expect(kinds.statusCode).toBe(200);
    expect(kinds.json().data).toEqual([
      expect.objectContaining({ kind: 'github', platformName: 'GitHub', receives: true, platformIssuesWebhookSecret: false }),
    ]);

    const unknownKind = await create({ kind: 'myspace' });
    expect(unknownKind.statusCode).toBe(400);
    expect(unknownKind.json().error.message).toContain('kind');
    const badSettings = await create({ settings: { repositories: ['not a repository'] } });
    expect(badSettings.statusCode).toBe(400);
    expect(badSettings.json().error.message).toContain('body field "settings.repositories.0" must match pattern');
    const noRepositories = await create({ settings: { apiUrl: standIn.url } });
    expect(noRepositories.json().error.message).toContain('body field "settings.repositories" is required');
    const badSecrets = await create({ secrets: { token: 'ghp_short_secret', webhookSecret: WEBHOOK_SECRET, extra: 'extra-secret-value' } });
    expect(badSecrets.statusCode).toBe(400);
    expect(badSecrets.json().error.message).toContain('unknown body field "secrets.extra"');
    expect(badSecrets.body).not.toContain('ghp_short_secret');
    expect(badSecrets.body).not.toContain('extra-secret-value');
    noSecrets(badSecrets.body);

    const first = await create();
    expect(first.statusCode).toBe(201);
    noSecrets(first.body);
    const connector = first.json().data;
    expect(connector).toMatchObject({
      id: expect.stringMatching(/^sig_\d+$/),
      kind: 'github',
      name: 'GitHub',
      settings: settings(),
      secrets: ['token', 'webhookSecret'],
      receiverUrl: expect.stringMatching(/^http:\/\/hearth\.test\/api\/v2\/receivers\/github\/rk_\d+_[A-Za-z0-9_-]{32}$/),
      state: 'backfilling',
      reason: null,
      last24h: { deliveries: 0, records: 0 },
    });
    const second = await create();
    expect(second.json().data.name).toBe('GitHub 2');
    const taken = await create({ name: 'github' });
    expect(taken.statusCode).toBe(409);

    // The source is a provider of its platform.
    const providers = await t.get('/api/v2/providers');
    expect(providers.json().data).toContainEqual({ id: connector.id, name: 'GitHub', serviceName: 'GitHub' });

    const rotated = await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { token: 'ghp_another_secret_9999' } });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().data.secrets).toEqual(['token', 'webhookSecret']);
    expect(rotated.body).not.toContain('ghp_another_secret_9999');
    const badRotation = await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { extra: 'x' } });
    expect(badRotation.statusCode).toBe(400);

    for (const url of ['/api/v2/admin/connectors', `/api/v2/admin/connectors/${connector.id}`]) {
      const answer = await t.get(url);
      expect(answer.statusCode).toBe(200);
      noSecrets(answer.body);
      expect(answer.body).not.toContain('ghp_another_secret_9999');
    }
    const audit = await t.get('/api/v2/admin/audit-log?operation=connector.*&limit=100');
    expect(audit.statusCode).toBe(200);
    expect(audit.json().data.map((entry: { operation: string }) => entry.operation)).toEqual(expect.arrayContaining(['connector.create', 'connector.update']));
    noSecrets(audit.body);
    expect(audit.body).not.toContain('ghp_another_secret_9999');
    const rows = await t.services.db.selectFrom('connectors').select(['secrets']).execute();
    for (const row of rows) {
      noSecrets(row.secrets ?? '');
      expect(row.secrets ?? '').not.toContain('ghp_another_secret_9999');
    }
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
    const star = standInDelivery(standIn, REPO, 'star', 1);
    const signed = await signedDelivery(star.event, star.body, WEBHOOK_SECRET, 'd-1');
    const deliver = (payload: Buffer | string, headers: Record<string, string>, url = path) => t.app.inject({ method: 'POST', url, headers, payload });
    const { 'x-hub-signature-256': _signature, ...unsignedHeaders } = signed.headers;

    const unsigned = await deliver(signed.raw, unsignedHeaders);
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json()).toEqual({ status: 'unauthorized', reason: expect.any(String) });
    const forged = await signedDelivery(star.event, star.body, 'another-secret', 'd-1');
    expect((await deliver(forged.raw, forged.headers)).statusCode).toBe(401);
    expect((await deliver(signed.raw, signed.headers, `${path}x`)).statusCode).toBe(404);
    expect((await deliver(signed.raw, signed.headers, path.replace('/github/', '/discourse/'))).statusCode).toBe(404);
    expect(await t.services.db.selectFrom('connector_deliveries').select('id').execute()).toEqual([]);

    const first = await deliver(signed.raw, signed.headers);
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ received: true, duplicate: false });
    const again = await deliver(signed.raw, signed.headers);
    expect(again.json()).toEqual({ received: true, duplicate: true });
    // A good signature over a body that is not JSON.
    const notJson = '{"action": ';
    expect(
      (await deliver(notJson, { ...signed.headers, 'x-github-delivery': 'd-2', 'x-hub-signature-256': await sign(WEBHOOK_SECRET, notJson) })).statusCode,
    ).toBe(400);

    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    const deliveries = await t.services.db.selectFrom('connector_deliveries').select(['delivery_id', 'processed_at', 'outcome', 'error']).execute();
    expect(deliveries).toEqual([
      { delivery_id: 'd-1', processed_at: expect.any(Date), outcome: expect.objectContaining({ activities: 1, rejected: 0 }), error: null },
    ]);
    const starId = `star:${standIn.repositoryId(REPO)}:${standIn.person(1).id}`;
    expect(await activities(connector.sourceId)).toEqual([{ external_id: starId }]);
    const shown = await show(connector.id);
    expect(shown.last24h).toEqual({ deliveries: 1, records: 1 });
    expect(shown.lastEventAt).toBe('2026-01-15T12:00:00.000Z');
    const metrics = (await t.get('/metrics')).body;
    const labels = `community="com_${t.communityId}",source="${connector.id}",kind="github"`;
    expect(metrics).toContain(`hearth_connectors{community="com_${t.communityId}",kind="github",state="backfilling"} 1`);
    expect(metrics).toContain(`hearth_connector_deliveries_received_total{${labels}} 1`);
    expect(metrics).toContain(`hearth_connector_deliveries_processed_total{${labels}} 1`);
    expect(metrics).toContain(`hearth_connector_records_stored_total{${labels}} 1`);
    expect(metrics).toContain(`hearth_connector_waiting_until_seconds{${labels}} 0`);
    // The connector's own state, its last delivery (2026-01-15T12:00:00Z) and its backfill's progress: no sync has run yet.
    expect(metrics).toContain(`hearth_connector_state{${labels},state="backfilling"} 1`);
    expect(metrics).toContain(`hearth_connector_state{${labels},state="active"} 0`);
    expect(metrics).toContain(`hearth_connector_last_event_seconds{${labels}} 1768478400`);
    expect(metrics).toContain(`hearth_connector_streams{${labels},status="caught_up"} 0`);

    // A paused connector stores deliveries and processes them when it resumes.
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/pause`, undefined);
    const later = standInDelivery(standIn, REPO, 'star', 2);
    const laterSigned = await signedDelivery(later.event, later.body, WEBHOOK_SECRET, 'd-3');
    expect((await deliver(laterSigned.raw, laterSigned.headers)).statusCode).toBe(202);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    expect(await activities(connector.sourceId)).toHaveLength(1);
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/resume`, undefined)).json().data.state).toBe('backfilling');
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    expect(await activities(connector.sourceId)).toHaveLength(2);

    // Processed deliveries (their payloads hold what people wrote) are deleted after 14 days; what they made stays.
    clock.advance(15 * 24 * 3_600_000);
    await worker().runSteps();
    expect(await t.services.db.selectFrom('connector_deliveries').select('id').execute()).toEqual([]);
    expect(await activities(connector.sourceId)).toHaveLength(2);
    // Without a webhook secret, every delivery is refused.
    const secretless = (await create({ secrets: { token: TOKEN } })).json().data;
    expect((await deliver(signed.raw, signed.headers, new URL(secretless.receiverUrl).pathname)).statusCode).toBe(401);
  });

  it('counts receiver requests per connector, not against the anonymous per-address limit', async () => {
    const limited = await createTestApp(engine, { clock, connectorKinds: [github], rateLimit: { perAddress: 1, trackerPerKey: 3 } });
    try {
      const connector = (
        await limited.send('POST', '/api/v2/admin/connectors', {
          kind: 'github',
          settings: settings(),
          secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
        })
      ).json().data;
      const post = (url: string) =>
        limited.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', 'x-github-event': 'star' }, payload: '{}' });
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
    duringPage = async () => {
      duringPage = null;
      await t.services.connectors.pause(cliWriter(t.communityId), connector.sourceId);
    };
    const run = worker();
    await run.runUntilIdle();
    let shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'paused' });
    // The page under way (the stars) is stored; the next stream is not started.
    expect(stream(shown, 'stargazers')).toMatchObject({ done: true });
    expect(stream(shown, 'forks')).toMatchObject({ done: false });
    expect(await activities(connector.sourceId)).toHaveLength(3);
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/resume`, undefined);
    await run.runUntilIdle();
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active' });
    expect(shown.streams.every((s: { done: boolean }) => s.done)).toBe(true);
    expect(await activities(connector.sourceId)).toHaveLength(ACTIVITIES);
  });

  it('gives the sync back when the worker stops, and a new worker goes on from the checkpoint', async () => {
    const connector = (await create()).json().data;
    const stopping = worker();
    let calls = 0;
    duringPage = async () => {
      calls += 1;
      // The second page (the forks) is being read when the process is told to stop.
      if (calls === 2) void stopping.stop();
    };
    await stopping.runOnce();
    let shown = await show(connector.id);
    expect(stream(shown, 'stargazers')).toMatchObject({ done: true });
    expect(stream(shown, 'forks')).toMatchObject({ done: false });
    const [job] = await t.services.jobs.list({ communityId: t.communityId, kind: 'connector.sync' });
    expect(job).toMatchObject({ status: 'queued' });
    duringPage = null;
    await worker().runUntilIdle();
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active' });
    expect(shown.streams.every((s: { done: boolean }) => s.done)).toBe(true);
    expect(await activities(connector.sourceId)).toHaveLength(ACTIVITIES);
  });

  it('syncs stream pages from checkpoints, waits out rate limits and 5xx on the clock, then reads profiles', async () => {
    const connector = (await create()).json().data;
    const run = worker();
    await run.runOnce();
    let shown = await show(connector.id);
    expect(shown.state).toBe('active');
    expect(shown.streams.map((s: { stream: string }) => s.stream).sort()).toEqual(
      ['discussions', 'forks', 'issue-comments', 'issue-events', 'issues', 'pulls', 'releases', 'review-comments', 'stargazers'].map(
        (kind) => `${REPO}:${kind}`,
      ),
    );
    expect(shown.streams.every((s: { done: boolean }) => s.done)).toBe(true);
    expect(stream(shown, 'stargazers')).toMatchObject({ total: 3 });
    expect(shown.lastSyncAt).toBe('2026-01-15T12:00:00.000Z');
    expect(await activities(connector.sourceId)).toHaveLength(ACTIVITIES);
    const labels = `community="com_${t.communityId}",source="${connector.id}",kind="github"`;
    const caughtUp = (await t.get('/metrics')).body;
    expect(caughtUp).toContain(`hearth_connector_state{${labels},state="active"} 1`);
    expect(caughtUp).toContain(`hearth_connector_streams{${labels},status="caught_up"} 9`);
    expect(caughtUp).toContain(`hearth_connector_streams{${labels},status="reading"} 0`);
    expect(caughtUp).toContain(`hearth_connector_last_event_seconds{${labels}} 0`);
    const profileReads = () => standIn.requests.filter((r) => /^\/user\/\d+$/.test(r.path)).map((r) => Number(r.path.split('/').pop()));
    const people = await t.services.db.selectFrom('source_profiles').select('external_id').where('source_id', '=', connector.sourceId).execute();
    expect(profileReads().sort()).toEqual(people.map((p) => Number(p.external_id)).sort());
    expect(profileReads()).toContain(standIn.person(2).id);

    // An incremental sync reads on from the checkpoints; a 429 makes it wait on the clock.
    standIn.add(REPO, { stargazers: 1 });
    standIn.fault({ kind: 'too-many-requests', retryAfter: 120 });
    const sync = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined);
    expect(sync.statusCode).toBe(200);
    await run.runOnce();
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'waiting', waitingUntil: '2026-01-15T12:02:00.000Z', reason: expect.stringContaining('GitHub asked to wait 120s') });
    const waiting = (await t.get('/metrics')).body;
    expect(waiting).toContain(`hearth_connector_state{${labels},state="waiting"} 1`);
    expect(waiting).toContain(`hearth_connector_waiting_until_seconds{${labels}} ${Date.parse('2026-01-15T12:02:00.000Z') / 1000}`);
    expect(await run.runUntilIdle()).toBe(0);
    clock.advance(120_000);
    expect(await run.runUntilIdle()).toBe(1);
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
    expect(await activities(connector.sourceId)).toHaveLength(ACTIVITIES + 1);
    // The new stargazer's profile (with a public email) is read, only theirs.
    expect(profileReads().filter((id) => id === standIn.person(4).id)).toHaveLength(1);
    expect(new Set(profileReads()).size).toBe(profileReads().length);
    const profiled = await t.services.db.selectFrom('contacts').select('primary_email').where('primary_email', '=', 'user4@example.com').execute();
    expect(profiled).toHaveLength(1);

    // Every connector is synced again after the interval (15 minutes by default): GitHub's secondary limit
    // makes it wait as told, then a run of 5xx makes it wait a minute.
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(0);
    clock.advance(15 * 60_000);
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(1);
    standIn.fault({ kind: 'secondary-limit', retryAfter: 30 });
    expect(await run.runUntilIdle()).toBe(1);
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'waiting', reason: expect.stringContaining('secondary rate limit') });
    expect(Date.parse(shown.waitingUntil) - clock.now().getTime()).toBe(30_000);
    standIn.fault({ kind: 'server-error', status: 502 }, { times: 2 });
    clock.advance(30_000);
    expect(await run.runUntilIdle()).toBe(1);
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'waiting', reason: expect.stringContaining('GitHub answered 502') });
    expect(Date.parse(shown.waitingUntil) - clock.now().getTime()).toBe(60_000);
    clock.advance(60_000);
    expect(await run.runUntilIdle()).toBe(1);
    expect(await show(connector.id)).toMatchObject({ state: 'active', reason: null });
    expect(await activities(connector.sourceId)).toHaveLength(ACTIVITIES + 1);

    // data-available for the connector's source is a sync.
    const available = await t.send('POST', '/api/v2/data-available', { sourceId: connector.sourceId });
    expect(available.statusCode).toBe(200);
    const job = await t.services.jobs.findById(available.json().jobId);
    expect(job?.kind).toBe('connector.sync');
  });

  it('fails on a refused credential until its secrets change; a removed connector leaves its source and data', async () => {
    const connector = (await create({ secrets: { token: 'ghp_revoked_token_0000', webhookSecret: WEBHOOK_SECRET } })).json().data;
    const run = worker();
    await run.runUntilIdle();
    let shown = await show(connector.id);
    const refused = "GitHub refused the access token (401 Bad credentials): it was revoked, expired or mistyped. Replace it in the connector's secrets.";
    expect(shown).toMatchObject({ state: 'failed', reason: refused });
    expect((await t.get('/metrics')).body).toContain(
      `hearth_connector_state{community="com_${t.communityId}",source="${connector.id}",kind="github",state="failed"} 1`,
    );
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(409);
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({ ok: false, message: refused });
    expect(tested.body).not.toContain('ghp_revoked_token_0000');
    // Nothing runs meanwhile: no job is left that would ask GitHub again.
    const asked = standIn.requests.length;
    clock.advance(3_600_000);
    await run.runUntilIdle();
    expect(standIn.requests.length).toBe(asked);

    const patched = await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { token: TOKEN } });
    expect(patched.json().data).toMatchObject({ state: 'backfilling', reason: null });
    await run.runUntilIdle();
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active' });
    expect(shown.streams.every((s: { done: boolean }) => s.done)).toBe(true);

    const paused = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/pause`, undefined);
    expect(paused.json().data.state).toBe('paused');
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(409);
    const removed = await t.send('DELETE', `/api/v2/admin/connectors/${connector.id}`, undefined);
    expect(removed.statusCode).toBe(200);
    expect((await t.get(`/api/v2/admin/connectors/${connector.id}`)).statusCode).toBe(404);
    // Its receiver is gone with it.
    const star = standInDelivery(standIn, REPO, 'star', 1);
    const late = await signedDelivery(star.event, star.body, WEBHOOK_SECRET);
    expect((await t.app.inject({ method: 'POST', url: new URL(connector.receiverUrl).pathname, headers: late.headers, payload: late.raw })).statusCode).toBe(
      404,
    );
    // The source and its data stay.
    expect(await activities(connector.sourceId)).toHaveLength(ACTIVITIES);
    expect((await t.get('/api/v2/providers')).json().data).toContainEqual(expect.objectContaining({ id: connector.id, serviceName: 'GitHub' }));

    const check = await t.send('POST', '/api/v2/admin/connectors/test', {
      kind: 'github',
      settings: settings(),
      secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
    });
    expect(check.json().data).toEqual({ ok: true, message: `token works (as octocat); 1 repository readable: ${REPO}` });
    noSecrets(check.body);
  });
});
