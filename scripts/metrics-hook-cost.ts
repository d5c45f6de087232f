// What the metrics add to a request: a route's onResponse hook (modules/metrics) called in a loop, in ns.
// `npx tsx scripts/metrics-hook-cost.ts` (docs/operations.md has the figure).
import type { RouteOptions } from 'fastify';
import { createMetricsService } from '../src/modules/metrics/index.ts';

// The hook touches neither the jobs nor the ingestion service; only a scrape does.
const metrics = createMetricsService({ jobs: {} as never, ingestion: {} as never });
const route = { method: 'GET', url: '/api/v2/contacts', handler: () => {} } as unknown as RouteOptions;
metrics.instrumentRoute(route);
const hook = (route.onResponse as unknown as ((request: object, reply: object, done: () => void) => void)[])[0]!;
const request = { method: 'GET', context: { communityId: 1 } };
const replies = [200, 200, 200, 404, 200].map((statusCode, i) => ({ statusCode, elapsedTime: 1 + i * 7 }));
const done = () => {};
const calls = 2_000_000;
for (let round = 1; round <= 3; round++) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) hook(request, replies[i % replies.length]!, done);
  console.log(`round ${round}: ${(Number(process.hrtime.bigint() - start) / calls).toFixed(0)} ns a request`);
}
