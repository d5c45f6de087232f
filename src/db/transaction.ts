import type { Kysely, Transaction } from 'kysely';
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
      const code = (error as { code?: unknown } | null)?.code;
      const retryable = error instanceof RetryTransaction || (typeof code === 'string' && RETRYABLE.has(code));
      if (!retryable || attempt >= ATTEMPTS) throw error;
      // A little jitter, so two losers do not collide again in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}
