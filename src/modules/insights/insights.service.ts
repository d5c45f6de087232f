import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB, JsonValue } from '../../db/schema.ts';
import { conflict } from '../../core/errors.ts';
import { jobWriter, type Writer } from '../../core/writer.ts';
import type { JobContext, JobOf, JobPayloads, JobQueue, JobRow } from '../../jobs/job-queue.ts';
import { auditTx } from '../audit/index.ts';
import { SPARK_DAYS, SPARK_PERIODS, contactTx } from '../contacts/index.ts';
import { checkContactAnswer, contactMessages, inputHash, type SparkTexts } from './contact-insights.ts';
import * as contacts from './contact-insights.repository.ts';
import { LlmError, type LlmClient } from './llm-client.ts';
import { checkResearchAnswer, researchMessages } from './research-insights.ts';
import * as research from './research-insights.repository.ts';

const DAY = 86_400_000;
/** Contacts read, written to and asked about together, two batches at a time (the client bounds the requests in flight). */
const CONTACT_BATCH = 50;
const RESEARCH_BATCH = 20;
/** A contact's text is written again after this long without activity changes: its "last 30 days" moved on. */
const CONTACT_STALE_DAYS = 7;
const RESEARCH_STALE_DAYS = 30;
/** A failed attempt is tried again after this long (a down endpoint is not asked again at every run). */
const RETRY_MS = 3_600_000;
/** The endpoint failing this many times in a row stops a run; what is left waits for the next one. */
const BREAKER = 5;

