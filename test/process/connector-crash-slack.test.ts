import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { startSlackStandIn, type SlackStandIn } from '../stand-ins/slack-api.ts';
import { call, freshDatabaseEnv, Processes, waitUntil, type Env } from '../helpers/process.ts';

const CHANNEL = 'C0CRASHES1';
const PEOPLE = 30;
/** Three pages of the history (the connector asks for 200 a page). */
const MESSAGES = 450;
const BOT_TOKEN = 'xoxb-crash-test-token';
const SIGNING_SECRET = 'slack-crash-signing-secret';

/**
 * A Slack connector's backfill killed with SIGKILL while it waits for the second page of a channel's history
 * goes on from the channel's checkpoint when the server starts again: every message is one activity, every
 * person one contact, and no log holds a secret.
 */
describe.each<Engine>(['pglite', 'postgres'])('a Slack backfill survives kill -9 of its server (%s)', (engine) => {
  const processes = new Processes();
  let slack: SlackStandIn | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  afterEach(() => processes.cleanup());
  afterAll(async () => {
    await slack?.stop();
    await dropDatabase?.();
  });

  it.skipIf(engine === 'postgres' && !process.env.TEST_DATABASE_URL)(
    'goes on from its checkpoint after the restart and stores every message once',
    { timeout: 240_000 },
    async () => {
      let env: Env;
      ({ env, drop: dropDatabase } = await freshDatabaseEnv(engine, processes));
      env = { ...env, HEARTH_ALLOW_PRIVATE_FETCH: 'true', ...(engine === 'postgres' ? { HEARTH_JOB_LEASE: '2' } : {}) };
      slack = await startSlackStandIn({
        token: BOT_TOKEN,
        channels: [{ id: CHANNEL, name: 'crashes', isMember: true }],
        users: Array.from({ length: PEOPLE }, (_, i) => ({ id: `U0CRASH${String(i).padStart(3, '0')}`, name: `person${i}`, realName: `Person ${i}` })),
      });
      for (let i = 0; i < MESSAGES; i++) slack.post(CHANNEL, { user: `U0CRASH${String(i % PEOPLE).padStart(3, '0')}`, text: `Message ${i}` });
      // The second page of the history, the first time it is asked for, answers very slowly: the server is killed meanwhile.
      slack.slowPages('conversations.history', 5_000, 1);
      const historyPages = () => slack!.requests.filter((request) => request.startsWith('conversations.history?'));

      const init = await processes.run(['init', '--json'], env, 120_000);
      expect(init.code, init.stderr).toBe(0);
      const { token } = JSON.parse(init.stdout) as { token: string };
      const first = await processes.serve(env, { logLevel: 'trace' });
      const made = await call(`${first.url}/api/v2/admin/connectors`, {
        method: 'POST',
        token,
        body: { kind: 'slack', settings: { channels: [CHANNEL], apiUrl: slack.url }, secrets: { botToken: BOT_TOKEN, webhookSecret: SIGNING_SECRET } },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const connector = (made.body as { data: { id: string } }).data;

      const recordsRead = async () => {
        const answer = await call(`${first.url}/api/v2/admin/connectors/${connector.id}`, { token });
        const streams = (answer.body as { data: { streams: { stream: string; records: number }[] } }).data.streams;
        return streams.find((stream) => stream.stream === `channel:${CHANNEL}`)?.records ?? 0;
      };
      await waitUntil(async () => historyPages().length >= 2, 'the second page of the history asked for', 60_000);
      await waitUntil(async () => (await recordsRead()) >= 200, 'the first page stored', 60_000);
      expect(historyPages()).toHaveLength(2);
      first.process.kill('SIGKILL');
      await first.process.exited;

      const second = await processes.serve(env, { logLevel: 'trace' });
      const shown = async () =>
        (await call(`${second.url}/api/v2/admin/connectors/${connector.id}`, { token })).body as {
          data: { state: string; reason: string | null; streams: { stream: string; done: boolean }[] };
        };
      await waitUntil(async () => (await shown()).data.state === 'active', 'the connector active after the restart', 150_000);
      expect((await shown()).data.reason).toBeNull();

      const all = JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'providerId', params: { op: 'eq', value: connector.id } }] });
      const activities = await call(`${second.url}/api/v2/activities?${new URLSearchParams({ lightFilter: all, cols: 'recordCount', limit: '1' })}`, { token });
      expect(activities.status, JSON.stringify(activities.body)).toBe(200);
      expect((activities.body as { meta: { recordCount: number } }).meta.recordCount).toBe(MESSAGES);
      // One contact per Slack member, and the community's admin, made by init.
      const contacts = await call(`${second.url}/api/v2/contacts?cols=recordCount&limit=1`, { token });
      expect((contacts.body as { meta: { recordCount: number } }).meta.recordCount).toBe(PEOPLE + 1);
      // The restarted sync went on from the checkpoint: the first page (no cursor) was asked for once.
      expect(historyPages().filter((request) => !/[?&]cursor=/.test(request))).toHaveLength(1);

      const logs = [first, second].map((server) => server.process.stdout + server.process.stderr).join('\n');
      expect(logs).toContain('/api/v2/admin/connectors');
      for (const secret of [BOT_TOKEN, SIGNING_SECRET]) expect(logs.includes(secret), `a log holds ${secret.slice(0, 8)}…`).toBe(false);
    },
  );
});
