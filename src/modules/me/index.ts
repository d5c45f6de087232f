// The face of the me module: what the rest of the code may use. Everything else here is private.
export { meRoutes } from './me.routes.ts';
export { createMeService } from './me.service.ts';
