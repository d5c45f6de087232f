import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ObjectTypeAssocRow, ObjectTypeRow } from './object-type.repository.ts';

export interface NewAssoc {
  assocType: string;
  targetEntity: 'contact' | 'organization' | 'object';
  targetObjectTypeId: number | null;
}

/** The object type, locked until the transaction ends: changes to one type's associations take turns. */
export async function lockObjectType(trx: Transaction<DB>, communityId: number, id: number): Promise<ObjectTypeRow | undefined> {
  return trx.selectFrom('object_types').select(['id', 'name']).where('community_id', '=', communityId).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function findObjectTypeByName(trx: Transaction<DB>, communityId: number, name: string): Promise<ObjectTypeRow | undefined> {
  return trx
    .selectFrom('object_types')
    .select(['id', 'name'])
    .where('community_id', '=', communityId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
}

/** Which of `ids` are object types of the community. */
export async function existingObjectTypeIds(trx: Transaction<DB>, communityId: number, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await trx
    .selectFrom('object_types')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .execute();
  return new Set(rows.map((row) => row.id));
}

export async function insertObjectType(trx: Transaction<DB>, communityId: number, name: string, now: Date): Promise<ObjectTypeRow> {
  return trx.insertInto('object_types').values({ community_id: communityId, name, created_at: now }).returning(['id', 'name']).executeTakeFirstOrThrow();
}

/** Adds associations to one object type, in the given order (their IDs keep it). */
export async function insertAssocs(trx: Transaction<DB>, communityId: number, objectTypeId: number, assocs: readonly NewAssoc[]) {
  if (assocs.length === 0) return;
  await sql`
    insert into object_type_assocs (community_id, object_type_id, assoc_type, target_entity, target_object_type_id)
    select ${communityId}, ${objectTypeId}, t.assoc_type, t.target_entity, t.target_object_type_id
    from unnest(${assocs.map((assoc) => assoc.assocType)}::text[], ${assocs.map((assoc) => assoc.targetEntity)}::text[],
      ${assocs.map((assoc) => assoc.targetObjectTypeId)}::bigint[]) with ordinality as t(assoc_type, target_entity, target_object_type_id, position)
    order by t.position`.execute(trx);
}

/** Removes one association; the objects' links through it go with it (foreign key cascade). False when there was none. */
export async function deleteAssoc(trx: Transaction<DB>, communityId: number, objectTypeId: number, assocType: string): Promise<boolean> {
  const deleted = await trx
    .deleteFrom('object_type_assocs')
    .where('community_id', '=', communityId)
    .where('object_type_id', '=', objectTypeId)
    .where('assoc_type', '=', assocType)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/** One object type's associations in ID order. */
export async function assocsOf(trx: Transaction<DB>, communityId: number, objectTypeId: number): Promise<(ObjectTypeAssocRow & { id: number })[]> {
  return trx
    .selectFrom('object_type_assocs')
    .select(['id', 'object_type_id as objectTypeId', 'assoc_type as assocType', 'target_entity as targetEntity', 'target_object_type_id as targetObjectTypeId'])
    .where('community_id', '=', communityId)
    .where('object_type_id', '=', objectTypeId)
    .orderBy('id')
    .execute();
}
