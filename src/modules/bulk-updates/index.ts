// The face of the bulk-updates module: what the rest of the code uses of it. Its other files are private.
export { bulkUpdateRoutes } from './bulk-update.v2.routes.ts';
export { createBulkUpdateService } from './bulk-update.service.ts';
