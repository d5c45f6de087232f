import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { ServerChild } from './ipc.ts';
import { measureThroughput, median } from './load.ts';
import { newPeoplePush, peopleIn } from './new-people.ts';
import { prepare } from './push.ts';
import type { Figure } from './report.ts';
import { describeWaits, emptyTally, sampleWaits, tallyJson, type WaitTally } from './waits.ts';

/**
 * A community's first backfill (docs/performance.md): the pushes of new-people.ts, mostly people Hearth has
 * never seen, into an empty database, where the push figures (push.ts) push a pool of people into the
 * seeded one. Each Hearth and bare server of an empty-database figure gets a new database of its own
 * (migrated, with the community and its API source only) for the whole figure, so a figure covers the first
 * N pushes of each, warm-up included; N is in the table. Figures, each against a baseline measured in the
 * same rounds:
 * - single pushes at 8 and at 32 connections against the bare push endpoint (bare-server.ts `/bare-push`);
 * - the same into the seeded database, Hearth and the bare endpoint both on it, when the run has one;
 * - the batch route, 100 pushes a request (a page of a connector), against `/bare-backfill-batch`, which
 *   writes the same rows as Hearth (bare-backfill.ts);
 * - Hearth on PostgreSQL against Hearth on the embedded database, single pushes at 8 connections.
 */

export interface FirstBackfillContext {
  serverUrl: string;
  env: Record<string, string>;
  /** The run's seeded database as Hearth serves it; null when the run seeded none. */
  seeded: { url: string; setup: { communityId: number; sourceId: number; token: string }; hearth: ServerChild } | null;
  seconds: number;
  rounds: number;
  /** Each series' warm-up before the rounds (2 s when not given; the bench's own test takes less). */
  warmupSeconds?: number;
  log: (line: string) => void;
  /** Children and databases the caller stops and drops at the end, whatever happens. */
  track: (child: ServerChild) => void;
  trackDatabase: (database: BenchDatabase) => void;
}

/** Pushes a batch request carries: a page of a connector's backfill, as the connector figures post them. */
const BATCH = 100;
/** Batch requests in flight: one, as a connector's backfill stores its pages one after another. */
const BATCH_IN_FLIGHT = 1;

/** One server and load of a figure, and what it has been sent so far (warm-up included). */
interface Series {
  name: string;
  url: string;
  token?: string;
  concurrency: number;
  /** Pushes a request: 1 for the single push routes, BATCH for the batch routes. */
  perRequest: number;
  /** Its database was empty at the warm-up and is its own: its pushes are the database's first. */
  empty: boolean;
  pushes: number;
  people: number;
  /** Pushes a second of each round. */
  rates: number[];
  /** Hearth's PostgreSQL database when it is its own: sampled for waits during the rounds. */
  databaseUrl?: string;
  waits: WaitTally;
}

type Given = Pick<Series, 'name' | 'url' | 'token' | 'concurrency' | 'perRequest' | 'empty' | 'databaseUrl'>;
const series = (given: Given): Series => ({ ...given, pushes: 0, people: 0, rates: [], waits: emptyTally() });

let runs = 0;

/** One run of a series: new people of a run of its own (a run repeats only its own people). */
async function push(one: Series, seconds: number): Promise<number> {
  const run = `f${Date.now().toString(36)}${runs++}`;
  const { perRequest } = one;
  const body = (n: number) => (perRequest === 1 ? newPeoplePush(run, n) : Array.from({ length: perRequest }, (_, k) => newPeoplePush(run, n * perRequest + k)));
  const measured = await measureThroughput(one.url, { token: one.token, concurrency: one.concurrency, seconds, post: { body, status: 202 } });
  // A series whose pushes fail measures its failures, and its database no longer holds its first N pushes.
  if (measured.errors > 0) throw new Error(`first backfill, ${one.name}: ${measured.errors} requests were not answered 202`);
  one.pushes += measured.requests * perRequest;
  one.people += peopleIn(run, measured.requests * perRequest);
  return measured.perSecond * perRequest;
}

