import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  ImportAnswer,
  JOB_OPENING_LIST_COLS,
  JobOpeningImportBody,
  JobOpeningPage,
  JobOpeningsQuery,
  NEWS_LIST_COLS,
  NewsImportBody,
  NewsPage,
  NewsQuery,
} from './company-update.schemas.ts';
import type { CompanyUpdateService } from './company-update.service.ts';

export function companyUpdateRoutes(app: HearthApp, services: { companyUpdates: CompanyUpdateService }) {
  app.get(
    '/api/v2/job-openings',
    {
      config: { auth: { all: ['organizations:read'] }, read: { paged: true, cols: JOB_OPENING_LIST_COLS } },
      schema: {
        operationId: 'listJobOpenings',
        tags: ['v2'],
        summary: 'List the job openings of an organization or a custom object',
        description: 'Exactly one of `organizationId` and `objectId`. By `firstSeenAt` (ties by ID), newest first unless `direction=asc`.',
        querystring: JobOpeningsQuery,
        response: { 200: JobOpeningPage },
      },
    },
    async (request) => {
      const { organizationId, objectId, direction, lightFilter } = request.query;
      const query = { ...listQueryOf(request), parent: { organizationId, objectId }, direction, lightFilter };
      return { success: true as const, ...(await services.companyUpdates.listJobOpenings(contextOf(request).communityId, query)) };
    },
  );

  app.get(
    '/api/v2/news',
    {
      config: { auth: { all: ['organizations:read'] }, read: { paged: true, cols: NEWS_LIST_COLS } },
      schema: {
        operationId: 'listNews',
        tags: ['v2'],
        summary: 'List the news items of an organization or a custom object',
        description: 'Exactly one of `organizationId` and `objectId`. By `publishedAt` (ties by ID), newest first unless `direction=asc`.',
        querystring: NewsQuery,
        response: { 200: NewsPage },
      },
    },
    async (request) => {
      const { organizationId, objectId, direction, lightFilter } = request.query;
      const query = { ...listQueryOf(request), parent: { organizationId, objectId }, direction, lightFilter };
      return { success: true as const, ...(await services.companyUpdates.listNews(contextOf(request).communityId, query)) };
    },
  );

  app.post(
    '/api/v2/admin/job-openings',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'importJobOpenings',
        tags: ['admin'],
        summary: 'Add or update job openings of organizations and custom objects',
        description:
          'Up to 10,000 openings; one with the key (default: its url, else its title and location) of one its parent has updates it. All or nothing: a 400 names every fault.',
        body: JobOpeningImportBody,
        response: { 200: ImportAnswer },
      },
    },
    async (request) => ({ success: true as const, data: await services.companyUpdates.importJobOpenings(contextOf(request), request.body.jobOpenings) }),
  );

  app.post(
    '/api/v2/admin/news',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'importNews',
        tags: ['admin'],
        summary: 'Add or update news items of organizations and custom objects',
        description:
          'Up to 10,000 items; one with the key (default: its url, else its time and title) of one its parent has updates it. All or nothing: a 400 names every fault.',
        body: NewsImportBody,
        response: { 200: ImportAnswer },
      },
    },
    async (request) => ({ success: true as const, data: await services.companyUpdates.importNews(contextOf(request), request.body.news) }),
  );
}
