import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { outsideRequestScope } from '../../db/request-scope.ts';
import { countRollupChangesInStatements } from '../../db/rollup-changes.ts';
import type { DB } from '../../db/schema.ts';
import { useGenericPlans, retryingTransaction } from '../../db/transaction.ts';
import { ingestBatch, ingestOneByOne, ThreadLoop } from './ingest-batch.ts';
import type { PushOutcome } from './ingest-one.ts';
import type { PushItem } from './push-item.ts';

/** The most pushes stored in one transaction: a batch route's whole request, or many single pushes. */
export const MAX_BATCH = 1_000;

/** Transactions of one community's pushes that one process runs at once. */
export const DEFAULT_LANES = 2;

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
 * Group commit of pushes. Each community has a queue in this process; while a transaction stores the
 * community's pushes, the pushes that arrive wait, and the next transaction stores all of them together
 * (ingestBatch: a fixed number of statements per batch). Up to `lanes` such transactions of a community run
 * at once; communities run in parallel. A push is answered once the transaction that stored it has
 * committed, so an answered push is durable and readable at once; a push whose process dies before that is
 * not answered, and nothing of it is stored. Transactions about the same person, in this process or
 * another, are ordered by the unique keys of identities and profiles: the loser runs again.
 *
 * `citus`: the database is a Citus coordinator's (Database.citus). Elsewhere a batch's statements run on
 * generic plans (useGenericPlans) and count its new activities and topic links themselves
 * (countRollupChangesInStatements); both settings are for one server only.
 */
export function createIngestionQueue(deps: { db: Kysely<DB>; citus: boolean; lanes?: number; now?: () => number; onIdle?: (communityId: number) => void }) {
  const now = deps.now ?? Date.now;
  const lanes = deps.lanes ?? DEFAULT_LANES;
  const communities = new Map<number, { queue: Submission[]; storing: Set<Submission[]>; lanes: number }>();
  const recent = new Map<number, { at: number; pushes: number }[]>();

  async function store(items: PushItem[]): Promise<PushOutcome[]> {
    const attempt = (oneByOne: boolean) =>
      retryingTransaction(deps.db, async (trx) => {
        if (!deps.citus) {
          await useGenericPlans(trx);
          await countRollupChangesInStatements(trx);
        }
        return oneByOne ? ingestOneByOne(trx, items) : ingestBatch(trx, items[0]!.origin.communityId, items, { endsTransaction: true });
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
      const outcomes = await store(taken.flatMap((submission) => submission.items));
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

  /** One lane: takes what waits (up to MAX_BATCH pushes) and stores it, until nothing waits. */
  async function drain(communityId: number): Promise<void> {
    const state = communities.get(communityId)!;
    for (;;) {
      // Before each take, let the requests whose bytes have already arrived be read and submitted: without
      // this, the first push of a burst is taken alone, and on the embedded database (whose statements run
      // without returning to the event loop) so is every push after it.
      await afterPendingIo();
      if (state.queue.length === 0) return;
      const taken: Submission[] = [];
      let count = 0;
      while (state.queue.length > 0 && (taken.length === 0 || count + state.queue[0]!.items.length <= MAX_BATCH)) {
        const submission = state.queue.shift()!;
        taken.push(submission);
        count += submission.items.length;
      }
      state.storing.add(taken);
      await run(communityId, taken);
      state.storing.delete(taken);
    }
  }

  async function lane(communityId: number): Promise<void> {
    const state = communities.get(communityId)!;
    state.lanes += 1;
    try {
      await drain(communityId);
    } finally {
      state.lanes -= 1;
      if (state.lanes === 0 && state.queue.length === 0) {
        communities.delete(communityId);
        deps.onIdle?.(communityId);
      }
    }
  }

  return {
    /** Stores the pushes (of one community, in order) with others that wait; their outcomes, in order. */
    submit(communityId: number, items: PushItem[]): Promise<PushOutcome[]> {
      if (items.length === 0) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        let state = communities.get(communityId);
        if (!state) communities.set(communityId, (state = { queue: [], storing: new Set(), lanes: 0 }));
        state.queue.push({ items, at: now(), resolve, reject });
        // A lane stores other requests' pushes too, so it is no part of the request that starts it: that
        // request's client hanging up (or its statement timeout) must not cancel a batch that serves others.
        if (state.lanes < lanes) void outsideRequestScope(() => lane(communityId));
      });
    },

    /** The communities this process has pushes of, waiting or stored in the last minute. */
    active(): number[] {
      // Forgets what is older than a minute, so a community that stopped pushing leaves nothing behind.
      const cutoff = now() - 60_000;
      for (const [communityId, log] of recent) {
        const kept = log.filter((entry) => entry.at >= cutoff);
        if (kept.length) recent.set(communityId, kept);
        else recent.delete(communityId);
      }
      return [...new Set([...communities.keys(), ...recent.keys()])].sort((a, b) => a - b);
    },

    backlog(communityId: number): IngestionBacklog {
      // Pushes not answered yet: those being stored, and those waiting for them.
      const state = communities.get(communityId);
      const queue = state ? [...[...state.storing].flat(), ...state.queue] : [];
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
