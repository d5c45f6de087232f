import { sql, type RawBuilder } from 'kysely';
import type { Executor } from './executor.ts';

/**
 * A read that can share one statement with others: the SQL of its rows (null when there is nothing to
 * look up), and what its owner makes of those rows. The rows arrive as JSON objects keyed by the column
 * names of the SQL: numbers, strings, booleans and nulls (no dates).
 */
export interface Lookup<T> {
  rows: RawBuilder<unknown> | null;
  read(rows: Record<string, unknown>[]): T;
}

type Results<L extends Record<string, Lookup<unknown>>> = { [K in keyof L]: ReturnType<L[K]['read']> };

/**
 * Runs independent lookups in one statement, one round trip (a transaction's reads that depend only on
 * its input need not wait for each other): each lookup's rows as one JSON array column.
 */
export async function readTogether<L extends Record<string, Lookup<unknown>>>(db: Executor, lookups: L): Promise<Results<L>> {
  const entries = Object.entries(lookups);
  const wanted = entries.filter(([, lookup]) => lookup.rows !== null);
  const row = wanted.length
    ? (
        await sql<Record<string, Record<string, unknown>[]>>`select ${sql.join(
          wanted.map(([key, lookup]) => sql`(select coalesce(json_agg(r), '[]'::json) from (${lookup.rows}) r) as ${sql.ref(key)}`),
        )}`.execute(db)
      ).rows[0]!
    : {};
  return Object.fromEntries(entries.map(([key, lookup]) => [key, lookup.read(row[key] ?? [])])) as Results<L>;
}
