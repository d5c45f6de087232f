import type { IdEntity } from '../../core/ids.ts';
import type { TagEntityType } from '../tags/index.ts';

/**
 * What differs between the three bulk updates (contacts, organizations, custom objects): one description
 * each, read by the one engine in bulk-update.service.ts.
 */
export interface BulkTarget {
  /** The entity as segments, tag assignments and custom field values name it. */
  entity: 'contact' | 'organization' | 'object';
  /** The body field that lists the records. */
  idsField: 'contactIds' | 'organizationIds' | 'objectIds';
  /** How the records' IDs are prefixed (docs/behaviour.md, IDs). */
  idEntity: IdEntity;
  /** What a tag must allow to be assigned to these records; null: the records take no tags. */
  tagEntityType: TagEntityType | null;
  /** For messages: "contact", "organization", "custom object". */
  label: string;
}

export const BULK_TARGETS = {
  contact: { entity: 'contact', idsField: 'contactIds', idEntity: 'contact', tagEntityType: 'member', label: 'contact' },
  organization: { entity: 'organization', idsField: 'organizationIds', idEntity: 'organization', tagEntityType: 'company', label: 'organization' },
  object: { entity: 'object', idsField: 'objectIds', idEntity: 'object', tagEntityType: null, label: 'custom object' },
} as const satisfies Record<string, BulkTarget>;

export type BulkTargetName = keyof typeof BULK_TARGETS;

/** Records one bulk update names, and tag IDs in each of its tag lists (docs/behaviour.md, Limits). */
export const MAX_BULK_IDS = 100;
export const MAX_BULK_TAGS = 25;
