import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import { conflict, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { Writer } from '../../core/writer.ts';
import type { DB } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { auditTx } from '../audit/index.ts';
import { identityTx } from '../identity/index.ts';
import { leadScoreTx } from '../lead-scores/index.ts';
import { locationTx } from '../locations/index.ts';
import { organizationTx } from '../organizations/index.ts';
import { contactTx } from './contact-tx.service.ts';

/**
 * Merging two contacts by hand, and undoing a merge (docs/ingestion.md, "Merging by hand, and undoing a
 * merge"). A merge by hand has the semantics of ingestion's: the older contact survives and takes the
 * other's rows. Each keeps the counts that depend on which contact holds what (activity windows,
 * organization and location member counts, lead scores to compute again) true in its transaction.
 */
export function createContactMergeService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db, clock } = deps;

  /** The live contact an ID names (a merged ID names its survivor), or a 404 naming the ID. */
  async function liveContact(trx: Transaction<DB>, communityId: number, id: number): Promise<number> {
    const live = await identityTx.resolveContactId(trx, communityId, id);
    if (live === null) throw notFound('contact_not_found', `no contact ${formatId('contact', id)}`);
    return live;
  }

  /** The member counts that follow where contacts are: their organizations, and their places. */
  async function placesAndOrganizations(trx: Transaction<DB>, communityId: number, contactIds: number[]) {
    const places = await locationTx.placesOf(trx, communityId, contactIds);
    const organizations: number[] = [];
    for (const id of contactIds) {
      const state = await contactTx.findContactState(trx, communityId, id);
      if (state?.organizationId != null) organizations.push(state.organizationId);
    }
    return { places, organizations };
  }

  async function refreshCounts(
    trx: Transaction<DB>,
    communityId: number,
    before: { places: Awaited<ReturnType<typeof locationTx.placesOf>>; organizations: number[] },
    contactIds: number[],
  ) {
    const after = await placesAndOrganizations(trx, communityId, contactIds);
    await locationTx.moveMembers(trx, communityId, before.places, after.places);
    await organizationTx.refreshMemberCounts(trx, communityId, [...new Set([...before.organizations, ...after.organizations])]);
    await contactTx.refreshActivityStats(trx, communityId, contactIds);
    await leadScoreTx.markForScoring(
      trx,
      communityId,
      contactIds.map((id) => ({ entityType: 'contact', entityId: id })),
    );
  }

  return {
    /**
     * POST /api/v2/contacts/{id}/merge: the two contacts become one, the older surviving. A never-merge mark
     * between them is lifted: a person decided. Returns the survivor's and the merged contact's IDs.
     */
    async merge(writer: Writer, contactId: number, otherId: number) {
      const { communityId } = writer;
      return retryingTransaction(db, async (trx) => {
        const one = await liveContact(trx, communityId, contactId);
        const other = await liveContact(trx, communityId, otherId);
        if (one === other) {
          throw invalidParameters(
            `contactId: ${formatId('contact', otherId)} and ${formatId('contact', contactId)} are one contact already (${formatId('contact', one)})`,
          );
        }
        const locked = await identityTx.lockContacts(trx, communityId, [one, other]);
        if (locked.length !== 2) throw notFound('contact_not_found', `no contact ${formatId('contact', locked[0]?.id === one ? other : one)}`);
        const [survivor, merged] = locked.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
        const now = clock.now();
        const before = await placesAndOrganizations(trx, communityId, [survivor!.id, merged!.id]);
        await identityTx.clearNeverMerge(trx, communityId, [survivor!.id, merged!.id]);
        await identityTx.mergeContacts(trx, {
          communityId,
          survivorId: survivor!.id,
          mergedId: merged!.id,
          reason: `merged by hand by ${writer.actor}`,
          identity: null,
          sourceId: null,
          by: writer.actor,
          now,
        });
        await refreshCounts(trx, communityId, before, [survivor!.id]);
        const ids = { survivorId: formatId('contact', survivor!.id), mergedId: formatId('contact', merged!.id) };
        await auditTx.recordWrite(trx, writer, { operation: 'contact.merge', entityIds: [ids.survivorId, ids.mergedId], detail: ids });
        return { survivorId: survivor!.id, mergedId: merged!.id };
      });
    },

    /**
     * POST /api/v2/contacts/{id}/unmerge: undoes the merge of `mergedId` into the contact `contactId` names.
     * The merged contact is back under its ID; the two are marked never to merge again.
     */
    async unmerge(writer: Writer, contactId: number, mergedId: number) {
      const { communityId } = writer;
      return retryingTransaction(db, async (trx) => {
        const survivor = await liveContact(trx, communityId, contactId);
        const merge = await identityTx.findLiveMerge(trx, communityId, mergedId);
        if (!merge || merge.survivorId !== survivor) {
          throw notFound(
            'merge_not_found',
            `${formatId('contact', mergedId)} is not merged into ${formatId('contact', survivor)}: GET /api/v2/contacts/${formatId('contact', survivor)}/merges lists what is`,
          );
        }
        if (!merge.undoable) {
          throw conflict(
            `the merge of ${formatId('contact', mergedId)} into ${formatId('contact', survivor)} cannot be undone: ` +
              'it keeps no record of what the merged contact brought (it was made before merges kept one, or an erasure removed it)',
          );
        }
        if ((await identityTx.lockContacts(trx, communityId, [survivor])).length !== 1)
          throw notFound('contact_not_found', `no contact ${formatId('contact', survivor)}`);
        const before = await placesAndOrganizations(trx, communityId, [survivor]);
        await identityTx.unmergeContacts(trx, { communityId, survivorId: survivor, mergedId, by: writer.actor, now: clock.now() });
        await refreshCounts(trx, communityId, before, [survivor, mergedId]);
        const ids = { survivorId: formatId('contact', survivor), restoredId: formatId('contact', mergedId) };
        await auditTx.recordWrite(trx, writer, { operation: 'contact.unmerge', entityIds: [ids.survivorId, ids.restoredId], detail: ids });
        return { survivorId: survivor, restoredId: mergedId };
      });
    },
  };
}

export type ContactMergeService = ReturnType<typeof createContactMergeService>;
