import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { call, freshDatabaseEnv, Processes, waitUntil, type Env } from '../helpers/process.ts';

const REPO = 'acme/widgets';
const STARS = 300;
/** Issues only (no pull requests among them); the even ones are closed. */
const ISSUES = 200;
const TOKEN = 'ghp_hearth_test';
const WEBHOOK_SECRET = 'crash-webhook-secret-0000';

/**
 * A connector's backfill killed with SIGKILL in the middle (GitHub, answering its lists slowly, has served
 * some pages but not all) goes on from its checkpoints when the server starts again, and every record is
 * stored exactly once.
 */
describe.each<Engine>(['pglite', 'postgres'])('a connector backfill survives kill -9 of its server (%s)', (engine) => {
  const processes = new Processes();
  let standIn: GitHubStandIn | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  afterEach(() => processes.cleanup());
  afterAll(async () => {
    await standIn?.stop();
    await dropDatabase?.();
  });

  it.skipIf(engine === 'postgres' && !process.env.TEST_DATABASE_URL)(
    'goes on from its checkpoints after the restart and stores every record once',
    { timeout: 240_000 },
    async () => {
      let env: Env;
      ({ env, drop: dropDatabase } = await freshDatabaseEnv(engine, processes));
      // On PostgreSQL, a job whose process died is claimed again once its lease runs out: a short one here. The
      // embedded server takes its jobs back as it starts (its data directory is its alone), whatever the lease.
      env = { ...env, HEARTH_ALLOW_PRIVATE_FETCH: 'true', ...(engine === 'postgres' ? { HEARTH_JOB_LEASE: '2' } : {}) };
      standIn = await startGitHubStandIn({ repositories: [{ fullName: REPO, stargazers: STARS, issues: ISSUES, pullEvery: ISSUES + 1, forks: 0 }] });
      // The lists of stars and issues answer slowly, and the second page of stars, the first time, very slowly:
      // the server is killed while it waits for it.
      standIn.fault({ kind: 'slow', ms: 3_000 }, { times: 1, path: /\/stargazers\?.*\bpage=2\b/ });
      standIn.fault({ kind: 'slow', ms: 300 }, { times: 1_000, path: /\/(stargazers|issues)\?/ });
      const starPages = () => standIn!.requests.filter((request) => request.path.startsWith(`/repos/${REPO}/stargazers?`));

      // Generous: on a busy machine, creating the embedded database takes a while.
      const init = await processes.run(['init', '--json'], env, 120_000);
      expect(init.code, init.stderr).toBe(0);
      const { token } = JSON.parse(init.stdout) as { token: string };

      // Every log line the servers write (trace: the most there is), searched for the secrets at the end.
      const first = await processes.serve(env, { logLevel: 'trace' });
      const made = await call(`${first.url}/api/v2/admin/connectors`, {
        method: 'POST',
        token,
        body: { kind: 'github', settings: { repositories: [REPO], apiUrl: standIn.url }, secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET } },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const connector = (made.body as { data: { id: string } }).data;

      // The second page of stars is read while the first is stored: once the first page's checkpoint is saved,
      // kill the server while the second is on its way.
      await waitUntil(async () => starPages().length >= 2, 'the second page of stars asked for', 60_000);
      const starsRead = async () => {
        const answer = await call(`${first.url}/api/v2/admin/connectors/${connector.id}`, { token });
        const streams = (answer.body as { data: { streams: { stream: string; records: number }[] } }).data.streams;
        return streams.find((stream) => stream.stream === `${REPO}:stargazers`)?.records ?? 0;
      };
      await waitUntil(async () => (await starsRead()) >= 100, 'the first page of stars stored', 60_000);
      expect(starPages().length).toBe(2);
      first.process.kill('SIGKILL');
      await first.process.exited;
      expect(starPages().length).toBeLessThan(Math.ceil(STARS / 100));

      const second = await processes.serve(env, { logLevel: 'trace' });
      const shown = async () =>
        (await call(`${second.url}/api/v2/admin/connectors/${connector.id}`, { token })).body as {
          data: { state: string; reason: string | null; streams: { stream: string; done: boolean }[] };
        };
      await waitUntil(async () => (await shown()).data.state === 'active', 'the connector active after the restart', 150_000);
      const { data } = await shown();
      expect(data.reason).toBeNull();
      expect(data.streams.length).toBe(9);
      expect(data.streams.filter((stream) => !stream.done)).toEqual([]);

      // Every record once: as many activities of each type as GitHub has records (an activity's ID is the platform's).
      const count = async (type: string) => {
        const filter = JSON.stringify({
          type: 'and',
          clauses: [
            { type: 'stringFilter', field: 'providerId', params: { op: 'eq', value: connector.id } },
            { type: 'stringFilter', field: 'type', params: { op: 'eq', value: type } },
          ],
        });
        const answer = await call(`${second.url}/api/v2/activities?${new URLSearchParams({ lightFilter: filter, cols: 'recordCount', limit: '1' })}`, {
          token,
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        return (answer.body as { meta: { recordCount: number } }).meta.recordCount;
      };
      expect(await count('starred_repo')).toBe(STARS);
      expect(await count('issue_opened')).toBe(ISSUES);
      expect(await count('issue_closed')).toBe(ISSUES / 2);
      const all = JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'providerId', params: { op: 'eq', value: connector.id } }] });
      const total = await call(`${second.url}/api/v2/activities?${new URLSearchParams({ lightFilter: all, cols: 'recordCount', limit: '1' })}`, { token });
      expect((total.body as { meta: { recordCount: number } }).meta.recordCount).toBe(STARS + ISSUES + ISSUES / 2);
      // One contact per GitHub account (people 1-300 starred; issue authors and closers are among them), and
      // the community's admin, made by init.
      const contacts = await call(`${second.url}/api/v2/contacts?cols=recordCount&limit=1`, { token });
      expect((contacts.body as { meta: { recordCount: number } }).meta.recordCount).toBe(STARS + 1);
      // The restarted sync went on from the checkpoint: the first page of stars was read once.
      expect(starPages().filter((request) => !/[?&]page=/.test(request.path))).toHaveLength(1);

      // The servers' logs (requests, jobs, the crash and the restart) hold no secret of the connector's.
      const logs = [first, second].map((server) => server.process.stdout + server.process.stderr).join('\n');
      expect(logs).toContain('/api/v2/admin/connectors');
      for (const secret of [TOKEN, WEBHOOK_SECRET]) expect(logs.includes(secret), `a log holds ${secret.slice(0, 8)}…`).toBe(false);
    },
  );
});
