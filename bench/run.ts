import fs from 'node:fs';
import path from 'node:path';
import { systemClock } from '../src/clock.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { createServices, type Services } from '../src/services.ts';
import { BULK_IDS, BULK_TAGS, bulkBody, captureBulk, compareBulk, prepareBulk, resetBulk } from './bulk.ts';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { captureQueries, countRows, cursorOfPage, exactListOf, firstDifference, lightFilterOf, listUrl, pickListStatement } from './harness.ts';
import { ServerChild } from './ipc.ts';
import { compareLatency, createClient, getJson, measureThroughput, throughputRounds, type Summary } from './load.ts';
import { describeMachine, loadAverage } from './machine.ts';
import { parseOptions, USAGE, type BenchOptions, type BenchPart } from './options.ts';
import { measureLeadScores } from './lead-scores.ts';
import { measureProspector } from './prospector.ts';
import { seedProspector } from './prospector-seed.ts';
import { measureInsights } from './insights.ts';
import { measurePush } from './push.ts';
import { measureSustained } from './sustained.ts';
import { measureTracker } from './tracker.ts';
import { measureWebhooks } from './webhooks.ts';
import { measureConnectors } from './connectors.ts';
import { measurePlatformBackfills } from './platform-backfills.ts';
import { measureSuggestions } from './suggestions.ts';
import { measureStats } from './stats.ts';
import { measureSearch } from './search.ts';
import { measureFirstBackfill } from './first-backfill.ts';
import { measureCluster } from './cluster.ts';
import { latencyFigure, met, renderTable, type Figure } from './report.ts';
import { seedCommunity, type SeedReport } from './seed.ts';
import { cliActor } from '../src/core/writer.ts';

/**
 * `npm run bench`: seeds a community on PostgreSQL, serves it with Hearth and with a bare Fastify baseline
 * (each in a child process), and reports the ratios measured in this one run (docs/performance.md): four
 * of a list, two of job titles, one of a bulk update, six of pushes, three of the prospector contacts list,
 * sustained pushing, two of the insights job, one of the website tracker's page views, four of lead scores, two of webhooks,
 * four of connectors, one of each platform's backfill, six of a first backfill, two of a Citus cluster against one server
 * (`--only list|titles|bulk|push|prospector|sustained|insights|tracker|lead-scores|webhooks|connectors|platforms|first-backfill|cluster|suggestions` for one part; the merge suggestions figure, on a database of its own).
 */

