import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { IndustriesQuery, IndustriesResponse } from './industry.schemas.ts';
import type { IndustryService } from './industry.service.ts';

export function industryRoutes(app: HearthApp, services: { industries: IndustryService }) {
  app.get(
    '/api/v2/industries',
    {
      config: { auth: { all: ['organizations:read'] }, read: { paged: true } },
      schema: {
        operationId: 'listIndustries',
        tags: ['v2'],
        summary: 'List industry codes (NAICS 2022)',
        description: 'Every NAICS 2022 code, sector to national industry, each under its parent (the digits in text order).',
        querystring: IndustriesQuery,
        response: { 200: IndustriesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await services.industries.list(contextOf(request).communityId, { page: listQueryOf(request).page, query: request.query.query })),
    }),
  );
}
