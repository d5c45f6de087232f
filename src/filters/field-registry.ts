import type { RawBuilder, SqlBool } from 'kysely';
import { compileExpression, type CompileOptions } from './compile.ts';
import type { FilterField } from './field-kinds.ts';
import { CLAUSE_KINDS, type ClauseKind } from './light-filter.schema.ts';
import { validateExpression, type CheckedGroup, type FilterOptions } from './validate.ts';

/**
 * The filterable fields of every list, looked up by the list's name. Each module defines its list's
 * fields (`*.filters.ts`, built from field-kinds.ts) and whoever knows every list builds the registry from
 * them (modules/filter-fields): nothing in src/filters knows a list, so a list's fields change with its
 * module alone.
 */

/** A list's own filterable fields. */
export interface ListFields {
  /** What the list holds, for messages: `"x" is not a filterable field of contacts`. */
  listName: string;
  /** The list's base table, and the alias the list query must give it: the fields name the row by it. */
  table: string;
  alias: string;
  /** A reference table shared by every community (no `community_id`): its fields name no community. */
  shared?: boolean;
  fields: readonly FilterField[];
}

/** A list's own fields and those the community defines for it; `D` is what the caller looks up of the latter. */
export interface FilterableList<D> extends ListFields {
  /** Fields the community defines for itself (custom fields, lead scores). */
  families?: readonly FieldFamily<D>[];
}

/** Fields the community defines for itself, known by a pattern of names (`cf_<id>`) and the caller's definitions. */
export interface FieldFamily<D> {
  /** The field of that name; null when the name is not of the family or the community has no such field. */
  resolve(name: string, definitions: Partial<D>): FilterField | null;
  /** Every field of the family that the definitions hold, in the order GET /api/v2/filter-fields lists them. */
  all(definitions: Partial<D>): FilterField[];
}

export interface FieldDescription {
  field: string;
  kinds: ClauseKind[];
  ops: string[];
}

/** The list by its name, the community's definitions of its own fields, and whether the engine has pg_trgm. */
export type ListFilterOptions<E, D> = Partial<D> & { entity: E; trigramIndexes?: boolean };

export type ListCompileOptions<E, D> = ListFilterOptions<E, D> & Pick<CompileOptions, 'communityId' | 'now'>;

export function createFilterRegistry<E extends string, D>(lists: Record<E, FilterableList<D>>) {
  const entities = Object.keys(lists) as E[];
  // Maps, so that a name such as `constructor` finds nothing.
  const byName = new Map(entities.map((entity) => [entity, new Map(lists[entity].fields.map((field) => [field.field, field]))]));
  const ownFields = (entity: E): ReadonlyMap<string, FilterField> => byName.get(entity)!;

  /** The field of that name for the list, or null when there is none (an unknown custom field or score). */
  function resolveField(entity: E, name: string, definitions: Partial<D> = {}): FilterField | null {
    const own = ownFields(entity).get(name);
    if (own) return own;
    for (const family of lists[entity].families ?? []) {
      const field = family.resolve(name, definitions);
      if (field) return field;
    }
    return null;
  }

  /**
   * The filterable fields of a list, for GET /api/v2/filter-fields: `[{field, kinds, ops}]`, with the
   * community's own fields when their definitions are given.
   */
  function describeFields(entity: E, definitions: Partial<D> = {}): FieldDescription[] {
    const families = lists[entity].families ?? [];
    return [...ownFields(entity).values(), ...families.flatMap((family) => family.all(definitions))].map(describeField);
  }

  function filterOptions(options: ListFilterOptions<E, D>): FilterOptions {
    return {
      listName: lists[options.entity].listName,
      resolveField: (name) => resolveField(options.entity, name, options),
      trigramIndexes: options.trigramIndexes,
    };
  }

  return {
    /** The lists' names, in the order the registry was given them. */
    entities,
    resolveField,
    describeFields,
    /** validate.ts, for the list of that name. */
    validateLightFilter: (raw: unknown, options: ListFilterOptions<E, D>): CheckedGroup => validateExpression(raw, filterOptions(options)),
    /** compile.ts, for the list of that name. */
    compileLightFilter: (raw: unknown, options: ListCompileOptions<E, D>): RawBuilder<SqlBool> =>
      compileExpression(raw, { ...filterOptions(options), communityId: options.communityId, now: options.now }),
  };
}

/** A field as GET /api/v2/filter-fields lists it: its name, clause kinds and operators. */
export function describeField(field: FilterField): FieldDescription {
  const kinds = CLAUSE_KINDS.filter((kind) => field.ops[kind]);
  return { field: field.field, kinds, ops: [...new Set(kinds.flatMap((kind) => field.ops[kind] ?? []))] };
}
