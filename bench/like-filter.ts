import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { openDatabase } from '../src/db/database.ts';
import { cliActor } from '../src/core/writer.ts';
import { createServices } from '../src/services.ts';
import { createBenchDatabase, DEFAULT_SERVER_URL } from './database.ts';
import { describeMachine } from './machine.ts';

/**
 * `npm run bench:like`: the filter that ran for half a minute before activity content had a trigram index:
 * `GET /api/v2/activities` with a lightFilter of 100 OR-ed `like` clauses on activity content, over 200,000
 * activities on PostgreSQL. Measured through Hearth in one run, without the trigram index of migration 0011
 * (as before it) and with it, each the median of a few requests; the statement timeout is off for the
 * measurement, so the "before" figure is its real length (with the default timeout of 15 s that request would
 * answer 503).
 */

const ACTIVITIES = Number(process.env.BENCH_LIKE_ACTIVITIES ?? 200_000);
const RUNS = 5;
const serverUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;

// Words of a developer community's chatter; the filter looks for product names and error words.
const WORDS = (
  'the a to and of is in it for on with this that my we you i be are not have can how but when what ' +
  'deploy build release version upgrade install config cluster node server client api endpoint request ' +
  'response error timeout crash bug fix patch issue pull merge branch commit test ci pipeline docker ' +
  'image container helm chart kubernetes pod service ingress proxy cache redis postgres query index ' +
  'schema migration token auth login session cookie webhook event queue worker job retry backoff ' +
  'metrics logs trace dashboard alert latency throughput memory cpu disk network dns tls certificate'
).split(' ');
const TARGETS = Array.from({ length: 100 }, (_, index) =>
  index < 10
    ? ['segfault', 'oomkilled', 'deadlock', 'nullpointer', 'kernel panic', 'stack overflow', 'ssl handshake', 'rate limited', 'gateway timeout', 'split brain'][
        index
      ]!
    : `product${index}x`,
);

const database = await createBenchDatabase(serverUrl);
const connection = await openDatabase({ engine: 'postgres', url: database.url, poolSize: 4 });
try {
  const db = connection.db;
  const services = await createServices({
    db,
    clock: systemClock,
    config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1_000_000, perAddress: 1_000, windowSeconds: 60 } },
  });
  const setup = await services.communities.init(cliActor());
  console.log(`Seeding ${ACTIVITIES.toLocaleString('en')} activities of 20 to 40 words on ${new URL(serverUrl).host}…`);
  const contact = (await db.insertInto('contacts').values({ community_id: setup.communityId, name: 'Seed' }).returning('id').executeTakeFirstOrThrow()).id;
  const seeded = Date.now();
  await sql`
    insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, content, content_type)
    select ${setup.communityId}, ${setup.sourceId}, 'commented_replied', 'like-' || n, ${contact}, now() - n * interval '7 seconds', t.content, 'text'
    from generate_series(1, ${ACTIVITIES}) as n
    cross join lateral (
      select string_agg((${WORDS}::text[])[1 + floor(random() * ${WORDS.length})::int], ' ') as content
      from generate_series(1, 20 + n % 21) as g
    ) as t`.execute(db);
  // A few activities that the filter finds.
  await sql`update activities set content = content || ' ' || ${TARGETS[0]} where community_id = ${setup.communityId} and id % 5000 = 0`.execute(db);
  await sql`analyze activities`.execute(db);
  console.log(`Seeded in ${((Date.now() - seeded) / 1000).toFixed(1)} s.`);

  const app = await buildApp({ services, publicUrl: 'http://127.0.0.1', logger: false, statementTimeoutMs: 0 });
  const filter = JSON.stringify({ type: 'or', clauses: TARGETS.map((value) => ({ type: 'stringFilter', field: 'content', params: { op: 'like', value } })) });
  const url = `/api/v2/activities?limit=50&cols=content&lightFilter=${encodeURIComponent(filter)}`;
  const measure = async () => {
    const times: number[] = [];
    let found = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${setup.token}` } });
      times.push(performance.now() - started);
      if (response.statusCode !== 200) throw new Error(`the filter answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
      found = (response.json() as { data: unknown[] }).data.length;
    }
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(times.length / 2)]!, found };
  };

  const machine = await describeMachine(db);
  // With the index first: the filter service reads once whether it exists, and keeps the answer, so the
  // same request is then measured without it.
  const after = await measure();
  await sql`drop index activities_content_trgm`.execute(db);
  const before = await measure();
  await app.close();

  console.log(
    `\nMachine: ${machine.cpuModel}, ${machine.cpus} CPUs, ${machine.memoryGiB} GiB, Node ${machine.node}, PostgreSQL ${machine.postgres}, load ${machine.loadAverage}`,
  );
  console.log(`100 OR-ed like clauses on content, ${ACTIVITIES.toLocaleString('en')} activities, limit 50 (${after.found} found), median of ${RUNS}:`);
  console.log(`  without the trigram index: ${before.p50.toFixed(0)} ms`);
  console.log(`  with it:                   ${after.p50.toFixed(0)} ms`);
  console.log(`  ratio (with / without):    ${(after.p50 / before.p50).toFixed(3)}; the default statement timeout is 15,000 ms`);
  if (before.found !== after.found) throw new Error(`the index changed the answer: ${before.found} vs ${after.found} activities`);
} finally {
  await connection.close();
  await database.drop();
}
