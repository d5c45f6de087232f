import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { AuditLogPage, AuditLogQuery } from './audit.schemas.ts';
import type { AuditService } from './audit.service.ts';

export function auditRoutes(app: HearthApp, services: { audit: AuditService }) {
  app.get(
    '/api/v2/admin/audit-log',
    {
      config: { auth: { all: ['admin'] }, read: { paged: true } },
      schema: {
        operationId: 'listAuditLog',
        tags: ['admin'],
        summary: 'List the audit log',
        description:
          'Every write through the API or the CLI, newest first: who (actor and token), what (operation and the IDs ' +
          'touched), when. Recorded in the same transaction as the write, so a write that failed left no entry. ' +
          'Background jobs record their own writes as `job:<id>`.',
        querystring: AuditLogQuery,
        response: { 200: AuditLogPage },
      },
    },
    async (request) => {
      const { limit: _limit, cursor: _cursor, ...filters } = request.query;
      return { success: true as const, ...(await services.audit.page(contextOf(request).communityId, filters, listQueryOf(request).page)) };
    },
  );
}
