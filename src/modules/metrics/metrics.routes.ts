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
          'The Prometheus text format: requests by route pattern and status with their latency, the database pool, the ' +
          'process, and the caller\'s community\'s jobs by kind and status and ingestion backlog. Prometheus scrapes it with ' +
          'an admin token (`authorization` of a scrape config); `HEARTH_METRICS_PORT` serves the same for every community ' +
          'on a port of its own, without a token (docs/operations.md).',
        response: { 200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (request, reply) => reply.type(services.metrics.contentType).send(await services.metrics.render(contextOf(request).communityId)),
  );
}
