// The face of the audit module: what the rest of the code uses of it. Its other files are private.
export { auditEntries, type AuditRecord, recordWrite, recordWrites } from './audit.repository.ts';
export { auditRoutes } from './audit.routes.ts';
export { createAuditService } from './audit.service.ts';
