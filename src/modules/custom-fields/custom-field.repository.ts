import { sql, type SqlBool, type Transaction } from 'kysely';
import type { SideSort } from '../../db/keyset.ts';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';

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
  /** The one object type an object field applies to; null: every object type (or not an object field). */
  objectTypeId: number | null;
}

export async function findDefinitions(db: Executor, communityId: number, ids: number[]): Promise<CustomFieldDefinition[]> {
  if (ids.length === 0) return [];
  const rows = await sql<CustomFieldDefinition>`
    select f.id, f.name, f.entity_types as "entityTypes", f.value_type as "valueType", f.multivalue,
      f.enum_values as "enumValues", f.deleted_at is not null as deleted, f.object_type_id as "objectTypeId",
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

export type CustomFieldEntity = 'contact' | 'organization' | 'object';

/**
 * The custom field values of each record, by record ID: `{cf_<id>: {type, value}}` (the `customFields`
 * column), for every live field or the given ones.
 */
export async function customFieldValuesOf(
  db: Executor,
  communityId: number,
  entityType: CustomFieldEntity,
  ids: readonly number[],
  fieldIds: 'all' | readonly number[],
): Promise<Map<number, Record<string, { type: string; value: unknown }>>> {
  const byRecord = new Map<number, Record<string, { type: string; value: unknown }>>();
  if (ids.length === 0 || (fieldIds !== 'all' && fieldIds.length === 0)) return byRecord;
  let query = db
    .selectFrom('custom_field_values as v')
    .innerJoin('custom_fields as f', (join) => join.onRef('f.community_id', '=', 'v.community_id').onRef('f.id', '=', 'v.custom_field_id'))
    .select(['v.entity_id as entityId', 'v.custom_field_id as fieldId', 'v.value'])
    .where('v.community_id', '=', communityId)
    .where('v.entity_type', '=', entityType)
    .where('v.entity_id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .where('f.deleted_at', 'is', null)
    .orderBy('v.entity_id')
    .orderBy('v.custom_field_id');
  if (fieldIds !== 'all') query = query.where('v.custom_field_id', '=', sql<number>`any(${[...fieldIds]}::bigint[])`);
  for (const row of await query.execute()) {
    const values = byRecord.get(row.entityId) ?? {};
    values[`cf_${row.fieldId}`] = row.value as { type: string; value: unknown };
    byRecord.set(row.entityId, values);
  }
  return byRecord;
}

/** The live custom fields of an entity among `ids`: the IDs that exist. */
export async function existingFieldIds(db: Executor, communityId: number, entityType: CustomFieldEntity, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('custom_fields')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`${entityType}::text = any(entity_types)`)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** The live custom fields of an entity, as the lightFilter compiler needs them. */
export async function filterableFields(db: Executor, communityId: number, entityType: CustomFieldEntity) {
  return db
    .selectFrom('custom_fields')
    .select(['id', 'value_type as valueType', 'entity_types as entityTypes', 'multivalue'])
    .where('community_id', '=', communityId)
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`${entityType}::text = any(entity_types)`)
    .execute();
}

/**
 * `sort=cf_<id>`: records with a value in value order (numbers as numbers, text by its first 200
 * characters: custom_field_sort_key, migration 0007; the seek runs on custom_field_values_sort), then those
 * without one. `alias` is the
 * list's base table.
 */
export function customFieldSort(communityId: number, entityType: CustomFieldEntity, alias: string, fieldId: number): SideSort {
  const on = sql<SqlBool>`f_cs.community_id = ${communityId} and f_cs.custom_field_id = ${fieldId}::bigint
    and f_cs.entity_type = ${entityType}::text and f_cs.entity_id = ${sql.ref(`${alias}.id`)}`;
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    join: (query) => (query as any).innerJoin(sql`custom_field_values`.as('f_cs'), (join: any) => join.on(on)),
    missing: sql<SqlBool>`not exists (select 1 from custom_field_values f_cs where ${on})`,
    value: sql`custom_field_sort_key(f_cs.value)`,
    sideId: sql.ref('f_cs.entity_id'),
  };
}

/** A custom field definition as the v2 definition routes show it. */
export interface CustomFieldDefinitionRow {
  id: number;
  name: string;
  entityTypes: string[];
  keyField: boolean;
  valueType: string;
  sampleValues: unknown;
  description: string | null;
  targetSubTypes: string[];
  providedBy: string;
  objectTypeId: number | null;
}

const definitionColumns = [
  'id',
  'name',
  'entity_types as entityTypes',
  'key_field as keyField',
  'value_type as valueType',
  'sample_values as sampleValues',
  'description',
  'target_sub_types as targetSubTypes',
  'provided_by as providedBy',
  'object_type_id as objectTypeId',
] as const;

/** The live definitions in ID order; with `entityType`, those that apply to it. */
export async function listLiveDefinitions(db: Executor, communityId: number, entityType: CustomFieldEntity | null): Promise<CustomFieldDefinitionRow[]> {
  let query = db.selectFrom('custom_fields').select(definitionColumns).where('community_id', '=', communityId).where('deleted_at', 'is', null);
  if (entityType) query = query.where(sql<boolean>`${entityType}::text = any(entity_types)`);
  return query.orderBy('id').execute();
}

export async function findLiveDefinition(db: Executor, communityId: number, id: number): Promise<CustomFieldDefinitionRow | undefined> {
  return db
    .selectFrom('custom_fields')
    .select(definitionColumns)
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
