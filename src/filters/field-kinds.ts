import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { ID_PREFIXES, parseKey, type IdEntity } from '../core/ids.ts';
import { subtractDuration, utcDate, type DateBound, type Duration } from './date-values.ts';
import type { BooleanOp, ClauseKind, DateRangeOp, NumberOp, OpOf, StringListOp, StringOp } from './light-filter.schema.ts';

/**
 * The kinds of filterable field (a text column, a number, a time, a set of values, ...), how each reads
 * its values and how it compiles to SQL. Each list builds its own fields from these (the modules'
 * `*.filters.ts`); nothing here knows any list.
 *
 * A compiled clause is a boolean SQL fragment about one row of the list's base table, which the list
 * query names by a fixed alias; the fields name that alias. Values are always parameters, cast to their
 * type; only column names, which come from the fields' definitions, are written into the SQL. Every
 * subquery names `community_id` (the community's ID as a parameter) and reaches its rows through an index
 * that starts with it. Aliases inside subqueries start with `f_`, so they never shadow the base table's.
 */

/** A value of a stringFilter or stringListFilter once read: text, or the key of a prefixed ID. */
export type FilterItem = string | number;

export interface DateRange {
  /** (now − duration, now]. */
  duration: Duration | null;
  /** Inclusive bounds. */
  min: DateBound | null;
  max: DateBound | null;
}

/** A leaf clause after validation: its kind, operator and values, read and checked for its field. */
export type CheckedLeaf =
  | { kind: 'booleanFilter'; op: BooleanOp; value: boolean }
  | { kind: 'stringListFilter'; op: StringListOp; values: FilterItem[] }
  | { kind: 'stringFilter'; op: StringOp; value: FilterItem }
  | { kind: 'numberFilter'; op: NumberOp; value: number }
  | { kind: 'dateRangeFilter'; op: DateRangeOp; range: DateRange };

export interface FilterContext {
  communityId: number;
  now: Date;
  /** The engine has the trigram indexes of migration 0011 (pg_trgm). */
  trigramIndexes?: boolean;
}

export type ItemReader = (value: string) => { value: FilterItem; id?: boolean } | { reason: string; id?: boolean };

export interface FilterField {
  field: string;
  /** The clause kinds the field takes, each with the operators it takes for them. */
  ops: Partial<Record<ClauseKind, readonly string[]>>;
  /** Reads one value of a stringFilter or stringListFilter (a prefixed ID to its key, an allowed value). */
  item: ItemReader;
  /** Its text has a trigram index (migration 0011) where the engine has pg_trgm: `like` reads the index. */
  trigram?: TrigramIndex;
  compile(leaf: CheckedLeaf, ctx: FilterContext): RawBuilder<SqlBool>;
}

// Readers of values -------------------------------------------------------------------------------

const anyText: ItemReader = (value) => ({ value });

export function prefixedId(entity: IdEntity, what: string): ItemReader {
  const prefix = ID_PREFIXES[entity];
  return (value) => {
    const key = value.startsWith(prefix) ? parseKey(value.slice(prefix.length)) : null;
    return key === null ? { reason: `${quote(value)} is not ${what} ID (${prefix}<number>)`, id: true } : { value: key, id: true };
  };
}

export function oneOf(allowed: readonly string[], what: string): ItemReader {
  return (value) => (allowed.includes(value) ? { value } : { reason: `${quote(value)} is not ${what} (one of ${allowed.join(', ')})` });
}

export const quote = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);

// SQL pieces --------------------------------------------------------------------------------------

type Sql = RawBuilder<unknown>;
type ElementType = 'text' | 'bigint';

export const col = (alias: string, column: string) => sql.ref(`${alias}.${column}`);
const param = (value: FilterItem, type: ElementType) => sql`${value}::${sql.raw(type)}`;
const list = (values: FilterItem[], type: ElementType) => sql`${values}::${sql.raw(type)}[]`;
export const instant = (value: Date) => sql`${value.toISOString()}::timestamptz`;

const COMPARE: Record<NumberOp, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

export function numberCompare(expr: Sql, op: NumberOp, value: number): RawBuilder<SqlBool> {
  return sql<SqlBool>`${expr} ${sql.raw(COMPARE[op])} ${value}::numeric`;
}

function textMatch(expr: Sql, op: StringOp, value: FilterItem, type: ElementType): RawBuilder<SqlBool> {
  if (type === 'bigint' || op === 'eq') return sql<SqlBool>`${expr} = ${param(value, type)}`;
  // A case-insensitive substring, in the form a trigram index serves; the value's own % _ and \ are literal.
  if (op === 'like') return sql<SqlBool>`${expr} ilike ${`%${String(value).replace(/[\\%_]/g, '\\$&')}%`}::text`;
  return sql<SqlBool>`starts_with(${expr}, ${value}::text)`;
}

