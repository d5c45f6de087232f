import type { Executor } from '../../core/executor.ts';

export interface ObjectTypeRow {
  id: number;
  name: string;
}

export interface ObjectTypeAssocRow {
  objectTypeId: number;
  assocType: string;
  targetEntity: string;
  targetObjectTypeId: number | null;
}

export async function listObjectTypes(db: Executor, communityId: number): Promise<ObjectTypeRow[]> {
  return db.selectFrom('object_types').select(['id', 'name']).where('community_id', '=', communityId).orderBy('id').execute();
}

/** Every association of the community's object types, by type then in ID order: one query for the whole list. */
export async function listObjectTypeAssocs(db: Executor, communityId: number): Promise<ObjectTypeAssocRow[]> {
  return db
    .selectFrom('object_type_assocs')
    .select(['object_type_id as objectTypeId', 'assoc_type as assocType', 'target_entity as targetEntity', 'target_object_type_id as targetObjectTypeId'])
    .where('community_id', '=', communityId)
    .orderBy('object_type_id')
    .orderBy('id')
    .execute();
}

export async function objectTypeExists(db: Executor, communityId: number, id: number): Promise<boolean> {
  const row = await db.selectFrom('object_types').select('id').where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
