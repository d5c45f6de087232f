import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB } from '../../db/schema.ts';
import { conflict, HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, parseId } from '../../core/ids.ts';
import { auditTx } from '../audit/index.ts';
import { identityTx } from '../identity/index.ts';
import type { Writer } from '../../core/writer.ts';
import * as segmentWrites from './segment-write.repository.ts';
import type { SegmentEntityType } from './segment-write.repository.ts';
import { findSegment } from './segment-read.repository.ts';

/** Characters (code points, as PostgreSQL's char_length counts them) of a segment name, after trimming. */
export const MAX_SEGMENT_NAME = 500;
/** Characters of a segment description (ours: the interface sets no limit). */
export const MAX_SEGMENT_DESCRIPTION = 20_000;

const characters = (text: string) => [...text].length;

function segmentName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalidParameters('name is blank; a segment needs a name');
  const length = characters(name);
  if (length > MAX_SEGMENT_NAME) throw invalidParameters(`name has ${length} characters; a segment name has at most ${MAX_SEGMENT_NAME}`);
  return name;
}

/** Markdown is kept as written (its whitespace can mean something); a blank one is stored as none. */
function segmentDescription(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null || !raw.trim()) return null;
  const length = characters(raw);
  if (length > MAX_SEGMENT_DESCRIPTION) {
    throw invalidParameters(`description has ${length} characters; a segment description has at most ${MAX_SEGMENT_DESCRIPTION}`);
  }
  return raw;
}

const invalidObjectType = (raw: string, why: string) => new HearthError('invalid_object_type_id', `objectTypeId ${raw} ${why}`, { invalidIds: [raw] });

/** The object type an object segment needs, and that no other segment may name (docs/behaviour.md, Errors). */
function objectTypeOf(entityType: SegmentEntityType, raw: string | null | undefined): number | null {
  if (entityType !== 'object') {
    if (raw === undefined || raw === null) return null;
    throw invalidObjectType(raw, `is for object segments only; a ${entityType} segment has no object type`);
  }
  if (raw === undefined || raw === null) {
    throw invalidParameters('objectTypeId is required when entityType is "object" (cot_<number>; GET /api/v2/object-types lists them)');
  }
  return parseId('object_type', raw);
}

export interface NewSegmentInput {
  name: string;
  description?: string | null;
  entityType?: SegmentEntityType;
  objectTypeId?: string | null;
}

export function createSegmentWriteService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db } = deps;

  /** The 409 for a name that another segment of the entity type holds, naming that segment when it is still there. */
  async function nameTaken(communityId: number, entityType: string, name: string) {
    const other = await segmentWrites.findSegmentByName(db, communityId, entityType, name);
    const holder = other ? `segment ${formatId('segment', other.id)} ("${other.name}")` : 'another segment';
    return conflict(`${holder} already has this name; ${entityType} segment names are unique, ignoring case`);
  }

  return {
    /**
     * POST /api/v2/segments. The name is trimmed; segment names are unique per entity type, ignoring case
     * (the unique index decides, so two concurrent creates cannot both win).
     */
    async create(writer: Writer, input: NewSegmentInput) {
      const { communityId } = writer;
      const name = segmentName(input.name);
      const description = segmentDescription(input.description);
      const entityType = input.entityType ?? 'contact';
      const objectTypeId = objectTypeOf(entityType, input.objectTypeId);
      let row: { id: number; name: string } | undefined;
      try {
        row = await db.transaction().execute(async (trx) => {
          const inserted = await segmentWrites.insertSegment(trx, communityId, { name, description, entityType, objectTypeId, now: deps.clock.now() });
          if (inserted) {
            await auditTx.recordWrite(trx, writer, {
              operation: 'segment.create',
              entityIds: [formatId('segment', inserted.id)],
              detail: { name, entityType, objectTypeId: objectTypeId === null ? null : formatId('object_type', objectTypeId) },
            });
          }
          return inserted;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw await nameTaken(communityId, entityType, name);
        throw error;
      }
      if (!row) throw invalidObjectType(input.objectTypeId!, 'is not an object type of this community (GET /api/v2/object-types lists them)');
      return { id: formatId('segment', row.id), name: row.name };
    },

    /** PATCH /api/v2/segments/{id}: a new name; the ID, entity type, description and members stay. */
    async rename(writer: Writer, rawId: string, input: { name: string }) {
      const { communityId } = writer;
      const id = parseId('segment', rawId);
      const name = segmentName(input.name);
      let row: { id: number; name: string; entityType: string } | undefined;
      try {
        row = await db.transaction().execute(async (trx) => {
          const renamed = await segmentWrites.renameSegment(trx, communityId, id, { name, now: deps.clock.now() });
          if (renamed) await auditTx.recordWrite(trx, writer, { operation: 'segment.rename', entityIds: [formatId('segment', id)], detail: { name } });
          return renamed;
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The violation does not say the entity type; the segment being renamed does.
        const segment = await findSegment(db, communityId, id);
        throw await nameTaken(communityId, segment?.entityType ?? 'contact', name);
      }
      if (!row) throw notFound('segment_not_found', `segment ${rawId} not found`);
      return { id: formatId('segment', row.id), name: row.name };
    },

    /**
     * DELETE /api/v2/segments/{id}/contacts/{contactId}: takes the contact out of the contact segment. A
     * merged contact's ID stands for its survivor, as in bulk updates. A contact that is not in the segment
     * is left as it is (idempotent, as adding is): only the removal of a member is a write, with its audit
     * entry; the membership row's delete trigger writes the `segment.membership.changed` event.
     */
    async removeContact(writer: Writer, rawSegmentId: string, rawContactId: string): Promise<{ removed: boolean }> {
      const { communityId } = writer;
      const segmentId = parseId('segment', rawSegmentId);
      const given = parseId('contact', rawContactId);
      return db.transaction().execute(async (trx) => {
        const segment = await findSegment(trx, communityId, segmentId);
        if (!segment) throw notFound('segment_not_found', `segment ${formatId('segment', segmentId)} not found`);
        if (segment.entityType !== 'contact') {
          throw notFound(
            'segment_not_found',
            `segment ${formatId('segment', segmentId)} is an ${segment.entityType} segment; this route takes contacts out of contact segments`,
          );
        }
        const contactId = await identityTx.resolveContactId(trx, communityId, given);
        if (contactId === null) throw notFound('contact_not_found', `contact ${formatId('contact', given)} not found`);
        const removed = await segmentWrites.removeMembership(trx, communityId, segmentId, contactId);
        if (removed) {
          await auditTx.recordWrite(trx, writer, {
            operation: 'segment.remove_contact',
            entityIds: [formatId('segment', segmentId), formatId('contact', contactId)],
          });
        }
        return { removed };
      });
    },
  };
}

export type SegmentWriteService = ReturnType<typeof createSegmentWriteService>;
