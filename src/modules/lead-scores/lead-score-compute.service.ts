import { CommunityTurns } from '../../core/community-turns.ts';
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB, JsonValue } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';
import { formatId } from '../../core/ids.ts';
import type { JobContext, JobOf, JobQueue } from '../../jobs/job-queue.ts';
import { computedDefinitions, markComputed, takeStaleDefinitions, type ComputedDefinition } from './lead-score-admin.repository.ts';
import {
  analyzeScores,
  chunkEnds,
  dryRunScores,
  namesOf,
  organizationsOf,
  refreshPercentiles,
  storeScores,
  titlesOf,
  type Computation,
  type Resolved,
  type ScoreTargets,
} from './lead-score-compute.repository.ts';
import { clearMarks, dropMarks, markedCommunities, takeMarks } from './lead-score-marks.repository.ts';
import type { LeadScoreEntity } from './lead-score.repository.ts';
import type { ScoreRules } from './lead-score-rules.ts';

/**
 * Records per statement of a full recompute: its progress moves chunk by chunk. Each chunk reads the
 * community's activities once (a range of contacts is spread over the whole table), so chunks are large:
 * a community of up to 100,000 records is one pass.
 */
const CHUNK = 100_000;
/** Marked records the background step computes per transaction. */
const MARKS_PER_BATCH = 2_000;
/** Batches per community per run of the step, so that one busy community does not hold the worker. */
const BATCHES_PER_RUN = 10;
/** How often the worker runs the background step: a marked record is scored within about this. */
export const STEP_INTERVAL_MS = 10_000;
/** Scores decay with time: each computed definition is recomputed in full at least this often. */
const FULL_REFRESH_MS = 24 * 3_600_000;

/**
 * A percentile refresh rewrites most of a definition's rows whenever the number of scored records changes
 * (every percentile moves): the step refreshes a definition at most this often, so that a stream of new
 * contacts does not rewrite every score every 10 seconds.
 */
const PERCENTILE_INTERVAL_MS = 60_000;

/** "lss" in ASCII: the first key of the lock that lets one worker at a time run the step in a community. */
const STEP_LOCK = 0x6c7373;

/** The title classifier's seniority of a title (buying committees'), given by the composition root. */
export type SeniorityOf = (title: string) => string | null;

/**
 * Computing lead scores (docs/lead-scores.md): in full, as a durable job after a definition is created or
 * changed (and daily, as scores decay); incrementally, in the worker's background step, for the records
 * that ingestion and the other writers marked; and as a dry run that stores nothing.
 */
