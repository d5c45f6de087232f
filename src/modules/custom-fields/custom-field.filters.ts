import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { parseKey } from '../../core/ids.ts';
import {
  BOOLEAN_OPS,
  col,
  NUMBER_OPS,
  numberCompare,
  SET_OPS,
  setField,
  singleKindField,
  TEXT_OPS,
  textDateRange,
  TIME_OPS,
  type FilterContext,
  type FilterField,
} from '../../filters/field-kinds.ts';
import type { FieldFamily } from '../../filters/field-registry.ts';
import type { CustomFieldEntity } from './custom-field.repository.ts';

/** A custom field's definition as the caller looked it up (live fields only). */
export interface CustomFieldFilterDefinition {
  valueType: string;
  entityTypes: readonly string[];
  multivalue?: boolean;
}

export interface CustomFieldDefinitions {
  customFields: ReadonlyMap<number, CustomFieldFilterDefinition>;
}

/** The clause kinds of a custom field by its value type; null: not filterable. */
export function customFieldOps(valueType: string): FilterField['ops'] | null {
  switch (valueType) {
    case 'string':
    case 'url':
    case 'enum':
      return { stringFilter: TEXT_OPS.stringFilter, stringListFilter: SET_OPS.stringListFilter };
    case 'int':
    case 'number':
      return NUMBER_OPS;
    case 'date':
      return TIME_OPS;
    case 'boolean':
      return BOOLEAN_OPS;
    default:
      return null;
  }
}

/** `cf_<id>`: the custom fields of a list's records (custom_field_values.entity_type), whose base table has that alias. */
export function customFieldFamily(entityType: CustomFieldEntity, alias: string): FieldFamily<CustomFieldDefinitions> {
  return {
    resolve(name, { customFields }) {
      const custom = /^cf_([0-9]{1,16})$/.exec(name);
      if (!custom) return null;
      const id = parseKey(custom[1]!);
      const definition = id === null ? undefined : customFields?.get(id);
      return id !== null && definition ? customField(entityType, alias, id, definition) : null;
    },
    all({ customFields }) {
      const byId = [...(customFields ?? new Map<number, CustomFieldFilterDefinition>())].sort((a, b) => a[0] - b[0]);
      return byId.flatMap(([id, definition]) => customField(entityType, alias, id, definition) ?? []);
    },
  };
}

function customField(entityType: CustomFieldEntity, alias: string, id: number, definition: CustomFieldFilterDefinition): FilterField | null {
  const ops = customFieldOps(definition.valueType);
  if (!ops || !definition.entityTypes.includes(entityType)) return null;
  // Values are stored as {type, value}; the value's JSON type is checked before it is read, so a value
  // of another type (never written, but possible after a definition changed) is no match, not an error.
  const stored = (ctx: FilterContext, condition: RawBuilder<SqlBool>) => sql<SqlBool>`exists (select 1 from custom_field_values f_cf
    where f_cf.community_id = ${ctx.communityId} and f_cf.entity_type = ${entityType}::text
    and f_cf.entity_id = ${col(alias, 'id')} and f_cf.custom_field_id = ${id}::bigint and ${condition})`;
  const value = sql`f_cf.value -> 'value'`;
  const field = `cf_${id}`;
  switch (definition.valueType) {
    case 'int':
    case 'number':
      return singleKindField(field, 'numberFilter', NUMBER_OPS, (leaf, ctx) =>
        stored(ctx, numberCompare(sql`(case when jsonb_typeof(${value}) = 'number' then (${value} #>> '{}')::numeric end)`, leaf.op, leaf.value)),
      );
    case 'date':
      return singleKindField(field, 'dateRangeFilter', TIME_OPS, (leaf, ctx) =>
        stored(ctx, sql<SqlBool>`jsonb_typeof(${value}) = 'string' and ${textDateRange(sql`(${value} #>> '{}')`, leaf.range, ctx)}`),
      );
    case 'boolean':
      return singleKindField(field, 'booleanFilter', BOOLEAN_OPS, (leaf, ctx) => stored(ctx, sql<SqlBool>`${value} = to_jsonb(${leaf.value}::boolean)`));
    default:
      // Text: one value, or several (multi-select enums); each is a member.
      return setField(
        field,
        (ctx, match) =>
          stored(
            ctx,
            sql<SqlBool>`exists (select 1 from jsonb_array_elements_text(case jsonb_typeof(${value}) when 'array' then ${value}
              else jsonb_build_array(${value}) end) as f_cfe(v) where ${match(sql.ref('f_cfe.v'))})`,
          ),
        { type: 'text', ops },
      );
  }
}
