import { createHmac } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import type { ConnectorKind } from '../src/modules/connectors/index.ts';
import { createGitHubConnector } from '../src/modules/connectors/github/github-connector.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../test/stand-ins/github-api.ts';
import { webhookExamples } from '../test/stand-ins/github-webhooks.ts';
import { createBenchDatabase, type BenchDatabase } from './database.ts';
import { ServerChild } from './ipc.ts';
import { createClient, measureOpenLoop, measureThroughput, median, type Client, type Throughput } from './load.ts';
import { translateAll } from './connector-pages.ts';
import { prepare } from './push.ts';
import type { Figure } from './report.ts';

/**
 * The connector figures (docs/connectors.md, docs/performance.md), on PostgreSQL, each on a new database,
 * against a local GitHub (test/stand-ins/github-api.ts) that the bench starts in its own process:
 * - backfill: a GitHub connector made through the admin API syncs a repository of `stars` stargazers and
 *   `issues` issues (half of them closed: an issue makes one or two activities); the time from the create
 *   request to every stream done, read by polling the admin API, in activities/s. The baseline is the batch
 *   route taking the same pushes (the GitHub kind's own translation of the same pages, read by the bench
 *   beforehand), one request per page as the connector stores them, with as many requests in flight as the
 *   connector has (1) and with more (the best of `concurrencies`). The profile pass that follows the
 *   streams (one request per new person) is timed apart, against the batch route taking the same profiles
 *   50 a request, as the pass stores them;
 * - receiver: signed GitHub deliveries (the published star and issue_comment examples, a new delivery ID and
 *   person or comment each) to the connector's receiver: the p95 latency at `rate` deliveries/s, sent
 *   open-loop, and the throughput at `concurrency` connections against a bare endpoint that checks the
 *   same signature and inserts the raw payload into a table of the same database (bare-server.ts).
 */

export interface ConnectorsContext {
  serverUrl: string;
  env: Record<string, string>;
  /** Stargazers and issues of the backfilled repository. */
  stars: number;
  issues: number;
  /** Also time the profile pass (one request per new person) and its baseline. */
  profiles: boolean;
  /** Requests in flight of the batch route baseline: the connector's (1) first, then more. */
  concurrencies: number[];
  /** Deliveries a second of the receiver's latency figure. */
  rate: number;
  concurrency: number;
  seconds: number;
  rounds: number;
  /** The receiver's warm-up, Hearth and bare, before its rounds (2 s when not given; the bench's own test takes less). */
  warmupSeconds?: number;
  log: (line: string) => void;
  track: (child: ServerChild) => void;
  trackDatabase: (database: BenchDatabase) => void;
}

const REPOSITORY = 'hearth-bench/widgets';
/** The receiver's connector follows a repository with no history: its backfill is over at once. */
const RECEIVER_REPOSITORY = 'hearth-bench/receiver';
const TOKEN = 'ghp_hearth_test';
const WEBHOOK_SECRET = 'bench-webhook-secret';
/** People of the receiver's deliveries: a pool, so that deliveries name people seen before and new ones. */
const PEOPLE = 5_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export interface Connector {
  id: string;
  sourceId: number;
  state: string;
  reason: string | null;
  receiverUrl: string | null;
  streams: { stream: string; done: boolean; records: number; updatedAt: string }[];
  createdAt: string;
  lastSyncAt: string | null;
}

/** A Hearth child as `hearth serve` runs it: with the job worker (a sync is a job), allowed to reach the local GitHub. */
export const childEnv = (env: Record<string, string>, url: string) => ({ ...env, BENCH_DATABASE_URL: url, BENCH_WORKER: '1', HEARTH_ALLOW_PRIVATE_FETCH: '1' });

export async function fresh(context: Pick<ConnectorsContext, 'serverUrl' | 'env' | 'track' | 'trackDatabase'>) {
  const database = await createBenchDatabase(context.serverUrl);
  context.trackDatabase(database);
  const setup = await prepare({ engine: 'postgres', url: database.url, poolSize: 2 });
  const hearth = await ServerChild.start('hearth-server.ts', childEnv(context.env, database.url));
  context.track(hearth);
  return { database, setup, hearth };
}

