import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { formatId } from '../../core/ids.ts';
import { activityTx } from '../activities/index.ts';
import { auditTx } from '../audit/index.ts';
import { contactTx } from '../contacts/index.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import { leadScoreTx } from '../lead-scores/index.ts';
import { privacyTx } from '../privacy/index.ts';
import { topicTx } from '../topics/index.ts';
import type { PushItem } from './push-item.ts';
import { applyPerson, applyTags, resolveContact } from './user-push.ts';

/** What storing one push did: its contact (null when the person was erased on request) and activity. */
export interface PushOutcome {
  contactId: number | null;
  created: boolean;
  merged: number[];
  activityId: number | null;
  /** Warnings found while storing (tags that do not exist, threads that would loop). */
  warnings: string[];
}

export const SUPPRESSED: PushOutcome = { contactId: null, created: false, merged: [], activityId: null, warnings: [] };

/**
 * Stores one push, one statement at a time: the way for what the set-based batch leaves to it (a push
 * that merges contacts, threads that would loop). Same rules, same audit entry.
 */
export async function ingestOne(trx: Transaction<DB>, item: PushItem): Promise<PushOutcome> {
  const { origin, person } = item;
  if ((await privacyTx.findSuppressed(trx, origin.communityId, person.identities)).size > 0) return SUPPRESSED;
  const contact = await resolveContact(trx, origin, person);
  if (!contact) return SUPPRESSED;
  await applyPerson(trx, origin, contact, item);
  await customFieldTx.writeValues(
    trx,
    { communityId: origin.communityId, entityType: 'contact', entityId: contact.contactId, now: origin.now },
    item.customFields,
  );
  const warnings = [...contact.warnings];
  await applyTags(trx, origin, { type: 'contact', id: contact.contactId }, item.tags, warnings);
  const outcome: PushOutcome = { contactId: contact.contactId, created: contact.created, merged: contact.merged, activityId: null, warnings };
  const pushed = item.activity;
  // This is the way of the rare pushes (merges, looping threads), so its lead-score marks are a statement of their own.
  if (!pushed) {
    await leadScoreTx.markForScoring(trx, origin.communityId, [{ entityType: 'contact', entityId: contact.contactId }]);
    await auditTx.recordWrite(trx, item.writer, { operation: 'contact.push', ...personRecord(outcome, origin.sourceId) });
    return outcome;
  }
  const subSourceId = pushed.subSource ? await activityTx.findOrCreateSubSource(trx, origin.communityId, origin.sourceId, pushed.subSource) : null;
  const activity = await activityTx.upsertActivity(trx, {
    communityId: origin.communityId,
    now: origin.now,
    ...activityRow(item, contact.contactId, subSourceId),
  });
  outcome.activityId = activity.id;
  await topicTx.replaceActivityTopics(trx, origin.communityId, activity.id, pushed.topics);
  const affected = [contact.contactId];
  if (activity.previousContactId !== null && activity.previousContactId !== contact.contactId) affected.push(activity.previousContactId);
  await contactTx.refreshActivityStats(trx, origin.communityId, affected);
  await leadScoreTx.markForScoring(
    trx,
    origin.communityId,
    affected.map((id) => ({ entityType: 'contact', entityId: id })),
  );
  await applyTags(trx, origin, { type: 'activity', id: activity.id }, pushed.tags, warnings);
  if (activity.parentRefused)
    warnings.push('parentActivity: names this activity or one of its replies; it was stored without a parent, as threads cannot loop');
  if (activity.repliesRefused) {
    warnings.push(
      `${activity.repliesRefused} earlier activit${activity.repliesRefused === 1 ? 'y names' : 'ies name'} this one as parent but ` +
        `${activity.repliesRefused === 1 ? 'is' : 'are'} among its own parents; left unlinked, as threads cannot loop`,
    );
  }
  await auditTx.recordWrite(trx, item.writer, activityRecord(outcome, item));
  return outcome;
}

/** The activity row a push writes, but for its community and time. */
export function activityRow(item: PushItem, contactId: number, subSourceId: number | null) {
  const pushed = item.activity!;
  return {
    sourceId: item.origin.sourceId,
    activityType: pushed.activityType,
    externalId: pushed.externalId,
    contactId,
    activityTime: pushed.time,
    title: pushed.title,
    content: pushed.content,
    contentType: pushed.contentType,
    url: pushed.url,
    sentiment: pushed.sentiment,
    parent: pushed.parent,
    subSourceId,
    senderId: item.person.externalId,
  };
}

/**
 * The audit entry of a user push: the contacts it wrote, the one it answers with and those merged into it.
 * Only IDs: what the push said of the person (even the sender's ID, often an address) must not outlive an
 * erasure in the log.
 */
export function personRecord(outcome: PushOutcome, sourceId: number) {
  const merged = outcome.merged.map((id) => formatId('contact', id));
  return {
    entityIds: [formatId('contact', outcome.contactId!), ...merged],
    detail: { sourceId, created: outcome.created, merged },
  };
}

export function activityRecord(outcome: PushOutcome, item: PushItem) {
  const { entityIds, detail } = personRecord(outcome, item.origin.sourceId);
  return {
    operation: 'activity.push',
    entityIds: [formatId('activity', outcome.activityId!), ...entityIds],
    detail: { sourceId: item.origin.sourceId, activityType: item.activity!.activityType, contact: { created: detail.created, merged: detail.merged } },
  };
}
