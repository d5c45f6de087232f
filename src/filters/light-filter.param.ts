import type { RawBuilder, SqlBool } from 'kysely';
import Type from 'typebox';
import { describeField, type ListFields } from './field-registry.ts';

/**
 * The `lightFilter` query parameter of a list, documented with the list's own filterable fields so the OpenAPI
 * document publishes them (docs/behaviour.md, lightFilter); the community's own `cf_<id>` and `ls_<id>` fields
 * are only known at GET /api/v2/filter-fields.
 */
export function lightFilterParam(list: ListFields, entity: string, options: { customFields?: boolean; leadScores?: boolean } = {}) {
  const fields = list.fields.map(describeField).map((field) => `\`${field.field}\` (${field.kinds.join(', ')})`);
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

/** A list's `lightFilter`, compiled for its community. */
export interface CompiledFilter {
  /** A boolean SQL fragment about the list's base table row, named by the list's alias. */
  where: RawBuilder<SqlBool>;
  /** The expression as parsed, for the cursor binding. */
  expression: unknown;
}

/**
 * What a list's service needs of the filter service (modules/filter-fields), which alone knows every
 * list: so a list's module does not depend on it.
 */
export interface LightFilters {
  compile(communityId: number, entity: string, raw: string | undefined, now?: Date): Promise<CompiledFilter | null>;
}
