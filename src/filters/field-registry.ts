import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { ID_PREFIXES, parseKey, type IdEntity } from '../core/ids.ts';
import { subtractDuration, utcDate, type DateBound, type Duration } from './date-values.ts';
import {
  CLAUSE_KINDS,
  type BooleanOp,
  type ClauseKind,
  type DateRangeOp,
  type NumberOp,
  type StringListOp,
  type StringOp,
} from './light-filter.schema.ts';

/**
 * The filterable fields of each list, and how each compiles to SQL.
 *
 * A compiled clause is a boolean SQL fragment about one row of the entity's base table, which the list
 * query names by a fixed alias (ENTITY_TABLES: contacts `c`, organizations `o`, activities `a`, objects
 * `ob`, website visits `w`). Values are always parameters, cast to their type; only column names, which
 * come from this file, are written into the SQL. Every subquery names `community_id` (the community's ID
 * as a parameter) and reaches its rows through an index that starts with it. Aliases inside subqueries
 * start with `f_`, so they never shadow the base table's.
 */

export type FilterEntity = 'contact' | 'organization' | 'activity' | 'object' | 'website_visit';
export const FILTER_ENTITIES: readonly FilterEntity[] = ['contact', 'organization', 'activity', 'object', 'website_visit'];

export const ENTITY_TABLES: Record<FilterEntity, { table: string; alias: string }> = {
  contact: { table: 'contacts', alias: 'c' },
  organization: { table: 'organizations', alias: 'o' },
  activity: { table: 'activities', alias: 'a' },
  object: { table: 'objects', alias: 'ob' },
  website_visit: { table: 'website_visits', alias: 'w' },
};

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

/** A custom field's definition as the caller looked it up (live fields only). */
export interface CustomFieldFilterDefinition {
  valueType: string;
  entityTypes: readonly string[];
  multivalue?: boolean;
}

/** The fields that depend on the community: its custom fields and lead scores. */
export interface DynamicFields {
  customFields?: ReadonlyMap<number, CustomFieldFilterDefinition>;
  /** IDs of the community's lead score definitions for this entity. */
  leadScores?: ReadonlySet<number>;
}

// Readers of values -------------------------------------------------------------------------------

const anyText: ItemReader = (value) => ({ value });

function prefixedId(entity: IdEntity, what: string): ItemReader {
  const prefix = ID_PREFIXES[entity];
  return (value) => {
    const key = value.startsWith(prefix) ? parseKey(value.slice(prefix.length)) : null;
    return key === null ? { reason: `${quote(value)} is not ${what} ID (${prefix}<number>)`, id: true } : { value: key, id: true };
  };
}

function oneOf(allowed: readonly string[], what: string): ItemReader {
  return (value) =>
    allowed.includes(value) ? { value } : { reason: `${quote(value)} is not ${what} (one of ${allowed.join(', ')})` };
}

export const quote = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);

// SQL pieces --------------------------------------------------------------------------------------

type Sql = RawBuilder<unknown>;
type ElementType = 'text' | 'bigint';

const col = (alias: string, column: string) => sql.ref(`${alias}.${column}`);
const param = (value: FilterItem, type: ElementType) => sql`${value}::${sql.raw(type)}`;
const list = (values: FilterItem[], type: ElementType) => sql`${values}::${sql.raw(type)}[]`;
const instant = (value: Date) => sql`${value.toISOString()}::timestamptz`;

const COMPARE: Record<NumberOp, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

