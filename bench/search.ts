import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { systemClock } from '../src/clock.ts';
import { cliActor } from '../src/core/writer.ts';
import { openDatabase } from '../src/db/database.ts';
import { createServices } from '../src/services.ts';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { captureQueries } from './harness.ts';
import { serveUntilStopped, ServerChild, type CapturedQuery } from './ipc.ts';
import { createClient, getJson, summarize, type Summary } from './load.ts';
import type { Figure } from './report.ts';
import { seedCommunity } from './seed.ts';

/**
 * Search everywhere (GET /api/v2/search; docs/reading.md, "Search"; docs/performance.md) on a database of its
 * own, seeded as the list figures' (bench/seed.ts: `contacts` contacts, one organization per 20, emails, GitHub
 * handles for a third) with as many activities as contacts (enough for activity counts to rank by).
 * The queries are typed as a person types them: the first 1, 2, 3 and 5 characters of real names, emails,
 * GitHub handles, organization names and domains of the seed.
 * - Hearth: the route, in a child process as `hearth serve` runs it;
 * - the baseline: a bare Fastify endpoint (this file, forked with BENCH_SEARCH_BARE) that runs the statements
 *   Hearth ran for the same query (captured: SQL and parameters), first stages together, then second stages,
 *   and answers their rows.
 * One request of each in turns, every query, `rounds` times; the figures are the p95 of all of them: Hearth's
 * against the bare one (at least 0.5), and Hearth's against the 100 ms a keystroke may take.
 */
export interface SearchContext {
  serverUrl: string;
  contacts: number;
  warmup: number;
  samples: number;
  poolSize: number;
  log: (line: string) => void;
  track: (child: ServerChild) => void;
  trackDatabase: (database: BenchDatabase) => void;
}

const TYPED = [1, 2, 3, 5];

