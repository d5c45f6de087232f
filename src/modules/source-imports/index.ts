// The face of the source-imports module: what the rest of the code uses of it. Its other files are private.
export { sourceImportRoutes } from './source-import.v2.routes.ts';
export { createSourceImportService } from './source-import.service.ts';
