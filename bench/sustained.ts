import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { ServerChild } from './ipc.ts';
import { measureThroughput } from './load.ts';
import { activityPush, prepare } from './push.ts';
import type { Figure } from './report.ts';

/**
 * Sustained pushing: `pushes` single activity pushes at 8 connections into one Hearth process on a new, empty
 * PostgreSQL database, in ten equal parts. The figure is the last part's throughput against the first's: a
 * process whose sessions kept plans made for empty tables got slower as they grew (213 → 132 pushes/s over
 * 39,000 pushes), which connection recycling and the statistics Hearth keeps prevent.
 */
export async function measureSustained(context: {
  serverUrl: string;
  env: Record<string, string>;
  pushes: number;
  log: (line: string) => void;
  track: (child: ServerChild) => void;
  trackDatabase: (database: BenchDatabase) => void;
}): Promise<{ figures: Figure[]; results: unknown }> {
  const { log } = context;
  const empty = await createBenchDatabase(context.serverUrl);
  context.trackDatabase(empty);
  const setup = await prepare({ engine: 'postgres', url: empty.url, poolSize: 2 });
  const hearth = await ServerChild.start('hearth-server.ts', { ...context.env, BENCH_DATABASE_URL: empty.url });
  context.track(hearth);
  const url = `${hearth.url}/community/v1/source/${setup.sourceId}/activity`;
  const part = Math.floor(context.pushes / 10);
  const run = `s${Date.now().toString(36)}`;
  log(`\nSustained pushes: ${(part * 10).toLocaleString('en')} single pushes at 8 connections into one process on an empty database…`);
  const rates: number[] = [];
  let errors = 0;
  for (let tenth = 0; tenth < 10; tenth++) {
    const measured = await measureThroughput(url, {
      token: setup.token,
      concurrency: 8,
      count: part,
      post: { body: (n) => activityPush(`${run}t${tenth}`, tenth * part + n), status: 202 },
    });
    rates.push(measured.perSecond);
    errors += measured.errors;
    log(
      `  part ${tenth + 1}: ${measured.perSecond.toFixed(0)} pushes/s (p95 ${measured.latency.p95.toFixed(1)} ms)${measured.errors ? `, ${measured.errors} errors` : ''}`,
    );
  }
  await hearth.stop();
  if (errors > 0) throw new Error(`sustained pushes: ${errors} pushes were not answered 202`);
  const first = rates[0]!;
  const last = rates.at(-1)!;
  return {
    figures: [
      {
        name: `sustained pushes, last tenth vs first of ${(part * 10).toLocaleString('en')}`,
        measured: 'last tenth',
        value: last,
        baselineName: 'first tenth',
        baseline: first,
        unit: 'req/s',
        ratio: last / first,
        goal: { op: '>=', value: 0.9 },
      },
    ],
    results: { pushes: part * 10, rates },
  };
}
