// The face of the source-imports module: what the rest of the code may use. Everything else here is private.
export { sourceImportRoutes } from './source-import.routes.ts';
export { createSourceImportService } from './source-import.service.ts';
