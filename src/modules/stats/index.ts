// The face of the stats module: what the rest of the code uses of it. Its other files are private.
export { statsRoutes } from './stats.v2.routes.ts';
export { createStatsService, type StatsService } from './stats.service.ts';
