import { parseArgs } from 'node:util';
import { DEFAULT_SERVER_URL } from './database.ts';

export const BENCH_PARTS = [
  'list',
  'titles',
  'bulk',
  'push',
  'prospector',
  'sustained',
  'insights',
  'tracker',
  'lead-scores',
  'webhooks',
  'connectors',
  'platforms',
  'first-backfill',
  'cluster',
  'suggestions',
  'search',
  'stats',
] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

export interface BenchOptions {
  /** Server on which a new database is made (BENCH_DATABASE_URL). */
  serverUrl: string;
  /** A Citus coordinator's administrative database, for the cluster figures (BENCH_CLUSTER_URL); null: skipped. */
  clusterUrl: string | null;
  /** Keep the database at the end and print its URL. */
  keep: boolean;
  /** An already seeded bench database: no create, no seed, no drop. */
  reuse: string | null;
  contacts: number;
  activities: number;
  /** The list measured, and extra query parameters every request of it carries. */
  path: string;
  query: string;
  /** The table whose statement the bare baseline runs (default: the last segment of the path). */
  table: string;
  limit: number;
  /** The deep page compared with page 1. */
  page: number;
  warmup: number;
  samples: number;
  concurrency: number;
  seconds: number;
  rounds: number;
  /** Measure the lightFilter ratio (off for a list that takes no lightFilter). */
  filter: boolean;
  poolSize: number;
  output: string;
  /** Measure only the list figures, the job titles figures, the bulk update figure, the push figures, the prospector list figures, the sustained push figure, the insights job's, the website tracker's, the lead score, the webhook, the connector, the platform backfill, the first backfill or the cluster figures; null: all of them. */
  only: BenchPart | null;
  /** Prospector contacts to seed for the prospector figures (companies: one per 20). */
  prospectorContacts: number;
  bulkWarmup: number;
  bulkSamples: number;
  /** Single pushes of the sustained figure, into one process on an empty database. */
  sustainedPushes: number;
  /** The connector figures: stargazers and issues of the backfilled repository, whether the profile pass is timed, the receiver's rate. */
  connectorStars: number;
  connectorIssues: number;
  connectorProfiles: boolean;
  receiverRate: number;
  /** About how many records each platform's generated history holds, for the platform backfill figures. */
  platformRecords: number;
  /** Contacts of the merge suggestions figure's database. */
  suggestionContacts: number;
  /** People pushed into each database of the cluster figures before their list reads, and events of each delivery round. */
  clusterPeople: number;
  clusterEvents: number;
}

const USAGE = `npm run bench -- [options]

  --keep                keep the bench database at the end and print its URL
  --reuse <url>         measure an already seeded bench database (no seeding, not dropped)
  --contacts <n>        contacts to seed (100000)
  --activities <n>      activities to seed (1000000)
  --path <path>         list to measure (/api/v2/contacts)
  --query <a=b&c=d>     extra query parameters of every request of that list
  --table <name>        table of the statement the bare endpoint runs (last segment of --path)
  --limit <n>           page size (50)
  --page <n>            deep page compared with page 1 (1000)
  --warmup <n>          warm-up rounds before latency samples (50)
  --samples <n>         latency samples of each request (400)
  --concurrency <n>     connections of the throughput runs (16)
  --seconds <n>         length of one throughput run (10)
  --rounds <n>          throughput runs of each server, alternating (3)
  --no-filter           skip the lightFilter ratio
  --pool-size <n>       database pool of Hearth and of the bare server (10, as hearth serve)
  --output <file>       results JSON (bench/results/latest.json)
  --only <list|titles|bulk|push|prospector|sustained|insights|tracker|lead-scores|webhooks|connectors|platforms|first-backfill|cluster|suggestions|search|stats>
                        only the list figures, the job titles figures, the bulk update figure, the push figures,
                        the prospector contacts list figures (which seed no community contacts), the sustained
                        push figure (on a database of its own), the insights job's figures (which seed a small
                        community of their own), the website tracker's page views (no seed), or the lead score
                        figures (a full recompute, and what a definition adds to pushes), or the webhook figures
                        (5,000 deliveries to a local receiver against a bare client; pushes with a webhook and without),
                        or the connector figures (a GitHub backfill from a local stand-in against the batch route; the
                        receiver's p95 at a fixed rate and its throughput against a bare verify + insert; new databases),
                        or the platform figures (each platform's backfill from its local stand-in against the batch
                        route taking the same pushes; new databases),
                        or the first backfill figures (pushes of mostly new people into empty databases against the
                        bare push endpoints, and PostgreSQL against the embedded database; the seeded database's
                        rows only with a seed: a full run, or --reuse), or the cluster figures (Hearth on a Citus
                        coordinator against Hearth on one server, new databases; skipped without BENCH_CLUSTER_URL)
  --connector-stars <n> stargazers of the backfilled repository (50000)
  --connector-issues <n>
                        issues of the backfilled repository, half of them closed: 1.5 activities each (33334)
  --connector-profiles  also time the profile pass after the streams (one request per new person: a quarter of
                        an hour at the default size), against the batch users route
  --receiver-rate <n>   deliveries a second of the receiver's latency figure (200)
  --platform-records <n>
                        records of each platform's generated history for the platform figures (5000)
  --suggestion-contacts <n>
                        contacts of the merge suggestions figure's own database (100000)
  --sustained-pushes <n>
                        single pushes of the sustained figure, in ten equal parts (100000)
  --prospector-contacts <n>
                        prospector contacts to seed for the prospector figures (100000)
  --bulk-warmup <n>     warm-up rounds before bulk update samples (20)
  --bulk-samples <n>    bulk update samples of Hearth and of the bare statements each (200)
  --cluster-people <n>  people pushed into each database of the cluster figures before their list reads (5000)
  --cluster-events <n>  events of each webhook delivery round of the cluster figures (2000)

Environment: BENCH_DATABASE_URL, the PostgreSQL server (${DEFAULT_SERVER_URL});
BENCH_CLUSTER_URL, a Citus coordinator's administrative database with the workers added (docs/scaling.md).`;

