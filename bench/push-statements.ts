import type { LogEvent } from 'kysely';
import { cliActor } from '../src/core/writer.ts';
import { openDatabase } from '../src/db/database.ts';
import { benchApp } from './bench-app.ts';
import { createBenchDatabase, DEFAULT_SERVER_URL } from './database.ts';
import { activityPush } from './push.ts';

/**
 * `npm run bench:push-statements`: where a push's time goes, by statement. On a new PostgreSQL database
 * (BENCH_DATABASE_URL's server), it sends activity pushes through the app (in process, one at a time) and
 * records every statement with Kysely's `log` hook: the statements of one push about a new person and one
 * about a known person, in order with their times, then statements per push for single pushes and for
 * batches of 10, 100 and 1,000. Counts, not speeds: the times are only there to show which statements
 * weigh.
 */

const created = await createBenchDatabase(process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL);
let captured: { sql: string; ms: number }[] | null = null;
const log = (event: LogEvent) => {
  if (captured && event.level === 'query') captured.push({ sql: event.query.sql.replace(/\s+/g, ' ').trim(), ms: event.queryDurationMillis });
};
const database = await openDatabase({ engine: 'postgres', url: created.url, poolSize: 10, log });
try {
  const { services, app } = await benchApp(database);
  const setup = await services.communities.init(cliActor());
  const post = async (path: string, payload: object) => {
    const response = await app.inject({
      method: 'POST',
      url: `/community/v1/source/${setup.sourceId}/${path}`,
      headers: { authorization: `Bearer ${setup.token}` },
      payload,
    });
    if (response.statusCode !== 202) throw new Error(`${path} answered ${response.statusCode}: ${response.body}`);
  };
  const record = async (work: () => Promise<void>) => {
    captured = [];
    await work();
    const statements = captured;
    captured = null;
    return statements;
  };

  // Warm up: the token, the rate-limit reservation, a few people.
  for (let n = 0; n < 50; n++) await post('activity', activityPush('warm', n));
  // Person of push n: (n × 7919) mod 20,000; push 60's person is new, push 7's was pushed while warming up.
  for (const [label, n] of [
    ['a push about a new person', 60],
    ['a push about a known person', 7],
  ] as const) {
    const statements = await record(() => post('activity', activityPush('one', n)));
    console.log(`\n${label}: ${statements.length} statements, ${statements.reduce((sum, s) => sum + s.ms, 0).toFixed(1)} ms in them`);
    for (const statement of statements) console.log(`  ${statement.ms.toFixed(2).padStart(6)} ms  ${statement.sql.slice(0, 110)}`);
  }
  console.log('\nstatements per push:');
  const single = await record(async () => {
    for (let n = 0; n < 200; n++) await post('activity', activityPush('single', n));
  });
  console.log(`  single pushes, one at a time: ${(single.length / 200).toFixed(1)}`);
  for (const size of [10, 100, 1000]) {
    const batches = Math.max(1, Math.floor(2000 / size));
    const statements = await record(async () => {
      for (let b = 0; b < batches; b++)
        await post(
          'activities',
          Array.from({ length: size }, (_, k) => activityPush(`batch${size}`, b * size + k)),
        );
    });
    console.log(`  batches of ${size}: ${(statements.length / (batches * size)).toFixed(2)} (${(statements.length / batches).toFixed(1)} a batch)`);
  }
  await app.close();
} finally {
  await database.close();
  await created.drop();
}
