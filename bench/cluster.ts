import { systemClock } from '../src/clock.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { createServices } from '../src/services.ts';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { ServerChild } from './ipc.ts';
import { createClient, measureThroughput, median, throughputRounds } from './load.ts';
import { newPeoplePush } from './new-people.ts';
import { prepare } from './push.ts';
import type { Figure } from './report.ts';
import { benchWebhookService, deliveryRound, receiver } from './webhooks.ts';

/**
 * Hearth on a Citus cluster against Hearth on one PostgreSQL server (docs/scaling.md, "Figures"). Each gets a
 * new database of its own (on a coordinator, made on every node and distributed when Hearth opens it) and a
 * Hearth server child; the same people are pushed into both through the batch route; then list reads,
 * single pushes of new people, and webhook deliveries to a local receiver (the queues' claims, made one
 * community at a time: docs/scaling.md), in rounds whose order rotates. The figures have no goal: where the cluster's
 * nodes share the machine's cores with one server and the load, the ratio shows what the coordinator's hop
 * costs a request, not a speed-up to expect from more machines.
 */

export interface ClusterContext {
  /** The one server's administrative database, and the coordinator's (null: the figures are skipped). */
  serverUrl: string;
  clusterUrl: string | null;
  env: Record<string, string>;
  seconds: number;
  rounds: number;
  /** People pushed into each database before the list reads. */
  people: number;
  /** Events of each webhook delivery round. */
  events: number;
  warmupSeconds?: number;
  log: (line: string) => void;
  /** Children and databases the caller stops and drops at the end, whatever happens. */
  track: (child: ServerChild) => void;
  trackDatabase: (database: BenchDatabase) => void;
}

const LIST = '/api/v2/contacts?limit=50';
const LIST_CONNECTIONS = 16;
const PUSH_CONNECTIONS = 8;
/** Pushes a request while the people are brought in: a page of a connector's backfill. */
const SEED_BATCH = 100;

const NAMES = {
  list: `cluster: GET ${LIST}, ${LIST_CONNECTIONS} connections, cluster vs one server`,
  push: `cluster: single pushes of new people, ${PUSH_CONNECTIONS} connections, cluster vs one server`,
  deliveries: 'cluster: webhook deliveries to a local receiver, cluster vs one server',
};
const LABELS = { measured: 'Hearth on the cluster', baseline: 'Hearth on one server' };
/** The bench's in-process services: no sign-in secret, and a rate limit they never meet. */
const SERVICES_CONFIG = { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 } };

interface Side {
  name: 'server' | 'cluster';
  hearth: ServerChild;
  /** Its database opened in this process too, for the delivery step. */
  database: Database;
  token: string;
  communityId: number;
  sourceId: number;
}

export async function measureCluster(context: ClusterContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { clusterUrl } = context;
  if (clusterUrl === null) {
    const skipped = (name: string): Figure => ({
      name,
      measured: LABELS.measured,
      value: null,
      baselineName: LABELS.baseline,
      baseline: null,
      unit: 'req/s',
      ratio: null,
      goal: null,
      skipped: 'no coordinator: set BENCH_CLUSTER_URL',
    });
    return { figures: [skipped(NAMES.list), skipped(NAMES.push), { ...skipped(NAMES.deliveries), unit: 'items/s' }], results: null };
  }

  const open = async (name: Side['name'], serverUrl: string): Promise<Side> => {
    const database = await createBenchDatabase(serverUrl);
    context.trackDatabase(database);
    const setup = await prepare({ engine: 'postgres', url: database.url, poolSize: 2 });
    const hearth = await ServerChild.start('hearth-server.ts', { ...context.env, BENCH_DATABASE_URL: database.url });
    context.track(hearth);
    const opened = await openDatabase({ engine: 'postgres', url: database.url, poolSize: 4 });
    return { name, hearth, database: opened, token: setup.token, communityId: setup.communityId, sourceId: setup.sourceId };
  };
  const sides: Side[] = [];
  try {
    sides.push(await open('server', context.serverUrl), await open('cluster', clusterUrl));
    return await measureSides(sides, context);
  } finally {
    for (const side of sides) await side.database.close();
  }
}