const options = (() => {
  try {
    return parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
})();
if (options === 'help') {
  console.log(USAGE);
  process.exit(0);
}

const log = (line: string) => console.log(line);
const children: ServerChild[] = [];
// Set by run() as it makes them, for the cleanup below.
const made: { database: BenchDatabase | null; connection: Database | null; others: BenchDatabase[] } = { database: null, connection: null, others: [] };
let failed = false;

try {
  await run(options);
} catch (error) {
  failed = true;
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
} finally {
  for (const child of children) await child.stop().catch(() => {});
  await made.connection?.close();
  for (const other of made.others) await other.drop().catch(() => {});
  if (made.database) {
    const { url } = made.database;
    if (options.keep || failed) log(`Bench database kept: ${url}\n  rerun without seeding: npm run bench -- --reuse ${url}`);
    else await made.database.drop();
  }
}
process.exit(failed ? 1 : 0);

async function run(options: BenchOptions) {
  // 1. Database: a new one (migrated by openDatabase, as at Hearth's start), or one seeded before.
  let url = options.reuse;
  if (!url) {
    const created = (made.database = await createBenchDatabase(options.serverUrl));
    url = created.url;
    log(`Database ${created.name} on ${new URL(options.serverUrl).host}`);
  }
  const database = (made.connection = await openDatabase({ engine: 'postgres', url, poolSize: 2 }));
  const db = database.db;
  const services = await createServices({
    db,
    clock: systemClock,
    config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 } },
  });
  // The first community, its API source, and a new token with every scope.
  const setup = await services.communities.init(cliActor());

  // 2. Seed: the community, unless only the prospector figures are measured, and the prospector data they read.
  const wanted = (part: BenchPart) => options.only === null || options.only === part;
  let seed: SeedReport | null = null;
  if (!options.reuse && (['list', 'titles', 'bulk', 'push', 'stats'] as const).some(wanted)) {
    log(`Seeding ${options.contacts.toLocaleString('en')} contacts and ${options.activities.toLocaleString('en')} activities…`);
    seed = await seedCommunity(db, {
      communityId: setup.communityId,
      apiSourceId: setup.sourceId,
      contacts: options.contacts,
      activities: options.activities,
      now: systemClock.now(),
    });
    for (const step of seed.steps) log(`  ${step.step.padEnd(38)} ${step.rows.toString().padStart(9)} rows ${(step.ms / 1000).toFixed(1).padStart(7)} s`);
    log(`  seeded in ${(seed.totalMs / 1000).toFixed(1)} s`);
  }
  if (!options.reuse && wanted('prospector')) {
    log(`Seeding ${options.prospectorContacts.toLocaleString('en')} prospector contacts…`);
    const steps = await seedProspector(db, { contacts: options.prospectorContacts, now: systemClock.now() });
    for (const step of steps) log(`  ${step.step.padEnd(38)} ${step.rows.toString().padStart(9)} rows ${(step.ms / 1000).toFixed(1).padStart(7)} s`);
    seed = { steps: [...(seed?.steps ?? []), ...steps], totalMs: (seed?.totalMs ?? 0) + steps.reduce((sum, step) => sum + step.ms, 0) };
  }
  const counts = await countRows(db, setup.communityId);

  // 3. Hearth, in a child process; each figure starts the bare baseline it needs once it knows Hearth's statements.
  const env = { BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: String(options.poolSize) };
  const hearth = await ServerChild.start('hearth-server.ts', env);
  children.push(hearth);
  const machine = await describeMachine(db);

  const figures: Figure[] = [];
  const list = wanted('list') ? await measureList(options, { db, services, setup, hearth, env, counts }) : null;
  if (list) figures.push(...list.figures);
  const titles = wanted('titles') ? await measureJobTitles(options, { db, setup, hearth, env }) : null;
  if (titles) figures.push(...titles.figures);
  const bulk = wanted('bulk') ? await measureBulk(options, { db, setup, hearth, env }) : null;
  if (bulk) figures.push(bulk.figure);
  // What the parts that start servers and databases of their own share: the log, and where they leave
  // what the run stops and drops at its end, whatever happens.
  const tracked = { log, track: (child: ServerChild) => children.push(child), trackDatabase: (database: BenchDatabase) => made.others.push(database) };
  const timed = { seconds: options.seconds, rounds: options.rounds };
  const push = wanted('push') ? await measurePush({ url, serverUrl: options.serverUrl, setup, hearth, env, ...timed, ...tracked }) : null;
  if (push) figures.push(...push.figures);
  const prospector = wanted('prospector')
    ? await measureProspector(options, { token: setup.token, hearth, env, log, track: (child) => children.push(child) })
    : null;
  if (prospector) figures.push(...prospector.figures);
  const sustained = wanted('sustained') ? await measureSustained({ serverUrl: options.serverUrl, env, pushes: options.sustainedPushes, ...tracked }) : null;
  if (sustained) figures.push(...sustained.figures);
  const insights = wanted('insights') ? await measureInsights({ db, log }) : null;
  if (insights) figures.push(...insights.figures);
  const tracker = wanted('tracker')
    ? await measureTracker({
        services,
        setup,
        hearth,
        env,
        concurrency: options.concurrency,
        seconds: options.seconds,
        rounds: options.rounds,
        log,
        track: (child) => children.push(child),
      })
    : null;
  if (tracker) figures.push(...tracker.figures);
  const leadScores = wanted('lead-scores')
    ? await measureLeadScores({ db, services, setup, hearth, seconds: options.seconds, rounds: options.rounds, log })
    : null;
  if (leadScores) figures.push(...leadScores.figures);
  const webhooks = wanted('webhooks')
    ? await measureWebhooks({
        db,
        services,
        setup,
        hearth,
        events: 5000,
        concurrency: options.concurrency,
        seconds: options.seconds,
        rounds: options.rounds,
        log,
      })
    : null;
  if (webhooks) figures.push(...webhooks.figures);
  const connectors = wanted('connectors')
    ? await measureConnectors({
        serverUrl: options.serverUrl,
        env,
        stars: options.connectorStars,
        issues: options.connectorIssues,
        profiles: options.connectorProfiles,
        concurrencies: [1, 2, 4],
        rate: options.receiverRate,
        concurrency: options.concurrency,
        ...timed,
        ...tracked,
      })
    : null;
  if (connectors) figures.push(...connectors.figures);
  const platforms = wanted('platforms')
    ? await measurePlatformBackfills({ serverUrl: options.serverUrl, env, records: options.platformRecords, ...tracked })
    : null;
  if (platforms) figures.push(...platforms.figures);
  const suggestions = wanted('suggestions')
    ? await measureSuggestions({ serverUrl: options.serverUrl, contacts: options.suggestionContacts, ...tracked })
    : null;
  if (suggestions) figures.push(...suggestions.figures);
  const stats = wanted('stats')
    ? await measureStats({
        db,
        services,
        token: setup.token,
        hearth,
        env,
        warmup: options.warmup,
        samples: options.samples,
        log,
        track: (child) => children.push(child),
      })
    : null;
  if (stats) figures.push(...stats.figures);
  // Search everywhere, on a database of its own (seeded as the list's, fewer activities).
  const search = wanted('search')
    ? await measureSearch({
        serverUrl: options.serverUrl,
        contacts: options.contacts,
        warmup: options.warmup,
        samples: options.samples,
        poolSize: options.poolSize,
        ...tracked,
      })
    : null;
  if (search) figures.push(...search.figures);
  // Last: its seeded rows add tens of thousands of people to the seeded database the other parts read.
  const firstBackfill = wanted('first-backfill')
    ? await measureFirstBackfill({
        serverUrl: options.serverUrl,
        env,
        // Without a seed (--only first-backfill), the run's database is as empty as the part's own.
        seeded: seed || options.reuse ? { url, setup, hearth } : null,
        ...timed,
        ...tracked,
      })
    : null;
  if (firstBackfill) figures.push(...firstBackfill.figures);
  const cluster = wanted('cluster')
    ? await measureCluster({
        serverUrl: options.serverUrl,
        clusterUrl: options.clusterUrl,
        env,
        people: options.clusterPeople,
        events: options.clusterEvents,
        ...timed,
        ...tracked,
      })
    : null;
  if (cluster) figures.push(...cluster.figures);

  // Report.
  machine.loadAverageAtEnd = loadAverage();
  log('\n' + renderTable(figures, machine));
  if (list) {
    const { diagnostics, statements } = list.results.throughput;
    log(
      `\nDiagnostics (no goal): the bare server running all ${statements} statements Hearth ran for the request: ` +
        `${diagnostics.bareAllStatements.perSecond.toFixed(0)} req/s; Hearth with one token per connection: ` +
        `${diagnostics.hearthTokenPerConnection.perSecond.toFixed(0)} req/s.` +
        (diagnostics.cpuPerRequest.hearthMicroseconds !== null && diagnostics.cpuPerRequest.bareMicroseconds !== null
          ? ` CPU time of the server's process a request: Hearth ${diagnostics.cpuPerRequest.hearthMicroseconds.toFixed(0)} µs, bare ${diagnostics.cpuPerRequest.bareMicroseconds.toFixed(0)} µs.`
          : ''),
    );
  }
  const results = {
    at: new Date().toISOString(),
    options: { ...options, reuse: options.reuse !== null },
    machine,
    data: counts,
    seed,
    ...(list ? list.results : {}),
    jobTitles: titles?.results ?? null,
    bulk: bulk?.results ?? null,
    push: push?.results ?? null,
    prospector: prospector?.results ?? null,
    sustained: sustained?.results ?? null,
    insights: insights?.results ?? null,
    tracker: tracker?.results ?? null,
    leadScores: leadScores?.results ?? null,
    webhooks: webhooks?.results ?? null,
    connectors: connectors?.results ?? null,
    platforms: platforms?.results ?? null,
    suggestions: suggestions?.results ?? null,
    stats: stats?.results ?? null,
    search: search?.results ?? null,
    firstBackfill: firstBackfill?.results ?? null,
    cluster: cluster?.results ?? null,
    figures: figures.map((f) => ({ ...f, met: met(f) })),
  };
  fs.mkdirSync(path.dirname(options.output), { recursive: true });
  fs.writeFileSync(options.output, JSON.stringify(results, null, 2) + '\n');
  log(`\nResults written to ${options.output}`);
}

