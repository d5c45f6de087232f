// The face of the health module: what the rest of the code may use. Everything else here is private.
export { healthRoutes } from './health.routes.ts';