function integer(values: Record<string, unknown>, name: string, fallback: number, min = 1): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer of at least ${min}; got "${String(raw)}"`);
  return value;
}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean', short: 'h' },
      keep: { type: 'boolean' },
      reuse: { type: 'string' },
      contacts: { type: 'string' },
      activities: { type: 'string' },
      path: { type: 'string' },
      query: { type: 'string' },
      table: { type: 'string' },
      limit: { type: 'string' },
      page: { type: 'string' },
      warmup: { type: 'string' },
      samples: { type: 'string' },
      concurrency: { type: 'string' },
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      'no-filter': { type: 'boolean' },
      'pool-size': { type: 'string' },
      output: { type: 'string' },
      only: { type: 'string' },
      'bulk-warmup': { type: 'string' },
      'bulk-samples': { type: 'string' },
      'prospector-contacts': { type: 'string' },
      'sustained-pushes': { type: 'string' },
      'connector-stars': { type: 'string' },
      'connector-issues': { type: 'string' },
      'connector-profiles': { type: 'boolean' },
      'receiver-rate': { type: 'string' },
      'platform-records': { type: 'string' },
      'suggestion-contacts': { type: 'string' },
      'cluster-people': { type: 'string' },
      'cluster-events': { type: 'string' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const path = values.path ?? '/api/v2/contacts';
  const only = (values.only ?? null) as BenchPart | null;
  if (only !== null && !BENCH_PARTS.includes(only)) throw new Error(`--only must be one of ${BENCH_PARTS.join(', ')}; got "${only}"`);
  return {
    serverUrl: env.BENCH_DATABASE_URL?.trim() || DEFAULT_SERVER_URL,
    clusterUrl: env.BENCH_CLUSTER_URL?.trim() || null,
    keep: values.keep ?? false,
    reuse: values.reuse ?? null,
    contacts: integer(values, 'contacts', 100_000),
    activities: integer(values, 'activities', 1_000_000, 0),
    path,
    query: values.query ?? '',
    table: values.table ?? path.split('/').filter(Boolean).pop()!,
    limit: integer(values, 'limit', 50),
    page: integer(values, 'page', 1000, 2),
    warmup: integer(values, 'warmup', 50, 0),
    samples: integer(values, 'samples', 400),
    concurrency: integer(values, 'concurrency', 16),
    seconds: integer(values, 'seconds', 10),
    rounds: integer(values, 'rounds', 3),
    filter: !values['no-filter'],
    poolSize: integer(values, 'pool-size', 10),
    output: values.output ?? 'bench/results/latest.json',
    only,
    bulkWarmup: integer(values, 'bulk-warmup', 20, 0),
    bulkSamples: integer(values, 'bulk-samples', 200),
    prospectorContacts: integer(values, 'prospector-contacts', 100_000),
    sustainedPushes: integer(values, 'sustained-pushes', 100_000, 10),
    connectorStars: integer(values, 'connector-stars', 50_000, 0),
    connectorIssues: integer(values, 'connector-issues', 33_334, 0),
    connectorProfiles: values['connector-profiles'] ?? false,
    receiverRate: integer(values, 'receiver-rate', 200),
    platformRecords: integer(values, 'platform-records', 5_000),
    suggestionContacts: integer(values, 'suggestion-contacts', 100_000),
    clusterPeople: integer(values, 'cluster-people', 5_000),
    clusterEvents: integer(values, 'cluster-events', 2_000),
  };
}

export { USAGE };
