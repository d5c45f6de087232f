import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { createGitHubConnector } from '../../src/modules/connectors/github/github.connector.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { signedDelivery, standInDelivery } from '../stand-ins/github-webhooks.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with GitHub's connector, against the local GitHub built from its published API description
 * and webhook examples: through the admin API, the worker and the public receiver, as in production.
 */

const TOKEN = 'ghp_hearth_test';
const WEBHOOK_SECRET = 'github-webhook-secret-1';
// No in-process throttling or waits between retries: the framework's waits are what is tested.
const github = createGitHubConnector({ retryBaseMs: 1, retries: 1, serverErrorWaitMs: 60_000, throttle: false }) as ConnectorKind<unknown, unknown>;

describe.each(ENGINES)('connectors with the GitHub connector (%s)', (engine) => {
  let standIn: GitHubStandIn;
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    standIn = await startGitHubStandIn({
      repositories: [{ fullName: 'acme/widgets', stargazers: 5, forks: 2, issues: 6, pullEvery: 3, issueComments: 4, reviewsPerPull: 1, releases: 1 }],
    });
  });
  afterAll(() => standIn.stop());

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true, connectorKinds: [github] });
  });
  afterEach(() => t.close());

  const settings = () => ({ repositories: ['acme/widgets'], apiUrl: standIn.url });
  const activitiesOf = async (sourceId: number) => (await t.services.db.selectFrom('activities').select('id').where('source_id', '=', sourceId).execute()).length;

  it('backfills a repository, takes a signed delivery once, and names fields of bad secrets', async () => {
    const refused = await t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: { token: TOKEN, extra: 'x' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toContain('secrets');
    expect(refused.body).not.toContain(TOKEN);

    const made = await t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET } });
    expect(made.statusCode, made.body).toBe(201);
    const connector = made.json().data;
    expect(connector).toMatchObject({ name: 'GitHub', kind: 'github', secrets: ['token', 'webhookSecret'] });
    expect(made.body).not.toContain(TOKEN);
    expect(made.body).not.toContain(WEBHOOK_SECRET);

    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toMatchObject({ ok: true, message: expect.stringContaining('acme/widgets') });

    await createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
    const shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'active', reason: null });
    expect(shown.streams.length).toBeGreaterThan(1);
    expect(shown.streams.every((stream: { done: boolean }) => stream.done)).toBe(true);
    const backfilled = await activitiesOf(connector.sourceId);
    expect(backfilled).toBeGreaterThan(0);

    // A star the backfill already read, delivered by webhook: the same activity. A new comment: one more.
    const path = new URL(connector.receiverUrl).pathname;
    const star = standInDelivery(standIn, 'acme/widgets', 'star', 1);
    const delivery = await signedDelivery(star.event, star.body, WEBHOOK_SECRET, 'delivery-1');
    const answer = await t.app.inject({ method: 'POST', url: path, headers: delivery.headers, payload: delivery.raw });
    expect(answer.statusCode, answer.body).toBe(202);
    expect((await t.app.inject({ method: 'POST', url: path, headers: delivery.headers, payload: delivery.raw })).json()).toEqual({ received: true, duplicate: true });
    const forged = await signedDelivery(star.event, star.body, 'not-the-secret', 'delivery-2');
    expect((await t.app.inject({ method: 'POST', url: path, headers: forged.headers, payload: forged.raw })).statusCode).toBe(401);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    const [stored] = await t.services.db.selectFrom('connector_deliveries').select(['outcome', 'error']).execute();
    expect(stored).toMatchObject({ error: null });
    expect(await activitiesOf(connector.sourceId)).toBe(backfilled);
  });

  it("waits until GitHub's rate limit resets, then goes on", async () => {
    const connector = (await t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: { token: TOKEN } })).json().data;
    const reset = new Date('2026-01-15T12:30:00Z');
    standIn.fault({ kind: 'primary-limit', reset }, { times: 1 });
    const worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    await worker.runUntilIdle();
    let shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'waiting' });
    expect(Date.parse(shown.waitingUntil)).toBeGreaterThanOrEqual(reset.getTime());
    clock.set(new Date(Date.parse(shown.waitingUntil) + 1000));
    await worker.runUntilIdle();
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null });
  });
});
