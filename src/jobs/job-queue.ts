import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { DB, JsonObject, JsonValue } from '../db/schema.ts';
import type { CursorPosition } from '../core/cursor.ts';
import type { JobKind, JobPayloads } from './job-kinds.ts';
import { countJobs, findJob, findJobById, findUnfinishedJob, insertJob, listJobs, pageJobs, wakeJob, type JobRow } from './job.repository.ts';

export type { JobKind, JobPayloads, JobRow };

/** Payload types by job kind; every payload is a JSON object (stored in jobs.payload). */
export type PayloadMap = Record<string, JsonObject>;

type KindOf<M> = keyof M & string;

export type NewJob<M extends PayloadMap, K extends KindOf<M>> = {
  communityId: number;
  kind: K;
  /** What the handler needs to find its work: IDs, never personal data (jobs are kept). Default `{}`. */
  payload?: M[K];
  /** Not before this time (default: now). */
  runAt?: Date;
  /** Attempts before the job fails for good (default 5). */
  maxAttempts?: number;
  // The payload may be left out only where `{}` is one of the kind's payloads.
} & (Record<string, never> extends M[K] ? unknown : { payload: M[K] });

export interface JobContext {
  /** This attempt's number, from 1; the last one is `maxAttempts`. */
  attempt: number;
  maxAttempts: number;
  /** Records how far the job got (jobs.progress) and extends the worker's lease. */
  progress(progress: JsonValue): Promise<void>;
  /**
   * Aborted when the worker is stopping. A handler that can stop at a safe point throws there; the job is
   * then given back without counting the attempt, and runs again on the next start. Otherwise the worker
   * waits for the handler to finish.
   */
  signal: AbortSignal;
}

/** A job as its handler gets it: the row, with the payload typed as its kind declares it. */
export type Job<P extends JsonObject = JsonObject> = Omit<JobRow, 'payload'> & { payload: P };

/** A job of one of the declared kinds (job-kinds.ts), as its handler gets it. */
export type JobOf<K extends JobKind> = Job<JobPayloads[K]>;

/** Does the job's work; what it returns is stored as the job's result. Throwing fails the attempt. */
export type JobHandler<P extends JsonObject = JsonObject> = (job: Job<P>, context: JobContext) => Promise<JsonValue | void>;

/** A handler for every kind of `M`, each typed for its kind's payload. */
export type JobHandlers<M extends PayloadMap> = { [K in KindOf<M>]: JobHandler<M[K]> };

/** A handler as the worker calls it, with the row read back from `jobs`. */
export type RowHandler = (job: JobRow, context: JobContext) => Promise<JsonValue | void>;

export const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * Background work that is not a job: a step the worker runs between jobs at most every `intervalMs`,
 * taking whatever is waiting (e.g. records marked for scoring). Each worker runs it; a step that must
 * not run twice at once in a community takes its own lock.
 */
export interface BackgroundStep {
  name: string;
  intervalMs: number;
  run(): Promise<void>;
}

/** Where a queue's handlers and background steps are kept: shared by the queue and its extensions. */
interface Registry {
  handlers: Map<string, RowHandler>;
  steps: Map<string, BackgroundStep>;
}

/**
 * Durable background work. Services enqueue jobs in their own transactions, so that a request and its job
 * commit (or roll back) together; the composition root gives the handler of every kind (`handle`), and a
 * worker (worker.ts) runs them. `M` is the kinds and their payloads: the declared ones (job-kinds.ts) unless
 * told otherwise.
 */
export interface JobQueue<M extends PayloadMap = JobPayloads> {
  /** Gives the handler of every kind of `M`; once, by the composition root. */
  handle(handlers: JobHandlers<M>): void;

  /**
   * Kinds beyond `M`, handled by this queue and its workers from now on (the tests' own kinds): the queue
   * returned is this one, typed with them too.
   */
  extend<E extends PayloadMap>(handlers: JobHandlers<E>): JobQueue<M & E>;

  handlerFor(kind: string): RowHandler | undefined;

  /** The kinds this queue has handlers for: the ones its workers claim. */
  kinds(): string[];

  /** Adds a background step, which every worker runs between jobs (worker.ts). */
  every(step: BackgroundStep): void;

  steps(): BackgroundStep[];

  /** Adds a job through `executor`: pass the caller's transaction to commit the job with its work. */
  enqueue<K extends KindOf<M>>(executor: Kysely<DB>, job: NewJob<M, K>): Promise<number>;

