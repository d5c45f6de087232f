import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { CommunityTurns } from '../core/community-turns.ts';
import type { DB } from '../db/schema.ts';
import type { JobQueue, PayloadMap } from './job-queue.ts';
import { claimNextJob, completeJob, expireRunningLeases, extendLease, failJob, releaseJob, saveProgress, type JobRow } from './job.repository.ts';

interface Log {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

const silent: Log = { info() {}, warn() {}, error() {} };

export interface WorkerOptions {
  db: Kysely<DB>;
  clock: Clock;
  /** A queue of any kinds: the worker claims the kinds it holds handlers for, and runs those. */
  queue: Pick<JobQueue<PayloadMap>, 'handlerFor' | 'kinds' | 'steps'>;
  /** Names this worker in jobs.locked_by (default: host, process ID and a random suffix). */
  id?: string;
  /** How long to wait between polls when nothing is due (real time; default 1 s). */
  pollIntervalMs?: number;
  /** How long a claimed job stays this worker's without news (default 5 min); renewed while it runs. */
  leaseMs?: number;
  /** The delay before retrying after failed attempt number `attempt` (default 5 s doubling, at most 1 h). */
  backoff?: (attempt: number) => number;
  log?: Log;
  /**
   * This worker's process is the only one using the database (the embedded database, whose data directory
   * it holds locked): a job still running when it starts was its runner's when that process died (kill -9,
   * a crash, a power cut), so it is claimed again at once instead of after its lease.
   */
  exclusive?: boolean;
}

export const defaultBackoff = (attempt: number) => Math.min(5_000 * 2 ** (attempt - 1), 3_600_000);

/**
 * Runs due jobs, one at a time: polls for the next one (any community), claims it with a lease, runs the
 * handler registered for its kind, and records the outcome: completed with its result, or failed with the
 * error and queued again after a backoff until its attempts are used up. While the handler runs, the lease
 * is renewed; should the process die, the lease runs out and another worker (or this one, restarted)
 * claims the job again.
 */
export function createWorker(options: WorkerOptions) {
  const { db, clock, queue } = options;
  const id = options.id ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 300_000;
  const backoff = options.backoff ?? defaultBackoff;
  const log = options.log ?? silent;
  const stopping = new AbortController();
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  /** When each background step last started (real time: steps pace the worker, not the data). */
  const stepStarted = new Map<string, number>();
  /** The communities with due jobs take turns (core/community-turns.ts). */
  const turns = new CommunityTurns();

  const leaseUntil = () => new Date(clock.now().getTime() + leaseMs);

  async function run(job: JobRow): Promise<void> {
    const held = { communityId: job.communityId, id: job.id, workerId: id };
    const details = { jobId: job.id, communityId: job.communityId, kind: job.kind, attempt: job.attempts };
    const heartbeat = setInterval(() => {
      extendLease(db, held, leaseUntil()).catch((error: unknown) => log.warn({ ...details, err: error }, 'could not extend a job lease'));
    }, leaseMs / 3);
    heartbeat.unref();
    try {
      const result = await queue.handlerFor(job.kind)!(job, {
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
        signal: stopping.signal,
        progress: async (progress) => {
          await saveProgress(db, held, progress, leaseUntil());
        },
      });
      if (await completeJob(db, held, result ?? null, clock.now())) log.info(details, 'job completed');
      else log.warn(details, 'job finished after this worker lost it (lease expired); its outcome was not recorded');
    } catch (error) {
      if (stopping.signal.aborted) {
        await releaseJob(db, held, clock.now());
        log.info(details, 'job interrupted by shutdown; it will run again');
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const retryAt = job.attempts < job.maxAttempts ? new Date(clock.now().getTime() + backoff(job.attempts)) : null;
      await failJob(db, held, message, retryAt, clock.now());
      log[retryAt ? 'warn' : 'error']({ ...details, err: error, retryAt }, retryAt ? 'job attempt failed; will retry' : 'job failed for good');
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Claims and runs one due job; false when none was due. */
  async function runOnce(): Promise<boolean> {
    const now = clock.now();
    const claim = await claimNextJob(db, { kinds: queue.kinds(), workerId: id, now, leaseUntil: new Date(now.getTime() + leaseMs), turns });
    if (!claim) return false;
    if (claim.exhausted) log.error({ jobId: claim.job.id, kind: claim.job.kind }, claim.job.error ?? 'job failed');
    else await run(claim.job);
    return true;
  }

  /** Runs the background steps that are due (all of them with `all`); a failing step is logged, not fatal. */
  async function runSteps(all = false): Promise<void> {
    for (const step of queue.steps()) {
      if (stopping.signal.aborted) return;
      const last = stepStarted.get(step.name);
      if (!all && last !== undefined && Date.now() - last < step.intervalMs) continue;
      stepStarted.set(step.name, Date.now());
      try {
        await step.run();
      } catch (error) {
        if (all) throw error;
        log.error({ err: error, step: step.name }, 'background step failed; it runs again at its next interval');
      }
    }
  }

  async function poll(): Promise<void> {
    if (options.exclusive) {
      try {
        const orphans = await expireRunningLeases(db, clock.now());
        if (orphans) log.warn({ jobs: orphans }, 'jobs left running by a process that stopped will run again');
      } catch (error) {
        log.error({ err: error }, 'job worker could not take back the jobs of a process that stopped');
      }
    }
    while (!stopping.signal.aborted) {
      let worked = false;
      try {
        await runSteps();
        worked = await runOnce();
      } catch (error) {
        log.error({ err: error }, 'job worker could not poll');
      }
      if (!worked && !stopping.signal.aborted) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollIntervalMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      } else {
        // The embedded database answers without I/O, so back-to-back jobs would never let requests in.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  return {
    id,
    runOnce,

    /** Runs every background step once, now (tests drive the steps with it); a failure is thrown. */
    runSteps: () => runSteps(true),

    /** Runs due jobs until none is left (tests; a retry scheduled later is not due). Returns how many ran. */
    async runUntilIdle(): Promise<number> {
      let count = 0;
      while (await runOnce()) count += 1;
      return count;
    },

    start(): void {
      if (stopping.signal.aborted) throw new Error('a stopped worker cannot start again');
      loop ??= poll();
    },

    /** Stops polling; a job in progress is finished (or given back, if its handler stops early) first. */
    async stop(): Promise<void> {
      stopping.abort();
      wake?.();
      await loop;
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;