/** A warm-up of each series (2 s), then `rounds` rounds of each, the order rotating per round, as push.ts measures. */
async function measureRounds(all: Series[], context: FirstBackfillContext): Promise<void> {
  for (const one of all) await push(one, context.warmupSeconds ?? 2);
  for (let round = 0; round < context.rounds; round++) {
    for (let i = 0; i < all.length; i++) {
      const one = all[(i + round) % all.length]!;
      const sampler = one.databaseUrl ? sampleWaits(one.databaseUrl, one.waits) : null;
      try {
        one.rates.push(await push(one, context.seconds));
      } finally {
        await sampler?.stop();
      }
    }
    context.log(`  round ${round + 1}: ` + all.map((one) => `${one.name} ${one.rates.at(-1)!.toFixed(0)}/s`).join(', '));
  }
}

const rate = (one: Series) => median(one.rates);
const HEARTH_VS_BARE = { measured: 'Hearth', baseline: 'bare' };
const pushed = (one: Series) => (one.empty ? `first ${one.pushes.toLocaleString('en')}` : `${one.pushes.toLocaleString('en')} pushes`);

/** Hearth against a baseline of the same load, at least `goal` of it. */
function versus(name: string, measured: Series, baseline: Series, labels: { measured: string; baseline: string }, goal: number): Figure {
  return {
    name,
    measured: `${labels.measured}, ${pushed(measured)}`,
    value: rate(measured),
    baselineName: `${labels.baseline}, ${pushed(baseline)}`,
    baseline: rate(baseline),
    unit: measured.perRequest === 1 ? 'req/s' : 'items/s',
    ratio: rate(measured) / rate(baseline),
    goal: { op: '>=', value: goal },
  };
}

const skipped = (name: string): Figure => ({
  name,
  measured: 'Hearth',
  value: null,
  baselineName: 'bare',
  baseline: null,
  unit: 'req/s',
  ratio: null,
  goal: { op: '>=', value: 0.5 },
  skipped: 'no seeded database: a full run, or --reuse',
});

