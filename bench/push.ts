import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../src/clock.ts';
import { cliActor } from '../src/core/writer.ts';
import { openDatabase, type DatabaseTarget } from '../src/db/database.ts';
import { createServices } from '../src/services.ts';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { ServerChild } from './ipc.ts';
import { measureThroughput, median, type Throughput } from './load.ts';
import type { Figure } from './report.ts';

/**
 * The ingestion figures (docs/performance.md): single activity pushes against a bare endpoint doing the least
 * a push must (bare-server.ts `/bare-push`) at 8 and 32 connections, how long a pushed record takes to be
 * readable (a push is answered once stored, so its latency bounds that), the batch route's activities per
 * second (against the goal, and against a bare batch endpoint doing the same least work set-based), the embedded database against PostgreSQL, and pushing into the seeded database against an empty one.
 */

export interface PushContext {
  /** The seeded bench database, its first community's admin token and API source, served by `hearth`. */
  url: string;
  serverUrl: string;
  setup: { communityId: number; sourceId: number; token: string };
  hearth: ServerChild;
  env: Record<string, string>;
  seconds: number;
  rounds: number;
  log: (line: string) => void;
  /** Children and databases the caller stops and drops at the end, whatever happens. */
  track: (child: ServerChild) => void;
  trackDatabase: (database: BenchDatabase) => void;
}

/** People pushed about: a pool, so runs mix people seen before with new ones, as a community's pushes do. */
const PEOPLE = 20_000;

/** The n-th activity push of a run: a user with email and GitHub, as the measurement that found pushes slow did. */
export function activityPush(run: string, n: number) {
  const person = (n * 7919) % PEOPLE;
  return {
    id: `${run}-${n}`,
    activityType: 'commented_replied',
    timestamp: new Date(Date.UTC(2026, 0, 1) + (n % 86_400) * 1000).toISOString(),
    user: { id: `bench-u${person}`, email: `bench${person}@example${person % 500}.com`, github: `bench-gh${person}`, fullName: `Bench Person ${person}` },
    content: { type: 'text', value: 'A reply about kubernetes ingress, latency and the release notes' },
  };
}

let runs = 0;
const pushes = (url: string, token: string | undefined, concurrency: number, seconds: number) => {
  const run = `r${Date.now().toString(36)}${runs++}`;
  return measureThroughput(url, { token, concurrency, seconds, post: { body: (n) => activityPush(run, n), status: 202 } });
};

/** A new community with a token and an API source, in a database opened (and migrated) for it. */
export async function prepare(target: DatabaseTarget) {
  const database = await openDatabase(target);
  try {
    const services = await createServices({
      db: database.db,
      clock: systemClock,
      config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 } },
    });
    return await services.communities.init(cliActor());
  } finally {
    await database.close();
  }
}

