import Type from 'typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * A platform without webhooks (a forum read only through its API): its connector has no receiver, takes no
 * webhook secret, and is synced as often as its kind asks when that is more often than the operator's interval.
 */

const MINUTE = 60_000;

/** Each sync reads one more post of a public board: the first sync reads post 1, the next post 2, ... */
const board: ConnectorKind<{ board: string }, { apiKey: string }> = {
  kind: 'hackernews',
  platformName: 'Board',
  settingsSchema: Type.Object({ board: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  secretsSchema: Type.Object({ apiKey: Type.String({ minLength: 8 }) }, { additionalProperties: false }),
  syncIntervalMs: MINUTE,
  async streams(settings) {
    return [`board:${settings.board}`];
  },
  async page(_stream, checkpoint) {
    const post = (typeof checkpoint === 'number' ? checkpoint : 0) + 1;
    return {
      translation: {
        users: [],
        activities: [
          {
            id: `post-${post}`,
            activityType: 'hackernews_story',
            timestamp: '2026-01-15T11:00:00Z',
            user: { id: `poster-${post}`, username: `poster${post}` },
          },
        ],
        skipped: [],
      },
      checkpoint: post,
      done: true,
      records: 1,
    };
  },
  test: async () => 'the board answers',
};

describe.each(ENGINES)('a connector without webhooks (%s)', (engine) => {
  let t: TestApp;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, connectorKinds: [board] });
  });
  afterEach(() => t.close());

  const worker = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs });
  const posts = async (sourceId: number) =>
    (await t.services.db.selectFrom('activities').select('external_id').where('source_id', '=', sourceId).orderBy('external_id').execute()).map(
      (row) => row.external_id,
    );

  it('has no receiver, takes no webhook secret, and is synced at its own interval', async () => {
    const kinds = (await t.get('/api/v2/admin/connector-kinds')).json().data;
    expect(kinds).toEqual([expect.objectContaining({ kind: 'hackernews', receives: false, platformIssuesWebhookSecret: false })]);

    const withWebhookSecret = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'hackernews',
      settings: { board: 'news' },
      secrets: { apiKey: 'board-key-1234', webhookSecret: 'not-for-this-platform' },
    });
    expect(withWebhookSecret.statusCode).toBe(400);
    expect(withWebhookSecret.json().error.message).toContain('unknown body field "secrets.webhookSecret"');

    const made = await t.send('POST', '/api/v2/admin/connectors', { kind: 'hackernews', settings: { board: 'news' }, secrets: { apiKey: 'board-key-1234' } });
    expect(made.statusCode).toBe(201);
    const connector = made.json().data;
    expect(connector.receiverUrl).toBeNull();
    expect(connector.secrets).toEqual(['apiKey']);

    // The key a receiver address would carry answers nothing: the platform sends no webhooks.
    const { receiver_key: key } = await t.services.db
      .selectFrom('connectors')
      .select('receiver_key')
      .where('community_id', '=', t.communityId)
      .where('source_id', '=', connector.sourceId)
      .executeTakeFirstOrThrow();
    const delivery = await t.app.inject({ method: 'POST', url: `/api/v2/receivers/hackernews/${key}`, payload: { post: 1 } });
    expect(delivery.statusCode).toBe(404);
    expect(delivery.json().error.message).toBe('no Board receiver at this address');

    const run = worker();
    await run.runOnce();
    expect(await posts(connector.sourceId)).toEqual(['post-1']);

    // The operator's interval is the default 15 minutes; the kind asks for one, so a minute later a sync is due.
    clock.advance(30_000);
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(0);
    clock.advance(31_000);
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(1);
    await run.runOnce();
    expect(await posts(connector.sourceId)).toEqual(['post-1', 'post-2']);
    const shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'active', receiverUrl: null, lastSyncAt: '2026-01-15T12:01:01.000Z' });
  });
});
