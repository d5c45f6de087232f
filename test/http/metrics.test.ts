import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliActor } from '../../src/core/writer.ts';
import { formatId } from '../../src/core/ids.ts';
import type { JobPayloads, JobQueue } from '../../src/jobs/job-queue.ts';
import { startMetricsServer, type MetricsServer } from '../../src/modules/metrics/index.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** The value of one sample of Prometheus text, by metric name and exact label set; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, key, value]) => [key!, value!] as const)
      .sort(([a], [b]) => a.localeCompare(b));
    if (JSON.stringify(found) === JSON.stringify(wanted)) return Number(match[3]);
  }
  return undefined;
}

const TALLY = 'test.tally';

/** Operations: /metrics in Prometheus format (docs/operations.md, Metrics). */
describe.each(ENGINES)('metrics (%s)', (engine) => {
  let t: TestApp;
  let other: number;
  let otherToken: string;
  let server: MetricsServer;
  let tallyJobs: JobQueue<JobPayloads & { [TALLY]: Record<string, never> }>;
  const community = () => formatId('community', t.communityId);

  beforeAll(async () => {
    t = await createTestApp(engine);
    tallyJobs = t.services.jobs.extend<{ [TALLY]: Record<string, never> }>({ [TALLY]: async () => ({}) });
    ({ communityId: other } = await t.services.communities.create('Beta', cliActor()));
    otherToken = await t.issueToken(['admin', 'read'], other);
    server = await startMetricsServer(t.services.metrics, { port: 0, host: '127.0.0.1', onError: () => {} });
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  /** What the operator's port (HEARTH_METRICS_PORT) shows. */
  async function operatorScrape(): Promise<string> {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  }

  async function scrape(token = t.token): Promise<string> {
    const response = await t.get('/metrics', token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return response.body;
  }

  it('counts requests and their latency by route pattern, method and status, never by raw URL', async () => {
    const before = await scrape();
    const route = { method: 'GET', route: '/api/v2/contacts/:id', status: '404' };
    const count = (text: string) => sample(text, 'hearth_http_requests_total', route) ?? 0;
    for (let i = 0; i < 3; i++) expect((await t.get(`/api/v2/contacts/c_${900_000 + i}`)).statusCode).toBe(404);
    expect((await t.get('/api/v2/contacts/nonsense')).statusCode).toBe(400);
    expect((await t.get('/no/such/path-12345')).statusCode).toBe(404);
    expect((await t.get('/healthz', null)).statusCode).toBe(200);

    const after = await scrape();
    expect(count(after) - count(before)).toBe(3);
    expect(sample(after, 'hearth_http_request_duration_seconds_count', route)).toBe(count(after));
    expect(sample(after, 'hearth_http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(count(after));
    expect(sample(after, 'hearth_http_request_duration_seconds_sum', route)).toBeGreaterThan(0);
    // Buckets are cumulative: each holds at least what the one below holds, up to +Inf (every request).
    const buckets = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'].map((le) =>
      sample(after, 'hearth_http_request_duration_seconds_bucket', { ...route, le })!,
    );
    expect(buckets.every((value, i) => value !== undefined && (i === 0 || value >= buckets[i - 1]!))).toBe(true);
    expect(after).toContain('# TYPE hearth_http_request_duration_seconds histogram');
    expect(after).toContain('# TYPE hearth_http_requests_total counter');
    expect(sample(after, 'hearth_http_requests_total', { method: 'GET', route: '/api/v2/contacts/:id', status: '400' })).toBeGreaterThanOrEqual(1);
    // A probe names no community: the operator's port counts it, an admin's scrape does not.
    expect(sample(after, 'hearth_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBeUndefined();
    expect(sample(await operatorScrape(), 'hearth_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBeGreaterThanOrEqual(1);
    // A path no route matches is counted, but under one label: random paths add no series.
    expect(sample(after, 'hearth_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(after).not.toContain('c_900000');
    expect(after).not.toContain('path-12345');
    // The scrape before this one is counted too, under /metrics.
    expect(sample(after, 'hearth_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  it("shows an admin their own community's requests only, and the process's figures to the operator", async () => {
    const tags = { method: 'GET', route: '/api/v2/tags', status: '200' };
    for (let i = 0; i < 3; i++) expect((await t.get('/api/v2/tags', otherToken)).statusCode).toBe(200);
    const ours = await scrape();
    expect(sample(ours, 'hearth_http_requests_total', tags)).toBeUndefined();
    expect(ours).not.toContain('route="/api/v2/tags"');
    // The pool and the runtime move with every community's traffic: the operator's to watch.
    expect(ours).not.toContain('hearth_db_pool');
    const theirs = await scrape(otherToken);
    expect(sample(theirs, 'hearth_http_requests_total', tags)).toBe(3);
    expect(sample(theirs, 'hearth_http_request_duration_seconds_count', tags)).toBe(3);
    expect(sample(theirs, 'hearth_http_requests_total', { method: 'GET', route: '/api/v2/contacts/:id', status: '404' })).toBeUndefined();
    const all = await operatorScrape();
    // The operator's port adds the communities' requests up, under the same labels.
    expect(sample(all, 'hearth_http_requests_total', tags)).toBe(3);
    const scrapes = { method: 'GET', route: '/metrics', status: '200' };
    const oursNow = sample(await scrape(), 'hearth_http_requests_total', scrapes)!;
    const theirsNow = sample(await scrape(otherToken), 'hearth_http_requests_total', scrapes)!;
    expect(oursNow).toBeGreaterThanOrEqual(1);
    expect(theirsNow).toBe(1);
    expect(sample(await operatorScrape(), 'hearth_http_requests_total', scrapes)).toBe(oursNow + 1 + theirsNow + 1);
    expect(all).toContain('hearth_db_pool_max');
  });

  it("shows the caller's community's jobs by kind and status, each status of each kind even at 0", async () => {
    for (let i = 0; i < 2; i++) await tallyJobs.enqueue(t.services.db, { communityId: t.communityId, kind: TALLY });
    await tallyJobs.enqueue(t.services.db, { communityId: other, kind: TALLY });
    const ours = await scrape();
    expect(sample(ours, 'hearth_jobs', { community: community(), kind: TALLY, status: 'queued' })).toBe(2);
    expect(sample(ours, 'hearth_jobs', { community: community(), kind: TALLY, status: 'failed' })).toBe(0);
    expect(sample(ours, 'hearth_jobs', { community: community(), kind: 'privacy.erase', status: 'running' })).toBe(0);
    // Another community's jobs are not an admin's of this one to see.
    expect(ours).not.toContain(`community="${formatId('community', other)}"`);
    const theirs = await scrape(otherToken);
    expect(sample(theirs, 'hearth_jobs', { community: formatId('community', other), kind: TALLY, status: 'queued' })).toBe(1);
    expect(theirs).not.toContain(`community="${community()}"`);
  });

  it('shows the ingestion backlog and what was stored in the last minute', async () => {
    const before = sample(await scrape(), 'hearth_ingestion_stored_last_minute', { community: community() }) ?? 0;
    await accepted(t, 'user', { id: 'metrics-1', email: 'one@example.org' });
    await accepted(t, 'user', { id: 'metrics-2', email: 'two@example.org' });
    const text = await scrape();
    expect(sample(text, 'hearth_ingestion_stored_last_minute', { community: community() })).toBe(before + 2);
    expect(sample(text, 'hearth_ingestion_batches_last_minute', { community: community() })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'hearth_ingestion_queued_pushes', { community: community() })).toBe(0);
    expect(sample(text, 'hearth_ingestion_oldest_queued_seconds', { community: community() })).toBe(0);
    expect(sample(text, 'hearth_ingestion_processes', { community: community() })).toBe(1);
  });

  it("shows the database pool on the operator's port", async () => {
    const text = await operatorScrape();
    const labels = { engine };
    const max = sample(text, 'hearth_db_pool_max', labels);
    const total = sample(text, 'hearth_db_pool_connections', labels)!;
    const idle = sample(text, 'hearth_db_pool_idle', labels)!;
    // The tests' PostgreSQL pools hold 4 connections (test-database.ts); the embedded database is one session.
    expect(max).toBe(engine === 'pglite' ? 1 : 4);
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(max!);
    expect(idle).toBeGreaterThanOrEqual(0);
    expect(idle).toBeLessThanOrEqual(total);
    expect(sample(text, 'hearth_db_pool_waiting', labels)).toBe(0);
  });

  it('needs an admin token on the API port', async () => {
    expect((await t.get('/metrics', null)).statusCode).toBe(403);
    expect((await t.get('/metrics', await t.issueToken(['read', 'write']))).statusCode).toBe(403);
    const query = await t.get('/metrics?community=com_2');
    expect(query.statusCode).toBe(400);
    expect(query.body).toContain('community');
  });

  describe('on a port of its own (HEARTH_METRICS_PORT)', () => {
    it('serves every community without a token, and nothing else', async () => {
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await response.text();
      expect(sample(text, 'hearth_jobs', { community: community(), kind: TALLY, status: 'queued' })).toBe(2);
      expect(sample(text, 'hearth_jobs', { community: formatId('community', other), kind: TALLY, status: 'queued' })).toBe(1);
      expect(sample(text, 'hearth_ingestion_stored_last_minute', { community: community() })).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'hearth_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1);

      expect((await fetch(`${server.url}/api/v2/me`)).status).toBe(404);
      const post = await fetch(`${server.url}/metrics`, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    });
  });
});
