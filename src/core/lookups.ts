import { sql, type RawBuilder } from 'kysely';
import { LAST_STATEMENT_MARK } from '../db/prepared-statements.ts';
import type { Executor } from './executor.ts';

/**
 * Statements that share one round trip: reads that depend only on what the caller has (readTogether), and
 * writes that do not depend on each other (writeTogether). A module gives its part as SQL; the caller,
 * who knows what is independent, puts the parts together.
 */

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

/**
 * A write that can share one statement with others: one data-modifying statement without a WITH of its
 * own (a CTE of the shared statement), a ChainedWrite, or null when there is nothing to write.
 */
export type Write = PlainWrite | ChainedWrite;

/** A write of one data-modifying statement without a WITH of its own, or null: one that can also run alone. */
export type PlainWrite = RawBuilder<unknown> | null;

/**
 * A write in steps, for a write that acts on what an earlier step returned (the rows an insert actually
 * inserted, say): each step a data-modifying statement without a WITH of its own, which the later steps
 * read by its name, as a CTE. A step's name must be unique in the statement that runs it.
 */
export class ChainedWrite {
  constructor(
    readonly steps: readonly { name: string; write: RawBuilder<unknown> }[],
    readonly last: RawBuilder<unknown>,
  ) {}
}

/** The CTEs (`name as (…)`) that run `writes` in one statement, each write's last CTE named by `names`. */
export function writeCtes(writes: readonly (RawBuilder<unknown> | ChainedWrite)[], names: readonly string[]): RawBuilder<unknown>[] {
  const taken = new Set(names);
  return writes.flatMap((write, index) => {
    if (!(write instanceof ChainedWrite)) return [sql`${sql.ref(names[index]!)} as (${write})`];
    for (const step of write.steps) {
      if (taken.has(step.name)) throw new Error(`two writes of one statement name a step ${step.name}`);
      taken.add(step.name);
    }
    return [...write.steps.map((step) => sql`${sql.ref(step.name)} as (${step.write})`), sql`${sql.ref(names[index]!)} as (${write.last})`];
  });
}

/**
 * Runs independent writes as one statement, one round trip: each a data-modifying CTE, all run to
 * completion. None may depend on another's effect (they all see the database as it was before the
 * statement), and no two may change the same row. The writes under `returning` end in a RETURNING: their
 * rows come back as JSON objects, by key (an empty array for a null write). With `last`, the statement is
 * its transaction's last (LAST_STATEMENT_MARK): the caller sends nothing after it but the commit, which
 * goes with it on PostgreSQL.
 */
export async function writeTogether<R extends Record<string, Write> = Record<never, Write>>(
  db: Executor,
  writes: Write[],
  returning?: R,
  options: { last?: boolean } = {},
): Promise<{ [K in keyof R]: Record<string, unknown>[] }> {
  const wanted = writes.filter((write) => write !== null);
  const returned = Object.entries(returning ?? {}).filter((entry): entry is [string, RawBuilder<unknown> | ChainedWrite] => entry[1] !== null);
  const results = Object.fromEntries(Object.keys(returning ?? {}).map((key) => [key, [] as Record<string, unknown>[]]));
  if (wanted.length + returned.length === 0) return results as { [K in keyof R]: Record<string, unknown>[] };
  const mark = sql.raw(options.last ? LAST_STATEMENT_MARK : '');
  const only = wanted[0];
  if (wanted.length === 1 && returned.length === 0 && !(only instanceof ChainedWrite)) {
    await sql`${mark}${only!}`.execute(db);
    return results as { [K in keyof R]: Record<string, unknown>[] };
  }
  const ctes = writeCtes(
    [...wanted, ...returned.map(([, write]) => write)],
    [...wanted.map((_, index) => `write_${index}`), ...returned.map((_, index) => `returning_${index}`)],
  );
  const columns = returned.map(([key], index) => sql`(select coalesce(json_agg(r), '[]'::json) from ${sql.ref(`returning_${index}`)} r) as ${sql.ref(key)}`);
  const { rows } = await sql<
    Record<string, Record<string, unknown>[]>
  >`${mark}with ${sql.join(ctes)} select ${columns.length ? sql.join(columns) : sql``}`.execute(db);
  for (const [key] of returned) results[key] = rows[0]![key]!;
  return results as { [K in keyof R]: Record<string, unknown>[] };
}
