import { sql } from 'kysely';
import type { Executor } from '../../core/executor.ts';

export interface ContactCustomFieldRow {
  id: number;
  name: string;
  type: string;
  multivalue: boolean;
  values: string[];
}

export async function sourceExists(db: Executor, communityId: number, sourceId: number): Promise<boolean> {
  const row = await db.selectFrom('sources').select('id').where('community_id', '=', communityId).where('id', '=', sourceId).executeTakeFirst();
  return row !== undefined;
}

/**
 * The contact custom fields that are not deleted, in ID order. With `writerSourceId`, only those that
 * source may write: a field with rows in custom_field_writers is writable by those sources only, a field
 * without any by every source.
 */
export async function listContactCustomFields(db: Executor, communityId: number, writerSourceId: number | null): Promise<ContactCustomFieldRow[]> {
  let query = db
    .selectFrom('custom_fields as f')
    .select(['f.id', 'f.name', 'f.value_type as type', 'f.multivalue', 'f.enum_values as values'])
    .where('f.community_id', '=', communityId)
    .where('f.deleted_at', 'is', null)
    .where(sql<boolean>`'contact' = any(f.entity_types)`);
  if (writerSourceId !== null) {
    query = query.where(({ exists, not, or, selectFrom }) => {
      const writers = () =>
        selectFrom('custom_field_writers as w')
          .select('w.source_id')
          .whereRef('w.community_id', '=', 'f.community_id')
          .whereRef('w.custom_field_id', '=', 'f.id');
      return or([not(exists(writers())), exists(writers().where('w.source_id', '=', writerSourceId))]);
    });
  }
  return query.orderBy('f.id').execute();
}
