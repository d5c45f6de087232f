import type { onResponseHookHandler, RouteOptions } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolUse } from '../../db/database.ts';
import { formatId } from '../../core/ids.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { IngestionService } from '../ingestion/index.ts';
import { JOB_STATUSES } from '../jobs/index.ts';

/** The route label of requests no route matched: one value, so that random paths add no series. */
export const UNMATCHED_ROUTE = 'unmatched';

type Observer = { count: { inc(): void }; duration: { observe(seconds: number): void } };

/**
 * Prometheus metrics (docs/operations.md). What the process counts as it serves (requests by route and
 * status, the database pool) lives in one registry for the life of the process; what lives in the
 * database (jobs, the ingestion backlog) is read at each scrape, for one community (the admin's, on the
 * API port) or for all (the metrics port).
 */
export function createMetricsService(deps: { jobs: JobQueue; ingestion: IngestionService; poolUse?: () => PoolUse; engine?: string }) {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'hearth_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'hearth_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by method, route pattern and status.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

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

  // Each route and method keeps its label sets by status: a request costs two map reads, one increment
  // and one histogram observation, with no string built.
  function observerFor(cache: Map<string, Map<number, Observer>>, route: string, method: string, status: number): Observer {
    let byStatus = cache.get(method);
    if (!byStatus) cache.set(method, (byStatus = new Map()));
    let observer = byStatus.get(status);
    if (!observer) {
      const labels = { method, route, status: String(status) };
      byStatus.set(status, (observer = { count: requests.labels(labels), duration: duration.labels(labels) }));
    }
    return observer;
  }

  function hookFor(route: string): onResponseHookHandler {
    const cache = new Map<string, Map<number, Observer>>();
    return (request, reply, done) => {
      const observer = observerFor(cache, route, request.method, reply.statusCode);
      observer.count.inc();
      observer.duration.observe(reply.elapsedTime / 1000);
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

    /** The exposition text: the process's metrics, then the jobs and ingestion backlog of one community or of all (null). */
    async render(communityId: number | null): Promise<string> {
      const scrape = new Registry();
      const jobs = new Gauge({ name: 'hearth_jobs', help: 'Background jobs by community, kind and status.', labelNames: ['community', 'kind', 'status'], registers: [scrape] });
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
      return (await registry.metrics()) + (await scrape.metrics());
    },
  };
}

export type MetricsService = ReturnType<typeof createMetricsService>;
