import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';

/**
 * Resolves once a session of this database waits for a lock (for tests that hold a lock and need the other
 * writer to be blocked on it before they go on). On a Citus coordinator the statement waits on the worker
 * holding the shard, so the cluster-wide view is read there.
 */
export async function untilALockIsAwaited(db: Kysely<DB>, who: string): Promise<void> {
  const citus = await sql<{ citus: boolean }>`select exists (select 1 from pg_extension where extname = 'citus') as citus`.execute(db);
  const activity = citus.rows[0]!.citus ? sql`citus_stat_activity` : sql`pg_stat_activity`;
  for (let attempt = 0; attempt <= 200; attempt++) {
    const waiting = await sql<{ n: number }>`
      select count(*)::int as n from ${activity} where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
    if (waiting.rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${who} never waited for the lock`);
}
