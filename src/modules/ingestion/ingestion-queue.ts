import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { ingestBatch, ingestOneByOne, lockIngestion, ThreadLoop } from './ingest-batch.ts';
import type { PushOutcome } from './ingest-one.ts';
import type { PushItem } from './push-item.ts';

/** The most pushes stored in one transaction: a batch route's whole request, or many single pushes. */
export const MAX_BATCH = 1_000;

/** What a community's pushes are waiting for, in this process, and what was stored lately. */
export interface IngestionBacklog {
  queuedPushes: number;
  oldestQueuedMs: number | null;
  storedLastMinute: number;
  batchesLastMinute: number;
}

interface Submission {
  items: PushItem[];
  at: number;
  resolve(outcomes: PushOutcome[]): void;
  reject(error: unknown): void;
}

/**
 * Group commit of pushes. Each community has a queue in this process; while one transaction of the
 * community's pushes runs, the pushes that arrive wait, and the next transaction stores all of them
 * together (ingestBatch: a fixed number of statements per batch). A push is answered once the transaction
 * that stored it has committed, so an acknowledged push is durable and readable at once; a push whose
 * process dies before that is not acknowledged, and nothing of it is stored. Communities are stored in
 * parallel; the community's ingestion lock orders the transactions of several processes.
 */
export function createIngestionQueue(deps: { db: Kysely<DB>; now?: () => number }) {
  const now = deps.now ?? Date.now;
  const queues = new Map<number, Submission[]>();
  const recent = new Map<number, { at: number; pushes: number }[]>();
  const storing = new Map<number, Submission[]>();

  async function store(communityId: number, items: PushItem[]): Promise<PushOutcome[]> {
    const attempt = (oneByOne: boolean) =>
      retryingTransaction(deps.db, async (trx) => {
        await lockIngestion(trx, communityId);
        return oneByOne ? ingestOneByOne(trx, items) : ingestBatch(trx, communityId, items);
      });
    try {
      return await attempt(false);
    } catch (error) {
      // Rare: threads of the batch would loop. One push at a time, each loop is refused and reported.
      if (error instanceof ThreadLoop) return attempt(true);
      throw error;
    }
  }

  async function run(communityId: number, taken: Submission[]): Promise<void> {
    try {
      const outcomes = await store(communityId, taken.flatMap((submission) => submission.items));
      let at = 0;
      for (const submission of taken) {
        submission.resolve(outcomes.slice(at, at + submission.items.length));
        at += submission.items.length;
      }
      const log = recent.get(communityId) ?? [];
      log.push({ at: now(), pushes: outcomes.length });
      recent.set(communityId, log);
    } catch (error) {
      if (taken.length === 1) return taken[0]!.reject(error);
      // What failed one request must not fail the others stored with it: each again, by itself.
      for (const submission of taken) await run(communityId, [submission]);
    }
  }

  async function drain(communityId: number, queue: Submission[]): Promise<void> {
    while (queue.length > 0) {
      const taken: Submission[] = [];
      let count = 0;
      while (queue.length > 0 && (taken.length === 0 || count + queue[0]!.items.length <= MAX_BATCH)) {
        const submission = queue.shift()!;
        taken.push(submission);
        count += submission.items.length;
      }
      storing.set(communityId, taken);
      await run(communityId, taken);
      storing.delete(communityId);
    }
    queues.delete(communityId);
  }

  return {
    /** Stores the pushes (of one community, in order) with others that wait; their outcomes, in order. */
    submit(communityId: number, items: PushItem[]): Promise<PushOutcome[]> {
      if (items.length === 0) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        const queue = queues.get(communityId);
        const submission = { items, at: now(), resolve, reject };
        if (queue) {
          queue.push(submission);
          return;
        }
        const started = [submission];
        queues.set(communityId, started);
        void drain(communityId, started);
      });
    },

    backlog(communityId: number): IngestionBacklog {
      // Pushes not answered yet: those being stored, and those waiting for them.
      const queue = [...(storing.get(communityId) ?? []), ...(queues.get(communityId) ?? [])];
      const cutoff = now() - 60_000;
      const log = (recent.get(communityId) ?? []).filter((entry) => entry.at >= cutoff);
      recent.set(communityId, log);
      return {
        queuedPushes: queue.reduce((sum, submission) => sum + submission.items.length, 0),
        oldestQueuedMs: queue.length ? now() - queue[0]!.at : null,
        storedLastMinute: log.reduce((sum, entry) => sum + entry.pushes, 0),
        batchesLastMinute: log.length,
      };
    },
  };
}

export type IngestionQueue = ReturnType<typeof createIngestionQueue>;