export async function measureFirstBackfill(context: FirstBackfillContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { env, log } = context;
  const databases: BenchDatabase[] = [];
  const children: ServerChild[] = [];
  const start = async (script: string, childEnv: Record<string, string>) => {
    const child = await ServerChild.start(script, { ...env, ...childEnv });
    context.track(child);
    children.push(child);
    return child;
  };
  /** A new PostgreSQL database with the community and its API source only. */
  const empty = async () => {
    const database = await createBenchDatabase(context.serverUrl);
    context.trackDatabase(database);
    databases.push(database);
    return { url: database.url, setup: await prepare({ engine: 'postgres', url: database.url, poolSize: 2 }) };
  };
  const hearthOn = async (name: string, concurrency: number, perRequest = 1) => {
    const { url, setup } = await empty();
    const hearth = await start('hearth-server.ts', { BENCH_DATABASE_URL: url });
    const route = perRequest === 1 ? 'activity' : 'activities';
    return series({
      name,
      url: `${hearth.url}/community/v1/source/${setup.sourceId}/${route}`,
      token: setup.token,
      concurrency,
      perRequest,
      empty: true,
      databaseUrl: url,
    });
  };
  const bareOn = async (url: string, setup: { communityId: number; sourceId: number }) =>
    start('bare-server.ts', { BENCH_DATABASE_URL: url, BENCH_BARE_PUSH: JSON.stringify({ communityId: setup.communityId, sourceId: setup.sourceId }) });
  const emptyBare = async (name: string, concurrency: number, perRequest = 1) => {
    const { url, setup } = await empty();
    const bare = await bareOn(url, setup);
    return series({ name, url: `${bare.url}/${perRequest === 1 ? 'bare-push' : 'bare-backfill-batch'}`, concurrency, perRequest, empty: true });
  };
  const stopAll = async () => {
    for (const child of children.splice(0)) await child.stop();
    for (const database of databases.splice(0)) await database.drop();
  };

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-bench-'));
  try {
    // ---- Single pushes: empty PostgreSQL databases, the embedded one, and the seeded one -----------------
    // Servers start together (each a child process of its own); nothing is measured until all have.
    const embeddedOn = async () => {
      const embeddedSetup = await prepare({ engine: 'pglite', dataDir, command: 'bench' });
      const embedded = await start('hearth-server.ts', { BENCH_DATA_DIR: dataDir });
      return series({
        name: 'embedded8',
        url: `${embedded.url}/community/v1/source/${embeddedSetup.sourceId}/activity`,
        token: embeddedSetup.token,
        concurrency: 8,
        perRequest: 1,
        empty: true,
      });
    };
    const [hearth8, bare8, hearth32, bare32, embedded8] = await Promise.all([
      hearthOn('hearth8', 8),
      emptyBare('bare8', 8),
      hearthOn('hearth32', 32),
      emptyBare('bare32', 32),
      embeddedOn(),
    ]);
    const singles = [hearth8, bare8, hearth32, bare32, embedded8];
    let seeded: Record<'hearth8' | 'bare8' | 'hearth32' | 'bare32', Series> | null = null;
    if (context.seeded) {
      const { url, setup, hearth } = context.seeded;
      const hearthUrl = `${hearth.url}/community/v1/source/${setup.sourceId}/activity`;
      const bareUrl = `${(await bareOn(url, setup)).url}/bare-push`;
      seeded = {
        hearth8: series({ name: 'seeded8', url: hearthUrl, token: setup.token, concurrency: 8, perRequest: 1, empty: false }),
        bare8: series({ name: 'bareSeeded8', url: bareUrl, concurrency: 8, perRequest: 1, empty: false }),
        hearth32: series({ name: 'seeded32', url: hearthUrl, token: setup.token, concurrency: 32, perRequest: 1, empty: false }),
        bare32: series({ name: 'bareSeeded32', url: bareUrl, concurrency: 32, perRequest: 1, empty: false }),
      };
      singles.push(...Object.values(seeded));
    }
    log(
      `\nFirst backfill: single pushes of new people, ${context.rounds} rounds of ${context.seconds} s per series, into empty databases` +
        `${seeded ? ' and the seeded one' : ' (no seeded database in this run)'}…`,
    );
    await measureRounds(singles, context);
    for (const one of singles) log(`  ${one.name}: ${one.pushes.toLocaleString('en')} pushes of ${one.people.toLocaleString('en')} new people`);
    for (const one of [hearth8, hearth32]) for (const line of [`  ${one.name}, what its database's sessions did:`, ...describeWaits(one.waits)]) log(line);
    await stopAll();

    // ---- The batch route ---------------------------------------------------------------------------------
    const [hearthBatch, bareBatch] = await Promise.all([hearthOn('hearthBatch', BATCH_IN_FLIGHT, BATCH), emptyBare('bareBatch', BATCH_IN_FLIGHT, BATCH)]);
    log(`Batch pushes of ${BATCH} activities, ${BATCH_IN_FLIGHT} request in flight, into empty databases, ${context.rounds} × ${context.seconds} s…`);
    await measureRounds([hearthBatch, bareBatch], context);
    for (const one of [hearthBatch, bareBatch])
      log(`  ${one.name}: ${one.pushes.toLocaleString('en')} pushes of ${one.people.toLocaleString('en')} new people`);
    for (const line of [`  ${hearthBatch.name}, what its database's sessions did:`, ...describeWaits(hearthBatch.waits)]) log(line);
    await stopAll();

    const seededFigure = (connections: 8 | 32) => {
      const name = `first backfill: single pushes, seeded database, ${connections} connections, vs bare push`;
      return seeded ? versus(name, seeded[`hearth${connections}` as const], seeded[`bare${connections}` as const], HEARTH_VS_BARE, 0.5) : skipped(name);
    };
    const figures: Figure[] = [
      versus('first backfill: single pushes, empty database, 8 connections, vs bare push', hearth8, bare8, HEARTH_VS_BARE, 0.5),
      versus('first backfill: single pushes, empty database, 32 connections, vs bare push', hearth32, bare32, HEARTH_VS_BARE, 0.5),
      seededFigure(8),
      seededFigure(32),
      versus(`first backfill: batch route, ${BATCH} a request, empty database, vs equal-work bare batch`, hearthBatch, bareBatch, HEARTH_VS_BARE, 0.5),
      versus('first backfill: PostgreSQL vs embedded, empty databases, 8 connections', hearth8, embedded8, { measured: 'PostgreSQL', baseline: 'embedded' }, 1),
    ];
    const results = Object.fromEntries(
      [...singles, hearthBatch, bareBatch].map((one) => [
        one.name,
        {
          concurrency: one.concurrency,
          perRequest: one.perRequest,
          pushes: one.pushes,
          people: one.people,
          rates: one.rates,
          ...(one.databaseUrl ? { waits: tallyJson(one.waits) } : {}),
        },
      ]),
    );
    return { figures, results };
  } finally {
    // The embedded database's child closes before its directory goes; the caller drops what is left.
    for (const child of children) await child.stop().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
