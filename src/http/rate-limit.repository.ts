import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Counts one hit in a fixed window and returns the window's count, atomically across processes. */
export async function countHit(db: Kysely<DB>, bucket: string, windowStart: number): Promise<number> {
  const row = await db
    .insertInto('rate_limit_counters')
    .values({ bucket, window_start: windowStart, hits: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql`rate_limit_counters.hits + 1` }))
    .returning('hits')
    .executeTakeFirstOrThrow();
  return row.hits;
}

export async function deleteWindowsBefore(db: Kysely<DB>, windowStart: number): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('window_start', '<', windowStart).execute();
}
