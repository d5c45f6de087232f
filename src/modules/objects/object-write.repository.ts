import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * Marks the object as updated and returns its object type; undefined when the community has no such
 * object. The row stays locked until the transaction ends, so concurrent writes to one object queue up.
 */
export async function touchObject(trx: Transaction<DB>, communityId: number, id: number, now: Date): Promise<{ objectTypeId: number } | undefined> {
  return trx
    .updateTable('objects')
    .set({ updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .returning('object_type_id as objectTypeId')
    .executeTakeFirst();
}

/** The object's type; the object is locked against deletion until the transaction ends. */
export async function lockObject(trx: Transaction<DB>, communityId: number, id: number): Promise<{ objectTypeId: number } | undefined> {
  return trx
    .selectFrom('objects')
    .select('object_type_id as objectTypeId')
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .forKeyShare()
    .executeTakeFirst();
}

/** Adds the object to the segment; an object already in it stays as it is. */
export async function addObjectToSegment(trx: Transaction<DB>, communityId: number, segmentId: number, objectId: number, now: Date): Promise<void> {
  await sql`
    insert into segment_memberships (community_id, segment_id, entity_id, added_at)
    values (${communityId}, ${segmentId}, ${objectId}, ${now})
    on conflict (community_id, segment_id, entity_id) do nothing`.execute(trx);
}
