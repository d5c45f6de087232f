import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { invalidParameters } from '../../core/errors.ts';
import type { JobContext, JobOf, JobQueue } from '../../jobs/job-queue.ts';
import { formatId } from '../../core/ids.ts';
import { auditTx } from '../audit/index.ts';
import { jobWriter, type Writer } from '../../core/writer.ts';
import { identityHash, normalizeEmail, type Identity, identityTx } from '../identity/index.ts';
import * as privacy from './privacy.repository.ts';
import { NO_ERASURE, type ErasedCounts } from './privacy.repository.ts';
import { suppress } from './suppression.repository.ts';
import { lockRow } from '../../core/query-fragments.ts';

/** Anonymization happens within 15 days of the request (docs/behaviour.md, Removal). */
export const ERASURE_DEADLINE_DAYS = 15;
/** With the worker's backoff (5 s doubling, at most 1 h), 20 attempts span about half a day. */
const ERASURE_ATTEMPTS = 20;
/** Contacts found again after a pass (a merge or a push that raced it) get another, this many at most. */
const MAX_PASSES = 5;

/**
 * What another module keeps of a person by the IDs sources gave them (a connector's stored deliveries and
 * the platform users it saw), forgotten in the erasure's transaction: each of the contact's source
 * profiles as it was pushed (source and external ID), before the erasure replaces the IDs with their hashes.
 */
export type ProfileEraser = (trx: Transaction<DB>, communityId: number, profiles: { sourceId: number; externalId: string }[]) => Promise<unknown>;

export function createPrivacyService(deps: { db: Kysely<DB>; clock: Clock; jobs: JobQueue; eraseProfiles?: ProfileEraser }) {
  const { db, clock, jobs } = deps;

  /**
   * Erases one contact in one transaction; what it erased is added to `totals`, which are saved with it. Its
   * audit entry names the contact and the request, never the address.
   */
  async function eraseContact(writer: Writer, request: { communityId: number; id: number }, contactId: number, email: Identity, totals: ErasedCounts) {
    return db.transaction().execute(async (trx) => {
      const { communityId } = request;
      // A concurrent push about the contact waits for its erasure.
      if (!(await lockRow(trx, 'contacts', communityId, contactId))) return totals;
      const now = clock.now();
      const identities = await identityTx.identitiesOf(trx, communityId, contactId);
      await suppress(trx, communityId, [email, ...identities], request.id, now);
      await deps.eraseProfiles?.(trx, communityId, await privacy.sourceProfilesOf(trx, communityId, contactId));
      const next: ErasedCounts = {
        contacts: totals.contacts + 1,
        identities: totals.identities + (await identityTx.deleteIdentities(trx, communityId, contactId)),
        sourceProfiles: totals.sourceProfiles + (await identityTx.eraseSourceProfiles(trx, communityId, contactId, now)),
        customFieldValues: totals.customFieldValues + (await privacy.deleteCustomFieldValues(trx, communityId, contactId)),
        activities: totals.activities + (await privacy.eraseActivityContent(trx, communityId, contactId, now)),
        websiteVisits: totals.websiteVisits + (await privacy.eraseTraces(trx, communityId, contactId)),
      };
      await privacy.anonymizeContact(trx, communityId, contactId, now);
      await privacy.updateRemovalRequest(trx, communityId, request.id, { erased: next });
      await auditTx.recordWrite(trx, writer, {
        operation: 'privacy.erase',
        entityIds: [formatId('contact', contactId)],
        detail: { removalRequestId: request.id, erasedSoFar: next },
      });
      return next;
    });
  }

  /** The erasure job: every contact of the community holding the address, then the request is done. */
  async function runErasure(job: JobOf<'privacy.erase'>, context: JobContext) {
    const { removalRequestId } = job.payload;
    const request = await privacy.findRemovalRequest(db, job.communityId, removalRequestId);
    if (!request) throw new Error(`removal request ${removalRequestId} of community ${job.communityId} does not exist`);
    if (request.status === 'completed' || request.email === null) return { erased: request.erased };
    try {
      const normalized = normalizeEmail(request.email);
      if (!normalized.ok) throw new Error(`removal request ${removalRequestId} holds an address that is not valid: ${normalized.reason}`);
      await privacy.updateRemovalRequest(db, job.communityId, request.id, { status: 'running' });
      // A retried job continues from the counts its earlier attempts saved.
      let totals: ErasedCounts = { ...NO_ERASURE, ...request.erased };
      for (let pass = 1; pass <= MAX_PASSES; pass++) {
        const contacts = await identityTx.findContactsOf(db, job.communityId, normalized.identity);
        if (contacts.length === 0) break;
        for (const contactId of contacts) {
          totals = await eraseContact(jobWriter(job), request, contactId, normalized.identity, totals);
          await context.progress({ erased: { ...totals } });
        }
      }
      totals = { ...totals, websiteVisits: totals.websiteVisits + (await privacy.eraseVisitorsByEmail(db, job.communityId, normalized.identity.value)) };
      await privacy.eraseProfileMentions(db, job.communityId, [...new Set([normalized.identity.value, normalized.identity.display.toLowerCase()])]);
      await privacy.updateRemovalRequest(db, job.communityId, request.id, {
        status: 'completed',
        completedAt: clock.now(),
        erased: totals,
        forgetEmail: true,
      });
      return { erased: { ...totals } };
    } catch (error) {
      if (context.attempt >= context.maxAttempts) await privacy.updateRemovalRequest(db, job.communityId, request.id, { status: 'failed' });
      throw error;
    }
  }

  return {
    /** Runs the jobs of kind `privacy.erase` (the root hands it to the queue). */
    runErasure,

    /**
     * Stores a removal request for the address with its erasure job, in one transaction, and puts the
     * address on the suppression list at once, so that pushes stop bringing it in before the job has run.
     */
    async requestRemoval(writer: Writer, rawEmail: string): Promise<{ id: number }> {
      const normalized = normalizeEmail(rawEmail);
      if (!normalized.ok) throw invalidParameters(`email: ${normalized.reason}`);
      const identity = normalized.identity;
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        const id = await privacy.insertRemovalRequest(trx, {
          communityId: writer.communityId,
          // As given: for a GitHub noreply address the identity is the GitHub login, which is no address;
          // the job reads the address again and finds the same identity.
          email: rawEmail.trim(),
          emailHash: identityHash(identity),
          requestedBy: writer.tokenId,
          requestedAt: now,
          deadlineAt: new Date(now.getTime() + ERASURE_DEADLINE_DAYS * 86_400_000),
        });
        await suppress(trx, writer.communityId, [identity], id, now);
        const jobId = await jobs.enqueue(trx, {
          communityId: writer.communityId,
          kind: 'privacy.erase',
          payload: { removalRequestId: id },
          maxAttempts: ERASURE_ATTEMPTS,
        });
        // Not the address: the log outlives the erasure, and `hearth privacy list` shows it until then.
        await auditTx.recordWrite(trx, writer, { operation: 'privacy.request', entityIds: [], detail: { removalRequestId: id, jobId } });
        return { id };
      });
    },

    /** Every request of the community (or of every community), oldest first. */
    list(communityId: number | null) {
      return privacy.listRemovalRequests(db, communityId);
    },
  };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
