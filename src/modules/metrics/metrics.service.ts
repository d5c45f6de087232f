import type { onResponseHookHandler, RouteOptions } from 'fastify';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { PoolUse } from '../../db/database.ts';
import { formatId } from '../../core/ids.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { IngestionService } from '../ingestion/index.ts';
import { JOB_STATUSES } from '../jobs/index.ts';

/** The route label of requests no route matched: one value, so that random paths add no series. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Latency buckets, in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The community of requests that no token or session named (probes, the tracker, refusals). */
const NO_COMMUNITY = 0;

/**
 * The requests of one community, method, route and status: plain numbers, summed into at each answer.
 * prom-client's labelled children hash their label set on every call (about 1 µs a request); these cost
 * an increment and a short scan of the bucket bounds, and become Prometheus samples only when scraped.
 */
class RequestSeries {
  count = 0;
  sum = 0;
  /** Requests per bucket, not cumulative (the scrape adds them up). */
  readonly buckets = new Float64Array(BUCKETS.length);

  constructor(
    readonly community: number,
    readonly labels: { method: string; route: string; status: string },
  ) {}

  observe(seconds: number): void {
    this.count += 1;
    this.sum += seconds;
    for (let i = 0; i < BUCKETS.length; i++) {
      if (seconds <= BUCKETS[i]!) {
        this.buckets[i]! += 1;
        return;
      }
    }
  }
}

/**
 * The series a scrape shows: one community's as they are, or (null) every request of the process, the
 * communities' series of one method, route and status added up. The labels are the same either way.
 */
function seriesShown(
  series: RequestSeries[],
  community: number | null,
): { labels: RequestSeries['labels']; count: number; sum: number; buckets: Float64Array }[] {
  if (community !== null) return series.filter((one) => one.community === community);
  const summed = new Map<string, { labels: RequestSeries['labels']; count: number; sum: number; buckets: Float64Array }>();
  for (const one of series) {
    const key = `${one.labels.method} ${one.labels.route} ${one.labels.status}`;
    let total = summed.get(key);
    if (!total) summed.set(key, (total = { labels: one.labels, count: 0, sum: 0, buckets: new Float64Array(BUCKETS.length) }));
    total.count += one.count;
    total.sum += one.sum;
    for (let i = 0; i < BUCKETS.length; i++) total.buckets[i]! += one.buckets[i]!;
  }
  return [...summed.values()];
}

/** A metric prom-client's registry prints: it calls get() at each scrape. */
function scrapedMetric(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => { metricName?: string; labels: Record<string, string | number>; value: number }[],
) {
  return { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) };
}

/** One connector's figures (modules/connectors, handed over by the root so this module depends on none of it). */
export interface ConnectorFigures {
  communityId: number;
  sourceId: number;
  kind: string;
  state: string;
  waitingUntil: Date | null;
  lastEventAt: Date | null;
  streams: number;
  streamsDone: number;
  records: number;
  received: number;
  processed: number;
}

const CONNECTOR_STATES = ['active', 'backfilling', 'waiting', 'paused', 'failed'];

/**
 * Prometheus metrics (docs/operations.md). What the process counts as it serves (requests by route and
 * status, the database pool) lives in memory for the life of the process; what lives in the database (jobs,
 * the ingestion backlog) is read at each scrape. The metrics port shows the operator everything: the
 * process's figures and every community's. An admin on the API port sees their community's only: the
 * requests made with its tokens and sessions, its jobs and its backlog; what the process does for other
 * communities, and its pool and memory, which every community's traffic moves, are not theirs to watch.
 */