interface Context {
  db: Database['db'];
  setup: Awaited<ReturnType<Services['communities']['init']>>;
  hearth: ServerChild;
  env: Record<string, string>;
}

/** The four figures of `GET /api/v2/contacts`: page 1,000 against page 1, page 1 against bare, a lightFilter against none, throughput against bare. */
async function measureList(options: BenchOptions, context: Context & { services: Services; counts: Awaited<ReturnType<typeof countRows>> }) {
  const { db, services, setup, hearth, env, counts } = context;
  const client = createClient({ token: setup.token });
  const list = (params: Record<string, string | undefined>) => listUrl(hearth.url, options.path, options.query, { limit: String(options.limit), ...params });

  const page1 = list({});
  // One request first, so that what is captured is the steady state (the first request of a window also
  // sweeps old rate-limit counters).
  await getJson(client, page1);
  const captured = await captureQueries(hearth, client, page1);
  const statement = pickListStatement(captured.queries, options.table, options.limit);
  log(
    `\nHearth ran ${captured.queries.length} statements for GET ${options.path}; the bare endpoint runs:\n  ${statement.sql}\n  parameters ${JSON.stringify(statement.parameters)}`,
  );
  const bare = await ServerChild.start('bare-server.ts', {
    ...env,
    BENCH_BARE_QUERY: JSON.stringify(statement),
    BENCH_BARE_ALL: JSON.stringify(captured.queries),
    BENCH_BARE_LIST: JSON.stringify(exactListOf(captured.body, options.limit)),
  });
  children.push(bare);
  // The baseline must give Hearth's answer, or the ratio compares different work.
  const bareClient = createClient();
  const [hearthAnswer, bareAnswer] = [await getJson<unknown>(client, page1), await getJson<unknown>(bareClient, `${bare.url}/bare`)];
  bareClient.close();
  const difference = firstDifference(hearthAnswer, bareAnswer);
  if (difference)
    throw new Error(`the bare endpoint does not answer what Hearth answers for ${options.path} (${difference}); its presentation knows lists without cols`);
  log(`Hearth and the bare endpoint both answered the same ${captured.body.data.length} records and cursor.`);

  // 4a. Page 1 against page N.
  log(`\nWalking ${options.page - 1} pages to the cursor of page ${options.page}…`);
  const walkStarted = performance.now();
  const deepCursor = await cursorOfPage(client, (cursor) => list({ cursor }), options.page);
  const walkMs = performance.now() - walkStarted;
  const deepUrl = list({ cursor: deepCursor });
  log(`  ${(walkMs / 1000).toFixed(1)} s (${(walkMs / (options.page - 1)).toFixed(2)} ms a page on average)`);
  const paging = await compareLatency(client, { a: page1, b: deepUrl }, options);
  const figures: Figure[] = [latencyFigure(`page ${options.page} vs page 1`, { measured: `p50 page ${options.page}`, baseline: 'p50 page 1' }, paging, 1.3)];

  // 4a'. Page 1 against the bare endpoint giving the same answer, one request at a time.
  const versusBare = await compareLatency(client, { a: `${bare.url}/bare`, b: page1 }, options);
  figures.push(latencyFigure('page 1 vs bare page 1', { measured: 'p50 Hearth', baseline: 'p50 bare' }, versusBare, 1.2));

  // 4b. A three-clause lightFilter against none.
  const filter = options.filter ? await lightFilterOf(db, setup.communityId) : null;
  let filtering: { a: Summary; b: Summary } | null = null;
  let filterSkipped: string | undefined = options.filter ? undefined : '--no-filter';
  if (filter) {
    const filteredUrl = list({ lightFilter: JSON.stringify(filter.expression) });
    const probe = await client.get(filteredUrl);
    if (probe.status === 200) {
      log(`The filter matches ${filter.matching.toLocaleString('en')} of ${counts.contacts.toLocaleString('en')} contacts.`);
      filtering = await compareLatency(client, { a: page1, b: filteredUrl }, options);
    } else {
      filterSkipped = `the list answered ${probe.status} to a lightFilter`;
      log(`Skipping the lightFilter ratio: ${filterSkipped}: ${probe.body.slice(0, 200)}`);
    }
  }
  figures.push({
    name: '3-clause lightFilter vs none',
    measured: 'p50 filtered',
    value: filtering?.b.p50 ?? null,
    baselineName: 'p50 unfiltered',
    baseline: filtering?.a.p50 ?? null,
    unit: 'ms',
    ratio: filtering ? filtering.b.p50 / filtering.a.p50 : null,
    goal: { op: '<=', value: 3 },
    ...(filterSkipped ? { skipped: filterSkipped } : {}),
  });

  // 4c. Throughput of Hearth's page 1 against the bare endpoint, in rounds that rotate the order, after a
  // warm-up. Two diagnostics ride along (no goal): the bare server running every statement Hearth ran for
  // the request, and Hearth with one token per connection (no shared rate-limit counter row).
  const tokens = [];
  for (let i = 0; i < options.concurrency; i++) tokens.push((await services.communities.issueAdminToken(setup, cliActor())).token);
  const series = {
    hearth: { url: page1, token: setup.token },
    bare: { url: `${bare.url}/bare` },
    bareAll: { url: `${bare.url}/bare-all` },
    hearthTokens: { url: page1, tokens },
  } as const;
  log(`\nThroughput: ${options.rounds} rounds of ${options.seconds} s per series at ${options.concurrency} connections…`);
  const { rounds, perSecond: rps } = await throughputRounds(series, options, log);
  const hearthRps = rps('hearth');
  const bareRps = rps('bare');
  figures.push({
    name: 'list throughput vs bare Fastify giving the same answer',
    measured: 'Hearth',
    value: hearthRps,
    baselineName: 'bare',
    baseline: bareRps,
    unit: 'req/s',
    ratio: hearthRps / bareRps,
    goal: { op: '>=', value: 0.7 },
  });

  // What each server's process spends on a request (no goal): on a machine whose cores the load generator,
  // both servers and PostgreSQL share, the throughput ratio follows this. One run of each, after the rounds.
  const cpuPerRequest = async (child: ServerChild, one: { url: string; token?: string }) => {
    const before = child.cpuMs();
    const run = await measureThroughput(one.url, { ...one, concurrency: options.concurrency, seconds: Math.min(5, options.seconds) });
    const after = child.cpuMs();
    return before === null || after === null || run.requests === 0 ? null : ((after - before) * 1000) / run.requests;
  };
  const cpu = { hearthMicroseconds: await cpuPerRequest(hearth, series.hearth), bareMicroseconds: await cpuPerRequest(bare, series.bare) };

  await bare.stop();
  client.close();
  return {
    figures,
    results: {
      list: {
        path: options.path,
        query: options.query,
        limit: options.limit,
        page1Url: stripHost(page1),
        // Every statement Hearth ran for one page-1 request, and the one the bare endpoint runs.
        statements: captured.queries.map((query) => query.sql),
        bareStatement: statement,
      },
      filter: filter ? { expression: filter.expression, matching: filter.matching } : null,
      paging: { walkMs: Math.round(walkMs), page1: paging.a, deep: paging.b },
      versusBare: { bare: versusBare.a, hearth: versusBare.b },
      filtering,
      throughput: {
        rounds,
        statements: captured.queries.length,
        diagnostics: {
          bareAllStatements: { statements: captured.queries.length, perSecond: rps('bareAll') },
          hearthTokenPerConnection: { tokens: tokens.length, perSecond: rps('hearthTokens') },
          cpuPerRequest: cpu,
        },
      },
    },
  };
}

