import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { createGitHubConnector } from '../../src/modules/connectors/github/github-connector.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { standInDelivery } from '../stand-ins/github-webhooks.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * What a connector's status says, with GitHub's connector against the local GitHub: each stream's records
 * are the platform's records read (compared with the total GitHub gives), however many syncs read the
 * last page again; the last day's counts; and deliveries GitHub sends as a form.
 */

const TOKEN = 'ghp_hearth_test';
const WEBHOOK_SECRET = 'github-webhook-secret-1';
const github = createGitHubConnector({ retryBaseMs: 1, retries: 1, serverErrorWaitMs: 60_000, throttle: false }) as ConnectorKind<unknown, unknown>;

describe.each(ENGINES)('connector status (%s)', (engine) => {
  let standIn: GitHubStandIn;
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    standIn = await startGitHubStandIn({
      repositories: [{ fullName: 'acme/widgets', stargazers: 4, forks: 2, issues: 2, discussions: 2, commentsPerDiscussion: 2 }],
    });
  });
  afterAll(() => standIn.stop());

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true, connectorKinds: [github] });
  });
  afterEach(() => t.close());

  const streamsOf = async (id: string) => {
    const shown = (await t.get(`/api/v2/admin/connectors/${id}`)).json().data;
    return Object.fromEntries(
      shown.streams.map((stream: { stream: string; records: number; total: number | null }) => [stream.stream.split(':')[1], [stream.records, stream.total]]),
    );
  };

  it("counts a stream's platform records once, comparable with GitHub's total, across syncs that read the last page again", async () => {
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'github',
      settings: { repositories: ['acme/widgets'], apiUrl: standIn.url },
      secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
    });
    const connector = made.json().data;
    const worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    await worker.runUntilIdle();
    // A star is a user and an activity; the stream counts the star. Discussions: the discussions, not their comments.
    const first = await streamsOf(connector.id);
    expect(first).toMatchObject({ stargazers: [4, 4], forks: [2, 2], issues: [2, null], discussions: [2, 2] });

    // The next sync reads the stargazers' last page again (what was read is not counted again) and one new star.
    standIn.add('acme/widgets', { stargazers: 1 });
    clock.advance(60_000);
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined);
    await worker.runUntilIdle();
    expect(await streamsOf(connector.id)).toMatchObject({ stargazers: [5, 5], forks: [2, 2], issues: [2, null], discussions: [2, 2] });

    // The list shows the same, and the last day's records are the pushes stored (users and activities).
    const listed = (await t.get('/api/v2/admin/connectors')).json().data[0];
    expect(listed.streams).toEqual((await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data.streams);
    expect(listed.last24h.deliveries).toBe(0);
    expect(listed.last24h.records).toBeGreaterThan(5);
    // A day later, nothing of the last 24 hours.
    clock.advance(25 * 3_600_000);
    expect((await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data.last24h).toEqual({ deliveries: 0, records: 0 });
  });

  it('takes a delivery GitHub sends as a form (payload=<JSON>), its signature checked over the form', async () => {
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'github',
      settings: { repositories: ['acme/widgets'], apiUrl: standIn.url },
      secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
    });
    const connector = made.json().data;
    const path = new URL(connector.receiverUrl).pathname;
    const star = standInDelivery(standIn, 'acme/widgets', 'star', 2);
    const post = (raw: string, deliveryId: string, secret = WEBHOOK_SECRET) =>
      t.app.inject({
        method: 'POST',
        url: path,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-github-event': star.event,
          'x-github-delivery': deliveryId,
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
        },
        payload: raw,
      });
    const form = new URLSearchParams({ payload: JSON.stringify(star.body) }).toString();

    expect((await post(form, 'form-1', 'another-secret')).statusCode).toBe(401);
    const taken = await post(form, 'form-1');
    expect(taken.statusCode, taken.body).toBe(202);
    expect(taken.json()).toEqual({ received: true, duplicate: false });
    const noPayload = await post('other=1', 'form-2');
    expect(noPayload.statusCode).toBe(400);
    expect(noPayload.json().error.message).toContain('payload');
    const notJson = await post(new URLSearchParams({ payload: '{"zen": ' }).toString(), 'form-3');
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().error.message).toContain('application/json');

    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    const [stored] = await t.services.db.selectFrom('connector_deliveries').select(['payload', 'outcome', 'error']).execute();
    expect(JSON.parse(stored!.payload)).toEqual(star.body);
    expect(stored).toMatchObject({ outcome: expect.objectContaining({ activities: 1 }), error: null });
    expect((await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data.last24h).toEqual({ deliveries: 1, records: 1 });
  });
});
