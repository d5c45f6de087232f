import type { components } from './generated/light-filter.ts';
import { FILTER_FIELDS, FILTERED_LISTS } from './generated/lists.ts';

/**
 * Builders of `lightFilter` expressions whose types come from Hearth's own definitions: the clause shapes
 * from the schema in src/filters (generated/light-filter.ts), and each list's fields with the clause kinds
 * and operators each takes from the lists' registry (generated/lists.ts). A field a list cannot filter by,
 * or an operator its field does not take, is a type error, not a 400.
 */

type Schemas = components['schemas'];
export type LightFilterGroup = Schemas['LightFilterGroup'];
export type LeafClause = Schemas['LeafClause'];
export type BooleanFilterClause = Schemas['BooleanFilterClause'];
export type StringListFilterClause = Schemas['StringListFilterClause'];
export type DateRangeFilterClause = Schemas['DateRangeFilterClause'];
export type StringFilterClause = Schemas['StringFilterClause'];
export type NumberFilterClause = Schemas['NumberFilterClause'];
export type ClauseKind = LeafClause['type'];
type ClauseOf<K extends ClauseKind> = Extract<LeafClause, { type: K }>;
type OpOf<K extends ClauseKind> = ClauseOf<K>['params']['op'];

/** The lists' names, as GET /api/v2/filter-fields takes them in `entity`. */
export type FilterEntity = keyof typeof FILTER_FIELDS;
/** The paths of the lists that take a `lightFilter`. */
export type FilteredListPath = keyof typeof FILTERED_LISTS;
/** The entity whose fields a list's `lightFilter` names. */
export type EntityOfList<P extends FilteredListPath> = (typeof FILTERED_LISTS)[P];

type Own<E extends FilterEntity> = (typeof FILTER_FIELDS)[E]['fields'];
type CustomFieldName<E extends FilterEntity> = (typeof FILTER_FIELDS)[E]['customFields'] extends true ? `cf_${number}` : never;
type LeadScoreName<E extends FilterEntity> = (typeof FILTER_FIELDS)[E]['leadScores'] extends true ? `ls_${number}` | `ls_${number}.percentile` : never;

/**
 * The fields of list E that take clause kind K: its own, and the community's custom fields (whose kind
 * depends on their type, so any) and lead scores (numbers).
 */
export type FieldFor<E extends FilterEntity, K extends ClauseKind> =
  | Extract<{ [F in keyof Own<E>]: K extends keyof Own<E>[F] ? F : never }[keyof Own<E>], string>
  | CustomFieldName<E>
  | (K extends 'numberFilter' ? LeadScoreName<E> : never);

/** The operators field F of list E takes in a clause of kind K. */
export type OpFor<E extends FilterEntity, K extends ClauseKind, F> = F extends keyof Own<E>
  ? K extends keyof Own<E>[F]
    ? Own<E>[F][K] extends readonly (infer Op)[]
      ? Op & OpOf<K>
      : never
    : never
  : OpOf<K>;

declare const entityOf: unique symbol;
/** A clause or group built for list E: one built for another list does not fit in E's groups. */
export type ForEntity<T, E extends FilterEntity> = T & { readonly [entityOf]?: E };
export type FilterClause<E extends FilterEntity> = ForEntity<LeafClause, E>;
export type FilterGroup<E extends FilterEntity> = ForEntity<LightFilterGroup, E>;

export interface DateRange {
  /** An ISO 8601 duration back from now (`P7D`, `PT12H`): (now − duration, now]. */
  value?: string | null;
  /** Inclusive lower bound: `YYYY-MM-DD` or an ISO 8601 date-time. */
  min?: string | null;
  /** Inclusive upper bound: `YYYY-MM-DD` or an ISO 8601 date-time. */
  max?: string | null;
}

export interface FilterBuilder<E extends FilterEntity> {
  readonly entity: E;
  /** Every clause matches. */
  and(...clauses: (FilterClause<E> | FilterGroup<E>)[]): FilterGroup<E>;
  /** Any clause matches. */
  or(...clauses: (FilterClause<E> | FilterGroup<E>)[]): FilterGroup<E>;
  /** `eq` exactly, `like` a case-insensitive substring, `startsWith` a prefix. */
  string<F extends FieldFor<E, 'stringFilter'>>(field: F, op: OpFor<E, 'stringFilter', F>, value: string): FilterClause<E>;
  /** The field holds `any`, `all` or `none` of the values (tags `l_N`, segments `s_N`, …). */
  stringList<F extends FieldFor<E, 'stringListFilter'>>(field: F, op: OpFor<E, 'stringListFilter', F>, values: readonly string[]): FilterClause<E>;
  number<F extends FieldFor<E, 'numberFilter'>>(field: F, op: OpFor<E, 'numberFilter', F>, value: number): FilterClause<E>;
  boolean<F extends FieldFor<E, 'booleanFilter'>>(field: F, value: boolean): FilterClause<E>;
  /** In a range: a duration back from now (`'P7D'`, or `{value: 'P7D'}`), or `{min, max}` (both inclusive). */
  dateRange<F extends FieldFor<E, 'dateRangeFilter'>>(field: F, range: string | DateRange): FilterClause<E>;
}

const group =
  <E extends FilterEntity>(type: 'and' | 'or') =>
  (...clauses: (FilterClause<E> | FilterGroup<E>)[]): FilterGroup<E> => {
    if (clauses.length === 0) throw new TypeError(`an "${type}" group needs at least one clause`);
    return { type, clauses };
  };

/** The builders of list `entity`'s filters: `lightFilter('contact').and(…)`. */
export function lightFilter<E extends FilterEntity>(entity: E): FilterBuilder<E> {
  if (!Object.hasOwn(FILTER_FIELDS, entity))
    throw new TypeError(`${JSON.stringify(entity)} is not a filterable list (one of ${Object.keys(FILTER_FIELDS).join(', ')})`);
  return {
    entity,
    and: group<E>('and'),
    or: group<E>('or'),
    string: (field, op, value) => ({ type: 'stringFilter', field, params: { op, value } }) as StringFilterClause,
    stringList: (field, op, values) => ({ type: 'stringListFilter', field, params: { op, value: [...values] } }) as StringListFilterClause,
    number: (field, op, value) => ({ type: 'numberFilter', field, params: { op, value } }) as NumberFilterClause,
    boolean: (field, value) => ({ type: 'booleanFilter', field, params: { op: 'eq', value } }),
    dateRange: (field, range) => ({ type: 'dateRangeFilter', field, params: { op: 'in', ...(typeof range === 'string' ? { value: range } : range) } }),
  };
}

/** The builders of the filters of the list at `path`: `lightFilterFor('/api/v2/contacts')`. */
export function lightFilterFor<P extends FilteredListPath>(path: P): FilterBuilder<EntityOfList<P>> {
  const entity = FILTERED_LISTS[path] as EntityOfList<P> | undefined;
  if (!entity) throw new TypeError(`${path} takes no lightFilter`);
  return lightFilter(entity);
}

/** The `lightFilter` query parameter's value (the client URL-encodes it). */
export function encodeLightFilter(expression: LightFilterGroup): string {
  return JSON.stringify(expression);
}
