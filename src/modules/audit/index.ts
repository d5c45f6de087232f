// The face of the audit module: what the rest of the code may use. Everything else here is private.
export { recordWrite } from './audit.repository.ts';
export { auditRoutes } from './audit.routes.ts';
export { createAuditService } from './audit.service.ts';
