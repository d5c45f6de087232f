import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Adds `hits` to a bucket's count in a fixed window and returns the new count, atomically across processes. */
export async function reserveHits(db: Kysely<DB>, bucket: string, windowStart: number, hits: number): Promise<number> {
  const row = await db
    .insertInto('rate_limit_counters')
    .values({ bucket, window_start: windowStart, hits })
    .onConflict((oc) => oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql`rate_limit_counters.hits + ${hits}` }))
    .returning('hits')
    .executeTakeFirstOrThrow();
  return row.hits;
}

export async function deleteWindowsBefore(db: Kysely<DB>, windowStart: number): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('window_start', '<', windowStart).execute();
}
