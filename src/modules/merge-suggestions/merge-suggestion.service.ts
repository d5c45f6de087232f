import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { HearthError } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { PageRequest } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import type { Writer } from '../../core/writer.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import { auditTx } from '../audit/index.ts';
import {
  changedCommunities,
  dismissSuggestion,
  findSuggestion,
  markComputed,
  pageSuggestions,
  recomputeSuggestions,
  sideContacts,
  type SideContact,
  type SuggestionRow,
} from './merge-suggestion.repository.ts';
import { COMMUNITIES_PER_RUN, LATE_COMMIT_MARGIN_MS, STEP_INTERVAL_MS, THRESHOLD } from './merge-suggestion-rules.ts';

/** "msg" in ASCII: the first key of the lock that lets one worker at a time compute a community's suggestions. */
const STEP_LOCK = 0x6d7367;

export interface MergeSuggestion extends SuggestionRow {
  contacts: [SideContact, SideContact];
}

const notFound = (id: number) => new HearthError('merge_suggestion_not_found', `merge suggestion ${formatId('merge_suggestion', id)} not found`);

/**
 * Likely duplicates (docs/ingestion.md, "Likely duplicates: merge suggestions"): computed by the worker's
 * background step for the contacts changed since its last run, listed best first, dismissed by a person.
 * Accepting one is a merge (the contacts module's merge route); nothing here merges.
 */
export function createMergeSuggestionService(deps: { db: Kysely<DB>; clock: Clock; cursors: CursorCodec; jobs: JobQueue }) {
  const { db, clock, cursors } = deps;

  /** Computes one community from `since`, under its lock; false when another worker holds it. */
  async function computeCommunity(communityId: number, since: Date | null, now: Date): Promise<{ removed: number; written: number } | null> {
    return db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${STEP_LOCK}, ${communityId}::int) as locked`.execute(trx);
      if (!rows[0]?.locked) return null;
      const result = await recomputeSuggestions(trx, communityId, since, now);
      await markComputed(trx, communityId, now);
      return result;
    });
  }

  /**
   * The worker's background step: every community with contacts changed since its last run (up to
   * COMMUNITIES_PER_RUN), each in one transaction of three statements, however many contacts changed.
   */
  async function runStep(): Promise<void> {
    const now = clock.now();
    for (const { communityId, since } of await changedCommunities(db, LATE_COMMIT_MARGIN_MS, COMMUNITIES_PER_RUN)) {
      // A community never computed before ('-infinity') is computed whole, the way that reads its contacts once.
      const from = since instanceof Date && Number.isFinite(since.getTime()) ? since : null;
      await computeCommunity(communityId, from, now);
    }
  }

  deps.jobs.every({ name: 'merge_suggestions.changed', intervalMs: STEP_INTERVAL_MS, run: runStep });

  async function withContacts(communityId: number, rows: SuggestionRow[]): Promise<MergeSuggestion[]> {
    const contacts = await sideContacts(db, communityId, [...new Set(rows.flatMap((row) => [row.contactId, row.otherId]))]);
    return rows.flatMap((row) => {
      const one = contacts.get(row.contactId);
      const other = contacts.get(row.otherId);
      // A pair whose contact went between the two reads (merged or erased) is left out of the page.
      return one && other ? [{ ...row, contacts: [one, other] as [SideContact, SideContact] }] : [];
    });
  }

  return {
    runStep,

    /**
     * Computes every contact of the community, as the step does for changed ones (the bench; a community
     * restored from a backup). Answers how many pairs were removed and written.
     */
    async recomputeAll(communityId: number) {
      const now = clock.now();
      return (await computeCommunity(communityId, null, now)) ?? { removed: 0, written: 0 };
    },

    /** GET /api/v2/contacts/merge-suggestions: open pairs, best first, then by pair. */
    async page(communityId: number, query: { minScore?: number; contactId?: number }, request: PageRequest) {
      const minScore = query.minScore ?? THRESHOLD;
      const binding = {
        community: communityId,
        list: 'merge-suggestions',
        sort: 'score',
        direction: 'desc' as const,
        filters: { minScore, contactId: query.contactId ?? null },
      };
      const page = await pageWithCursor(cursors, binding, request, (after) =>
        pageSuggestions(db, { communityId, minScore, contactId: query.contactId }, { after, limit: request.limit }),
      );
      return { rows: await withContacts(communityId, page.rows), nextCursor: page.nextCursor };
    },

    async get(communityId: number, id: number): Promise<MergeSuggestion> {
      const row = await findSuggestion(db, communityId, id);
      const [suggestion] = row ? await withContacts(communityId, [row]) : [];
      if (!suggestion) throw notFound(id);
      return suggestion;
    },

    /** POST /api/v2/contacts/merge-suggestions/{id}/dismiss: the pair is not suggested again, whatever new data says. */
    async dismiss(writer: Writer, id: number): Promise<MergeSuggestion> {
      const row = await db.transaction().execute(async (trx) => {
        const dismissed = await dismissSuggestion(trx, writer.communityId, id, writer.actor, clock.now());
        if (!dismissed) throw notFound(id);
        await auditTx.recordWrite(trx, writer, {
          operation: 'merge_suggestion.dismiss',
          entityIds: [formatId('merge_suggestion', id), formatId('contact', dismissed.contactId), formatId('contact', dismissed.otherId)],
          detail: { score: dismissed.score },
        });
        return dismissed;
      });
      const [suggestion] = await withContacts(writer.communityId, [row]);
      if (!suggestion) throw notFound(id);
      return suggestion;
    },
  };
}

export type MergeSuggestionService = ReturnType<typeof createMergeSuggestionService>;
