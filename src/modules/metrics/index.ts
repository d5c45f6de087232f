// The face of the metrics module (Prometheus): what the rest of the code uses of it. Its other files are private.
export { metricsRoutes } from './metrics.routes.ts';
export { createMetricsService, type MetricsService, UNMATCHED_ROUTE } from './metrics.service.ts';
export { type MetricsServer, startMetricsServer } from './metrics-server.ts';