export async function measurePush(context: PushContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { setup, hearth, env, seconds, rounds, log } = context;
  const bare = await ServerChild.start('bare-server.ts', {
    ...env,
    BENCH_BARE_PUSH: JSON.stringify({ communityId: setup.communityId, sourceId: setup.sourceId }),
  });
  context.track(bare);
  const hearthUrl = `${hearth.url}/community/v1/source/${setup.sourceId}/activity`;
  const bareUrl = `${bare.url}/bare-push`;

  // Single pushes, Hearth and bare in alternating order, after a warm-up of each.
  log(`\nPushes: ${rounds} rounds of ${seconds} s per series at 8 and 32 connections…`);
  const series = {
    hearth8: () => pushes(hearthUrl, setup.token, 8, seconds),
    bare8: () => pushes(bareUrl, undefined, 8, seconds),
    hearth32: () => pushes(hearthUrl, setup.token, 32, seconds),
    bare32: () => pushes(bareUrl, undefined, 32, seconds),
  };
  type Series = keyof typeof series;
  const order = Object.keys(series) as Series[];
  await pushes(hearthUrl, setup.token, 8, 2);
  await pushes(bareUrl, undefined, 8, 2);
  const measured: Record<Series, Throughput>[] = [];
  for (let round = 0; round < rounds; round++) {
    const result = {} as Record<Series, Throughput>;
    for (let i = 0; i < order.length; i++) {
      const name = order[(i + round) % order.length]!;
      result[name] = await series[name]();
    }
    measured.push(result);
    log(
      `  round ${round + 1}: ` +
        order.map((name) => `${name} ${result[name].perSecond.toFixed(0)}/s${result[name].errors ? ` (${result[name].errors} errors)` : ''}`).join(', '),
    );
  }
  const rate = (name: Series) => median(measured.map((r) => r[name].perSecond));
  const p95 = median(measured.map((r) => r.hearth32.latency.p95));

  // The batch route: 1,000 activities a request, two requests in flight (one read while one is stored),
  // Hearth and the bare batch endpoint alternating.
  log(`Batch pushes of 1,000 activities, 2 connections, ${rounds} × ${seconds} s…`);
  const batches = (url: string, token: string | undefined) => {
    const run = `b${Date.now().toString(36)}${runs++}`;
    return measureThroughput(url, {
      token,
      concurrency: 2,
      seconds,
      post: { body: (n) => Array.from({ length: 1000 }, (_, k) => activityPush(run, n * 1000 + k)), status: 202 },
    });
  };
  const batchUrl = `${hearth.url}/community/v1/source/${setup.sourceId}/activities`;
  const bareBatchUrl = `${bare.url}/bare-push-batch`;
  const batchRates: number[] = [];
  const bareBatchRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const pair = round % 2 === 0 ? ['hearth', 'bare'] : ['bare', 'hearth'];
    for (const which of pair) {
      const result = which === 'hearth' ? await batches(batchUrl, setup.token) : await batches(bareBatchUrl, undefined);
      (which === 'hearth' ? batchRates : bareBatchRates).push(result.perSecond * 1000);
    }
    log(`  round ${round + 1}: Hearth ${batchRates.at(-1)!.toFixed(0)} activities/s, bare batch ${bareBatchRates.at(-1)!.toFixed(0)} activities/s`);
  }
  await bare.stop();
  const batchRate = median(batchRates);
  const bareBatchRate = median(bareBatchRates);

  // Against an empty database, and on the embedded database, at 8 connections.
  const empty = await createBenchDatabase(context.serverUrl);
  context.trackDatabase(empty);
  const emptySetup = await prepare({ engine: 'postgres', url: empty.url, poolSize: 2 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-bench-'));
  const embeddedSetup = await prepare({ engine: 'pglite', dataDir, command: 'bench' });
  const others = {
    empty: { child: await ServerChild.start('hearth-server.ts', { ...env, BENCH_DATABASE_URL: empty.url }), setup: emptySetup },
    embedded: { child: await ServerChild.start('hearth-server.ts', { ...env, BENCH_DATA_DIR: dataDir }), setup: embeddedSetup },
  };
  for (const other of Object.values(others)) context.track(other.child);
  const otherRates: Record<'empty' | 'embedded' | 'seeded', number[]> = { empty: [], embedded: [], seeded: [] };
  log(`Pushes at 8 connections into an empty PostgreSQL database and the embedded one, against the seeded one…`);
  for (let round = 0; round < rounds; round++) {
    for (const name of ['empty', 'embedded'] as const) {
      const { child, setup: own } = others[name];
      otherRates[name].push((await pushes(`${child.url}/community/v1/source/${own.sourceId}/activity`, own.token, 8, seconds)).perSecond);
    }
    otherRates.seeded.push((await pushes(hearthUrl, setup.token, 8, seconds)).perSecond);
    log(
      `  round ${round + 1}: seeded ${otherRates.seeded.at(-1)!.toFixed(0)}/s, empty ${otherRates.empty.at(-1)!.toFixed(0)}/s, embedded ${otherRates.embedded.at(-1)!.toFixed(0)}/s`,
    );
  }
  for (const other of Object.values(others)) await other.child.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const seededRate = median(otherRates.seeded);
  const emptyRate = median(otherRates.empty);
  const embeddedRate = median(otherRates.embedded);

  const figures: Figure[] = [
    ratioFigure('single pushes, 8 connections, vs bare push', rate('hearth8'), rate('bare8'), 0.5),
    ratioFigure('single pushes, 32 connections, vs bare push', rate('hearth32'), rate('bare32'), 0.5),
    {
      name: 'push visible (answered once stored), 32 connections',
      measured: 'p95 Hearth',
      value: p95,
      baselineName: 'limit',
      baseline: 1000,
      unit: 'ms',
      ratio: p95 / 1000,
      goal: { op: '<=', value: 1 },
    },
    {
      name: 'batch route, 1,000 activities a request',
      measured: 'Hearth',
      value: batchRate,
      baselineName: 'goal',
      baseline: 10_000,
      unit: 'items/s',
      ratio: batchRate / 10_000,
      goal: { op: '>=', value: 1 },
    },
    { ...ratioFigure('batch route vs bare batch endpoint', batchRate, bareBatchRate, 0.5), unit: 'items/s' },
    { ...ratioFigure('embedded database vs PostgreSQL, 8 connections', embeddedRate, seededRate, 0.5), measured: 'embedded', baselineName: 'PostgreSQL' },
    { ...ratioFigure('pushes into the seeded database vs an empty one, 8 connections', seededRate, emptyRate, 0.8), measured: 'seeded', baselineName: 'empty' },
  ];
  return { figures, results: { single: measured, p95AtConcurrency32: p95, batch: batchRates, bareBatch: bareBatchRates, others: otherRates } };
}

export function ratioFigure(name: string, value: number, baseline: number, goal: number): Figure {
  return { name, measured: 'Hearth', value, baselineName: 'bare', baseline, unit: 'req/s', ratio: value / baseline, goal: { op: '>=', value: goal } };
}
