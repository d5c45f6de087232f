import Type from 'typebox';
import { describeFields, type FilterEntity } from './entity-filters.ts';

/**
 * The `lightFilter` query parameter of a list, documented with the list's static filterable fields so the
 * OpenAPI document publishes them (decisions.md §9); the community's own `cf_<id>` and `ls_<id>` fields are
 * only known at GET /api/v2/filter-fields.
 */
export function lightFilterParam(entity: FilterEntity, options: { customFields?: boolean; leadScores?: boolean } = {}) {
  const fields = describeFields(entity).map((field) => `\`${field.field}\` (${field.kinds.join(', ')})`);
  if (options.customFields) fields.push('`cf_<id>` (a custom field)');
  if (options.leadScores) fields.push('`ls_<id>` and `ls_<id>.percentile` (a lead score; numberFilter)');
  return Type.Optional(
    Type.String({
      description:
        `URL-encoded JSON filter expression ({type: and|or, clauses}). Fields: ${fields.join('; ')}. ` +
        `GET /api/v2/filter-fields?entity=${entity} lists them with their operators. A bad expression is a 400 naming its JSON path.`,
    }),
  );
}
