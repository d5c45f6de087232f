import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { DB, JsonValue } from '../db/schema.ts';
import type { CursorPosition } from '../core/cursor.ts';
import { countJobs, findJob, findJobById, findUnfinishedJob, insertJob, listJobs, pageJobs, wakeJob, type JobRow } from './job.repository.ts';

export type { JobRow };

export interface NewJob {
  communityId: number;
  kind: string;
  /** What the handler needs to find its work: IDs, never personal data (jobs are kept). */
  payload?: JsonValue;
  /** Not before this time (default: now). */
  runAt?: Date;
  /** Attempts before the job fails for good (default 5). */
  maxAttempts?: number;
}

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

/** Does the job's work; what it returns is stored as the job's result. Throwing fails the attempt. */
export type JobHandler = (job: JobRow, context: JobContext) => Promise<JsonValue | void>;

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

/**
 * Durable background work. Services register a handler for each kind of job they make, and enqueue jobs in
 * their own transactions, so that a request and its job commit (or roll back) together. A worker
 * (worker.ts) runs them.
 */
export function createJobQueue(deps: { db: Kysely<DB>; clock: Clock }) {
  const handlers = new Map<string, JobHandler>();
  const steps = new Map<string, BackgroundStep>();

  async function enqueue(executor: Kysely<DB>, job: NewJob): Promise<number> {
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
    register(kind: string, handler: JobHandler): void {
      if (handlers.has(kind)) throw new Error(`a handler for jobs of kind "${kind}" is already registered`);
      handlers.set(kind, handler);
    },

    handlerFor(kind: string): JobHandler | undefined {
      return handlers.get(kind);
    },

    kinds(): string[] {
      return [...handlers.keys()];
    },

    /** Adds a background step, which every worker runs between jobs (worker.ts). */
    every(step: BackgroundStep): void {
      if (steps.has(step.name)) throw new Error(`a background step named "${step.name}" is already registered`);
      steps.set(step.name, step);
    },

    steps(): BackgroundStep[] {
      return [...steps.values()];
    },

    /** Adds a job through `executor`: pass the caller's transaction to commit the job with its work. */
    enqueue,

    find(communityId: number, id: number): Promise<JobRow | undefined> {
      return findJob(deps.db, communityId, id);
    },

    /**
     * The queued or running job of `kind` whose payload contains `payload`, brought forward if it waits for a
     * retry; else a new one. Pass a transaction that holds a lock on what the job is about (so that two
     * callers cannot both find none): the job is then enqueued at most once at a time.
     */
    async enqueueOnce(executor: Kysely<DB>, job: NewJob & { payload: JsonValue }): Promise<{ id: number; created: boolean; status: JobRow['status'] }> {
      const existing = await findUnfinishedJob(executor, job.communityId, job.kind, job.payload);
      if (existing) {
        await wakeJob(executor, job.communityId, existing.id, deps.clock.now());
        return { id: existing.id, created: false, status: existing.status };
      }
      return { id: await enqueue(executor, job), created: true, status: 'queued' };
    },

    /** The queued or running job of `kind` whose payload contains `payload`, if any. */
    findUnfinished(communityId: number, kind: string, payload: JsonValue): Promise<JobRow | undefined> {
      return findUnfinishedJob(deps.db, communityId, kind, payload);
    },

    /** Newest first, of one community or of every one (`communityId` null). */
    list(filter: { communityId: number | null; status?: JobRow['status']; kind?: string; limit?: number }): Promise<JobRow[]> {
      return listJobs(deps.db, { ...filter, limit: filter.limit ?? 50 });
    },

    /** One community's jobs, newest first, a keyset page at a time (GET /api/v2/admin/jobs). */
    page(filter: { communityId: number; status?: JobRow['status']; kind?: string }, page: { after: CursorPosition | null; limit: number }) {
      return pageJobs(deps.db, filter, page);
    },

    /** Jobs counted by community, kind and status (of one community, or of all: null). */
    counts(communityId: number | null) {
      return countJobs(deps.db, communityId);
    },

    /** A job by ID, in any community unless one is given. */
    findById(id: number, communityId: number | null = null): Promise<JobRow | undefined> {
      return findJobById(deps.db, id, communityId);
    },
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;
