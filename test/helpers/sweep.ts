import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { DB } from '../../src/db/schema.ts';

/**
 * Every row of every table of the database, as text (what a data dump holds, whatever the column types),
 * searched for each needle (lowercase). Returns table → the needles found in its rows.
 */
export async function sweep(db: Kysely<DB>, needles: string[]): Promise<Record<string, string[]>> {
  const tables = await sql<{ table: string }>`
    select table_name as "table" from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(db);
  expect(tables.rows.length).toBeGreaterThan(50);
  const found: Record<string, string[]> = {};
  for (const { table } of tables.rows) {
    const result = await sql<{ needle: string }>`
      select distinct n.needle from ${sql.table(table)} as r cross join unnest(${needles}::text[]) as n(needle)
      where strpos(lower(r::text), n.needle) > 0
      order by n.needle`.execute(db);
    if (result.rows.length > 0) found[table] = result.rows.map((row) => row.needle);
  }
  return found;
}
