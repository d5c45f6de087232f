import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { invalidCursor, type CursorPosition } from '../http/cursor.ts';

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
}

/**
 * Keyset (seek) paging: the page starts strictly after the previous page's last position, so page 10,000
 * costs what page 1 costs, and rows inserted meanwhile are neither skipped nor repeated. It selects the sort
 * values as `_k0`, `_k1`, ... to build the next position, and fetches one row more than asked to know
 * whether another page follows. Positions hold the values as PostgreSQL prints them (text): exact for
 * microsecond timestamps and numerics, which a JavaScript Date or number would round.
 */
export async function keysetPage<O>(
  // Repositories pass their fully typed builder; only its output type matters here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query: SelectQueryBuilder<any, any, O>,
  request: KeysetRequest,
): Promise<KeysetPage<O>> {
  const keys: SortKey[] = [...request.keys, { expr: request.id }];
  const direction = sql.raw(request.direction);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let builder = query as SelectQueryBuilder<any, any, any>;
  keys.forEach((key, index) => {
    builder = builder.select(sql`(${key.expr})::text`.as(`_k${index}`));
  });
  if (request.after) {
    // Only a cursor signed by this service gets here, but one from a version with other sort keys might.
    if (request.after.length !== keys.length) throw invalidCursor('cursor does not fit this list; start again without it');
    builder = builder.where(after(keys, request.after, request.direction === 'asc' ? '>' : '<'));
  }
  for (const key of keys) {
    builder = builder.orderBy(key.nullable ? sql`${key.expr} ${direction} nulls last` : sql`${key.expr} ${direction}`);
  }
  const found = (await builder.limit(request.limit + 1).execute()) as Record<string, unknown>[];
  const more = found.length > request.limit;
  const rows = found.slice(0, request.limit).map((row) => {
    const clean = { ...row };
    keys.forEach((_, index) => delete clean[`_k${index}`]);
    return clean as O;
  });
  const last = found[request.limit - 1];
  const next = more && last ? keys.map((_, index) => (last[`_k${index}`] as string | null) ?? null) : null;
  return { rows, next };
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