/**
 * A 100-ID bulk update with 25 tags and 5 custom fields (bench/bulk.ts), against the same statements
 * issued directly to the database: the ratio of the bare p50 latency to Hearth's (≥ 0.8: Hearth's layers
 * add at most a quarter to what the database work takes).
 */
/**
 * GET /api/v2/job-titles, each sort: page 100 against page 1 (50 titles a page), latency side by side.
 * The seed's contacts carry some 12,000 distinct titles; the counts are kept up to date by triggers and
 * folded in by the first read, which is made before measuring.
 */
async function measureJobTitles(options: BenchOptions, context: Context): Promise<{ figures: Figure[]; results: unknown }> {
  const { setup, hearth } = context;
  const client = createClient({ token: setup.token });
  const DEEP = 100;
  const folding = performance.now();
  const first = await getJson<{ data: unknown[] }>(client, `${hearth.url}/api/v2/job-titles?limit=1`);
  log(
    `\nJob titles: the first read folded the seed's title changes in ${((performance.now() - folding) / 1000).toFixed(1)} s (${first.data.length} title on its page).`,
  );
  const figures: Figure[] = [];
  const results: Record<string, unknown> = {};
  for (const sort of ['popularity', 'alphabetical'] as const) {
    const page = (cursor?: string) => `${hearth.url}/api/v2/job-titles?sort=${sort}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const deepCursor = await cursorOfPage(client, page, DEEP);
    const compared = await compareLatency(client, { a: page(), b: page(deepCursor) }, { warmup: options.warmup, samples: options.samples });
    log(`  ${sort}: p50 page 1 ${compared.a.p50.toFixed(2)} ms, page ${DEEP} ${compared.b.p50.toFixed(2)} ms`);
    results[sort] = compared;
    figures.push(latencyFigure(`job titles by ${sort}, page ${DEEP} vs page 1`, { measured: `p50 page ${DEEP}`, baseline: 'p50 page 1' }, compared, 1.3));
  }
  return { figures, results };
}

async function measureBulk(options: BenchOptions, context: Context): Promise<{ figure: Figure; results: unknown }> {
  const { db, setup, hearth, env } = context;
  const client = createClient({ token: setup.token });
  const fixtures = await prepareBulk(db, setup.communityId);
  const reset = () => resetBulk(db, setup.communityId, fixtures);
  await reset();
  const hearthUrl = `${hearth.url}/api/v2/contacts/bulk-update`;
  const [first, second] = fixtures.windows;
  // One request first (steady state), then the captured one, on a window of its own.
  const warm = await client.post(hearthUrl, bulkBody(fixtures, first!));
  if (warm.status !== 200) throw new Error(`POST ${hearthUrl} answered ${warm.status}: ${warm.body.slice(0, 500)}`);
  const statements = await captureBulk(hearth, client, hearthUrl, bulkBody(fixtures, second!));
  log(
    `\nHearth ran ${statements.length} statements (begin … commit) for a bulk update of ${BULK_IDS} contacts with ${BULK_TAGS} tags ` +
      `and ${fixtures.fields.length} custom fields; the bare endpoint runs the same:\n` +
      statements.map((statement) => `  ${statement.sql.replace(/\s+/g, ' ').slice(0, 140)}`).join('\n'),
  );
  const bare = await ServerChild.start('bare-server.ts', { ...env, BENCH_BARE_BULK: JSON.stringify({ statements, ids: second }) });
  children.push(bare);
  await reset();

  log(`Bulk updates: ${options.bulkWarmup} warm-up rounds, then ${options.bulkSamples} of each, alternating…`);
  const measured = await compareBulk(client, { hearth: hearthUrl, bare: `${bare.url}/bare-bulk` }, fixtures, reset, {
    warmup: options.bulkWarmup,
    samples: options.bulkSamples,
  });
  // Leave the database as the figure found it: the other figures count tags.
  await reset();
  await bare.stop();
  client.close();
  log(
    `  Hearth p50 ${measured.hearth.p50.toFixed(2)} ms (p95 ${measured.hearth.p95.toFixed(2)}), bare p50 ${measured.bare.p50.toFixed(2)} ms (p95 ${measured.bare.p95.toFixed(2)})`,
  );
  return {
    figure: {
      name: `bulk update (${BULK_IDS} IDs, ${BULK_TAGS} tags, ${fixtures.fields.length} fields) vs its statements bare`,
      measured: 'p50 Hearth',
      value: measured.hearth.p50,
      baselineName: 'p50 bare',
      baseline: measured.bare.p50,
      unit: 'ms',
      ratio: measured.bare.p50 / measured.hearth.p50,
      goal: { op: '>=', value: 0.8 },
    },
    results: {
      statements,
      windows: fixtures.windows.length,
      resets: measured.resets,
      hearth: measured.hearth,
      bare: measured.bare,
    },
  };
}

function stripHost(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}