export function createLeadScoreComputeService(deps: { db: Kysely<DB>; clock: Clock; jobs: JobQueue; seniorityOf: SeniorityOf }) {
  const { db, clock, jobs, seniorityOf } = deps;

  async function resolve(executor: Executor, communityId: number, entityType: LeadScoreEntity, rules: ScoreRules, targets: ScoreTargets): Promise<Resolved> {
    const names = await namesOf(executor, communityId, rules);
    const titles: Resolved['titles'] = { titles: [], seniorities: [] };
    if (entityType === 'contact' && rules.fit.some((rule) => rule.field === 'titleSeniority')) {
      for (const title of await titlesOf(executor, communityId, targets)) {
        const seniority = seniorityOf(title);
        if (seniority === null) continue;
        titles.titles.push(title);
        titles.seniorities.push(seniority);
      }
    }
    return { ...names, titles };
  }

  async function computation(
    executor: Executor,
    communityId: number,
    definition: Pick<ComputedDefinition, 'entityType' | 'rules'>,
    targets: ScoreTargets,
    now: Date,
  ): Promise<Computation> {
    const resolved = await resolve(executor, communityId, definition.entityType, definition.rules, targets);
    return { communityId, entityType: definition.entityType, rules: definition.rules, now, targets, resolved };
  }

  async function currentVersion(communityId: number, scoreId: number): Promise<ComputedDefinition | undefined> {
    return (await computedDefinitions(db, communityId)).find((definition) => definition.id === scoreId);
  }

  /** The full recompute of one version of a definition, chunk by chunk; a newer version supersedes it. */
  async function runRecompute(job: JobOf<'lead_scores.recompute'>, context: JobContext): Promise<JsonValue> {
    const { scoreId, version } = job.payload;
    const { communityId } = job;
    const superseded = { scoreId: formatId('lead_score', scoreId), version, superseded: true };
    const definition = await currentVersion(communityId, scoreId);
    if (definition?.version !== version) return superseded;
    // One time for the whole run, so that every record's activities decay to the same moment.
    const now = clock.now();
    const { ends, total } = await chunkEnds(db, communityId, definition.entityType, CHUNK);
    let after = 0;
    let changed = 0;
    let removed = 0;
    // The last chunk is open-ended: records made during the run are scored too.
    const chunks = ends.length ? ends.map((end, index) => (index === ends.length - 1 ? null : end)) : [null];
    // One chunk is every record: its statement writes the percentiles too, instead of a second pass.
    const whole = chunks.length === 1;
    for (const [index, through] of chunks.entries()) {
      if (context.signal.aborted) throw new Error('the worker is stopping');
      if (index > 0 && (await currentVersion(communityId, scoreId))?.version !== version) return superseded;
      const result = await storeScores(db, scoreId, await computation(db, communityId, definition, { after, through }, now), whole);
      changed += result.changed;
      removed += result.removed;
      after = through ?? after;
      await context.progress({ scoreId: formatId('lead_score', scoreId), version, done: Math.min(total, (index + 1) * CHUNK), total });
    }
    await analyzeScores(db);
    if (!whole) await refreshPercentiles(db, communityId, scoreId, definition.entityType);
    await markComputed(db, communityId, scoreId, version, now);
    return { scoreId: formatId('lead_score', scoreId), version, scored: total, changed, removed };
  }

  /** Definitions whose values the step changed and whose percentiles are still to refresh; when each was last refreshed. */
  /** The communities with stale definitions take turns (core/community-turns.ts). */
  const turns = new CommunityTurns();
  const stalePercentiles = new Map<string, { communityId: number; scoreId: number; entityType: LeadScoreEntity }>();
  const percentilesRefreshedAt = new Map<string, number>();

  /** Enqueues the full recompute of a definition's version, once; pass the transaction that changed it. */
  async function enqueueRecompute(executor: Kysely<DB>, communityId: number, scoreId: number, version: number): Promise<number> {
    return (await jobs.enqueueOnce(executor, { communityId, kind: 'lead_scores.recompute', payload: { scoreId, version } })).id;
  }

  /**
   * Computes a community's marked records, one batch, in one transaction: how many marks it took, and the
   * definitions whose values changed (their percentiles are refreshed once the community's batches are done).
   */
  async function refreshCommunity(communityId: number, changed: Map<number, LeadScoreEntity>): Promise<number> {
    return db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${STEP_LOCK}, ${communityId}::int) as locked`.execute(trx);
      if (!rows[0]?.locked) return 0;
      const marks = await takeMarks(trx, communityId, MARKS_PER_BATCH);
      if (marks.length === 0) return 0;
      const definitions = await computedDefinitions(trx, communityId);
      if (definitions.length === 0) {
        await dropMarks(trx, communityId);
        return 0;
      }
      const contacts = marks.filter((mark) => mark.entityType === 'contact').map((mark) => mark.entityId);
      const ids: Record<LeadScoreEntity, number[]> = { contact: contacts, organization: [] };
      if (definitions.some((definition) => definition.entityType === 'organization')) {
        const marked = marks.filter((mark) => mark.entityType === 'organization').map((mark) => mark.entityId);
        ids.organization = [...new Set([...marked, ...(await organizationsOf(trx, communityId, contacts))])];
      }
      const now = clock.now();
      for (const definition of definitions) {
        const targets = ids[definition.entityType];
        if (targets.length === 0) continue;
        const result = await storeScores(trx, definition.id, await computation(trx, communityId, definition, { ids: targets }, now));
        if (result.changed + result.removed > 0) changed.set(definition.id, definition.entityType);
      }
      await clearMarks(trx, communityId, marks);
      return marks.length;
    });
  }

  /**
   * The worker's background step: the marked records of every community, batch by batch; and a full
   * recompute for each definition not computed in full for a day (as scores decay), or whose last full
   * recompute never finished.
   */
  async function runStep(): Promise<void> {
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      // The definitions' row locks (taken by the update) make the check for an unfinished job and the enqueue one.
      for (const stale of await takeStaleDefinitions(trx, new Date(now.getTime() - FULL_REFRESH_MS), now, 100, turns)) {
        await enqueueRecompute(trx, stale.communityId, stale.id, stale.version);
      }
    });
    for (const communityId of await markedCommunities(db, 100)) {
      const changed = new Map<number, LeadScoreEntity>();
      for (let batch = 0; batch < BATCHES_PER_RUN; batch += 1) {
        if ((await refreshCommunity(communityId, changed)) < MARKS_PER_BATCH) break;
      }
      for (const [scoreId, entityType] of changed) stalePercentiles.set(`${communityId}:${scoreId}`, { communityId, scoreId, entityType });
    }
    // A percentile refresh reads (and mostly rewrites) every score of the definition: at most once a minute each.
    for (const [key, { communityId, scoreId, entityType }] of stalePercentiles) {
      const last = percentilesRefreshedAt.get(key);
      if (last !== undefined && now.getTime() - last < PERCENTILE_INTERVAL_MS) continue;
      await refreshPercentiles(db, communityId, scoreId, entityType);
      percentilesRefreshedAt.set(key, now.getTime());
      stalePercentiles.delete(key);
    }
  }

  jobs.every({ name: 'lead_scores.marked', intervalMs: STEP_INTERVAL_MS, run: runStep });

  return {
    enqueueRecompute,

    /** Runs the jobs of kind `lead_scores.recompute` (the root hands it to the queue). */
    runRecompute,

    /** The unfinished full recompute of a definition, if any. */
    async pendingRecompute(communityId: number, scoreId: number): Promise<number | null> {
      return (await jobs.findUnfinished(communityId, 'lead_scores.recompute', { scoreId }))?.id ?? null;
    },

    /** The top `limit` records rules would score (and how many they would score), computed now and not stored. */
    async dryRun(communityId: number, entityType: LeadScoreEntity, rules: ScoreRules, limit: number) {
      return dryRunScores(db, await computation(db, communityId, { entityType, rules }, 'all', clock.now()), limit);
    },

    runStep,
  };
}

export type LeadScoreComputeService = ReturnType<typeof createLeadScoreComputeService>;
