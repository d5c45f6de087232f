import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { MAX_CANDIDATES, type CommunityTurns } from '../core/community-turns.ts';
import type { CursorPosition } from '../core/cursor.ts';
import type { DB, JsonValue } from '../db/schema.ts';
import { keysetPage, type KeysetPage } from '../db/keyset.ts';

export interface JobRow {
  communityId: number;
  id: number;
  kind: string;
  payload: JsonValue;
  status: 'queued' | 'running' | 'completed' | 'failed';
  progress: JsonValue;
  result: JsonValue | null;
  error: string | null;
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  lockedBy: string | null;
  lockedUntil: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

const columns = [
  'community_id as communityId',
  'id',
  'kind',
  'payload',
  sql<JobRow['status']>`status`.as('status'),
  'progress',
  'result',
  'error',
  'attempts',
  'max_attempts as maxAttempts',
  'run_at as runAt',
  'locked_by as lockedBy',
  'locked_until as lockedUntil',
  'created_at as createdAt',
  'started_at as startedAt',
  'finished_at as finishedAt',
] as const;

/** `db` may be a transaction: the job then exists only if that transaction commits. */
export async function insertJob(
  db: Kysely<DB>,
  job: { communityId: number; kind: string; payload: JsonValue; runAt: Date; maxAttempts: number; now: Date },
): Promise<number> {
  const row = await db
    .insertInto('jobs')
    .values({
      community_id: job.communityId,
      kind: job.kind,
      payload: JSON.stringify(job.payload),
      run_at: job.runAt,
      max_attempts: job.maxAttempts,
      created_at: job.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findJob(db: Kysely<DB>, communityId: number, id: number): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').select(columns).where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

/** Jobs newest first: of one community or of all (`communityId` null, the operator's CLI), optionally of one status or kind. */
export async function listJobs(
  db: Kysely<DB>,
  filter: { communityId: number | null; status?: JobRow['status']; kind?: string; limit: number },
): Promise<JobRow[]> {
  let query = db.selectFrom('jobs').select(columns);
  if (filter.communityId !== null) query = query.where('community_id', '=', filter.communityId);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.status) query = query.where('status', '=', filter.status);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/**
 * One community's jobs newest first, keyset paged on the ID (the primary key's second column, so a deep
 * page costs what the first does); IDs grow with creation, so this is the order of `listJobs`.
 */
export function pageJobs(
  db: Kysely<DB>,
  filter: { communityId: number; status?: JobRow['status']; kind?: string },
  page: { after: CursorPosition | null; limit: number },
): Promise<KeysetPage<JobRow>> {
  let query = db.selectFrom('jobs').select(columns).where('community_id', '=', filter.communityId);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.status) query = query.where('status', '=', filter.status);
  return keysetPage(query, { keys: [], id: sql.ref('id'), direction: 'desc', after: page.after, limit: page.limit });
}

/** How many jobs there are of each community, kind and status (of one community, or of all). */
export async function countJobs(
  db: Kysely<DB>,
  communityId: number | null,
): Promise<{ communityId: number; kind: string; status: JobRow['status']; count: number }[]> {
  let query = db
    .selectFrom('jobs')
    .select(['community_id as communityId', 'kind', sql<JobRow['status']>`status`.as('status'), sql<string>`count(*)::text`.as('count')]);
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  const rows = await query.groupBy(['community_id', 'kind', 'status']).execute();
  return rows.map((row) => ({ communityId: Number(row.communityId), kind: row.kind, status: row.status, count: Number(row.count) }));
}

/** A job by its ID, in any community unless one is given (job IDs are unique across communities). */
export async function findJobById(db: Kysely<DB>, id: number, communityId: number | null): Promise<JobRow | undefined> {
  let query = db.selectFrom('jobs').select(columns).where('id', '=', id);
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  return query.executeTakeFirst();
}

/**
 * The oldest queued or running job of `kind` whose payload contains `payload` (jsonb `@>`), if any. The
 * caller serializes the check and its enqueue (a row lock) so that two calls cannot both find none.
 */
export async function findUnfinishedJob(db: Kysely<DB>, communityId: number, kind: string, payload: JsonValue): Promise<JobRow | undefined> {
  return db
    .selectFrom('jobs')
    .select(columns)
    .where('community_id', '=', communityId)
    .where('kind', '=', kind)
    .where('status', 'in', ['queued', 'running'])
    .where(sql<boolean>`payload @> ${JSON.stringify(payload)}::jsonb`)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** Brings a queued job waiting for a later time (a retry's backoff) forward to `now`. */
export async function wakeJob(db: Kysely<DB>, communityId: number, id: number, now: Date): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .where('run_at', '>', now)
    .execute();
}

export type Claim = { job: JobRow; exhausted: false } | { job: JobRow; exhausted: true } | null;

/**
 * Takes the next due job of one of `kinds`: a queued job whose time has come, or a running one whose lease
 * expired (its worker died). The communities with due jobs take turns (core/community-turns.ts), and
 * within one the oldest due job goes first. `FOR UPDATE SKIP LOCKED` lets any number of workers poll at
 * once: a row one of them is claiming is invisible to the others, so no job is taken twice.
 *
 * A job whose lease expired after its last allowed attempt is not run again: it is marked failed and
 * returned as `exhausted`.
 */
export async function claimNextJob(
  db: Kysely<DB>,
  claim: { kinds: string[]; workerId: string; now: Date; leaseUntil: Date; turns: CommunityTurns },
): Promise<Claim> {
  if (claim.kinds.length === 0) return null;
  const isDue = (eb: ExpressionBuilder<DB, 'jobs'>) =>
    eb.and([
      eb('kind', 'in', claim.kinds),
      eb.or([
        eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', claim.now)]),
        eb.and([eb('status', '=', 'running'), eb('locked_until', '<=', claim.now)]),
      ]),
    ]);
  const candidates = async () =>
    (await db.selectFrom('jobs').select('community_id as communityId').distinct().where(isDue).limit(MAX_CANDIDATES).execute()).map((row) =>
      Number(row.communityId),
    );
  const [taken] = await claim.turns.claim(candidates, 1, async (communityId) => {
    const claimed = await claimIn(communityId);
    return claimed ? [claimed] : [];
  });
  return taken ?? null;

  function claimIn(communityId: number): Promise<Claim> {
    return db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('jobs')
        .select(['community_id as communityId', 'id', 'status', 'attempts', 'max_attempts as maxAttempts'])
        .where('community_id', '=', communityId)
        .where(isDue)
        .orderBy('run_at')
        .orderBy('id')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!due) return null;

      const row = trx.updateTable('jobs').where('community_id', '=', due.communityId).where('id', '=', due.id);
      if (due.status === 'running' && due.attempts >= due.maxAttempts) {
        const job = await row
          .set({
            status: 'failed',
            error: 'its worker stopped while running it (lease expired) and no attempts remain',
            locked_by: null,
            locked_until: null,
            finished_at: claim.now,
          })
          .returning(columns)
          .executeTakeFirstOrThrow();
        return { job, exhausted: true as const };
      }
      const job = await row
        .set((eb) => ({
          status: 'running',
          attempts: eb('attempts', '+', 1),
          locked_by: claim.workerId,
          locked_until: claim.leaseUntil,
          started_at: eb.fn.coalesce('started_at', eb.val(claim.now)),
        }))
        .returning(columns)
        .executeTakeFirstOrThrow();
      return { job, exhausted: false as const };
    });
  }
}

/**
 * The updates a worker makes to a job it runs. Each applies only while the worker still holds the job: one
 * whose lease expired and was claimed by another worker is no longer this worker's to change.
 */
function heldJob(db: Kysely<DB>, job: { communityId: number; id: number; workerId: string }) {
  return db
    .updateTable('jobs')
    .where('community_id', '=', job.communityId)
    .where('id', '=', job.id)
    .where('status', '=', 'running')
    .where('locked_by', '=', job.workerId);
}

export type HeldJob = { communityId: number; id: number; workerId: string };

/** Returns false when the worker no longer holds the job. */
async function applied(result: Promise<{ numUpdatedRows: bigint }>): Promise<boolean> {
  return (await result).numUpdatedRows > 0n;
}

export function extendLease(db: Kysely<DB>, job: HeldJob, leaseUntil: Date): Promise<boolean> {
  return applied(heldJob(db, job).set({ locked_until: leaseUntil }).executeTakeFirst());
}

export function saveProgress(db: Kysely<DB>, job: HeldJob, progress: JsonValue, leaseUntil: Date): Promise<boolean> {
  return applied(
    heldJob(db, job)
      .set({ progress: JSON.stringify(progress), locked_until: leaseUntil })
      .executeTakeFirst(),
  );
}

export function completeJob(db: Kysely<DB>, job: HeldJob, result: JsonValue, now: Date): Promise<boolean> {
  return applied(
    heldJob(db, job)
      .set({ status: 'completed', result: JSON.stringify(result), error: null, locked_by: null, locked_until: null, finished_at: now })
      .executeTakeFirst(),
  );
}

/** Records a failed attempt: queued again at `retryAt`, or failed for good when `retryAt` is null. */
export function failJob(db: Kysely<DB>, job: HeldJob, error: string, retryAt: Date | null, now: Date): Promise<boolean> {
  const update =
    retryAt === null
      ? { status: 'failed', error, locked_by: null, locked_until: null, finished_at: now }
      : { status: 'queued', error, locked_by: null, locked_until: null, run_at: retryAt };
  return applied(heldJob(db, job).set(update).executeTakeFirst());
}

/** Gives a job back, interrupted by shutdown, without counting the attempt: it runs again at once. */
export function releaseJob(db: Kysely<DB>, job: HeldJob, now: Date): Promise<boolean> {
  return applied(
    heldJob(db, job)
      .set((eb) => ({ status: 'queued', attempts: eb('attempts', '-', 1), locked_by: null, locked_until: null, run_at: now }))
      .executeTakeFirst(),
  );
}

/**
 * Ends the lease of every running job now, so the next claim takes each again (or fails it for good, when
 * its attempts are used up). Only for a database no other process uses: their runners are known dead.
 */
export async function expireRunningLeases(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await db.updateTable('jobs').set({ locked_until: now }).where('status', '=', 'running').where('locked_until', '>', now).executeTakeFirst();
  return Number(result.numUpdatedRows);
}
