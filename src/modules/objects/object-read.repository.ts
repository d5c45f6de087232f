import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { keysetPage, type SortKey } from '../../db/keyset.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';

export const OBJECT_SORTS = ['id', 'name'] as const;
export type ObjectSort = (typeof OBJECT_SORTS)[number];

export interface ObjectRow {
  id: number;
  name: string;
  recordKey: string;
}

/** What a list of objects keeps: one object type, optionally one of its segments and a compiled lightFilter. */
export interface ObjectFilter {
  objectTypeId: number;
  segmentId: number | null;
  /** A boolean fragment about `ob`, the objects row. */
  where: RawBuilder<SqlBool> | null;
}

const columns = ['ob.id', 'ob.name', 'ob.record_key as recordKey'] as const;

// The base table is `ob`: the alias the lightFilter compiler writes its fragments against.
function listQuery(db: Executor, communityId: number, filter: ObjectFilter) {
  let query = db.selectFrom('objects as ob').where('ob.community_id', '=', communityId).where('ob.object_type_id', '=', filter.objectTypeId);
  if (filter.segmentId !== null) {
    query = query.where(sql<boolean>`exists (select 1 from segment_memberships m where m.community_id = ${communityId}
      and m.segment_id = ${filter.segmentId}::bigint and m.entity_id = ob.id)`);
  }
  if (filter.where) query = query.where(filter.where);
  return query;
}

/** `name` sorts by lower(name), ties by ID: the order of the index objects_name (community_id, object_type_id, lower(name), id). */
const SORT_KEYS: Record<ObjectSort, SortKey[]> = { id: [], name: [{ expr: sql`lower(ob.name)` }] };

export async function pageObjects(
  db: Executor,
  communityId: number,
  filter: ObjectFilter,
  sort: ObjectSort,
  page: { direction: 'asc' | 'desc'; limit: number; after: CursorPosition | null },
) {
  const query = listQuery(db, communityId, filter).select(columns);
  return keysetPage(query, { keys: SORT_KEYS[sort], id: sql`ob.id`, ...page });
}

export async function countObjects(db: Executor, communityId: number, filter: ObjectFilter): Promise<number> {
  const row = await listQuery(db, communityId, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findObject(db: Executor, communityId: number, id: number): Promise<ObjectRow | undefined> {
  return db.selectFrom('objects as ob').select(columns).where('ob.community_id', '=', communityId).where('ob.id', '=', id).executeTakeFirst();
}
