import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { invalidCursor, type CursorPosition } from '../../core/cursor.ts';
import { hasEveryWord } from '../../core/query-fragments.ts';
import type { Executor } from '../../core/executor.ts';

export interface IndustryRow {
  code: number;
  name: string;
}

/**
 * A page of the industry codes in the order of their digits as text, which keeps each code under its
 * parent (11, 111, 1111, 11111, 111110, 111120, ...). Every word of `words` must be in the name, whatever
 * its case; a word of digits may instead start the code. The list is small (about 2,000 codes), so the
 * search reads it whole; the order is still a seek after the cursor's code.
 */
export async function pageIndustries(
  db: Kysely<DB>,
  request: { words: string[]; limit: number; after: CursorPosition | null },
): Promise<{ rows: IndustryRow[]; next: CursorPosition | null }> {
  const { words, limit, after } = request;
  if (after && (after.length !== 1 || typeof after[0] !== 'string')) throw invalidCursor('cursor does not fit this list; start again without it');
  const conditions = words.map((word) => {
    const [inName] = hasEveryWord(sql`name`, [word]);
    return /^[0-9]+$/.test(word) ? sql`(${inName} or code::text like ${`${word}%`})` : inName!;
  });
  if (after) conditions.push(sql`code::text collate "C" > ${after[0]}`);
  const where = conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
  const found = await sql<IndustryRow>`
    select code, name from industry_codes ${where}
    order by code::text collate "C"
    limit ${limit + 1}`.execute(db);
  const rows = found.rows.slice(0, limit);
  const last = rows.at(-1);
  return { rows, next: found.rows.length > limit && last ? [String(last.code)] : null };
}

/** Which of the codes are NAICS codes of the list. */
export async function existingIndustryCodes(db: Executor, codes: number[]): Promise<Set<number>> {
  if (codes.length === 0) return new Set();
  const result = await sql<{ code: number }>`select code from industry_codes where code = any(${codes}::int[])`.execute(db);
  return new Set(result.rows.map((row) => row.code));
}
