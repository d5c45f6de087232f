import Type from 'typebox';
import { unknownFieldWarnings } from '../../core/core-bodies.ts';
import { parseCoreId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { coreKey } from './organization-upsert.service.ts';
import type { OrganizationUpsertService } from './organization-upsert.service.ts';
import { CoreUpsertBody, SourceUpsertBody, Upserted } from './organization.schemas.ts';

export function organizationRoutes(app: HearthApp, services: { organizationUpserts: OrganizationUpsertService }) {
  app.post(
    '/community/v1/organizations',
    {
      config: { auth: { all: ['organizations:write'] } },
      schema: {
        operationId: 'upsertCoreOrganization',
        tags: ['core'],
        summary: 'Add or update an organization',
        description:
          'Updates the organization `groupAttributesId` names, else the one with this domain (its registrable domain), ' +
          'else creates it in `destinationSourceId`. `prospectorCompanyId` fills it from the prospector data.',
        body: CoreUpsertBody,
        response: { 200: Upserted },
      },
    },
    async (request) => {
      const body = request.body;
      const result = await services.organizationUpserts.upsert(contextOf(request), {
        ...body,
        sourceId: coreKey('provider', body.destinationSourceId),
        organizationId: coreKey('organization', body.groupAttributesId),
        prospectorCompanyId: coreKey('prospector_company', body.prospectorCompanyId),
      });
      return { ...result, warnings: unknownFieldWarnings(body, Object.keys(CoreUpsertBody.properties)) };
    },
  );

  app.post(
    '/community/v1/source/:sourceId/organization',
    {
      config: { auth: { all: ['organizations:write'] } },
      schema: {
        operationId: 'upsertCoreSourceOrganization',
        tags: ['core'],
        summary: 'Add or update an organization in a source',
        description: 'Updates the organization with this domain, or creates it in the source.',
        params: Type.Object({ sourceId: Type.String() }),
        body: SourceUpsertBody,
        response: { 200: Upserted },
      },
    },
    async (request) => services.organizationUpserts.upsertInSource(contextOf(request), parseCoreId('provider', request.params.sourceId), request.body),
  );
}
