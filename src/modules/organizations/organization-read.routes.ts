import { contextOf, type HearthApp } from '../../http/types.ts';
import type { Services } from '../../services.ts';
import { OrganizationParams, OrganizationQuery, OrganizationResponse, OrganizationsQuery, OrganizationsResponse, RECENT_LIMIT } from './organization.schemas.ts';

export function organizationReadRoutes(app: HearthApp, services: Services) {
  const read = { auth: { all: ['organizations:read' as const] } };

  app.get(
    '/api/v2/organizations',
    {
      config: read,
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
    async (request) => ({ success: true as const, ...(await services.organizations.list(contextOf(request).communityId, request.query)) }),
  );

  app.get(
    '/api/v2/organizations/:id',
    {
      config: read,
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
      data: await services.organizations.get(contextOf(request).communityId, request.params.id, request.query),
    }),
  );
}
