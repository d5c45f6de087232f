import { contextOf, type HearthApp } from '../../http/types.ts';
import type { MetricsService } from './metrics.service.ts';

export function metricsRoutes(app: HearthApp, services: { metrics: MetricsService }) {
  app.get(
    '/metrics',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'getMetrics',
        tags: ['admin'],
        summary: 'Prometheus metrics',
        description:
          "The Prometheus text format, for the caller's community: the requests its tokens and console sessions made, by " +
          'route pattern and status with their latency, its jobs by kind and status, and its ingestion backlog. Prometheus ' +
          'scrapes it with an admin token (`authorization` of a scrape config). What the process does for every community, ' +
          'and its database pool and runtime, are served to the operator by `HEARTH_METRICS_PORT`, on a port of its own ' +
          '(docs/operations.md).',
        response: { 200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (request, reply) => reply.type(services.metrics.contentType).send(await services.metrics.render(contextOf(request).communityId)),
  );
}