async function measureSides(sides: Side[], context: ClusterContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { log } = context;
  const route = (side: Side, path: string) => `${side.hearth.url}/community/v1/source/${side.sourceId}/${path}`;

  log(`\nCluster: the same ${context.people.toLocaleString('en')} people pushed into a new database on one server and on the cluster…`);
  for (const side of sides) {
    const started = performance.now();
    const seeded = await measureThroughput(route(side, 'activities'), {
      token: side.token,
      concurrency: 1,
      count: Math.ceil(context.people / SEED_BATCH),
      post: { body: (n) => Array.from({ length: SEED_BATCH }, (_, k) => newPeoplePush('seed', n * SEED_BATCH + k)), status: 202 },
    });
    if (seeded.errors > 0) throw new Error(`cluster, ${side.name}: ${seeded.errors} batch requests were not answered 202`);
    log(`  ${side.name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  log(`Cluster: ${LIST}, ${LIST_CONNECTIONS} connections, ${context.rounds} rounds of ${context.seconds} s…`);
  const lists = await throughputRounds(
    Object.fromEntries(sides.map((side) => [side.name, { url: `${side.hearth.url}${LIST}`, token: side.token }])) as Record<
      Side['name'],
      { url: string; token: string }
    >,
    { concurrency: LIST_CONNECTIONS, seconds: context.seconds, rounds: context.rounds },
    log,
  );

  // Single pushes: every run pushes people of its own, so each round's people are new to the database.
  log(`Cluster: single pushes of new people, ${PUSH_CONNECTIONS} connections, ${context.rounds} rounds of ${context.seconds} s…`);
  let runs = 0;
  const pushFor = async (side: Side, seconds: number) => {
    const run = `c${(runs++).toString(36)}`;
    const measured = await measureThroughput(route(side, 'activity'), {
      token: side.token,
      concurrency: PUSH_CONNECTIONS,
      seconds,
      post: { body: (n) => newPeoplePush(run, n), status: 202 },
    });
    if (measured.errors > 0) throw new Error(`cluster, ${side.name}: ${measured.errors} pushes were not answered 202`);
    return measured.perSecond;
  };
  for (const side of sides) await pushFor(side, context.warmupSeconds ?? 2);
  const pushRates: Record<Side['name'], number[]> = { server: [], cluster: [] };
  for (let round = 0; round < context.rounds; round++) {
    for (let i = 0; i < sides.length; i++) {
      const side = sides[(i + round) % sides.length]!;
      pushRates[side.name].push(await pushFor(side, context.seconds));
    }
    log(`  round ${round + 1}: ` + sides.map((side) => `${side.name} ${pushRates[side.name].at(-1)!.toFixed(0)}/s`).join(', '));
  }

  log(`Cluster: webhook deliveries, ${context.rounds} rounds of ${context.events.toLocaleString('en')} events to a local receiver…`);
  const target = receiver();
  const url = await target.start();
  const deliveryRates: Record<Side['name'], number[]> = { server: [], cluster: [] };
  const fanOutRates: Record<Side['name'], number[]> = { server: [], cluster: [] };
  try {
    const steps = [];
    for (const side of sides) {
      const services = await createServices({ db: side.database.db, clock: systemClock, config: SERVICES_CONFIG });
      steps.push({ side, hooks: benchWebhookService(side.database.db, services), client: createClient({ token: side.token, connections: 4 }) });
    }
    for (let round = 0; round < context.rounds; round++) {
      for (let i = 0; i < steps.length; i++) {
        const { side, hooks, client } = steps[(i + round) % steps.length]!;
        const setup = { communityId: side.communityId, sourceId: side.sourceId };
        const measured = await deliveryRound({
          db: side.database.db,
          hooks,
          client,
          setup,
          hearthUrl: side.hearth.url,
          receiver: target,
          url,
          events: context.events,
        });
        deliveryRates[side.name].push(measured.delivered);
        fanOutRates[side.name].push(measured.fannedOut);
      }
      log(
        `  round ${round + 1}: ` +
          sides
            .map((side) => `${side.name} ${deliveryRates[side.name].at(-1)!.toFixed(0)} events/s (fan-out ${fanOutRates[side.name].at(-1)!.toFixed(0)}/s)`)
            .join(', '),
      );
    }
    for (const step of steps) step.client.close();
  } finally {
    await target.stop();
  }

  const figure = (name: string, unit: Figure['unit'], cluster: number, server: number): Figure => ({
    name,
    measured: LABELS.measured,
    value: cluster,
    baselineName: LABELS.baseline,
    baseline: server,
    unit,
    ratio: cluster / server,
    goal: null,
  });
  return {
    figures: [
      figure(NAMES.list, 'req/s', lists.perSecond('cluster'), lists.perSecond('server')),
      figure(NAMES.push, 'req/s', median(pushRates.cluster), median(pushRates.server)),
      figure(NAMES.deliveries, 'items/s', median(deliveryRates.cluster), median(deliveryRates.server)),
    ],
    results: {
      people: context.people,
      list: Object.fromEntries(sides.map((side) => [side.name, lists.rounds.map((round) => round[side.name].perSecond)])),
      push: pushRates,
      deliveries: deliveryRates,
      fanOut: fanOutRates,
    },
  };
}
