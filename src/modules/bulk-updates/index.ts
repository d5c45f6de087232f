// The face of the bulk-updates module: what the rest of the code may use. Everything else here is private.
export { bulkUpdateRoutes } from './bulk-update.routes.ts';
export { createBulkUpdateService } from './bulk-update.service.ts';
