import { HearthError } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { Cols, GetQuery } from '../../core/list-query.ts';
import { PAYLOAD_FIELDS } from '../contacts/index.ts';

/** Every kind of event, and the record a kind is about (null: none a filter could select). */
export const EVENT_KINDS = {
  'contact.created': 'contact',
  'contact.updated': 'contact',
  'contact.merged': 'contact',
  'contact.unmerged': 'contact',
  'activity.created': 'activity',
  'organization.created': 'organization',
  'segment.membership.changed': 'any',
  'tag.assigned': 'any',
  'removal.completed': null,
  'lead_score.changed': 'any',
  'job.finished': null,
} as const satisfies Record<string, FilterEntity | 'any' | null>;

export type EventKind = keyof typeof EVENT_KINDS;
export const KIND_NAMES = Object.keys(EVENT_KINDS) as EventKind[];

/** What a subscription's lightFilter can be about, with the table and alias its compiled SQL names. */
export const FILTER_TABLES = {
  contact: { table: 'contacts', alias: 'c' },
  activity: { table: 'activities', alias: 'a' },
  organization: { table: 'organizations', alias: 'o' },
} as const;
export type FilterEntity = keyof typeof FILTER_TABLES;

export interface EventRow {
  communityId: number;
  id: number;
  kind: EventKind;
  entityType: string | null;
  entityId: number | null;
  detail: Record<string, unknown>;
  occurredAt: Date;
}

/**
 * Deliveries of a subscription with the same key are made one after another, in the order of their
 * events: those that report a change to a record that can change again (a contact's updates, merges,
 * memberships, tags, scores). Creations of activities and organizations, removals and jobs need no order.
 */
export function orderKeyOf(event: Pick<EventRow, 'kind' | 'entityType' | 'entityId'>): string | null {
  if (event.kind === 'activity.created' || event.kind === 'organization.created') return null;
  if (event.entityType === null || event.entityId === null) return null;
  return `${event.entityType}:${event.entityId}`;
}

/** The v2 representations an event's payload carries, read through their modules' services. */
export interface Representations {
  contact(communityId: number, query: GetQuery): Promise<unknown>;
  activity(communityId: number, query: GetQuery): Promise<unknown>;
  organization(communityId: number, query: GetQuery): Promise<unknown>;
}

/**
 * The columns a payload carries: a record's fields, custom fields, segments, tags and scores, without what
 * is costly or long to read (recent activities, top contacts, model-written texts).
 */
const COLS: Record<'contact' | 'activity' | 'organization', Cols> = {
  contact: {
    // The table's fields are declared with their columns (contacts' CONTACT_COLUMN_ROLES); these are read from elsewhere.
    names: new Set([...PAYLOAD_FIELDS, 'profiles', 'leadScores', 'segments', 'tags', 'url']),
    recordCount: false,
    customFields: 'all',
  },
  activity: { names: new Set(['content', 'url']), recordCount: false, customFields: null },
  organization: {
    names: new Set([
      'about',
      'contactsCount',
      'employees',
      'linkedInUrl',
      'profiles',
      'revenueRangeMin',
      'revenueRangeMax',
      'subIndustry',
      'location',
      'leadScores',
      'tags',
      'url',
    ]),
    recordCount: false,
    customFields: 'all',
  },
};

const ENTITY_IDS: Record<string, Parameters<typeof formatId>[0]> = { contact: 'contact', activity: 'activity', organization: 'organization', object: 'object' };

/**
 * The body sent for an event: `{type, timestamp, data}`, data being the record's v2 representation as it
 * is when the event is fanned out (rendered once; every attempt, redelivery and replay sends these bytes).
 * A record gone by then (deleted, or merged away) is `{id, deleted: true}`. A removal carries its request's
 * ID only: nothing of what was erased.
 */
export async function renderEvent(event: EventRow, read: Representations, cache: Map<string, unknown>): Promise<string> {
  const record = async (entity: 'contact' | 'activity' | 'organization', id: number) => {
    const key = `${entity}:${id}`;
    if (!cache.has(key)) {
      try {
        cache.set(key, await read[entity](event.communityId, { id, cols: COLS[entity] }));
      } catch (error) {
        if (!(error instanceof HearthError) || error.kind !== 'not_found') throw error;
        cache.set(key, { id: formatId(entity, id), deleted: true });
      }
    }
    return cache.get(key);
  };
  const detail = event.detail;
  const entityId = event.entityType && event.entityId !== null ? formatId(ENTITY_IDS[event.entityType] ?? 'contact', event.entityId) : null;
  let data: unknown;
  switch (event.kind) {
    case 'contact.created':
    case 'contact.updated':
    case 'activity.created':
    case 'organization.created':
      data = await record(event.entityType as 'contact' | 'activity' | 'organization', event.entityId!);
      break;
    case 'contact.merged':
      data = {
        survivorId: entityId,
        mergedIds: [formatId('contact', Number(detail.mergedId))],
        reason: detail.reason,
        identityType: detail.identityType ?? null,
        contact: await record('contact', event.entityId!),
      };
      break;
    case 'contact.unmerged':
      data = {
        survivorId: entityId,
        restoredId: formatId('contact', Number(detail.mergedId)),
        contact: await record('contact', event.entityId!),
        restored: await record('contact', Number(detail.mergedId)),
      };
      break;
    case 'segment.membership.changed':
      data = { segmentId: formatId('segment', Number(detail.segmentId)), change: detail.change, entityType: event.entityType, entityId };
      break;
    case 'tag.assigned':
      data = { tagId: formatId('tag', Number(detail.tagId)), entityType: event.entityType, entityId };
      break;
    case 'lead_score.changed':
      data = {
        scoreId: Number(detail.scoreId),
        entityType: event.entityType,
        entityId,
        score: Number(detail.score),
        previousScore: detail.previousScore === null ? null : Number(detail.previousScore),
      };
      break;
    case 'removal.completed':
      data = { requestId: Number(detail.requestId), status: 'completed' };
      break;
    case 'job.finished':
      data = { jobId: Number(detail.jobId), kind: detail.kind, status: detail.status, attempts: Number(detail.attempts) };
      break;
  }
  return JSON.stringify({ type: event.kind, timestamp: event.occurredAt.toISOString(), data });
}