function numberCompare(expr: Sql, op: NumberOp, value: number): RawBuilder<SqlBool> {
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
function dateRange(expr: Sql, range: DateRange, ctx: FilterContext): RawBuilder<SqlBool> {
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

const TEXT_OPS = { stringFilter: ['eq', 'like', 'startsWith'], stringListFilter: ['any', 'none'] } as const;
const ID_OPS = { stringFilter: ['eq'], stringListFilter: ['any', 'none'] } as const;
const NUMBER_OPS = { numberFilter: ['eq', 'gt', 'gte', 'lt', 'lte'] } as const;
const SET_OPS = { stringListFilter: ['any', 'all', 'none'] } as const;

/** A single-valued column of text (or of IDs): stringFilter, and stringListFilter any/none. */
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

function scalarField(
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
        if (leaf.op === 'like' && options.trigram && likeUsesTrigrams(self, leaf.value, ctx.trigramIndexes)) return trigramLike(options.trigram, leaf.value, ctx);
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

function numberField(field: string, expr: (ctx: FilterContext) => Sql): FilterField {
  return {
    field,
    ops: NUMBER_OPS,
    item: anyText,
    compile: (leaf, ctx) => (leaf.kind === 'numberFilter' ? numberCompare(expr(ctx), leaf.op, leaf.value) : unexpected(field, leaf)),
  };
}

function timeField(field: string, expr: Sql): FilterField {
  return {
    field,
    ops: { dateRangeFilter: ['in'] },
    item: anyText,
    compile: (leaf, ctx) => (leaf.kind === 'dateRangeFilter' ? timeRange(expr, leaf.range, ctx) : unexpected(field, leaf)),
  };
}

function booleanField(field: string, expr: Sql): FilterField {
  return {
    field,
    ops: { booleanFilter: ['eq'] },
    item: anyText,
    compile: (leaf) => (leaf.kind === 'booleanFilter' ? sql<SqlBool>`${expr} = ${leaf.value}::boolean` : unexpected(field, leaf)),
  };
}

/**
 * A set of values per row (tags, segments, identity types, ...). `member(ctx, match)` is an EXISTS over the
 * row's members where `match(member)` holds. any: some member is one of the values; all: every value is a
 * member (vacuously true for no values); none: no member is one of them. With `text`, a stringFilter
 * matches when some member matches it.
 */
function setField(
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

// Shared fields -----------------------------------------------------------------------------------

function tagsField(alias: string, entityType: 'contact' | 'organization' | 'activity'): FilterField {
  return setField(
    'tags',
    (ctx, match) => sql<SqlBool>`exists (select 1 from tag_assignments f_ta where f_ta.community_id = ${ctx.communityId}
      and f_ta.entity_type = ${entityType}::text and f_ta.entity_id = ${col(alias, 'id')} and ${match(sql.ref('f_ta.tag_id'))})`,
    { type: 'bigint', item: prefixedId('tag', 'a tag') },
  );
}

function segmentsField(alias: string, entityType: 'contact' | 'organization' | 'object'): FilterField {
  // The segment's entity type is checked: a membership row's entity_id alone does not say what it is.
  return setField(
    'segments',
    (ctx, match) => sql<SqlBool>`exists (select 1 from segment_memberships f_sm
      join segments f_s on f_s.community_id = f_sm.community_id and f_s.id = f_sm.segment_id
      where f_sm.community_id = ${ctx.communityId} and f_sm.entity_id = ${col(alias, 'id')}
      and f_s.entity_type = ${entityType}::text and ${match(sql.ref('f_sm.segment_id'))})`,
    { type: 'bigint', item: prefixedId('segment', 'a segment') },
  );
}

function locationFields(alias: string): FilterField[] {
  return [
    scalarField('location.country', () => col(alias, 'country')),
    scalarField('location.region', () => col(alias, 'region')),
    scalarField('location.city', () => col(alias, 'city')),
  ];
}

// Contacts ----------------------------------------------------------------------------------------

export const IDENTITY_TYPES = ['email', 'github', 'twitter', 'linkedin', 'discord'] as const;

/** Activity-count windows (decisions.md §12): activities with activity_time in (now − window, now]. */
export const ACTIVITY_WINDOWS: Record<string, number> = { '7d': 7, '28d': 28, '8w': 56, '12w': 84, '6m': 182, '1y': 365 };

function activityCountField(window: string, days: number): FilterField {
  // A correlated count over activities_contact_time (community_id, contact_id, activity_time): one index
  // range per contact, never a scan of the community's activities.
  return numberField(
    `activityCount${window}`,
    (ctx) => sql`(select count(*) from activities f_a where f_a.community_id = ${ctx.communityId} and f_a.contact_id = c.id
      and f_a.activity_time > ${instant(new Date(ctx.now.getTime() - days * 86_400_000))} and f_a.activity_time <= ${instant(ctx.now)})`,
  );
}

const CONTACT_FIELDS: FilterField[] = [
  scalarField('name', () => col('c', 'name')),
  scalarField('fullName', () => col('c', 'full_name')),
  scalarField('primaryEmail', () => col('c', 'primary_email')),
  scalarField('title', () => col('c', 'title')),
  scalarField('companyName', () => col('c', 'company_name')),
  tagsField('c', 'contact'),
  segmentsField('c', 'contact'),
  setField(
    'profiles',
    (ctx, match) => sql<SqlBool>`exists (select 1 from contact_identities f_ci where f_ci.community_id = ${ctx.communityId}
      and f_ci.contact_id = c.id and ${match(sql.ref('f_ci.type'))})`,
    { type: 'text', item: oneOf(IDENTITY_TYPES, 'a profile type') },
  ),
  ...locationFields('c'),
  ...Object.entries(ACTIVITY_WINDOWS).map(([window, days]) => activityCountField(window, days)),
  numberField('activityCountAll', () => col('c', 'activity_count_all')),
  timeField('latestActivityTime', col('c', 'latest_activity_at')),
  timeField('firstActivityTime', col('c', 'first_activity_at')),
  setField(
    'providers',
    // A source profile in the source, or an activity from it. The activities are probed per contact through
    // activities_contact_time: `offset 0` keeps PostgreSQL from turning the EXISTS into a hash of every
    // activity of the community from those sources, which it otherwise may prefer.
    (ctx, match) => sql<SqlBool>`(exists (select 1 from source_profiles f_sp where f_sp.community_id = ${ctx.communityId}
      and f_sp.contact_id = c.id and ${match(sql.ref('f_sp.source_id'))})
      or exists (select 1 from activities f_pa where f_pa.community_id = ${ctx.communityId}
      and f_pa.contact_id = c.id and ${match(sql.ref('f_pa.source_id'))} offset 0))`,
    { type: 'bigint', item: prefixedId('provider', 'a provider') },
  ),
  scalarField('organizationId', () => col('c', 'organization_id'), { type: 'bigint', item: prefixedId('organization', 'an organization') }),
];

// Organizations -----------------------------------------------------------------------------------

const ORGANIZATION_FIELDS: FilterField[] = [
  scalarField('name', () => col('o', 'name')),
  scalarField('primaryDomain', () => col('o', 'primary_domain')),
  tagsField('o', 'organization'),
  segmentsField('o', 'organization'),
  numberField('contactsCount', () => col('o', 'member_count')),
  numberField('employees', () => col('o', 'employees')),
  ...locationFields('o'),
];

// Activities --------------------------------------------------------------------------------------

export const SENTIMENTS = ['positive', 'negative', 'neutral'] as const;

const ACTIVITY_FIELDS: FilterField[] = [
  scalarField('type', () => col('a', 'activity_type')),
  scalarField('contactId', () => col('a', 'contact_id'), { type: 'bigint', item: prefixedId('contact', 'a contact') }),
  scalarField('providerId', () => col('a', 'source_id'), { type: 'bigint', item: prefixedId('provider', 'a provider') }),
  setField(
    'subSourceNames',
    (ctx, match) => sql<SqlBool>`exists (select 1 from sub_sources f_ss where f_ss.community_id = ${ctx.communityId}
      and f_ss.id = a.sub_source_id and ${match(sql.ref('f_ss.name'))})`,
    { type: 'text', ops: { ...TEXT_OPS, ...SET_OPS } },
  ),
  scalarField('sentiment', () => col('a', 'sentiment'), {
    item: oneOf(SENTIMENTS, 'a sentiment'),
    ops: { stringFilter: ['eq'], stringListFilter: ['any', 'none'] },
  }),
  timeField('activityTime', col('a', 'activity_time')),
  booleanField('isUserInitiated', col('a', 'is_user_initiated')),
  scalarField('content', () => col('a', 'content'), {
    ops: { stringFilter: TEXT_OPS.stringFilter },
    trigram: { table: 'activities', alias: 'a', column: 'content' },
  }),
  scalarField('title', () => col('a', 'title'), { ops: { stringFilter: TEXT_OPS.stringFilter } }),
  scalarField('url', () => col('a', 'url'), { ops: { stringFilter: TEXT_OPS.stringFilter } }),
  tagsField('a', 'activity'),
];

// Custom objects and website visits ---------------------------------------------------------------

const OBJECT_FIELDS: FilterField[] = [
  scalarField('name', () => col('ob', 'name')),
  scalarField('recordKey', () => col('ob', 'record_key')),
  scalarField('objectTypeId', () => col('ob', 'object_type_id'), { type: 'bigint', item: prefixedId('object_type', 'an object type') }),
  segmentsField('ob', 'object'),
  timeField('createdAt', col('ob', 'created_at')),
  timeField('updatedAt', col('ob', 'updated_at')),
];

const WEBSITE_VISIT_FIELDS: FilterField[] = [
  scalarField('url', () => col('w', 'url'), { ops: { stringFilter: TEXT_OPS.stringFilter } }),
  scalarField('contactId', () => col('w', 'contact_id'), { type: 'bigint', item: prefixedId('contact', 'a contact') }),
  scalarField('organizationId', () => col('w', 'organization_id'), { type: 'bigint', item: prefixedId('organization', 'an organization') }),
  timeField('visitTime', col('w', 'visit_time')),
];

const STATIC_FIELDS: Record<FilterEntity, ReadonlyMap<string, FilterField>> = {
  contact: byName(CONTACT_FIELDS),
  organization: byName(ORGANIZATION_FIELDS),
  activity: byName(ACTIVITY_FIELDS),
  object: byName(OBJECT_FIELDS),
  website_visit: byName(WEBSITE_VISIT_FIELDS),
};

function byName(fields: FilterField[]): ReadonlyMap<string, FilterField> {
  return new Map(fields.map((field) => [field.field, field]));
}

// Custom fields and lead scores -------------------------------------------------------------------

/** Entities with custom fields (custom_field_values.entity_type) and lead scores (lead_scores.entity_type). */
const CUSTOM_FIELD_ENTITIES: Partial<Record<FilterEntity, 'contact' | 'organization' | 'object'>> = {
  contact: 'contact',
  organization: 'organization',
  object: 'object',
};
const LEAD_SCORE_ENTITIES: Partial<Record<FilterEntity, 'contact' | 'organization'>> = { contact: 'contact', organization: 'organization' };

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
      return { dateRangeFilter: ['in'] };
    case 'boolean':
      return { booleanFilter: ['eq'] };
    default:
      return null;
  }
}

function customField(entity: FilterEntity, id: number, definition: CustomFieldFilterDefinition): FilterField | null {
  const entityType = CUSTOM_FIELD_ENTITIES[entity];
  const ops = customFieldOps(definition.valueType);
  if (!entityType || !ops || !definition.entityTypes.includes(entityType)) return null;
  const alias = ENTITY_TABLES[entity].alias;
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
      return {
        field,
        ops,
        item: anyText,
        compile: (leaf, ctx) =>
          leaf.kind === 'numberFilter'
            ? stored(ctx, numberCompare(sql`(case when jsonb_typeof(${value}) = 'number' then (${value} #>> '{}')::numeric end)`, leaf.op, leaf.value))
            : unexpected(field, leaf),
      };
    case 'date':
      return {
        field,
        ops,
        item: anyText,
        compile: (leaf, ctx) =>
          leaf.kind === 'dateRangeFilter'
            ? stored(ctx, sql<SqlBool>`jsonb_typeof(${value}) = 'string' and ${dateRange(sql`(${value} #>> '{}')`, leaf.range, ctx)}`)
            : unexpected(field, leaf),
      };
    case 'boolean':
      return {
        field,
        ops,
        item: anyText,
        compile: (leaf, ctx) =>
          leaf.kind === 'booleanFilter' ? stored(ctx, sql<SqlBool>`${value} = to_jsonb(${leaf.value}::boolean)`) : unexpected(field, leaf),
      };
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

function leadScoreField(entity: FilterEntity, id: number, column: 'score' | 'percentile'): FilterField | null {
  const entityType = LEAD_SCORE_ENTITIES[entity];
  if (!entityType) return null;
  const alias = ENTITY_TABLES[entity].alias;
  const field = column === 'score' ? `ls_${id}` : `ls_${id}.percentile`;
  return {
    field,
    ops: NUMBER_OPS,
    item: anyText,
    // A record without a score of this definition matches no comparison.
    compile: (leaf, ctx) =>
      leaf.kind === 'numberFilter'
        ? sql<SqlBool>`exists (select 1 from lead_scores f_ls where f_ls.community_id = ${ctx.communityId} and f_ls.score_id = ${id}::bigint
            and f_ls.entity_type = ${entityType}::text and f_ls.entity_id = ${col(alias, 'id')}
            and ${numberCompare(sql.ref(`f_ls.${column}`), leaf.op, leaf.value)})`
        : unexpected(field, leaf),
  };
}

// Lookup ------------------------------------------------------------------------------------------

/** The field of that name for the entity, or null when there is none (an unknown custom field or score). */
export function resolveField(entity: FilterEntity, name: string, dynamic: DynamicFields = {}): FilterField | null {
  const known = STATIC_FIELDS[entity].get(name);
  if (known) return known;
  const custom = /^cf_([0-9]{1,16})$/.exec(name);
  if (custom) {
    const id = parseKey(custom[1]!);
    const definition = id === null ? undefined : dynamic.customFields?.get(id);
    return id !== null && definition ? customField(entity, id, definition) : null;
  }
  const score = /^ls_([0-9]{1,16})(\.percentile)?$/.exec(name);
  if (score) {
    const id = parseKey(score[1]!);
    return id !== null && dynamic.leadScores?.has(id) ? leadScoreField(entity, id, score[2] ? 'percentile' : 'score') : null;
  }
  return null;
}

export interface FieldDescription {
  field: string;
  kinds: ClauseKind[];
  ops: string[];
}

/**
 * The filterable fields of an entity, for GET /api/v2/filter-fields: `[{field, kinds, ops}]`, with the
 * community's custom fields and lead scores when they are given.
 */
export function describeFields(entity: FilterEntity, dynamic: DynamicFields = {}): FieldDescription[] {
  const fields = [...STATIC_FIELDS[entity].values()];
  for (const [id, definition] of [...(dynamic.customFields ?? new Map<number, CustomFieldFilterDefinition>())].sort((a, b) => a[0] - b[0])) {
    const field = customField(entity, id, definition);
    if (field) fields.push(field);
  }
  for (const id of [...(dynamic.leadScores ?? [])].sort((a, b) => a - b)) {
    for (const column of ['score', 'percentile'] as const) {
      const field = leadScoreField(entity, id, column);
      if (field) fields.push(field);
    }
  }
  return fields.map(describe);
}

function describe(field: FilterField): FieldDescription {
  const kinds = CLAUSE_KINDS.filter((kind) => field.ops[kind]);
  return { field: field.field, kinds, ops: [...new Set(kinds.flatMap((kind) => field.ops[kind] ?? []))] };
}
