import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Community tables whose rows are locked one at a time by their ID. */
type LockableTable = 'contacts' | 'sources' | 'tags';

/**
 * Locks one row of a community until the transaction ends, so writes to it take turns. False when the row
 * does not exist (in this community).
 */
export async function lockRow(trx: Transaction<DB>, table: LockableTable, communityId: number, id: number): Promise<boolean> {
  const { rows } = await sql`select 1 from ${sql.table(table)} where community_id = ${communityId} and id = ${id} for update`.execute(trx);
  return rows.length > 0;
}

/**
 * `from` clause for "the newest N rows of each parent": one lateral subquery per parent ID (bound as
 * `p.id`), so each parent reads only its own newest rows through its index, whatever its total. The
 * subquery is the caller's, with its own order and limit; its rows are named `alias`.
 */
export function eachParent(parentIds: readonly number[], rows: RawBuilder<unknown>, alias: string): RawBuilder<unknown> {
  return sql`from unnest(${[...parentIds]}::bigint[]) as p(id) cross join lateral (${rows}) as ${sql.id(alias)}`;
}

/** Rows grouped by their parent, in the order they came. */
export function groupByParent<Row, Key>(rows: readonly Row[], parentOf: (row: Row) => Key): Map<Key, Row[]> {
  const grouped = new Map<Key, Row[]>();
  for (const row of rows) {
    const key = parentOf(row);
    const list = grouped.get(key);
    if (list) list.push(row);
    else grouped.set(key, [row]);
  }
  return grouped;
}