interface Log {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

const silent: Log = { info() {}, warn() {} };

interface Tally {
  total: number;
  done: number;
  written: number;
  unchanged: number;
  failed: number;
}

const tally = (total: number): Tally => ({ total, done: 0, written: 0, unchanged: 0, failed: 0 });

function jobView(job: JobRow) {
  return {
    jobId: job.id,
    status: job.status,
    progress: job.progress,
    result: job.result,
    error: job.error,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

/**
 * Insights a language model writes (docs/insights.md): contacts' spark summaries and activate messages,
 * organizations' research answers. Only ever in a job (`insights.generate`, one community at a time):
 * never on a request, never on ingestion. A run asks only about the contacts and answers whose data moved
 * since they were written (their watermarks), in batches, with at most the client's concurrency in flight;
 * whatever fails keeps the deterministic text (contacts) or shows no answer (research), is logged, counted
 * in the job's result, and tried again later.
 */
export function createInsightsService(deps: { db: Kysely<DB>; clock: Clock; jobs: JobQueue; llm: LlmClient | null; intervalMs?: number; log?: Log }) {
  const { db, clock, jobs, llm } = deps;
  const log = deps.log ?? silent;

  function contactFreshness(now: Date, all: boolean): contacts.Freshness {
    return {
      windowStart: new Date(now.getTime() - SPARK_DAYS * SPARK_PERIODS * DAY),
      staleBefore: new Date(now.getTime() - CONTACT_STALE_DAYS * DAY),
      retryBefore: new Date(now.getTime() - RETRY_MS),
      all,
    };
  }

  function researchFreshness(now: Date, all: boolean): research.ResearchFreshness {
    return { staleBefore: new Date(now.getTime() - RESEARCH_STALE_DAYS * DAY), retryBefore: new Date(now.getTime() - RETRY_MS), all };
  }

  async function runInsights(job: JobOf<'insights.generate'>, context: JobContext): Promise<JsonValue> {
    if (!llm) throw new Error('no model endpoint is configured in this process (HEARTH_LLM_URL)');
    const model = llm;
    const communityId = job.communityId;
    const all = job.payload.all === true;
    const now = clock.now();
    const freshness = contactFreshness(now, all);
    const cleared = await contacts.clearQuiet(db, communityId, freshness.windowStart);
    const contactIds = await contacts.dueContacts(db, communityId, freshness);
    const pairs = await research.duePairs(db, communityId, researchFreshness(now, all));
    const counts = { contacts: tally(contactIds.length), researchAnswers: tally(pairs.length), cleared };
    let failuresInARow = 0;
    let stopped: string | null = null;

    /** Asks, and counts the endpoint's failures in a row; null when the run stopped asking. */
    async function ask<T>(messages: Parameters<LlmClient['complete']>[0], check: (content: string) => T, details: object): Promise<T | LlmError | null> {
      try {
        const content = await model.complete(messages, { signal: context.signal, wanted: () => !stopped });
        if (content === null) return null;
        const value = check(content);
        failuresInARow = 0;
        return value;
      } catch (error) {
        if (context.signal.aborted) throw error;
        if (!(error instanceof LlmError)) throw error;
        log.warn({ ...details, communityId, jobId: job.id, reason: error.message }, 'the model endpoint gave no usable answer; the fallback stays');
        // An answer that is not what was asked for still shows the endpoint works.
        failuresInARow = error.endpoint ? failuresInARow + 1 : 0;
        if (failuresInARow >= BREAKER && !stopped) {
          stopped = `the endpoint failed ${BREAKER} times in a row (last: ${error.message}); what is left waits for the next run`;
        }
        return error;
      }
    }

    const report = () => context.progress({ ...counts, ...(stopped ? { stopped } : {}) } as unknown as JsonValue);
    await report();

    /**
     * Two batches at a time: one's reads and writes happen while the other's requests are in flight, so
     * the endpoint is not left idle between batches (the client still bounds the requests in flight).
     */
    async function inOverlappingBatches<T>(items: T[], size: number, each: (batch: T[]) => Promise<void>): Promise<void> {
      let next = 0;
      let failed = false;
      // Both lanes end before the run does: one that fails stops the other at its next batch.
      const lanes = await Promise.allSettled(
        [0, 1].map(async () => {
          while (next < items.length && !stopped && !failed) {
            if (context.signal.aborted) throw new Error('stopped: the worker is shutting down');
            const start = next;
            next += size;
            try {
              await each(items.slice(start, start + size));
            } catch (error) {
              failed = true;
              throw error;
            }
          }
        }),
      );
      for (const lane of lanes) if (lane.status === 'rejected') throw lane.reason;
    }

    await inOverlappingBatches(contactIds, CONTACT_BATCH, async (ids) => {
      const batch = await contacts.insightContacts(db, communityId, ids);
      const drafts = await contactTx.sparkDraftsOf(db, communityId, batch, now);
      const writes = await Promise.all(
        batch.map(async (contact): Promise<contacts.SparkWrite | null> => {
          const draft = drafts.get(contact.id)!;
          const basis = { id: contact.id, activityCount: contact.activityCount, latestActivityAt: contact.latestActivityAt };
          const texts: SparkTexts = {
            sparkSummary: draft.sparkSummary,
            recentSparkSummaries: draft.recentSparkSummaries,
            activateMessage: draft.activateMessage,
          };
          const messages = contactMessages({ title: contact.title, organization: contact.organization }, draft, now);
          const hash = inputHash(model.model, messages);
          if (hash === contact.inputHash) return { ...basis, outcome: { kind: 'unchanged' } };
          // Nothing to say (activity only in the future): nothing to ask.
          if (!texts.sparkSummary && texts.recentSparkSummaries.length === 0 && !texts.activateMessage) {
            return { ...basis, outcome: { kind: 'written', texts, inputHash: hash } };
          }
          const answer = await ask(messages, (content) => checkContactAnswer(content, texts), { contactId: contact.id });
          if (answer === null) return null;
          if (answer instanceof LlmError) return { ...basis, outcome: { kind: 'failed' } };
          return { ...basis, outcome: { kind: 'written', texts: answer, inputHash: hash } };
        }),
      );
      const done = writes.filter((write): write is contacts.SparkWrite => write !== null);
      await contacts.writeSparks(db, communityId, done, clock.now());
      for (const write of done) counts.contacts[write.outcome.kind] += 1;
      counts.contacts.done += done.length;
      await report();
    });

    await inOverlappingBatches(pairs, RESEARCH_BATCH, async (batch) => {
      const [facts, prompts, hashes] = await Promise.all([
        research.organizationFacts(db, communityId, [...new Set(batch.map((pair) => pair.organizationId))], now),
        research.promptTexts(db, communityId, [...new Set(batch.map((pair) => pair.promptId))]),
        research.answerHashes(db, communityId, batch),
      ]);
      const writes = await Promise.all(
        batch.map(async (pair): Promise<research.AnswerWrite | null> => {
          const organization = facts.get(pair.organizationId);
          const prompt = prompts.get(pair.promptId);
          if (!organization || !prompt) return null;
          const messages = researchMessages(prompt.prompt, organization);
          const hash = inputHash(model.model, messages);
          if (hash === hashes.get(`${pair.organizationId}:${pair.promptId}`)) return { ...pair, answer: null, inputHash: hash };
          const answer = await ask(messages, checkResearchAnswer, { organizationId: pair.organizationId, promptId: prompt.key });
          if (answer === null) return null;
          return { ...pair, answer: answer instanceof LlmError ? null : answer, inputHash: answer instanceof LlmError ? null : hash };
        }),
      );
      const done = writes.filter((write): write is research.AnswerWrite => write !== null);
      await research.writeAnswers(db, communityId, done, clock.now());
      for (const write of done) {
        const unchanged = write.answer === null && write.inputHash !== null;
        counts.researchAnswers[unchanged ? 'unchanged' : write.answer === null ? 'failed' : 'written'] += 1;
      }
      counts.researchAnswers.done += done.length;
      await report();
    });

    const result = { ...counts, ...(stopped ? { stopped } : {}) };
    await auditTx.recordWrite(db, jobWriter(job), { operation: 'insights.generate', entityIds: [], detail: result });
    if (stopped) log.warn({ communityId, jobId: job.id }, stopped);
    return result as unknown as JsonValue;
  }

  /** "in" in ASCII: the first key of the lock under which a community's run is enqueued at most once. */
  const ENQUEUE_LOCK = 0x696e;

  async function enqueue(communityId: number, payload: JobPayloads['insights.generate'], writer: Writer | null) {
    return db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${ENQUEUE_LOCK}, ${communityId}::int)`.execute(trx);
      const job = await jobs.enqueueOnce(trx, { communityId, kind: 'insights.generate', payload: { all: payload.all === true }, maxAttempts: 3 });
      if (writer)
        await auditTx.recordWrite(trx, writer, { operation: 'insights.refresh', entityIds: [], detail: { jobId: job.id, all: payload.all === true } });
      return job;
    });
  }

  /** Whether a run would have anything to do: one due contact, answer, or text to forget is enough. */
  async function anythingDue(communityId: number): Promise<boolean> {
    const now = clock.now();
    const freshness = contactFreshness(now, false);
    if ((await contacts.dueContacts(db, communityId, freshness, 1)).length) return true;
    if ((await research.duePairs(db, communityId, researchFreshness(now, false), 1)).length) return true;
    return contacts.hasQuietText(db, communityId, freshness.windowStart);
  }

  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> | null = null;

  /** Enqueues a run for each community with something due (and none queued or running). */
  async function sweep(): Promise<number> {
    if (!llm) return 0;
    const { rows } = await sql<{ id: number }>`select id from communities order by id`.execute(db);
    let enqueued = 0;
    for (const { id } of rows) {
      if (!(await anythingDue(Number(id)))) continue;
      if ((await enqueue(Number(id), {}, null)).created) enqueued += 1;
    }
    return enqueued;
  }

  return {
    configured: llm !== null,

    /** Runs the jobs of kind `insights.generate` (the root hands it to the queue). */
    runInsights,

    /** POST /api/v2/admin/insights/refresh and `hearth insights refresh`: a run now, as a job. */
    async refresh(writer: Writer, options: { all?: boolean } = {}) {
      if (!llm)
        throw conflict(
          'no model endpoint is configured: set HEARTH_LLM_URL and HEARTH_LLM_MODEL (docs/insights.md); without one the texts are the deterministic ones',
        );
      const job = await enqueue(writer.communityId, { all: options.all === true }, writer);
      return { jobId: job.id, created: job.created };
    },

    /** GET /api/v2/admin/insights: whether a model is configured, what it wrote, and the latest run. */
    async status(communityId: number) {
      const [latest] = await jobs.list({ communityId, kind: 'insights.generate', limit: 1 });
      const [withText, answers] = await Promise.all([contacts.contactsWithText(db, communityId), research.modelAnswers(db, communityId)]);
      return {
        configured: llm !== null,
        model: llm?.model ?? null,
        intervalSeconds: llm ? Math.round((deps.intervalMs ?? 0) / 1000) : null,
        contactsWithModelText: withText,
        modelResearchAnswers: answers,
        latestJob: latest ? jobView(latest) : null,
      };
    },

    sweep,

    /** A serving process looks for due work every `intervalMs` (nothing without a model, or with 0). */
    startSchedule(onError: (error: unknown) => void): void {
      const interval = deps.intervalMs ?? 0;
      if (!llm || interval <= 0 || timer) return;
      timer = setInterval(() => {
        sweeping ??= sweep()
          .then(() => undefined, onError)
          .finally(() => {
            sweeping = null;
          });
      }, interval);
      timer.unref();
    },

    async stopSchedule(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await sweeping;
    },
  };
}

export type InsightsService = ReturnType<typeof createInsightsService>;
