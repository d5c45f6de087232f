import { sql, type RawBuilder } from 'kysely';

/** The seeds' "random" choices: hashes of a row number and a salt, so a seed is the same on every run. */

/**
 * A uniform number in [0, 1) from a row number and a salt: PostgreSQL's hashint8 of a mix of both. Only
 * our own constants and column names go in, never input.
 */
export function u(row: string, salt: number): RawBuilder<number> {
  // float8 throughout: numeric arithmetic (what a bare 4294967296.0 would make) is many times slower.
  return sql.raw<number>(`((hashint8((${row})::bigint * 1000003 + ${salt})::float8 + 2147483648.0) / 4294967296.0)`);
}

/** 1 + floor(n · x): an index into a SQL array of n elements. */
export function pick(n: number, x: RawBuilder<number>): RawBuilder<number> {
  return sql<number>`(1 + floor(${sql.lit(n)} * ${x})::int)`;
}
