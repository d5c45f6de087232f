import type { Static } from 'typebox';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { HearthError, notFound } from '../../core/errors.ts';
import { checkRepeatedSource, unknownFieldWarnings } from '../../core/core-bodies.ts';
import { formatId } from '../../core/ids.ts';
import * as activities from '../activities/index.ts';
import { extractTopics, plainText, sentimentOf } from '../activities/index.ts';
import { parseActivityTimestamp } from '../activities/index.ts';
import type { ActivityTypeService } from '../activity-types/index.ts';
import { recordWrite } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';
import * as contacts from '../contacts/index.ts';
import * as customFields from '../custom-fields/index.ts';
import { findSuppressed } from '../privacy/index.ts';
import { findSource } from '../sources/index.ts';
import { replaceActivityTopics } from '../topics/index.ts';
import type { ActivityPushBody, UserPushBody } from './ingestion.schemas.ts';
import { API_USER_FIELDS, readPushedPerson, type ApiUser, type PushedPerson } from './pushed-person.ts';
import { applyPerson, applyTags, checkCustomFields, resolveContact, type PushTarget } from './user-push.ts';

const ACTIVITY_FIELDS = [
  'destinationSourceId', 'id', 'activityType', 'user', 'activityTitle', 'content', 'timestamp', 'url', 'tags',
  'parentActivity', 'subSource',
];

export interface Accepted {
  status: 'accepted';
  contactId: string | null;
  activityId?: string | null;
  warnings: string[];
}

