import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

type Executor = Kysely<DB> | Transaction<DB>;

export interface SegmentRef {
  id: number;
  name: string;
  entityType: string;
}

/** The community's contact segments, in ID order. */
export async function listContactSegments(db: Executor, communityId: number): Promise<{ id: number; name: string }[]> {
  return db
    .selectFrom('segments')
    .select(['id', 'name'])
    .where('community_id', '=', communityId)
    .where('entity_type', '=', 'contact')
    .orderBy('id')
    .execute();
}

export async function findSegment(db: Executor, communityId: number, id: number): Promise<SegmentRef | undefined> {
  return db
    .selectFrom('segments')
    .select(['id', 'name', 'entity_type as entityType'])
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The segment, locked against deletion until the transaction ends. */
export async function lockSegment(trx: Transaction<DB>, communityId: number, id: number): Promise<SegmentRef | undefined> {
  return trx
    .selectFrom('segments')
    .select(['id', 'name', 'entity_type as entityType'])
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .forKeyShare()
    .executeTakeFirst();
}

/** A segment's statuses in their order. */
export async function listStatuses(db: Executor, communityId: number, segmentId: number): Promise<{ id: number; name: string }[]> {
  return db
    .selectFrom('segment_statuses')
    .select(['id', 'name'])
    .where('community_id', '=', communityId)
    .where('segment_id', '=', segmentId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** Whether the status belongs to the segment; it is locked against deletion until the transaction ends. */
export async function lockStatus(trx: Transaction<DB>, communityId: number, segmentId: number, statusId: number): Promise<boolean> {
  const row = await trx
    .selectFrom('segment_statuses')
    .select('id')
    .where('community_id', '=', communityId)
    .where('segment_id', '=', segmentId)
    .where('id', '=', statusId)
    .forKeyShare()
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Adds the contacts to the segment. Contacts already in it stay; when a status is given, theirs is set to
 * it (and left alone otherwise).
 */
export async function addMemberships(
  trx: Transaction<DB>,
  communityId: number,
  segmentId: number,
  contactIds: number[],
  statusId: number | null,
): Promise<void> {
  if (contactIds.length === 0) return;
  await sql`
    insert into segment_memberships as m (community_id, segment_id, entity_id, status_id)
    select ${communityId}, ${segmentId}, u.id, ${statusId}::bigint
    from unnest(${contactIds}::bigint[]) as u(id)
    order by u.id
    on conflict (community_id, segment_id, entity_id) do update set status_id = excluded.status_id
      where excluded.status_id is not null and m.status_id is distinct from excluded.status_id
  `.execute(trx);
}

/** The segments each record is in, by record ID, in segment ID order (the `segments` column). */
export async function segmentsOf(
  db: Executor,
  communityId: number,
  entityType: 'contact' | 'organization' | 'object',
  ids: readonly number[],
): Promise<Map<number, { id: number; name: string }[]>> {
  const byRecord = new Map<number, { id: number; name: string }[]>();
  if (ids.length === 0) return byRecord;
  // A membership row's entity_id alone does not say what it is: the segment's entity type does.
  const rows = await db
    .selectFrom('segment_memberships as m')
    .innerJoin('segments as s', (join) => join.onRef('s.community_id', '=', 'm.community_id').onRef('s.id', '=', 'm.segment_id'))
    .select(['m.entity_id as entityId', 's.id', 's.name'])
    .where('m.community_id', '=', communityId)
    .where('m.entity_id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .where('s.entity_type', '=', entityType)
    .orderBy('m.entity_id')
    .orderBy('s.id')
    .execute();
  for (const row of rows) byRecord.set(row.entityId, [...(byRecord.get(row.entityId) ?? []), { id: row.id, name: row.name }]);
  return byRecord;
}
