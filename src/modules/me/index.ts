// The face of the me module: what the rest of the code uses of it. Its other files are private.
export { meRoutes } from './me.v2.routes.ts';
export { createMeService } from './me.service.ts';
