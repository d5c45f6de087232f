import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** Whether the trigram index of activity content exists (migration 0011 makes it where pg_trgm is available). */
export async function hasTrigramIndex(db: Kysely<DB>): Promise<boolean> {
  const result = await sql<{ present: boolean }>`select to_regclass('activities_content_trgm') is not null as present`.execute(db);
  return result.rows[0]?.present === true;
}
