import { getQueryOf, sortedListQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  GET_COLS,
  LIST_COLS,
  OrganizationParams,
  OrganizationQuery,
  OrganizationResponse,
  OrganizationsQuery,
  OrganizationsResponse,
  RECENT_LIMIT,
  SORTS,
} from './organization.schemas.ts';
import type { OrganizationReadService } from './organization-read.service.ts';

export function organizationReadRoutes(app: HearthApp, services: { organizations: OrganizationReadService }) {
  const auth = { all: ['organizations:read' as const] };

  app.get(
    '/api/v2/organizations',
    {
      config: { auth, read: { paged: true, cols: LIST_COLS, sort: SORTS } },
      schema: {
        operationId: 'listOrganizations',
        tags: ['v2'],
        summary: 'List organizations',
        description:
          'Keyset pages of the organizations, by `sort` (default `id`) then ID. `name` and `primaryDomain` are exact ' +
          'matches; `lightFilter` narrows further. Always returned: `id`, `name`, `primaryDomain`; `cols` adds the ' +
          `others (\`recentJobOpenings\`, \`recentNews\` and \`topContacts\` hold at most ${RECENT_LIMIT} each). ` +
          'A cursor works only with the sort, direction and filters that made it.',
        querystring: OrganizationsQuery,
        response: { 200: OrganizationsResponse },
      },
    },
    async (request) => {
      const { name, primaryDomain, lightFilter } = request.query;
      const query = { ...sortedListQueryOf(request), name, primaryDomain, lightFilter };
      return { success: true as const, ...(await services.organizations.list(contextOf(request).communityId, query)) };
    },
  );

  app.get(
    '/api/v2/organizations/:id',
    {
      config: { auth, read: { id: 'organization', cols: GET_COLS } },
      schema: {
        operationId: 'getOrganization',
        tags: ['v2'],
        summary: 'Get an organization',
        description: 'Always returned: `id`, `name`, `primaryDomain`; `cols` adds the others.',
        params: OrganizationParams,
        querystring: OrganizationQuery,
        response: { 200: OrganizationResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.organizations.get(contextOf(request).communityId, getQueryOf(request)),
    }),
  );
}