export async function measureSearch(context: SearchContext): Promise<{ figures: Figure[]; results: Record<string, unknown> }> {
  const { log } = context;
  const made = await createBenchDatabase(context.serverUrl);
  context.trackDatabase(made);
  const database = await openDatabase({ engine: 'postgres', url: made.url, poolSize: 2 });
  let statementsFile: string | null = null;
  try {
    const { db } = database;
    const services = await createServices({
      db,
      clock: systemClock,
      config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 } },
    });
    const setup = await services.communities.init(cliActor());
    log(`\nSearch: seeding ${context.contacts.toLocaleString('en')} contacts…`);
    const seed = await seedCommunity(db, {
      communityId: setup.communityId,
      apiSourceId: setup.sourceId,
      contacts: context.contacts,
      activities: context.contacts,
      now: systemClock.now(),
    });
    log(`  seeded in ${(seed.totalMs / 1000).toFixed(1)} s`);

    // Real values of the seed: a busy contact's name, a quiet one's email, a GitHub handle, an organization's
    // name and another's domain.
    const c = setup.communityId;
    const one = async (query: ReturnType<typeof sql<{ v: string }>>) => (await query.execute(db)).rows[0]!.v;
    const values = [
      await one(sql<{ v: string }>`select name as v from contacts where community_id = ${c} order by activity_count_all desc, id limit 1`),
      await one(sql<{ v: string }>`select split_part(name, ' ', 2) as v from contacts where community_id = ${c} order by id limit 1 offset 500`),
      await one(sql<{ v: string }>`select primary_email as v from contacts where community_id = ${c} and primary_email is not null order by id desc limit 1`),
      await one(
        sql<{
          v: string;
        }>`select display_value as v from contact_identities where community_id = ${c} and type = 'github' order by contact_id limit 1 offset 77`,
      ),
      await one(sql<{ v: string }>`select name as v from organizations where community_id = ${c} order by member_count desc, id limit 1`),
      await one(sql<{ v: string }>`select primary_domain as v from organizations where community_id = ${c} order by id limit 1 offset 300`),
    ];
    const queries = [...new Set(values.flatMap((value) => TYPED.map((length) => value.slice(0, length))))];
    log(`  ${queries.length} queries, typed from: ${values.map((value) => JSON.stringify(value)).join(', ')}`);

    const env = { BENCH_DATABASE_URL: made.url, BENCH_POOL_SIZE: String(context.poolSize) };
    const hearth = await ServerChild.start('hearth-server.ts', env);
    context.track(hearth);
    const client = createClient({ token: setup.token });
    const hearthUrl = (query: string) => `${hearth.url}/api/v2/search?query=${encodeURIComponent(query)}&limit=5`;

    // What Hearth runs for each query, after one request (the steady state: the token is known, plans made).
    const captured: Record<string, CapturedQuery[]> = {};
    const answers: Record<string, unknown> = {};
    for (const query of queries) {
      await getJson(client, hearthUrl(query));
      const { queries: statements, body } = await captureQueries(hearth, client, hearthUrl(query));
      // The search's own statements: not the token's or rate limit's, nor the background work of the process (jobs, autovacuum settings).
      captured[query] = statements.filter((statement) => /\bfrom (contacts c|organizations o|segments s)\b/.test(statement.sql));
      answers[query] = body;
    }
    const counts = queries.map((query) => captured[query]!.length);
    log(`  Hearth runs ${Math.min(...counts)} to ${Math.max(...counts)} statements a query`);
    // The statements are long and many: a file, not an environment variable (whose size Linux limits).
    statementsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-search-')), 'statements.json');
    fs.writeFileSync(statementsFile, JSON.stringify(captured));
    const bare = await ServerChild.start('search.ts', { ...env, BENCH_SEARCH_BARE: statementsFile });
    context.track(bare);
    const bareClient = createClient();
    const bareUrl = (query: string) => `${bare.url}/bare-search?query=${encodeURIComponent(query)}`;

    const rounds = Math.max(1, Math.ceil(context.samples / queries.length));
    const warmRounds = Math.max(1, Math.ceil(context.warmup / queries.length));
    log(`  ${warmRounds} warm-up rounds, then ${rounds} rounds of ${queries.length} queries on each server, in turns…`);
    const times = { hearth: [] as number[], bare: [] as number[] };
    const byLength: Record<number, number[]> = {};
    for (let round = 0; round < warmRounds + rounds; round += 1) {
      for (const [index, query] of queries.entries()) {
        const order = (round + index) % 2 === 0 ? (['hearth', 'bare'] as const) : (['bare', 'hearth'] as const);
        for (const which of order) {
          const response = await (which === 'hearth' ? client.get(hearthUrl(query)) : bareClient.get(bareUrl(query)));
          if (response.status !== 200) throw new Error(`${which} answered ${response.status} to ${JSON.stringify(query)}: ${response.body.slice(0, 300)}`);
          if (round < warmRounds) continue;
          times[which].push(response.ms);
          if (which === 'hearth') (byLength[[...query].length] ??= []).push(response.ms);
        }
      }
    }
    client.close();
    bareClient.close();
    await bare.stop();
    await hearth.stop();
    const hearthSummary = summarize(times.hearth);
    const bareSummary = summarize(times.bare);
    const lengths: Record<string, Summary> = Object.fromEntries(Object.entries(byLength).map(([length, ms]) => [length, summarize(ms)]));
    log(
      `  Hearth p50 ${hearthSummary.p50.toFixed(2)} ms, p95 ${hearthSummary.p95.toFixed(2)} ms; bare p50 ${bareSummary.p50.toFixed(2)} ms, p95 ${bareSummary.p95.toFixed(2)} ms`,
    );
    for (const [length, summary] of Object.entries(lengths)) log(`    ${length} characters: Hearth p95 ${summary.p95.toFixed(2)} ms`);
    const measured = `p95 of ${queries.length} queries typed 1-5 characters, ${context.contacts.toLocaleString('en')} contacts`;
    return {
      figures: [
        {
          name: 'search as you type vs its statements bare',
          measured,
          value: hearthSummary.p95,
          baselineName: 'p95 bare endpoint',
          baseline: bareSummary.p95,
          unit: 'ms',
          ratio: bareSummary.p95 / hearthSummary.p95,
          goal: { op: '>=', value: 0.5 },
        },
        {
          name: 'search as you type vs a keystroke budget',
          measured,
          value: hearthSummary.p95,
          baselineName: 'budget',
          baseline: 100,
          unit: 'ms',
          ratio: hearthSummary.p95 / 100,
          goal: { op: '<=', value: 1 },
        },
      ],
      results: {
        contacts: context.contacts,
        queries,
        statements: captured,
        hearth: hearthSummary,
        bare: bareSummary,
        byLength: lengths,
        sample: answers[queries[0]!],
      },
    };
  } finally {
    if (statementsFile) fs.rmSync(path.dirname(statementsFile), { recursive: true, force: true });
    await database.close();
  }
}

/**
 * The baseline server (this file forked with BENCH_SEARCH_BARE, the file of captured statements): no
 * authentication, validation or serialization schema; Hearth's pool size and type parsers. A query's first
 * stages (exact and prefix matches of each kind) run together, then its second stages (the statements that
 * leave out what the first found, `<> all(...)`), as Hearth runs them.
 */
async function serveBare(file: string) {
  const { default: Fastify } = await import('fastify');
  const { default: pg } = await import('pg');
  const { pgTypes } = await import('../src/db/type-parsers.ts');
  const statements = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, CapturedQuery[]>;
  const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: Number(process.env.BENCH_POOL_SIZE ?? 10), types: pgTypes });
  pool.on('error', () => {});
  const app = Fastify({ logger: false });
  const run = (list: CapturedQuery[]) => Promise.all(list.map(async (statement) => (await pool.query(statement.sql, statement.parameters)).rows));
  app.get('/bare-search', async (request, reply) => {
    const list = statements[(request.query as { query: string }).query];
    if (!list) return reply.code(404).send({ error: 'no statements captured for this query' });
    const second = (statement: CapturedQuery) => /<> all\(/.test(statement.sql);
    const first = await run(list.filter((statement) => !second(statement)));
    const then = await run(list.filter(second));
    return { success: true, data: [...first, ...then] };
  });
  await serveUntilStopped(app, pool);
}

if (process.env.BENCH_SEARCH_BARE) await serveBare(process.env.BENCH_SEARCH_BARE);
