import { sql, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Community tables whose rows are locked one at a time by their ID. */
type LockableTable = 'contacts' | 'sources' | 'tags' | 'lead_score_definitions' | 'custom_fields';

/**
 * Locks one row of a community until the transaction ends, so writes to it take turns. False when the row
 * does not exist (in this community). A statement of its own: a read with subqueries cannot lock rows on a
 * Citus cluster, so such a read locks first, then reads (docs/scaling.md).
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

/** `value` taken literally inside a `like` pattern: its `%`, `_` and `\\` escaped. */
export function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * One condition per word of a search: the word is somewhere in `text`, in any case (the search of the
 * reference lists: industry codes, technographic products).
 */
export function hasEveryWord(text: RawBuilder<unknown>, words: readonly string[]): RawBuilder<SqlBool>[] {
  return words.map((word) => sql<SqlBool>`lower(${text}) like ${`%${likeLiteral(word.toLowerCase())}%`}`);
}

/** The distinct words of a search text, lowercased and sorted (a cursor binds to them, in any order given). */
export function searchWords(query: string | undefined): string[] {
  return [...new Set((query ?? '').toLowerCase().split(/\s+/).filter(Boolean))].sort();
}
