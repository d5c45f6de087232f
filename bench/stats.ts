import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import type { Services } from '../src/services.ts';
import { captureQueries } from './harness.ts';
import { ServerChild } from './ipc.ts';
import { compareLatency, createClient } from './load.ts';
import type { Figure } from './report.ts';

/**
 * The statistics routes (docs/stats.md; docs/performance.md) on the seeded community: for each route and a
 * period of 7, 28, 90 and 365 days to today, Hearth's p95 against a bare endpoint that runs the statements
 * Hearth ran for the same request (captured from Hearth), one after the other, with no layer around them.
 * The seed's activities reach the rollups through the trigger and the fold step, as live pushes do; a third
 * of them get a topic first (the seed has none), so that surging topics read something.
 */
export interface StatsContext {
  db: Kysely<DB>;
  services: Services;
  token: string;
  hearth: ServerChild;
  env: Record<string, string>;
  warmup: number;
  samples: number;
  log: (line: string) => void;
  track: (child: ServerChild) => void;
}

const ROUTES = ['/api/v2/stats/activity', '/api/v2/stats/contacts', '/api/v2/stats/highlights'];
const PERIODS = [7, 28, 90, 365];

export async function measureStats(context: StatsContext): Promise<{ figures: Figure[]; results: Record<string, unknown> }> {
  const { db, services, log } = context;
  const started = performance.now();
  const communityId = Number((await db.selectFrom('communities').select('id').orderBy('id').executeTakeFirstOrThrow()).id);
  await sql`insert into topics (community_id, name) select ${communityId}, 'topic ' || i from generate_series(1, 50) i on conflict do nothing`.execute(db);
  await sql`
    insert into activity_topics (community_id, activity_id, topic_id)
    select a.community_id, a.id, t.id
    from activities a
    join topics t on t.community_id = a.community_id and t.name = 'topic ' || (1 + abs(hashint8(a.id)) % 50)
    where a.community_id = ${communityId} and a.id % 3 = 0
    on conflict do nothing`.execute(db);
  let folded = 0;
  for (let n = await services.stats.fold(); n > 0; n = await services.stats.fold()) folded += n;
  // As autovacuum leaves them: the fold of the seed's million changes left the change tables' pages dead, and
  // a read of the unfolded changes would scan them until a vacuum.
  await sql`vacuum analyze activity_day_changes, topic_day_changes`.execute(db);
  await sql`analyze`.execute(db);
  log(`  topics linked and ${folded.toLocaleString('en')} rollup rows folded in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const client = createClient({ token: context.token });
  const bareClient = createClient();
  const figures: Figure[] = [];
  const results: Record<string, unknown>[] = [];
  const today = new Date();
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  try {
    for (const days of PERIODS) {
      const query = `startDate=${day(today.getTime() - (days - 1) * 86_400_000)}&endDate=${day(today.getTime())}`;
      for (const route of ROUTES) {
        const url = `${context.hearth.url}${route}?${query}`;
        await client.get(url);
        const captured = await captureQueries(context.hearth, client, url);
        // The statements of the answer; authentication and the rate limit are Hearth's layers.
        const statements = captured.queries.filter((q) => !/api_tokens|rate_limit_counters|app_sessions/i.test(q.sql));
        const main = statements.reduce((a, b) => (b.sql.length > a.sql.length ? b : a));
        const bare = await ServerChild.start('bare-server.ts', {
          ...context.env,
          BENCH_BARE_QUERY: JSON.stringify(main),
          BENCH_BARE_ALL: JSON.stringify(statements),
        });
        context.track(bare);
        try {
          await bareClient.get(`${bare.url}/bare-all`);
          const compared = await compareLatency(client, { a: `${bare.url}/bare-all`, b: url }, { warmup: context.warmup, samples: context.samples });
          const ratio = compared.a.p95 / compared.b.p95;
          log(
            `  ${route} ${days} d: p95 ${compared.b.p95.toFixed(1)} ms, bare ${compared.a.p95.toFixed(1)} ms (${statements.length} statements), ratio ${ratio.toFixed(2)}`,
          );
          results.push({ route, days, hearth: compared.b, bare: compared.a, statements: statements.length });
          figures.push({
            name: `${route} ${days} days vs bare statements`,
            measured: 'p95 Hearth',
            value: compared.b.p95,
            baselineName: 'p95 bare',
            baseline: compared.a.p95,
            unit: 'ms',
            ratio,
            goal: days === 28 ? { op: '>=', value: 0.5 } : null,
          } as Figure);
        } finally {
          await bare.stop();
        }
      }
    }
  } finally {
    client.close();
    bareClient.close();
  }
  return { figures, results: { folded, periods: results } };
}
