import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { startSlackStandIn, type SlackStandIn } from '../stand-ins/slack-api.ts';
import { call, freshDatabaseEnv, Processes, waitUntil, type Env, type HearthServer } from '../helpers/process.ts';

const REPO = 'acme/widgets';
const STARS = 300;
/** Issues only (no pull requests among them); the even ones are closed. */
const ISSUES = 200;
const TOKEN = 'ghp_hearth_test';
const WEBHOOK_SECRET = 'crash-webhook-secret-0000';

const CHANNEL = 'C0CRASHES1';
const PEOPLE = 30;
/** Three pages of the history (the connector asks for 200 a page). */
const MESSAGES = 450;
const BOT_TOKEN = 'xoxb-crash-test-token';
const SIGNING_SECRET = 'slack-crash-signing-secret';

/**
 * A connector's backfill killed with SIGKILL in the middle (its platform, answering its lists slowly, has
 * served some pages but not all) goes on from its checkpoints when the server starts again, and every record
 * is stored exactly once; no log holds a secret of the connector's.
 */
describe.each<Engine>(['pglite', 'postgres'])('connector backfills survive kill -9 of their server (%s)', (engine) => {
  const processes = new Processes();
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(() => processes.cleanup());
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const onPostgresOnlyWithServer = engine === 'postgres' && !process.env.TEST_DATABASE_URL;

  /**
   * A new database, `hearth init`, a server (trace logging: the most there is, searched for secrets at the end)
   * and the connector `body` made through the API.
   */
  async function serveWithConnector(body: Record<string, unknown>) {
    const fresh = await freshDatabaseEnv(engine, processes);
    cleanups.push(fresh.drop);
    // On PostgreSQL, a job whose process died is claimed again once its lease runs out: a short one here. The
    // embedded server takes its jobs back as it starts (its data directory is its alone), whatever the lease.
    const env: Env = { ...fresh.env, HEARTH_ALLOW_PRIVATE_FETCH: 'true', ...(engine === 'postgres' ? { HEARTH_JOB_LEASE: '2' } : {}) };
    // Generous: on a busy machine, creating the embedded database takes a while.
    const init = await processes.run(['init', '--json'], env, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const { token } = JSON.parse(init.stdout) as { token: string };
    const first = await processes.serve(env, { logLevel: 'trace' });
    const made = await call(`${first.url}/api/v2/admin/connectors`, { method: 'POST', token, body });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return { env, token, first, connectorId: (made.body as { data: { id: string } }).data.id };
  }

  type Served = Awaited<ReturnType<typeof serveWithConnector>>;

  /** The records a stream of the connector has read, as the connector's answer shows them. */
  async function recordsRead({ first, token, connectorId }: Served, stream: string): Promise<number> {
    const answer = await call(`${first.url}/api/v2/admin/connectors/${connectorId}`, { token });
    const streams = (answer.body as { data: { streams: { stream: string; records: number }[] } }).data.streams;
    return streams.find((one) => one.stream === stream)?.records ?? 0;
  }

  async function kill({ first }: Served) {
    first.process.kill('SIGKILL');
    await first.process.exited;
  }

  /** Starts another server on the killed one's database, and waits for the connector to be active again. */
  async function restart(served: Served) {
    const second = await processes.serve(served.env, { logLevel: 'trace' });
    const shown = async () =>
      (await call(`${second.url}/api/v2/admin/connectors/${served.connectorId}`, { token: served.token })).body as {
        data: { state: string; reason: string | null; streams: { stream: string; done: boolean }[] };
      };
    await waitUntil(async () => (await shown()).data.state === 'active', 'the connector active after the restart', 150_000);
    const { data } = await shown();
    expect(data.reason).toBeNull();
    expect(data.streams.filter((stream) => !stream.done)).toEqual([]);
    return { second, streams: data.streams };
  }

  /** The connector's activities (of `type`, when given), as the activities list counts them. */
  async function activitiesOf(server: HearthServer, { token, connectorId }: Served, type?: string): Promise<number> {
    const clauses = [
      { type: 'stringFilter', field: 'providerId', params: { op: 'eq', value: connectorId } },
      ...(type ? [{ type: 'stringFilter', field: 'type', params: { op: 'eq', value: type } }] : []),
    ];
    const query = new URLSearchParams({ lightFilter: JSON.stringify({ type: 'and', clauses }), cols: 'recordCount', limit: '1' });
    const answer = await call(`${server.url}/api/v2/activities?${query}`, { token });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body as { meta: { recordCount: number } }).meta.recordCount;
  }

  async function contactsOf(server: HearthServer, { token }: Served): Promise<number> {
    const answer = await call(`${server.url}/api/v2/contacts?cols=recordCount&limit=1`, { token });
    return (answer.body as { meta: { recordCount: number } }).meta.recordCount;
  }

  /** The servers' logs (requests, jobs, the crash and the restart) hold none of `secrets`. */
  function expectNoSecretLogged(servers: HearthServer[], secrets: string[]) {
    const logs = servers.map((server) => server.process.stdout + server.process.stderr).join('\n');
    expect(logs).toContain('/api/v2/admin/connectors');
    for (const secret of secrets) expect(logs.includes(secret), `a log holds ${secret.slice(0, 8)}…`).toBe(false);
  }

  it.skipIf(onPostgresOnlyWithServer)('GitHub: goes on from its checkpoints after the restart and stores every record once', { timeout: 240_000 }, async () => {
    const standIn: GitHubStandIn = await startGitHubStandIn({
      repositories: [{ fullName: REPO, stargazers: STARS, issues: ISSUES, pullEvery: ISSUES + 1, forks: 0 }],
    });
    cleanups.push(() => standIn.stop());
    // The lists of stars and issues answer slowly, and the second page of stars, the first time, very slowly:
    // the server is killed while it waits for it.
    standIn.fault({ kind: 'slow', ms: 3_000 }, { times: 1, path: /\/stargazers\?.*\bpage=2\b/ });
    standIn.fault({ kind: 'slow', ms: 300 }, { times: 1_000, path: /\/(stargazers|issues)\?/ });
    const starPages = () => standIn.requests.filter((request) => request.path.startsWith(`/repos/${REPO}/stargazers?`));

    const served = await serveWithConnector({
      kind: 'github',
      settings: { repositories: [REPO], apiUrl: standIn.url },
      secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
    });
    // The second page of stars is read while the first is stored: once the first page's checkpoint is saved,
    // kill the server while the second is on its way.
    await waitUntil(async () => starPages().length >= 2, 'the second page of stars asked for', 60_000);
    await waitUntil(async () => (await recordsRead(served, `${REPO}:stargazers`)) >= 100, 'the first page of stars stored', 60_000);
    expect(starPages().length).toBe(2);
    await kill(served);
    expect(starPages().length).toBeLessThan(Math.ceil(STARS / 100));
    const { second, streams } = await restart(served);
    expect(streams.length).toBe(9);

    // Every record once: as many activities of each type as GitHub has records (an activity's ID is the platform's).
    expect(await activitiesOf(second, served, 'starred_repo')).toBe(STARS);
    expect(await activitiesOf(second, served, 'issue_opened')).toBe(ISSUES);
    expect(await activitiesOf(second, served, 'issue_closed')).toBe(ISSUES / 2);
    expect(await activitiesOf(second, served)).toBe(STARS + ISSUES + ISSUES / 2);
    // One contact per GitHub account (people 1-300 starred; issue authors and closers are among them), and
    // the community's admin, made by init.
    expect(await contactsOf(second, served)).toBe(STARS + 1);
    // The restarted sync went on from the checkpoint: the first page of stars was read once.
    expect(starPages().filter((request) => !/[?&]page=/.test(request.path))).toHaveLength(1);
    expectNoSecretLogged([served.first, second], [TOKEN, WEBHOOK_SECRET]);
  });

  it.skipIf(onPostgresOnlyWithServer)('Slack: goes on from its checkpoint after the restart and stores every message once', { timeout: 240_000 }, async () => {
    const slack: SlackStandIn = await startSlackStandIn({
      token: BOT_TOKEN,
      channels: [{ id: CHANNEL, name: 'crashes', isMember: true }],
      users: Array.from({ length: PEOPLE }, (_, i) => ({ id: `U0CRASH${String(i).padStart(3, '0')}`, name: `person${i}`, realName: `Person ${i}` })),
    });
    cleanups.push(() => slack.stop());
    for (let i = 0; i < MESSAGES; i++) slack.post(CHANNEL, { user: `U0CRASH${String(i % PEOPLE).padStart(3, '0')}`, text: `Message ${i}` });
    // The second page of the history, the first time it is asked for, answers very slowly: the server is killed meanwhile.
    slack.slowPages('conversations.history', 5_000, 1);
    const historyPages = () => slack.requests.filter((request) => request.startsWith('conversations.history?'));

    const served = await serveWithConnector({
      kind: 'slack',
      settings: { channels: [CHANNEL], apiUrl: slack.url },
      secrets: { botToken: BOT_TOKEN, webhookSecret: SIGNING_SECRET },
    });
    await waitUntil(async () => historyPages().length >= 2, 'the second page of the history asked for', 60_000);
    await waitUntil(async () => (await recordsRead(served, `channel:${CHANNEL}`)) >= 200, 'the first page stored', 60_000);
    expect(historyPages()).toHaveLength(2);
    await kill(served);
    const { second } = await restart(served);

    expect(await activitiesOf(second, served)).toBe(MESSAGES);
    // One contact per Slack member, and the community's admin, made by init.
    expect(await contactsOf(second, served)).toBe(PEOPLE + 1);
    // The restarted sync went on from the checkpoint: the first page (no cursor) was asked for once.
    expect(historyPages().filter((request) => !/[?&]cursor=/.test(request))).toHaveLength(1);
    expectNoSecretLogged([served.first, second], [BOT_TOKEN, SIGNING_SECRET]);
  });
});
