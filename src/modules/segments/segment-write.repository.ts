import { sql } from 'kysely';
import type { Executor } from '../../core/executor.ts';

export type SegmentEntityType = 'contact' | 'organization' | 'object';

export interface NewSegment {
  name: string;
  description: string | null;
  entityType: SegmentEntityType;
  /** Required for an object segment, null otherwise. */
  objectTypeId: number | null;
  now: Date;
}

/**
 * Inserts the segment; undefined when its object type is not the community's. The object type is checked
 * by the same statement that inserts, so a type deleted meanwhile cannot slip between a check and the
 * insert. A duplicate name raises the unique violation of `segments_name` for the caller to answer.
 */
export async function insertSegment(db: Executor, communityId: number, segment: NewSegment): Promise<{ id: number; name: string } | undefined> {
  const row = await sql<{ id: number; name: string }>`
    insert into segments (community_id, name, description, entity_type, object_type_id, created_at, updated_at)
    select ${communityId}, ${segment.name}, ${segment.description}, ${segment.entityType}, ${segment.objectTypeId}::bigint,
      ${segment.now}, ${segment.now}
    where ${segment.objectTypeId}::bigint is null
      or exists (select 1 from object_types t where t.community_id = ${communityId} and t.id = ${segment.objectTypeId}::bigint)
    returning id, name`.execute(db);
  return row.rows[0];
}

/** Renames the segment; undefined when the community has no such segment. A duplicate name raises the unique violation. */
export async function renameSegment(
  db: Executor,
  communityId: number,
  id: number,
  change: { name: string; now: Date },
): Promise<{ id: number; name: string; entityType: string } | undefined> {
  return db
    .updateTable('segments')
    .set({ name: change.name, updated_at: change.now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .returning(['id', 'name', 'entity_type as entityType'])
    .executeTakeFirst();
}

/** The segment of that entity type whose name matches, ignoring case (the key of `segments_name`). */
export async function findSegmentByName(
  db: Executor,
  communityId: number,
  entityType: string,
  name: string,
): Promise<{ id: number; name: string } | undefined> {
  return db
    .selectFrom('segments')
    .select(['id', 'name'])
    .where('community_id', '=', communityId)
    .where('entity_type', '=', entityType)
    .where(sql<boolean>`lower(name) = lower(${name}::text)`)
    .executeTakeFirst();
}

/** Takes the record out of the segment; false when it was not in it. */
export async function removeMembership(db: Executor, communityId: number, segmentId: number, entityId: number): Promise<boolean> {
  const removed = await db
    .deleteFrom('segment_memberships')
    .where('community_id', '=', communityId)
    .where('segment_id', '=', segmentId)
    .where('entity_id', '=', entityId)
    .executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}
