import { parseOptionalId } from '../../core/ids.ts';
import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { WEBSITE_VISIT_LIST_COLS, WebsiteVisitPage, WebsiteVisitsQuery } from './website-visit.schemas.ts';
import type { WebsiteVisitService } from './website-visit.service.ts';

export function websiteVisitRoutes(app: HearthApp, services: { websiteVisits: WebsiteVisitService }) {
  app.get(
    '/api/v2/website-visits',
    {
      config: { auth: { all: ['contacts:read'] }, read: { paged: true, cols: WEBSITE_VISIT_LIST_COLS } },
      schema: {
        operationId: 'listWebsiteVisits',
        tags: ['v2'],
        summary: 'List website visits',
        description:
          "Keyset paged in ID order. `contactId` and `organizationId` keep one contact's or organization's visits; " +
          '`cols` adds `url`, `contactId`, `organizationId` and `recordCount`.',
        querystring: WebsiteVisitsQuery,
        response: { 200: WebsiteVisitPage },
      },
    },
    async (request) => {
      const { contactId, organizationId, lightFilter } = request.query;
      const query = {
        ...listQueryOf(request),
        contactId: parseOptionalId('contact', contactId),
        organizationId: parseOptionalId('organization', organizationId),
        lightFilter,
      };
      return { success: true as const, ...(await services.websiteVisits.list(contextOf(request).communityId, query)) };
    },
  );
}
