import Type from 'typebox';
import { sourceIdFromPath, unknownFieldWarnings } from '../../http/core-bodies.ts';
import { Nullable } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { coreKey } from './organization-upsert.service.ts';
import type { OrganizationUpsertService } from './organization-upsert.service.ts';

const Id = Type.Union([Type.Integer(), Type.String({ minLength: 1 })]);
const CustomFields = Type.Optional(
  Nullable(
    Type.Array(
      Type.Object({
        customFieldId: Id,
        customFieldValue: Type.Optional(Nullable(Type.Object({ type: Type.Optional(Type.String()), value: Type.Optional(Type.Unknown()) }))),
      }),
      { description: 'Single values, or arrays for multi-select fields; a missing value clears the field' },
    ),
  ),
);
const TagIds = Type.Optional(Nullable(Type.Array(Id, { description: 'Tag IDs (l_N) that allow organizations (company)' })));

const UpsertBody = Type.Object({
  domain: Type.Optional(Nullable(Type.String())),
  destinationSourceId: Type.Optional(Nullable(Id)),
  groupAttributesId: Type.Optional(Nullable(Id)),
  prospectorCompanyId: Type.Optional(Nullable(Id)),
  customFields: CustomFields,
  tagIdsToAdd: TagIds,
  tagIdsToRemove: TagIds,
});

export const SourceUpsertBody = Type.Object({
  sourceId: Type.Optional(Id),
  domain: Type.String({ minLength: 1 }),
  customFields: CustomFields,
  tagIdsToAdd: TagIds,
  tagIdsToRemove: TagIds,
});

const Upserted = Type.Object({
  status: Type.Literal('success'),
  organizationId: Type.String({ description: 'o_N' }),
  created: Type.Boolean(),
  warnings: Type.Array(Type.String(), { description: 'Unknown body fields that were ignored' }),
});

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
        body: UpsertBody,
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
      return { ...result, warnings: unknownFieldWarnings(body, Object.keys(UpsertBody.properties)) };
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
    async (request) => {
      const body = request.body;
      const sourceId = sourceIdFromPath(request.params.sourceId, body.sourceId, 'sourceId');
      const result = await services.organizationUpserts.upsert(contextOf(request), { ...body, sourceId });
      return { ...result, warnings: unknownFieldWarnings(body, Object.keys(SourceUpsertBody.properties)) };
    },
  );
}