export async function count(url: string, query: string, parameters: unknown[] = []): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(query, parameters)).rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function createConnector(client: Client, hearthUrl: string, repository: string, apiUrl: string): Promise<Connector> {
  const answer = await client.post(`${hearthUrl}/api/v2/admin/connectors`, {
    kind: 'github',
    settings: { repositories: [repository], apiUrl },
    secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
  });
  if (answer.status !== 201) throw new Error(`POST /api/v2/admin/connectors answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  return (JSON.parse(answer.body) as { data: Connector }).data;
}

export async function readConnector(client: Client, hearthUrl: string, id: string): Promise<Connector> {
  const answer = await client.get(`${hearthUrl}/api/v2/admin/connectors/${id}`);
  if (answer.status !== 200) throw new Error(`GET /api/v2/admin/connectors/${id} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  const connector = (JSON.parse(answer.body) as { data: Connector }).data;
  if (connector.state === 'failed' || connector.state === 'waiting') throw new Error(`the connector is ${connector.state}: ${connector.reason}`);
  return connector;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The pages the connector reads, translated by the GitHub kind itself (the translation the connector
 * stores), read from the stand-in by this process; and the profiles of the people they name, as the
 * profile pass reads them. Timed: reading and translating alone is the least a backfill takes.
 */
function translatePages(standIn: GitHubStandIn, profiles: boolean) {
  // Without Octokit's throttling (GraphQL a second apart, and a wait of its own before each request): the
  // translation is the same, and this is preparation, not a figure.
  const kind = createGitHubConnector({ throttle: false }) as ConnectorKind<unknown, unknown>;
  return translateAll(kind, { repositories: [REPOSITORY], apiUrl: standIn.url }, { token: TOKEN, webhookSecret: WEBHOOK_SECRET }, profiles);
}

/**
 * Posts the batches to the batch route, `concurrency` requests in flight, in order; resolves with the seconds
 * taken, and with the seconds at which the first `mark` batches were all stored (a stream's share).
 */
export async function postBatches(
  client: Client,
  url: string,
  batches: unknown[][],
  concurrency: number,
  mark = 0,
): Promise<{ seconds: number; markSeconds: number }> {
  let next = 0;
  const started = performance.now();
  let markAt = started;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batches.length) {
        const index = next++;
        const batch = batches[index]!;
        const answer = await client.post(url, batch);
        if (answer.status !== 202) throw new Error(`POST ${url} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
        const answered = JSON.parse(answer.body) as { rejected: number; results: { status: string }[] };
        if (answered.rejected > 0) {
          const first = answered.results.find((item) => item.status !== 'accepted');
          throw new Error(`the batch route refused ${answered.rejected} of ${batch.length} pushes: ${JSON.stringify(first).slice(0, 300)}`);
        }
        if (index < mark) markAt = Math.max(markAt, performance.now());
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, markSeconds: (markAt - started) / 1000 };
}

/** The n-th delivery of a run: the published star or issue_comment example, in the connector's repository, signed. */
function deliveries(standIn: GitHubStandIn) {
  const [star] = webhookExamples('star', 'created') as [Json];
  const [comment] = webhookExamples('issue_comment', 'created') as [Json];
  const repository = { ...star.repository, ...standIn.repository(RECEIVER_REPOSITORY) };
  let runs = 0;
  return () => {
    const run = `${Date.now().toString(36)}-${runs++}`;
    const base = runs * 10_000_000;
    return (n: number) => {
      const who = standIn.person(1 + ((base + n) % PEOPLE));
      const sender = {
        ...star.sender,
        id: who.id,
        login: who.login,
        html_url: `https://github.com/${who.login}`,
        avatar_url: `https://avatars.githubusercontent.com/u/${who.id}?v=4`,
      };
      const at = new Date().toISOString();
      const id = 900_000_000 + base + n;
      const [event, body] =
        n % 2 === 0
          ? ['star', { ...star, repository, sender, starred_at: at }]
          : [
              'issue_comment',
              {
                ...comment,
                repository,
                sender,
                issue: { ...comment.issue, number: 1 + (n % 100), pull_request: undefined },
                comment: {
                  ...comment.comment,
                  id,
                  user: sender,
                  body: `Comment ${n} of run ${run}`,
                  html_url: `https://github.com/${RECEIVER_REPOSITORY}/issues/${1 + (n % 100)}#issuecomment-${id}`,
                  created_at: at,
                  updated_at: at,
                },
              },
            ];
      const raw = JSON.stringify(body);
      return {
        body: raw,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'GitHub-Hookshot/bench',
          'x-github-event': event as string,
          'x-github-delivery': `${run}-${n}`,
          'x-github-hook-id': '1',
          'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex')}`,
        },
      };
    };
  };
}

export async function measureConnectors(context: ConnectorsContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { log } = context;
  const load = { start: os.loadavg().map((value) => Math.round(value * 100) / 100) };
  const standIn = await startGitHubStandIn({
    repositories: [
      // No pull requests: number n is one only when it is a multiple of pullEvery.
      { fullName: REPOSITORY, stargazers: context.stars, issues: context.issues, pullEvery: context.issues + 1 },
      { fullName: RECEIVER_REPOSITORY },
    ],
    rateLimit: 1_000_000_000,
  });
  try {
    // ---- Backfill ----------------------------------------------------------------------------------------
    log(
      `\nConnectors: reading and translating ${context.stars.toLocaleString('en')} stargazers and ${context.issues.toLocaleString('en')} issues with the GitHub kind…`,
    );
    const translated = await translatePages(standIn, context.profiles);
    const activities = translated.pages.reduce((sum, page) => sum + page.activities.length, 0);
    const profiles = translated.profileBatches.reduce((sum, batch) => sum + batch.length, 0);
    log(
      `  ${translated.pages.length} pages, ${activities.toLocaleString('en')} activities of ${translated.people.length.toLocaleString('en')} people, in ${(translated.readMs / 1000).toFixed(1)} s` +
        (context.profiles ? `; ${profiles.toLocaleString('en')} profiles in ${(translated.profilesReadMs / 1000).toFixed(1)} s (8 requests at a time)` : ''),
    );

    const backfill = await fresh(context);
    const admin = createClient({ token: backfill.setup.token });
    log(
      `Connector backfill: a GitHub connector made through the admin API, polled until its streams are done${context.profiles ? ', then its profiles' : ''}…`,
    );
    const cpuBefore = process.cpuUsage();
    const requestsBefore = standIn.requests.length;
    const started = performance.now();
    const made = await createConnector(admin, backfill.hearth.url, REPOSITORY, standIn.url);
    let streamsSeconds: number | null = null;
    let profilesSeconds: number | null = null;
    let streamRecords = 0;
    let requestsForStreams = 0;
    // When the stargazers stream was done, from the connector's own times (the stars are read first).
    let starsSeconds: number | null = null;
    for (;;) {
      await sleep(100);
      const connector = await readConnector(admin, backfill.hearth.url, made.id);
      const now = performance.now();
      if (streamsSeconds === null && connector.streams.length > 0 && connector.streams.every((stream) => stream.done)) {
        streamsSeconds = (now - started) / 1000;
        streamRecords = connector.streams.reduce((sum, stream) => sum + stream.records, 0);
        const stars = connector.streams.find((stream) => stream.stream.endsWith(':stargazers'));
        if (stars) starsSeconds = (Date.parse(stars.updatedAt) - Date.parse(connector.createdAt)) / 1000;
        requestsForStreams = standIn.requests.length - requestsBefore;
        if (!context.profiles) break;
      }
      if (connector.lastSyncAt !== null) {
        profilesSeconds = (now - started) / 1000 - (streamsSeconds ?? 0);
        break;
      }
    }
    const cpu = process.cpuUsage(cpuBefore);
    const standInCpuSeconds = (cpu.user + cpu.system) / 1e6;
    const stored = await count(backfill.database.url, 'select count(*) as n from activities where source_id = $1', [made.sourceId]);
    if (stored !== activities) throw new Error(`the connector stored ${stored} activities; the kind's translation of the same pages makes ${activities}`);
    const connectorRate = stored / streamsSeconds!;
    // The pages of the stargazers stream come first; their activities have no text (no sentiment, no topics).
    const starPages = translated.pages.filter((page) => page.activities.every((activity) => activity.activityType === 'starred_repo')).length;
    const starActivities = translated.pages.slice(0, starPages).reduce((sum, page) => sum + page.activities.length, 0);
    const profileRate = profilesSeconds ? profiles / profilesSeconds : null;
    log(
      `  streams done in ${streamsSeconds!.toFixed(1)} s: ${stored.toLocaleString('en')} activities (the streams count ${streamRecords.toLocaleString('en')} records), ` +
        `${connectorRate.toFixed(0)} activities/s, ${requestsForStreams} requests to the stand-in` +
        (starsSeconds && starActivities
          ? ` (the ${starActivities.toLocaleString('en')} stars in ${starsSeconds.toFixed(1)} s from the create request, ${(starActivities / starsSeconds).toFixed(0)}/s)`
          : '') +
        (profilesSeconds !== null ? `; profile pass ${profilesSeconds.toFixed(1)} s, ${profileRate!.toFixed(0)} profiles/s` : '') +
        `; this process (the stand-in, and the polling) used ${standInCpuSeconds.toFixed(1)} s of CPU`,
    );
    admin.close();
    await backfill.hearth.stop();
    await backfill.database.drop();

    const batchRuns: {
      concurrency: number;
      seconds: number;
      perSecond: number;
      starsPerSecond: number;
      profileSeconds: number | null;
      profilesPerSecond: number | null;
    }[] = [];
    for (const concurrency of context.concurrencies) {
      const own = await fresh(context);
      const client = createClient({ token: own.setup.token, connections: concurrency });
      const base = `${own.hearth.url}/community/v1/source/${own.setup.sourceId}`;
      const batches: unknown[][] = [];
      for (const page of translated.pages) {
        if (page.users.length) batches.push(page.users);
        if (page.activities.length) batches.push(page.activities);
      }
      // Users and activities of a page go to their own routes; the pages of the streams have activities only.
      if (translated.pages.some((page) => page.users.length)) throw new Error('a page of the streams made user pushes: the baseline posts activities only');
      const { seconds, markSeconds } = await postBatches(client, `${base}/activities`, batches, concurrency, starPages);
      const inBatch = await count(own.database.url, 'select count(*) as n from activities where source_id = $1', [own.setup.sourceId]);
      if (inBatch !== activities) throw new Error(`the batch route stored ${inBatch} activities of ${activities}`);
      const profileSeconds = context.profiles ? (await postBatches(client, `${base}/users`, translated.profileBatches, concurrency)).seconds : null;
      const run = {
        concurrency,
        seconds,
        perSecond: activities / seconds,
        starsPerSecond: starActivities ? starActivities / markSeconds : 0,
        profileSeconds,
        profilesPerSecond: profileSeconds ? profiles / profileSeconds : null,
      };
      batchRuns.push(run);
      log(
        `  batch route, ${concurrency} request${concurrency > 1 ? 's' : ''} in flight: ${seconds.toFixed(1)} s, ${run.perSecond.toFixed(0)} activities/s` +
          (starActivities ? ` (the stars ${run.starsPerSecond.toFixed(0)}/s)` : '') +
          (profileSeconds !== null ? `; profiles ${profileSeconds.toFixed(1)} s, ${run.profilesPerSecond!.toFixed(0)}/s` : ''),
      );
      client.close();
      await own.hearth.stop();
      await own.database.drop();
    }
    const same = batchRuns.find((run) => run.concurrency === 1) ?? batchRuns[0]!;
    const best = batchRuns.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));

    // ---- Receiver ----------------------------------------------------------------------------------------
    const receiving = await fresh(context);
    const admin2 = createClient({ token: receiving.setup.token });
    const connector = await createConnector(admin2, receiving.hearth.url, RECEIVER_REPOSITORY, standIn.url);
    while ((await readConnector(admin2, receiving.hearth.url, connector.id)).lastSyncAt === null) await sleep(100);
    admin2.close();
    const bare = await ServerChild.start('bare-server.ts', {
      ...context.env,
      BENCH_DATABASE_URL: receiving.database.url,
      BENCH_BARE_RECEIVER: JSON.stringify({ secret: WEBHOOK_SECRET }),
    });
    context.track(bare);
    const hearthUrl = connector.receiverUrl!.replace('http://127.0.0.1', receiving.hearth.url);
    const bareUrl = `${bare.url}/bare-receiver`;
    const nextRun = deliveries(standIn);
    const waiting = () => count(receiving.database.url, 'select count(*) as n from connector_deliveries where processed_at is null');
    /** Waits until Hearth has processed every stored delivery (its background step): each round starts with none waiting. */
    const drain = async () => {
      const before = performance.now();
      let left = await waiting();
      const backlog = left;
      while (left > 0) {
        await sleep(200);
        left = await waiting();
      }
      return { backlog, seconds: (performance.now() - before) / 1000 };
    };

    log(`Receiver: ${context.rounds} rounds of ${context.seconds} s at ${context.rate} deliveries/s (open loop), Hearth and bare…`);
    const warmup = context.warmupSeconds ?? 2;
    await measureThroughput(hearthUrl, { concurrency: context.concurrency, seconds: warmup, raw: { request: nextRun(), status: 202 } });
    await measureThroughput(bareUrl, { concurrency: context.concurrency, seconds: warmup, raw: { request: nextRun(), status: 202 } });
    await drain();
    const openLoop: { hearth: Throughput & { late: number }; bare: Throughput & { late: number }; drain: { backlog: number; seconds: number } }[] = [];
    const hearthLatencies: number[] = [];
    for (let round = 0; round < context.rounds; round++) {
      const hearth = await measureOpenLoop(hearthUrl, { rate: context.rate, seconds: context.seconds, request: nextRun(), status: 202 });
      const drained = await drain();
      const bareRun = await measureOpenLoop(bareUrl, { rate: context.rate, seconds: context.seconds, request: nextRun(), status: 202 });
      openLoop.push({ hearth, bare: bareRun, drain: drained });
      hearthLatencies.push(hearth.latency.p95);
      log(
        `  round ${round + 1}: Hearth p50 ${hearth.latency.p50.toFixed(1)} ms, p95 ${hearth.latency.p95.toFixed(1)} ms${hearth.errors ? ` (${hearth.errors} errors)` : ''}; ` +
          `bare p50 ${bareRun.latency.p50.toFixed(1)} ms, p95 ${bareRun.latency.p95.toFixed(1)} ms; ${drained.backlog} deliveries left to process at the end, done ${drained.seconds.toFixed(1)} s later` +
          (hearth.late + bareRun.late ? `; the generator was late for ${hearth.late + bareRun.late} requests` : ''),
      );
      if (hearth.errors || bareRun.errors) throw new Error(`receiver requests failed: Hearth ${hearth.errors}, bare ${bareRun.errors}`);
    }
    const p95 = median(hearthLatencies);

    log(`Receiver throughput: ${context.rounds} rounds of ${context.seconds} s at ${context.concurrency} connections, Hearth and bare alternating…`);
    const closed: { hearth: Throughput; bare: Throughput; drain: { backlog: number; seconds: number } }[] = [];
    for (let round = 0; round < context.rounds; round++) {
      const order = round % 2 === 0 ? (['hearth', 'bare'] as const) : (['bare', 'hearth'] as const);
      const result = {} as { hearth: Throughput; bare: Throughput; drain: { backlog: number; seconds: number } };
      for (const which of order) {
        result[which] = await measureThroughput(which === 'hearth' ? hearthUrl : bareUrl, {
          concurrency: context.concurrency,
          seconds: context.seconds,
          raw: { request: nextRun(), status: 202 },
        });
        // Hearth's processing of the round's deliveries goes on after it: it must not fall on the next round.
        const drained = await drain();
        if (which === 'hearth') result.drain = drained;
      }
      closed.push(result);
      log(
        `  round ${round + 1}: Hearth ${result.hearth.perSecond.toFixed(0)} deliveries/s (p95 ${result.hearth.latency.p95.toFixed(1)} ms), bare ${result.bare.perSecond.toFixed(0)}/s ` +
          `(p95 ${result.bare.latency.p95.toFixed(1)} ms); Hearth had ${result.drain.backlog} deliveries left to process, done ${result.drain.seconds.toFixed(1)} s later ` +
          `(${(result.hearth.requests / (result.hearth.seconds + result.drain.seconds)).toFixed(0)} processed/s)`,
      );
      if (result.hearth.errors || result.bare.errors) throw new Error(`receiver requests failed: Hearth ${result.hearth.errors}, bare ${result.bare.errors}`);
    }
    const hearthRate = median(closed.map((round) => round.hearth.perSecond));
    const bareRate = median(closed.map((round) => round.bare.perSecond));
    const outcomes = await count(receiving.database.url, `select count(*) as n from connector_deliveries where error is not null`);
    if (outcomes > 0) log(`  ${outcomes} deliveries were processed with an error (see connector_deliveries.error)`);
    await bare.stop();
    await receiving.hearth.stop();
    await receiving.database.drop();

    const figures: Figure[] = [
      {
        name: `connector backfill (${activities} activities) vs batch route, 1 request in flight`,
        measured: 'connector',
        value: connectorRate,
        baselineName: 'batch route',
        baseline: same.perSecond,
        unit: 'items/s',
        ratio: connectorRate / same.perSecond,
        goal: { op: '>=', value: 0.5 },
      },
      {
        name: `connector backfill vs batch route at its best (${best.concurrency} in flight)`,
        measured: 'connector',
        value: connectorRate,
        baselineName: 'batch route',
        baseline: best.perSecond,
        unit: 'items/s',
        ratio: connectorRate / best.perSecond,
        goal: { op: '>=', value: 0.5 },
      },
      {
        name: `receiver p95 at ${context.rate} deliveries/s (open loop)`,
        measured: 'p95 Hearth',
        value: p95,
        baselineName: 'limit',
        baseline: 50,
        unit: 'ms',
        ratio: p95 / 50,
        goal: { op: '<=', value: 1 },
      },
      {
        name: `receiver throughput, ${context.concurrency} connections, vs bare verify + insert`,
        measured: 'Hearth',
        value: hearthRate,
        baselineName: 'bare',
        baseline: bareRate,
        unit: 'req/s',
        ratio: hearthRate / bareRate,
        goal: { op: '>=', value: 0.5 },
      },
    ];
    return {
      figures,
      results: {
        load: { ...load, end: os.loadavg().map((value) => Math.round(value * 100) / 100) },
        backfill: {
          stars: context.stars,
          issues: context.issues,
          pages: translated.pages.length,
          activities,
          people: translated.people.length,
          profiles,
          readSeconds: translated.readMs / 1000,
          profilesReadSeconds: translated.profilesReadMs / 1000,
          starActivities,
          connector: {
            streamsSeconds,
            perSecond: connectorRate,
            starsSeconds,
            streamRecords,
            requests: requestsForStreams,
            profilesSeconds,
            profilesPerSecond: profileRate,
            standInCpuSeconds,
          },
          batch: batchRuns,
        },
        receiver: { rate: context.rate, openLoop, closed, processedWithError: outcomes },
      },
    };
  } finally {
    await standIn.stop();
  }
}
