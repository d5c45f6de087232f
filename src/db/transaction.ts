import { sql, type Kysely, type Transaction } from 'kysely';
import { sqlState } from './errors.ts';
import type { DB } from './schema.ts';

/** Thrown inside a transaction when what it read changed under it (a concurrent merge): try again. */
export class RetryTransaction extends Error {}

// unique_violation (another writer claimed the same identity or domain first), deadlock, serialization.
const RETRYABLE = new Set(['23505', '40P01', '40001']);
const ATTEMPTS = 8;

/**
 * Runs `work` in a transaction and runs it again from the start when it lost a race with another writer.
 * Concurrent pushes about one person then end as one contact: the loser's retry finds what the winner made.
 */
export async function retryingTransaction<T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      const code = sqlState(error);
      const retryable = error instanceof RetryTransaction || (code !== undefined && RETRYABLE.has(code));
      if (!retryable || attempt >= ATTEMPTS) throw error;
      // A little jitter, so two losers do not collide again in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}

/**
 * Makes the rest of the transaction run its prepared statements on their generic plans. Left to decide,
 * PostgreSQL keeps planning the ingestion statements (CTEs over arrays) for each execution, because its
 * estimate for a generic plan over arrays of unknown length looks worse than the custom ones; for the
 * small batches of single pushes that planning was half the database's work (PostgreSQL CPU per push at
 * 8 connections 1.0 ms, 0.5 ms with generic plans), and for batches of 1,000 the generic plans are as
 * fast (docs/performance.md). A `set local`, which the connection sends in front of the transaction's
 * next statement, in its round trip (prepared-statements.ts).
 *
 * Not on a Citus coordinator (Database.citus), which routes a statement to its shard only on a plan made
 * for its values (docs/scaling.md).
 */
export async function useGenericPlans(trx: Transaction<DB>): Promise<void> {
  await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
}
