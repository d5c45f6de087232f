import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { JobTitlesQuery, JobTitlesResponse } from './job-title.schemas.ts';
import type { JobTitleService } from './job-title.service.ts';

export function jobTitleRoutes(app: HearthApp, services: { jobTitles: JobTitleService }) {
  app.get(
    '/api/v2/job-titles',
    {
      config: { auth: { all: ['organizations:read'] }, read: { paged: true } },
      schema: {
        operationId: 'listJobTitles',
        tags: ['v2'],
        summary: 'List the job titles of the community’s contacts and the prospector contacts',
        description:
          'Each distinct title once (`value`, as stored), of the community’s contacts and of the prospector contacts (shared by every community). `sort=popularity` orders by how many of those records carry it (ties by title ascending), `sort=alphabetical` (default) by the title; `direction` applies to the leading factor (default `desc` for popularity, `asc` for alphabetical). A cursor works only with the sort, direction and `query` that made it.',
        querystring: JobTitlesQuery,
        response: { 200: JobTitlesResponse },
      },
    },
    async (request) => {
      const { page } = listQueryOf(request);
      const { sort, direction, query } = request.query;
      return { success: true as const, ...(await services.jobTitles.list(contextOf(request).communityId, { page, sort, direction, query })) };
    },
  );
}
