import Type from 'typebox';
import { CLAUSE_KINDS } from '../../filters/light-filter.schema.ts';
import { v2Definitions } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import type { FilterService } from './filter.service.ts';
import { FILTER_ENTITIES } from './entity-filters.ts';

const FilterField = Type.Object({
  field: Type.String({ description: 'The name a clause gives as `field`; `cf_<id>` a custom field, `ls_<id>` a lead score.' }),
  kinds: Type.Array(Type.Enum([...CLAUSE_KINDS]), { description: 'Clause kinds (`type`) the field takes.' }),
  ops: Type.Array(Type.String(), { description: 'Operators (`params.op`) it takes, over all its kinds.' }),
});

export function filterFieldRoutes(app: HearthApp, services: { filters: FilterService }) {
  app.get(
    '/api/v2/filter-fields',
    {
      // Field names are no secret of any one list: any read scope may ask.
      config: { auth: { any: ['contacts:read', 'organizations:read', 'activities:read', 'objects:read', 'prospector:read'] } },
      schema: {
        operationId: 'listFilterFields',
        tags: ['v2'],
        summary: 'Filterable fields of a list',
        description:
          'The fields a `lightFilter` of that list may name, with the clause kinds and operators each takes; the ' +
          "community's custom fields and lead scores included.",
        querystring: Type.Object({ entity: Type.String({ description: `One of ${FILTER_ENTITIES.join(', ')}.` }) }, { additionalProperties: false }),
        response: { 200: v2Definitions(FilterField) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.filters.describe(contextOf(request).communityId, request.query.entity),
    }),
  );
}
