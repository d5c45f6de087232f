import { sql, type Transaction } from 'kysely';
import { keysetPage } from '../../db/keyset.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';

export interface SegmentRef {
  id: number;
  name: string;
  entityType: string;
  /** The object type of an object segment; null for contact and organization segments. */
  objectTypeId: number | null;
}

const refColumns = ['id', 'name', 'entity_type as entityType', 'object_type_id as objectTypeId'] as const;

/** The community's contact segments, in ID order. */
export async function listContactSegments(db: Executor, communityId: number): Promise<{ id: number; name: string }[]> {
  return db.selectFrom('segments').select(['id', 'name']).where('community_id', '=', communityId).where('entity_type', '=', 'contact').orderBy('id').execute();
}

export async function findSegment(db: Executor, communityId: number, id: number): Promise<SegmentRef | undefined> {
  return db.selectFrom('segments').select(refColumns).where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

/** The segment, locked against deletion until the transaction ends. */
export async function lockSegment(trx: Transaction<DB>, communityId: number, id: number): Promise<SegmentRef | undefined> {
  return trx.selectFrom('segments').select(refColumns).where('community_id', '=', communityId).where('id', '=', id).forKeyShare().executeTakeFirst();
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

/** `query` is a case-insensitive substring of the name: `strpos`, not `like`, so `%` and `_` are plain characters. */
function listQuery(db: Executor, communityId: number, nameQuery: string | null) {
  let query = db.selectFrom('segments').where('community_id', '=', communityId);
  if (nameQuery) query = query.where(sql<boolean>`strpos(lower(name), lower(${nameQuery}::text)) > 0`);
  return query;
}

/** One page of the segments (of every entity type) in ID order, optionally those whose name contains `nameQuery`. */
export async function pageSegments(db: Executor, communityId: number, nameQuery: string | null, page: { limit: number; after: CursorPosition | null }) {
  const query = listQuery(db, communityId, nameQuery).select(refColumns);
  return keysetPage(query, { keys: [], id: sql`id`, direction: 'asc', ...page });
}

export async function countSegments(db: Executor, communityId: number, nameQuery: string | null): Promise<number> {
  const row = await listQuery(db, communityId, nameQuery)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Members of each segment, by segment ID (segments without members may be left out). One grouped count over
 * the primary key (community_id, segment_id, entity_id) for the whole page, which PostgreSQL can answer
 * from the index alone.
 */
export async function memberCounts(db: Executor, communityId: number, segmentIds: readonly number[]): Promise<Map<number, number>> {
  if (segmentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('segment_memberships')
    .select(['segment_id as segmentId', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('community_id', '=', communityId)
    .where('segment_id', '=', sql<number>`any(${[...segmentIds]}::bigint[])`)
    .groupBy('segment_id')
    .execute();
  // Staff contacts (console users no source knows) are not members of the community, so not counted: the
  // few there are, read from their own index, are taken off the counts of the contact segments holding them.
  const staff = await db
    .selectFrom('contacts as c')
    .innerJoin('segment_memberships as m', (join) => join.onRef('m.community_id', '=', 'c.community_id').onRef('m.entity_id', '=', 'c.id'))
    .innerJoin('segments as s', (join) => join.onRef('s.community_id', '=', 'm.community_id').onRef('s.id', '=', 'm.segment_id'))
    .select(['m.segment_id as segmentId', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('c.community_id', '=', communityId)
    .where('c.staff', '=', true)
    .where('m.segment_id', '=', sql<number>`any(${[...segmentIds]}::bigint[])`)
    .where('s.entity_type', '=', 'contact')
    .groupBy('m.segment_id')
    .execute();
  const counts = new Map(rows.map((row) => [row.segmentId, Number(row.n)]));
  for (const row of staff) counts.set(row.segmentId, (counts.get(row.segmentId) ?? 0) - Number(row.n));
  return counts;
}
