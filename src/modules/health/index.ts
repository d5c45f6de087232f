// The face of the health module: what the rest of the code uses of it. Its other files are private.
export { healthRoutes } from './health.routes.ts';
export { createReadiness, type Readiness } from './readiness.ts';