  /**
   * The queued or running job of `kind` whose payload contains `payload`, brought forward if it waits for a
   * retry; else a new one. Pass a transaction that holds a lock on what the job is about (so that two
   * callers cannot both find none): the job is then enqueued at most once at a time.
   */
  enqueueOnce<K extends KindOf<M>>(
    executor: Kysely<DB>,
    job: NewJob<M, K> & { payload: M[K] },
  ): Promise<{ id: number; created: boolean; status: JobRow['status'] }>;

  /** The queued or running job of `kind` whose payload contains `payload`, if any. */
  findUnfinished<K extends KindOf<M>>(communityId: number, kind: K, payload: Partial<M[K]>): Promise<JobRow | undefined>;

  find(communityId: number, id: number): Promise<JobRow | undefined>;

  /** Newest first, of one community or of every one (`communityId` null). */
  list(filter: { communityId: number | null; status?: JobRow['status']; kind?: string; limit?: number }): Promise<JobRow[]>;

  /** One community's jobs, newest first, a keyset page at a time (GET /api/v2/admin/jobs). */
  page(
    filter: { communityId: number; status?: JobRow['status']; kind?: string },
    page: { after: CursorPosition | null; limit: number },
  ): ReturnType<typeof pageJobs>;

  /** Jobs counted by community, kind and status (of one community, or of all: null). */
  counts(communityId: number | null): ReturnType<typeof countJobs>;

  /** A job by ID, in any community unless one is given. */
  findById(id: number, communityId?: number | null): Promise<JobRow | undefined>;
}

export function createJobQueue<M extends PayloadMap = JobPayloads>(deps: { db: Kysely<DB>; clock: Clock }): JobQueue<M> {
  return queueOf<M>(deps, { handlers: new Map(), steps: new Map() });
}

function queueOf<M extends PayloadMap>(deps: { db: Kysely<DB>; clock: Clock }, registry: Registry): JobQueue<M> {
  const { handlers, steps } = registry;

  /** Takes every handler of `given` (a `JobHandlers<N>`: any handler takes a job whose payload is `never`). */
  function attach(given: Record<string, JobHandler<never>>): void {
    for (const kind of Object.keys(given)) {
      if (handlers.has(kind)) throw new Error(`a handler for jobs of kind "${kind}" is already registered`);
    }
    for (const [kind, handler] of Object.entries(given)) {
      // The one place where a payload read back from the database takes the type its kind declares: the
      // jobs of a kind are written by `enqueue` alone, which takes only a payload of that type.
      handlers.set(kind, handler as RowHandler);
    }
  }

  async function enqueue<K extends KindOf<M>>(executor: Kysely<DB>, job: NewJob<M, K>): Promise<number> {
    if (!handlers.has(job.kind)) throw new Error(`no handler is registered for jobs of kind "${job.kind}"`);
    const now = deps.clock.now();
    return insertJob(executor, {
      communityId: job.communityId,
      kind: job.kind,
      payload: job.payload ?? {},
      runAt: job.runAt ?? now,
      maxAttempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      now,
    });
  }

  return {
    handle: attach,

    extend<E extends PayloadMap>(given: JobHandlers<E>): JobQueue<M & E> {
      attach(given);
      return queueOf<M & E>(deps, registry);
    },

    handlerFor: (kind) => handlers.get(kind),

    kinds: () => [...handlers.keys()],

    every(step) {
      if (steps.has(step.name)) throw new Error(`a background step named "${step.name}" is already registered`);
      steps.set(step.name, step);
    },

    steps: () => [...steps.values()],

    enqueue,

    async enqueueOnce(executor, job) {
      const existing = await findUnfinishedJob(executor, job.communityId, job.kind, job.payload);
      if (existing) {
        await wakeJob(executor, job.communityId, existing.id, deps.clock.now());
        return { id: existing.id, created: false, status: existing.status };
      }
      return { id: await enqueue(executor, job), created: true, status: 'queued' };
    },

    findUnfinished: (communityId, kind, payload) => findUnfinishedJob(deps.db, communityId, kind, payload),

    find: (communityId, id) => findJob(deps.db, communityId, id),

    list: (filter) => listJobs(deps.db, { ...filter, limit: filter.limit ?? 50 }),

    page: (filter, page) => pageJobs(deps.db, filter, page),

    counts: (communityId) => countJobs(deps.db, communityId),

    findById: (id, communityId = null) => findJobById(deps.db, id, communityId),
  };
}