export function createIngestionService(deps: { db: Kysely<DB>; clock: Clock; activityTypes: ActivityTypeService }) {
  /** The destination source: the route's, agreeing with a repeat in the body, of the caller's community. */
  async function target(writer: Writer, sourceId: number, bodySourceId: unknown): Promise<PushTarget> {
    checkRepeatedSource(sourceId, bodySourceId, 'destinationSourceId');
    if (!(await findSource(deps.db, writer.communityId, sourceId))) throw notFound('source_not_found', `no source ${sourceId}`);
    return { communityId: writer.communityId, sourceId, now: deps.clock.now() };
  }

  /**
   * Stores what a push says about a person: their contact (found, made or merged), fields, custom fields
   * and tags. Null when the person was erased on request (an identity on the suppression list, or a sender's
   * ID leading to an anonymized contact): then nothing is stored. Returns the tag warnings with the contact,
   * so that a transaction run again does not repeat them.
   */
  async function storePerson(trx: Transaction<DB>, push: PushTarget, person: PushedPerson, user: ApiUser, path: string) {
    if ((await findSuppressed(trx, push.communityId, person.identities)).size > 0) return null;
    const contact = await resolveContact(trx, push, person);
    if (!contact) return null;
    const values = await checkCustomFields(trx, push, user.customFields, path);
    await applyPerson(trx, push, contact, person);
    await customFields.writeValues(trx, { communityId: push.communityId, entityType: 'contact', entityId: contact.contactId, now: push.now }, values);
    const warnings: string[] = [];
    await applyTags(trx, push, { type: 'contact', id: contact.contactId }, user.tags, warnings);
    return { contactId: contact.contactId, created: contact.created, merged: contact.merged, warnings };
  }

  /**
   * The contacts a push wrote: the one it answers with, and those merged into it. Only IDs: what the push
   * said of the person (even the sender's ID, often an address) must not outlive an erasure in the log.
   */
  function personRecord(stored: { contactId: number; created: boolean; merged: number[] }) {
    return {
      entityIds: [stored.contactId, ...stored.merged].map((id) => formatId('contact', id)),
      detail: { created: stored.created, merged: stored.merged.map((id) => formatId('contact', id)) },
    };
  }

  function readPerson(user: ApiUser, path: string): PushedPerson {
    const person = readPushedPerson(user);
    if (!person.externalId) throw new HearthError('invalid', 'invalid_parameters', `${path}id must not be empty`, { coreReason: 'invalid-request-body' });
    person.warnings = person.warnings.map((warning) => `${path}${warning}`);
    return person;
  }

  return {
    async pushUser(writer: Writer, sourceId: number, body: Static<typeof UserPushBody>): Promise<Accepted> {
      const push = await target(writer, sourceId, body.destinationSourceId);
      const person = readPerson(body as ApiUser, '');
      const warnings = [...unknownFieldWarnings(body, [...API_USER_FIELDS, 'destinationSourceId']), ...person.warnings];
      const stored = await retryingTransaction(deps.db, async (trx) => {
        const contact = await storePerson(trx, push, person, body as ApiUser, '');
        if (!contact) return null;
        const { entityIds, detail } = personRecord(contact);
        await recordWrite(trx, writer, { operation: 'contact.push', entityIds, detail: { sourceId: push.sourceId, ...detail } });
        return contact;
      });
      if (stored === null) return suppressedAnswer(warnings);
      return { status: 'accepted', contactId: formatId('contact', stored.contactId), warnings: unique([...warnings, ...stored.warnings]) };
    },

    async pushActivity(writer: Writer, sourceId: number, body: Static<typeof ActivityPushBody>): Promise<Accepted> {
      const push = await target(writer, sourceId, body.destinationSourceId);
      if (!(await deps.activityTypes.accepts(push.communityId, body.activityType))) {
        throw new HearthError('invalid', 'invalid_activity_type', `unknown activityType "${body.activityType}"; GET /community/v1/activityTypes lists the accepted ones`, {
          coreReason: 'invalid-request-body',
        });
      }
      const time = parseActivityTimestamp(body.timestamp, push.now);
      if (!time.ok) throw new HearthError('invalid', 'invalid_parameters', `timestamp: ${time.reason}`, { coreReason: 'invalid-request-body' });
      const externalId = String(body.id).trim();
      if (!externalId) throw new HearthError('invalid', 'invalid_parameters', 'id must not be empty', { coreReason: 'invalid-request-body' });
      const person = readPerson(body.user as ApiUser, 'user.');
      const warnings = [
        ...unknownFieldWarnings(body, ACTIVITY_FIELDS),
        ...unknownFieldWarnings(body.user, API_USER_FIELDS, 'user.'),
        ...person.warnings,
        ...(time.warning ? [`timestamp ${time.warning}`] : []),
      ];

      const content = textContent(body.content);
      const title = textContent(body.activityTitle);
      const subSource = typeof body.subSource === 'string' ? body.subSource : body.subSource?.name ?? null;
      const parent = body.parentActivity ? { externalId: String(body.parentActivity.id), activityType: body.parentActivity.activityType ?? null } : null;

      const result = await retryingTransaction(deps.db, async (trx) => {
        const contact = await storePerson(trx, push, person, body.user as ApiUser, 'user.');
        if (!contact) return null;
        const subSourceId = subSource?.trim() ? await activities.findOrCreateSubSource(trx, push.communityId, push.sourceId, subSource.trim()) : null;
        const activity = await activities.upsertActivity(trx, {
          communityId: push.communityId,
          sourceId: push.sourceId,
          activityType: body.activityType,
          externalId,
          contactId: contact.contactId,
          activityTime: time.date,
          title: title?.value ?? null,
          content: content?.value ?? null,
          contentType: content?.type ?? null,
          url: body.url?.trim() || null,
          sentiment: content ? sentimentOf(plainText(content)) : null,
          parent,
          subSourceId,
          now: push.now,
        });
        await replaceActivityTopics(trx, push.communityId, activity.id, extractTopics(`${title ? plainText(title) : ''}\n\n${content ? plainText(content) : ''}`));
        const affected = [contact.contactId];
        if (activity.previousContactId !== null && activity.previousContactId !== contact.contactId) affected.push(activity.previousContactId);
        await contacts.refreshActivityStats(trx, push.communityId, affected);
        await applyTags(trx, push, { type: 'activity', id: activity.id }, body.tags as ApiUser['tags'], contact.warnings);
        if (activity.parentRefused) {
          contact.warnings.push('parentActivity: names this activity or one of its replies; it was stored without a parent, as threads cannot loop');
        }
        if (activity.repliesRefused) {
          contact.warnings.push(
            `${activity.repliesRefused} earlier activit${activity.repliesRefused === 1 ? 'y names' : 'ies name'} this one as parent but ` +
              `${activity.repliesRefused === 1 ? 'is' : 'are'} among its own parents; left unlinked, as threads cannot loop`,
          );
        }
        const sender = personRecord(contact);
        await recordWrite(trx, writer, {
          operation: 'activity.push',
          entityIds: [formatId('activity', activity.id), ...sender.entityIds],
          detail: { sourceId: push.sourceId, activityType: body.activityType, contact: sender.detail },
        });
        return { contactId: contact.contactId, activityId: activity.id, warnings: contact.warnings };
      });
      if (result === null) return { ...suppressedAnswer(warnings), activityId: null };
      return {
        status: 'accepted',
        contactId: formatId('contact', result.contactId),
        activityId: formatId('activity', result.activityId),
        warnings: unique([...warnings, ...result.warnings]),
      };
    },
  };
}

export type IngestionService = ReturnType<typeof createIngestionService>;

function suppressedAnswer(warnings: string[]): Accepted {
  return {
    status: 'accepted',
    contactId: null,
    warnings: unique([...warnings, 'this person asked for their personal information to be removed; nothing of this push was stored']),
  };
}

function textContent(given: Static<typeof ActivityPushBody>['content']): { type: 'text' | 'markdown'; value: string } | null {
  if (given === undefined || given === null) return null;
  if (typeof given === 'string') return given.trim() ? { type: 'text', value: given } : null;
  if (!given.value?.trim()) return null;
  return { type: given.type === 'markdown' ? 'markdown' : 'text', value: given.value };
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
