import { afterAll, afterEach, describe, expect, it, type TestOptions } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { call, freshDatabaseEnv, Processes, waitUntil, type Env, type HearthServer } from './process.ts';

/**
 * The steps of the connectors' kill -9 tests (test/process/connector-crash*.test.ts): a server on a new
 * database with a connector made through the API, the records its streams have read, the kill, a restart
 * until the connector is active again, what it stored, and the logs searched for its secrets.
 */
export function crashSteps(engine: Engine, processes: Processes, cleanups: (() => Promise<void>)[]) {
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

  return { serveWithConnector, recordsRead, kill, restart, activitiesOf, contactsOf, expectNoSecretLogged };
}

export type Served = Awaited<ReturnType<ReturnType<typeof crashSteps>['serveWithConnector']>>;

/**
 * A connector's kill -9 tests on both engines (PostgreSQL only with TEST_DATABASE_URL): `body` gets the steps,
 * the list of cleanups run after the engine's tests (a stand-in's stop), and `test`, vitest's `it` skipped
 * where the engine cannot run.
 */
export function describeCrashes(
  title: string,
  body: (
    steps: ReturnType<typeof crashSteps> & { cleanups: (() => Promise<void>)[]; test: (name: string, options: TestOptions, fn: () => Promise<void>) => void },
  ) => void,
) {
  describe.each<Engine>(['pglite', 'postgres'])(`${title} (%s)`, (engine) => {
    const processes = new Processes();
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(() => processes.cleanup());
    afterAll(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });
    const cannotRun = engine === 'postgres' && !process.env.TEST_DATABASE_URL;
    body({ ...crashSteps(engine, processes, cleanups), cleanups, test: (name, options, fn) => it.skipIf(cannotRun)(name, options, fn) });
  });
}