export function createMetricsService(deps: {
  jobs: JobQueue;
  ingestion: IngestionService;
  poolUse?: () => PoolUse;
  engine?: string;
  /** The connectors' figures, of one community or (null) of all. */
  connectors?: (communityId: number | null) => Promise<ConnectorFigures[]>;
}) {
  const registry = new Registry();
  const series: RequestSeries[] = [];
  const requestsHelp = 'HTTP requests answered, by method, route pattern and status.';
  const durationHelp = 'Time from receiving a request to answering it, by method, route pattern and status.';

  /** The request counter and histogram, of one community or (null) of every request. */
  function registerRequestMetrics(target: Registry, community: number | null): void {
    target.registerMetric(
      scrapedMetric('hearth_http_requests_total', requestsHelp, 'counter', () =>
        seriesShown(series, community).map((one) => ({ labels: one.labels, value: one.count })),
      ) as never,
    );
    target.registerMetric(
      scrapedMetric('hearth_http_request_duration_seconds', durationHelp, 'histogram', () =>
        seriesShown(series, community).flatMap((one) => {
          let cumulative = 0;
          const buckets = BUCKETS.map((le, i) => {
            cumulative += one.buckets[i]!;
            return { metricName: 'hearth_http_request_duration_seconds_bucket', labels: { ...one.labels, le }, value: cumulative };
          });
          return [
            ...buckets,
            { metricName: 'hearth_http_request_duration_seconds_bucket', labels: { ...one.labels, le: '+Inf' }, value: one.count },
            { metricName: 'hearth_http_request_duration_seconds_sum', labels: one.labels, value: one.sum },
            { metricName: 'hearth_http_request_duration_seconds_count', labels: one.labels, value: one.count },
          ];
        }),
      ) as never,
    );
  }
  registerRequestMetrics(registry, null);

  const poolUse = deps.poolUse;
  if (poolUse) {
    const engine = deps.engine ?? 'unknown';
    const pool = (name: string, help: string, read: (use: PoolUse) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['engine'],
        registers: [registry],
        collect() {
          this.set({ engine }, read(poolUse()));
        },
      });
    pool('hearth_db_pool_max', 'Connections the database pool may open (1 for the embedded database: one session).', (use) => use.max);
    pool('hearth_db_pool_connections', 'Connections open in the pool.', (use) => use.total);
    pool('hearth_db_pool_idle', 'Open connections no statement or transaction holds.', (use) => use.idle);
    pool('hearth_db_pool_waiting', 'Callers waiting for a connection.', (use) => use.waiting);
  }

  // Each route keeps its series by community, method and status: a request costs three map reads and an observation.
  type SeriesCache = Map<number, Map<string, Map<number, RequestSeries>>>;
  function seriesFor(cache: SeriesCache, community: number, route: string, method: string, status: number): RequestSeries {
    let byMethod = cache.get(community);
    if (!byMethod) cache.set(community, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let found = byStatus.get(status);
    if (!found) {
      byStatus.set(status, (found = new RequestSeries(community, { method, route, status: String(status) })));
      series.push(found);
    }
    return found;
  }

  function hookFor(route: string): onResponseHookHandler {
    const cache: SeriesCache = new Map();
    return (request, reply, done) => {
      seriesFor(cache, request.context?.communityId ?? NO_COMMUNITY, route, request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
      done();
    };
  }

  const unmatched = hookFor(UNMATCHED_ROUTE);
  let processMetrics = false;

  return {
    contentType: registry.contentType,

    /** onRoute: counts the route's requests under its pattern (`/api/v2/contacts/:id`), never the raw URL. */
    instrumentRoute(route: RouteOptions): void {
      const hook = hookFor(route.url);
      const own = route.onResponse;
      route.onResponse = own === undefined ? [hook] : [...(Array.isArray(own) ? own : [own]), hook];
    },

    /** An app-wide onResponse hook for what no route matched (the 404s). */
    countUnmatched: ((request, reply, done) => {
      if (request.is404) unmatched.call(request.server, request, reply, done);
      else done();
    }) as onResponseHookHandler,

    /** The process's CPU, memory, event loop and garbage collection (prom-client's defaults); once, by a serving process. */
    collectProcessMetrics(): void {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },

    /**
     * The exposition text. For one community (the API port): its requests, jobs and ingestion backlog. For all
     * (null, the metrics port): the process's requests, pool and runtime, then every community's jobs and backlog.
     */
    async render(communityId: number | null): Promise<string> {
      const scrape = new Registry();
      if (communityId !== null) registerRequestMetrics(scrape, communityId);
      const jobs = new Gauge({
        name: 'hearth_jobs',
        help: 'Background jobs by community, kind and status.',
        labelNames: ['community', 'kind', 'status'],
        registers: [scrape],
      });
      const counts = await deps.jobs.counts(communityId);
      // Every kind the server runs, in every status, for each community shown: a status with no job reads 0,
      // so that an alert on failed jobs sees a series before the first failure.
      const communities = new Set(counts.map((row) => row.communityId));
      if (communityId !== null) communities.add(communityId);
      for (const community of communities) {
        for (const kind of deps.jobs.kinds()) for (const status of JOB_STATUSES) jobs.set({ community: formatId('community', community), kind, status }, 0);
      }
      for (const row of counts) jobs.set({ community: formatId('community', row.communityId), kind: row.kind, status: row.status }, row.count);

      const backlog = (name: string, help: string) => new Gauge({ name, help, labelNames: ['community'], registers: [scrape] });
      const queued = backlog('hearth_ingestion_queued_pushes', 'Pushes taken in and not yet stored, over every serving process.');
      const oldest = backlog('hearth_ingestion_oldest_queued_seconds', 'How long the oldest push waiting has waited (0 when none waits).');
      const stored = backlog('hearth_ingestion_stored_last_minute', 'Pushes stored in the last minute, over every serving process (the throughput).');
      const batches = backlog('hearth_ingestion_batches_last_minute', 'Transactions that stored pushes in the last minute.');
      const processes = backlog('hearth_ingestion_processes', 'Serving processes with pushes waiting or stored in the last minute.');
      const backlogs = communityId === null ? await deps.ingestion.backlogs() : [{ communityId, ...(await deps.ingestion.backlog(communityId)) }];
      for (const row of backlogs) {
        const labels = { community: formatId('community', row.communityId) };
        queued.set(labels, row.queuedPushes);
        oldest.set(labels, (row.oldestQueuedMs ?? 0) / 1000);
        stored.set(labels, row.storedLastMinute);
        batches.set(labels, row.batchesLastMinute);
        processes.set(labels, row.processes);
      }
      if (deps.connectors) {
        const figures = await deps.connectors(communityId);
        const byState = new Gauge({
          name: 'hearth_connectors',
          help: 'Connectors by community, kind and state.',
          labelNames: ['community', 'kind', 'state'],
          registers: [scrape],
        });
        for (const kind of new Set(figures.map((one) => `${one.communityId} ${one.kind}`))) {
          const [community, name] = kind.split(' ') as [string, string];
          for (const state of CONNECTOR_STATES) byState.set({ community: formatId('community', Number(community)), kind: name, state }, 0);
        }
        for (const one of figures) byState.inc({ community: formatId('community', one.communityId), kind: one.kind, state: one.state });
        const labels = (one: ConnectorFigures) => ({
          community: formatId('community', one.communityId),
          source: formatId('provider', one.sourceId),
          kind: one.kind,
        });
        const counter = (name: string, help: string, value: (one: ConnectorFigures) => number) =>
          scrape.registerMetric(scrapedMetric(name, help, 'counter', () => figures.map((one) => ({ labels: labels(one), value: value(one) }))) as never);
        counter(
          'hearth_connector_deliveries_received_total',
          "Webhook deliveries a connector's receiver stored (redeliveries not counted).",
          (one) => one.received,
        );
        counter('hearth_connector_deliveries_processed_total', 'Stored deliveries turned into pushes.', (one) => one.processed);
        counter('hearth_connector_records_stored_total', 'Pushes a connector stored, from deliveries, syncs and profiles.', (one) => one.records);
        const waiting = new Gauge({
          name: 'hearth_connector_waiting_until_seconds',
          help: "When a waiting connector goes on (the platform's rate limit), as a Unix time; 0 when it is not waiting.",
          labelNames: ['community', 'source', 'kind'],
          registers: [scrape],
        });
        for (const one of figures) waiting.set(labels(one), one.state === 'waiting' && one.waitingUntil ? one.waitingUntil.getTime() / 1000 : 0);
        // Each connector's own state (1 for the state it is in, 0 for the others), so an alert can name the
        // connector that failed or waits; the reason is in the admin API, not a label.
        const state = new Gauge({
          name: 'hearth_connector_state',
          help: "A connector's state: 1 for the one it is in, 0 for the others.",
          labelNames: ['community', 'source', 'kind', 'state'],
          registers: [scrape],
        });
        for (const one of figures) for (const name of CONNECTOR_STATES) state.set({ ...labels(one), state: name }, one.state === name ? 1 : 0);
        const lastEvent = new Gauge({
          name: 'hearth_connector_last_event_seconds',
          help: 'When a connector last received a delivery, as a Unix time; 0 when it has received none.',
          labelNames: ['community', 'source', 'kind'],
          registers: [scrape],
        });
        for (const one of figures) lastEvent.set(labels(one), one.lastEventAt ? one.lastEventAt.getTime() / 1000 : 0);
        // The backfill's progress by connector: its streams (repository x record kind, a forum's topics), caught
        // up once or still reading. A series per stream would be thousands for an organization's repositories;
        // each stream's records and total are in the admin API.
        const streams = new Gauge({
          name: 'hearth_connector_streams',
          help: "A connector's streams, caught up once or still being read.",
          labelNames: ['community', 'source', 'kind', 'status'],
          registers: [scrape],
        });
        for (const one of figures) {
          streams.set({ ...labels(one), status: 'caught_up' }, one.streamsDone);
          streams.set({ ...labels(one), status: 'reading' }, one.streams - one.streamsDone);
        }
      }
      return communityId === null ? (await registry.metrics()) + (await scrape.metrics()) : scrape.metrics();
    },
  };
}

export type MetricsService = ReturnType<typeof createMetricsService>;
