import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

type Executor = Kysely<DB> | Transaction<DB>;

export interface CustomFieldDefinition {
  id: number;
  name: string;
  entityTypes: string[];
  valueType: string;
  multivalue: boolean;
  enumValues: string[];
  deleted: boolean;
  /** Sources allowed to write it through the core pushes; empty means every source. */
  writers: number[];
}

export async function findDefinitions(db: Executor, communityId: number, ids: number[]): Promise<CustomFieldDefinition[]> {
  if (ids.length === 0) return [];
  const rows = await sql<CustomFieldDefinition>`
    select f.id, f.name, f.entity_types as "entityTypes", f.value_type as "valueType", f.multivalue,
      f.enum_values as "enumValues", f.deleted_at is not null as deleted,
      coalesce(array(select w.source_id from custom_field_writers w where w.community_id = f.community_id and w.custom_field_id = f.id), '{}') as writers
    from custom_fields f
    where f.community_id = ${communityId} and f.id = any(${ids}::bigint[])`.execute(db);
  return rows.rows;
}

/** Sets (value) or clears (null) custom field values of one record, batched. */
export async function writeValues(
  trx: Transaction<DB>,
  target: { communityId: number; entityType: 'contact' | 'organization' | 'object'; entityId: number; now: Date },
  values: { fieldId: number; value: unknown | null }[],
) {
  const set = values.filter((entry) => entry.value !== null);
  const cleared = values.filter((entry) => entry.value === null).map((entry) => entry.fieldId);
  if (set.length) {
    await sql`
      insert into custom_field_values (community_id, entity_type, entity_id, custom_field_id, value, updated_at)
      select ${target.communityId}, ${target.entityType}, ${target.entityId}, t.field, t.value::jsonb, ${target.now}
      from unnest(${set.map((entry) => entry.fieldId)}::bigint[], ${set.map((entry) => JSON.stringify(entry.value))}::text[]) as t(field, value)
      on conflict (community_id, entity_type, entity_id, custom_field_id)
      do update set value = excluded.value, updated_at = excluded.updated_at`.execute(trx);
  }
  if (cleared.length) {
    await trx
      .deleteFrom('custom_field_values')
      .where('community_id', '=', target.communityId)
      .where('entity_type', '=', target.entityType)
      .where('entity_id', '=', target.entityId)
      .where('custom_field_id', 'in', cleared)
      .execute();
  }
}
