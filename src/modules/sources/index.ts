// The face of the sources module: what the rest of the code uses of it. Its other files are private.
export { findSource, findSourceByName, insertSource } from './source.repository.ts';
export { sourceRoutes } from './source.routes.ts';
export { createSourceService } from './source.service.ts';
