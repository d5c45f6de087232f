// The face of the audit module: what the rest of the code uses of it. Its other files are private.
export { type AuditRecord } from './audit.repository.ts';
export { auditRoutes } from './audit.v2.routes.ts';
export { createAuditService } from './audit.service.ts';
export { auditTx, type AuditTxService } from './audit-tx.service.ts';