function timeRange(expr: Sql, range: DateRange, ctx: FilterContext): RawBuilder<SqlBool> {
  const parts: RawBuilder<SqlBool>[] = [];
  if (range.duration) {
    parts.push(sql<SqlBool>`${expr} > ${instant(subtractDuration(ctx.now, range.duration))}`);
    parts.push(sql<SqlBool>`${expr} <= ${instant(ctx.now)}`);
  }
  if (range.min) parts.push(sql<SqlBool>`${expr} >= ${range.min.timestamp}::timestamptz`);
  if (range.max) {
    // A date alone covers its whole (UTC) day; 24 hours, not '1 day', which follows the session's time zone.
    parts.push(
      range.max.dateOnly
        ? sql<SqlBool>`${expr} < ${range.max.timestamp}::timestamptz + interval '24 hours'`
        : sql<SqlBool>`${expr} <= ${range.max.timestamp}::timestamptz`,
    );
  }
  return and(parts);
}

/** The same for a date kept as `YYYY-MM-DD` text (custom fields), compared as text. */
export function textDateRange(expr: Sql, range: DateRange, ctx: FilterContext): RawBuilder<SqlBool> {
  const parts: RawBuilder<SqlBool>[] = [];
  if (range.duration) {
    parts.push(sql<SqlBool>`${expr} > ${utcDate(subtractDuration(ctx.now, range.duration))}::text`);
    parts.push(sql<SqlBool>`${expr} <= ${utcDate(ctx.now)}::text`);
  }
  if (range.min) parts.push(sql<SqlBool>`${expr} >= ${range.min.date}::text`);
  if (range.max) parts.push(sql<SqlBool>`${expr} <= ${range.max.date}::text`);
  return and(parts);
}

function and(parts: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return parts.length ? sql<SqlBool>`(${sql.join(parts, sql` and `)})` : sql<SqlBool>`true`;
}

function unexpected(field: string, leaf: CheckedLeaf): never {
  throw new Error(`field ${field} cannot compile ${leaf.kind} ${leaf.op}`);
}

// Field builders ----------------------------------------------------------------------------------

export const TEXT_OPS = { stringFilter: ['eq', 'like', 'startsWith'], stringListFilter: ['any', 'none'] } as const;
const ID_OPS = { stringFilter: ['eq'], stringListFilter: ['any', 'none'] } as const;
export const NUMBER_OPS = { numberFilter: ['eq', 'gt', 'gte', 'lt', 'lte'] } as const;
export const TIME_OPS = { dateRangeFilter: ['in'] } as const;
export const BOOLEAN_OPS = { booleanFilter: ['eq'] } as const;
export const SET_OPS = { stringListFilter: ['any', 'all', 'none'] } as const;

/** A text column with a trigram index: the list's base table, its alias, and the column. */
export interface TrigramIndex {
  table: 'activities';
  alias: string;
  column: string;
}

/** pg_trgm finds a substring by its trigrams: a shorter one has none, and the index cannot help. */
export const MIN_TRIGRAM_LIKE = 3;

export function likeUsesTrigrams(field: FilterField, value: unknown, trigramIndexes: boolean | undefined): boolean {
  return field.trigram !== undefined && trigramIndexes === true && String(value).length >= MIN_TRIGRAM_LIKE;
}

/**
 * `like` on a column with a trigram index, as the set of rows the index finds: the planner would otherwise
 * walk the list's order index and test every row against every clause (it takes a substring search for
 * rare), where each clause's set is one index scan, kept as a hashed subplan.
 */
function trigramLike(index: TrigramIndex, value: FilterItem, ctx: FilterContext): RawBuilder<SqlBool> {
  return sql<SqlBool>`${col(index.alias, 'id')} in (select t.id from ${sql.table(index.table)} t where t.community_id = ${ctx.communityId} and ${textMatch(col('t', index.column), 'like', value, 'text')})`;
}

/** A single-valued column of text (or of IDs): stringFilter, and stringListFilter any/none. */
export function scalarField(
  field: string,
  expr: (ctx: FilterContext) => Sql,
  options: { type?: ElementType; item?: ItemReader; ops?: FilterField['ops']; trigram?: TrigramIndex } = {},
): FilterField {
  const type = options.type ?? 'text';
  const self: FilterField = {
    field,
    ...(options.trigram ? { trigram: options.trigram } : {}),
    ops: options.ops ?? (type === 'bigint' ? ID_OPS : TEXT_OPS),
    item: options.item ?? anyText,
    compile(leaf, ctx) {
      const value = expr(ctx);
      if (leaf.kind === 'stringFilter') {
        if (leaf.op === 'like' && options.trigram && likeUsesTrigrams(self, leaf.value, ctx.trigramIndexes))
          return trigramLike(options.trigram, leaf.value, ctx);
        return textMatch(value, leaf.op, leaf.value, type);
      }
      if (leaf.kind === 'stringListFilter') {
        const isAny = sql<SqlBool>`${value} = any(${list(leaf.values, type)})`;
        // A row without a value has none of them.
        if (leaf.op === 'any') return isAny;
        if (leaf.op === 'none') return sql<SqlBool>`not coalesce(${isAny}, false)`;
      }
      return unexpected(field, leaf);
    },
  };
  return self;
}

