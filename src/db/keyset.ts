import { sql, type CompiledQuery, type Expression, type QueryResult, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { invalidCursor, type CursorPosition } from '../core/cursor.ts';
import { reusableStatement, type StatementValues } from './reusable-statements.ts';

/** One sort key of a list. The record's ID is always appended as the final tie-breaker. */
export interface SortKey {
  expr: Expression<unknown>;
  /** Null values sort last in both directions. */
  nullable?: boolean;
}

export interface KeysetRequest {
  keys: SortKey[];
  /** The ID column, unique within the list. */
  id: Expression<unknown>;
  direction: 'asc' | 'desc';
  limit: number;
  /** Position of the last record of the previous page; null for the first page. */
  after: CursorPosition | null;
}

export interface KeysetPage<Row> {
  rows: Row[];
  /** Position of the last row, when another row follows it; otherwise null. */
  next: CursorPosition | null;
  /** Position of the last row, whether or not another follows; null for an empty page. */
  last: CursorPosition | null;
}

/**
 * A list's base query built from named values, so that its pages' statements are compiled once per shape
 * (db/reusable-statements.ts) instead of being built again for every request. `shape` names everything
 * the base query's text depends on besides those values (null: build it every time, as for a filter that
 * carries values of its own); the page adds its sort, direction and position.
 */
export interface ListSource<O, V extends StatementValues = StatementValues> {
  db: { executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> };
  shape: string | null;
  values: V;
  // Repositories build their fully typed builder; only its output type matters here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  build(values: V): SelectQueryBuilder<any, any, O>;
}

/** What a page is read from: a built query, or a source that builds it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PageQuery<O> = SelectQueryBuilder<any, any, O> | ListSource<O>;

function isSource<O>(query: PageQuery<O>): query is ListSource<O> {
  return 'build' in query && 'values' in query;
}

/** The query narrowed by `refine`; a source's shape gains `suffix`, which must name the refinement. */
function refined<O>(query: PageQuery<O>, suffix: string, refine: (query: AnySelect) => AnySelect): PageQuery<O> {
  if (!isSource(query)) return refine(query);
  const { shape, build } = query;
  return { ...query, shape: shape === null ? null : `${shape}|${suffix}`, build: (values) => refine(build(values)) };
}

/**
 * Keyset (seek) paging: the page starts strictly after the previous page's last position, so page 10,000
 * costs what page 1 costs, and rows inserted meanwhile are neither skipped nor repeated. It selects the sort
 * values as `_k0`, `_k1`, ... (left on the rows) to build the next position, and fetches one row more than asked to know
 * whether another page follows. Positions hold the values as PostgreSQL prints them (text): exact for
 * microsecond timestamps and numerics, which a JavaScript Date or number would round. A source's shape
 * must name its sort keys (the list's sort), as they are not values.
 */
export async function keysetPage<O>(query: PageQuery<O>, request: KeysetRequest): Promise<KeysetPage<O>> {
  const keys: SortKey[] = [...request.keys, { expr: request.id }];
  // Only a cursor signed by this service gets here, but one from a version with other sort keys might.
  if (request.after && request.after.length !== keys.length) throw invalidCursor('cursor does not fit this list; start again without it');
  if (request.keys[0]?.nullable) return nullsLastPage(query, request);
  const direction = sql.raw(request.direction);
  const statement = (base: AnySelect, position: CursorPosition | null, fetch: number) => {
    let builder = base;
    keys.forEach((key, index) => {
      builder = builder.select(sql`(${key.expr})::text`.as(`_k${index}`));
    });
    if (position) builder = builder.where(after(keys, position, request.direction === 'asc' ? '>' : '<'));
    for (const key of keys) {
      builder = builder.orderBy(key.nullable ? sql`${key.expr} ${direction} nulls last` : sql`${key.expr} ${direction}`);
    }
    return builder.limit(fetch);
  };
  let found: Record<string, unknown>[];
  if (!isSource(query)) found = await statement(query, request.after, request.limit + 1).execute();
  else if (query.shape === null) found = await statement(query.build(query.values), request.after, request.limit + 1).execute();
  else {
    const values = { ...query.values, _after: request.after, _fetch: request.limit + 1 };
    const compiled = reusableStatement(`${query.shape}|keyset ${request.direction} ${keys.length}`, values, (given) =>
      statement(query.build(given), given._after, given._fetch),
    );
    found = (await query.db.executeQuery(compiled)).rows as Record<string, unknown>[];
  }
  const more = found.length > request.limit;
  // The `_k` columns stay on the rows: every caller reads its own fields, and stripping them (a copy and a
  // delete per row) cost a measurable share of a list request.
  const rows = found.slice(0, request.limit) as O[];
  const lastRow = found[Math.min(found.length, request.limit) - 1];
  const last = lastRow ? keys.map((_, index) => (lastRow[`_k${index}`] as string | null) ?? null) : null;
  return { rows, next: more ? last : null, last };
}

/**
 * A page whose first sort key may be null: the rows with a value, in order, then the rows without one (in
 * the order of the other keys), as two reads. Each is a seek on an index of the keys (`k0 is not null and
 * (k0, …, id) > (…)`, then `k0 is null and (…, id) > (…)`), where the one comparison `… or k0 is null` can
 * only be a scan from the first row of the list: every page cost what the pages before it held (the last
 * page of 5,000 contacts by latest activity read all 5,000). Positions are the same as the one comparison's:
 * a null first value for the rows without one.
 */
async function nullsLastPage<O>(query: PageQuery<O>, request: KeysetRequest): Promise<KeysetPage<O>> {
  const [first, ...rest] = request.keys as [SortKey, ...SortKey[]];
  const { after, limit } = request;
  const inNulls = after !== null && after[0] === null;
  let valued: KeysetPage<O> = { rows: [], next: null, last: null };
  if (!inNulls) {
    const withValue = refined(query, 'valued', (base) => base.where(sql<SqlBool>`${first.expr} is not null`));
    valued = await keysetPage(withValue, { ...request, keys: [{ expr: first.expr }, ...rest] });
    if (valued.next) return valued;
  }
  const nulls = refined(query, 'null', (base) => base.where(sql<SqlBool>`${first.expr} is null`));
  const remaining = limit - valued.rows.length;
  if (remaining === 0) {
    // The page is full of rows with a value: another page follows if any row has none.
    const more = await keysetPage(nulls, { ...request, keys: rest, limit: 1, after: null });
    return { rows: valued.rows, next: more.rows.length ? valued.last : null, last: valued.last };
  }
  const missing = await keysetPage(nulls, { ...request, keys: rest, limit: remaining, after: inNulls ? after.slice(1) : null });
  const position = (page: KeysetPage<O>) => (page.last ? [null, ...page.last] : null);
  return {
    rows: [...valued.rows, ...missing.rows],
    next: missing.next ? position(missing) : null,
    last: position(missing) ?? valued.last,
  };
}

/**
 * The rows after `position` in sort order. Without nullable keys this is one row comparison,
 * `(k0, k1, id) > ($1, $2, $3)`, which an index on the same columns answers directly. A nullable key
 * expands into the equivalent OR form with nulls placed last.
 */
function after(keys: SortKey[], position: CursorPosition, op: '>' | '<'): RawBuilder<SqlBool> {
  const compare = sql.raw(op);
  if (!keys.some((key) => key.nullable) && !position.includes(null)) {
    const columns = sql.join(keys.map((key) => key.expr));
    const values = sql.join(position.map((value) => sql`${value}`));
    return sql<SqlBool>`(${columns}) ${compare} (${values})`;
  }
  const from = (index: number): RawBuilder<SqlBool> => {
    const key = keys[index]!;
    const value = position[index] ?? null;
    if (index === keys.length - 1) return sql<SqlBool>`${key.expr} ${compare} ${value}`;
    const rest = from(index + 1);
    if (value === null) return sql<SqlBool>`(${key.expr} is null and ${rest})`;
    const greater = sql<SqlBool>`${key.expr} ${compare} ${value} or (${key.expr} = ${value} and ${rest})`;
    return key.nullable ? sql<SqlBool>`(${greater} or ${key.expr} is null)` : sql<SqlBool>`(${greater})`;
  };
  return from(0);
}

/**
 * A sort on a value kept in a side table that not every record has a row in (a lead score, a custom field
 * value). Sorting the list by a correlated subquery would compute the value for every record of the
 * community on every page; instead the records with a value are read in the side table's index order,
 * then the records without one by ID, so a page costs what its rows cost.
 */
export interface SideSort {
  /** The list query with the side table's row inner-joined. */
  join<Q extends AnySelect>(query: Q): Q;
  /** True for a record without a row in the side table. */
  missing: RawBuilder<SqlBool>;
  /** The sort value, from the joined row. */
  value: Expression<unknown>;
  /** The record's ID as the side table holds it, so the seek runs on the side table's index. */
  sideId: Expression<unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

/**
 * How a list is ordered: sort keys on the record's own row (named, as a source's shape names its sort), or
 * a side table's value.
 */
export type ListOrder = { name: string; keys: SortKey[] } | { side: SideSort };

export interface OrderedPageRequest {
  id: Expression<unknown>;
  direction: 'asc' | 'desc';
  limit: number;
  after: CursorPosition | null;
}

/**
 * One keyset page in the given order. A side sort's positions are `[value, id]`, with a null value for the
 * records without one, exactly as a nullable key's: records with a value come first in both directions.
 */
export async function orderedPage<O>(source: PageQuery<O>, order: ListOrder, request: OrderedPageRequest): Promise<KeysetPage<O>> {
  if ('keys' in order)
    return keysetPage(
      refined(source, `sort ${order.name}`, (base) => base),
      { ...request, keys: order.keys },
    );
  // A side sort's expressions carry values of their own (the community, the field): built every time.
  const query = isSource(source) ? source.build(source.values) : source;
  const { side } = order;
  const { after, limit } = request;
  if (after && after.length !== 2) throw invalidCursor('cursor does not fit this list; start again without it');
  const inMissing = after !== null && after[0] === null;
  let valued: KeysetPage<O> = { rows: [], next: null, last: null };
  if (!inMissing) {
    valued = await keysetPage(side.join(query), { ...request, id: side.sideId, keys: [{ expr: side.value }] });
    if (valued.next) return valued;
  }
  const rest = query.where(side.missing);
  const remaining = limit - valued.rows.length;
  const restAfter = inMissing ? [after[1] ?? null] : null;
  if (remaining === 0) {
    // The page is full of valued records: another page follows if any record has no value.
    const more = await keysetPage(rest, { ...request, keys: [], limit: 1, after: restAfter });
    return { rows: valued.rows, next: more.rows.length ? valued.last : null, last: valued.last };
  }
  const missing = await keysetPage(rest, { ...request, keys: [], limit: remaining, after: restAfter });
  const position = (page: KeysetPage<O>) => (page.last ? [null, page.last[0] ?? null] : null);
  return {
    rows: [...valued.rows, ...missing.rows],
    next: missing.next ? position(missing) : null,
    last: position(missing) ?? valued.last,
  };
}
