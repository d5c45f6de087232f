import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { JobParams, JobResponse, JobsPage, JobsQuery } from './jobs.schemas.ts';
import type { JobAdminService } from './jobs.service.ts';

export function jobRoutes(app: HearthApp, services: { jobAdmin: JobAdminService }) {
  app.get(
    '/api/v2/admin/jobs',
    {
      config: { auth: { all: ['admin'] }, read: { paged: true } },
      schema: {
        operationId: 'listJobs',
        tags: ['admin'],
        summary: 'List background jobs',
        description:
          "The community's background jobs (imports, erasures, recomputes, feed fetches, insights runs), newest first, " +
          'with their progress, result or error: what `hearth jobs` shows. Filter by `status` and `kind`.',
        querystring: JobsQuery,
        response: { 200: JobsPage },
      },
    },
    async (request) => {
      const { status, kind } = request.query;
      return { success: true as const, ...(await services.jobAdmin.page(contextOf(request).communityId, { status, kind }, listQueryOf(request).page)) };
    },
  );

  app.get(
    '/api/v2/admin/jobs/:id',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'getJob',
        tags: ['admin'],
        summary: 'Get a background job',
        description: 'One job of the community: its payload, progress, result or last error, attempts and times (`hearth jobs show ID`).',
        params: JobParams,
        response: { 200: JobResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.jobAdmin.get(contextOf(request).communityId, request.params.id) }),
  );
}