/**
 * A field of a single clause kind whose values need no reading (numbers, times, booleans): `compile` is
 * given only leaves of that kind.
 */
export function singleKindField<K extends 'numberFilter' | 'dateRangeFilter' | 'booleanFilter'>(
  field: string,
  kind: K,
  ops: { readonly [P in K]: readonly OpOf<P>[] },
  compile: (leaf: Extract<CheckedLeaf, { kind: K }>, ctx: FilterContext) => RawBuilder<SqlBool>,
): FilterField {
  return {
    field,
    ops,
    item: anyText,
    compile: (leaf, ctx) => (leaf.kind === kind ? compile(leaf as Extract<CheckedLeaf, { kind: K }>, ctx) : unexpected(field, leaf)),
  };
}

export function numberField(field: string, expr: (ctx: FilterContext) => Sql): FilterField {
  return singleKindField(field, 'numberFilter', NUMBER_OPS, (leaf, ctx) => numberCompare(expr(ctx), leaf.op, leaf.value));
}

export function timeField(field: string, expr: Sql): FilterField {
  return singleKindField(field, 'dateRangeFilter', TIME_OPS, (leaf, ctx) => timeRange(expr, leaf.range, ctx));
}

export function booleanField(field: string, expr: Sql): FilterField {
  return singleKindField(field, 'booleanFilter', BOOLEAN_OPS, (leaf) => sql<SqlBool>`${expr} = ${leaf.value}::boolean`);
}

/**
 * A set of values per row (tags, segments, identity types, ...). `member(ctx, match)` is an EXISTS over the
 * row's members where `match(member)` holds. any: some member is one of the values; all: every value is a
 * member (vacuously true for no values); none: no member is one of them. With `text`, a stringFilter
 * matches when some member matches it.
 */
export function setField(
  field: string,
  member: (ctx: FilterContext, match: (value: Sql) => RawBuilder<SqlBool>) => RawBuilder<SqlBool>,
  options: { type: ElementType; item?: ItemReader; ops?: FilterField['ops'] },
): FilterField {
  const { type } = options;
  return {
    field,
    ops: options.ops ?? SET_OPS,
    item: options.item ?? anyText,
    compile(leaf, ctx) {
      if (leaf.kind === 'stringFilter') return member(ctx, (value) => textMatch(value, leaf.op, leaf.value, type));
      if (leaf.kind !== 'stringListFilter') return unexpected(field, leaf);
      const any = () => member(ctx, (value) => sql<SqlBool>`${value} = any(${list(leaf.values, type)})`);
      if (leaf.op === 'any') return any();
      if (leaf.op === 'none') return sql<SqlBool>`not ${any()}`;
      return sql<SqlBool>`not exists (select 1 from unnest(${list(leaf.values, type)}) as f_want(v) where not ${member(
        ctx,
        (value) => sql<SqlBool>`${value} = f_want.v`,
      )})`;
    },
  };
}

/**
 * A text[] column of the row itself whose members match in any case (a company's technologies, a
 * contact's skills). stringListFilter any/all/none compare the lowercased arrays (`&&`, `@>`), which a
 * GIN index on `lower_text_array(column)` (migration 0016) serves; stringFilter matches when some member
 * does (`eq`, `like`, `startsWith`, all in any case).
 */
export function textArrayField(field: string, column: Sql): FilterField {
  const lowered = sql`lower_text_array(${column})`;
  return {
    field,
    ops: { stringListFilter: ['any', 'all', 'none'], stringFilter: ['eq', 'like', 'startsWith'] },
    item: anyText,
    compile(leaf) {
      if (leaf.kind === 'stringListFilter') {
        const wanted = sql`lower_text_array(${list(leaf.values, 'text')})`;
        if (leaf.op === 'any') return sql<SqlBool>`${lowered} && ${wanted}`;
        if (leaf.op === 'all') return sql<SqlBool>`${lowered} @> ${wanted}`;
        return sql<SqlBool>`not (${lowered} && ${wanted})`;
      }
      if (leaf.kind === 'stringFilter') {
        const member = sql.ref('f_m.v');
        const match =
          leaf.op === 'like'
            ? textMatch(member, 'like', leaf.value, 'text')
            : leaf.op === 'eq'
              ? sql<SqlBool>`${member} = lower(${leaf.value}::text)`
              : sql<SqlBool>`starts_with(${member}, lower(${leaf.value}::text))`;
        return sql<SqlBool>`exists (select 1 from unnest(${lowered}) as f_m(v) where ${match})`;
      }
      return unexpected(field, leaf);
    },
  };
}
