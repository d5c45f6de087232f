import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CustomFieldDefinition } from '../custom-fields/index.ts';

/** A custom field as an object upsert checks it: its definition and the object type it is limited to, if any. */
export interface ObjectFieldDefinition extends CustomFieldDefinition {
  objectTypeId: number | null;
}

// Object upserts are admin writes, never a source's, so the writers list (core pushes only) is not read.
export async function fieldDefinitions(trx: Transaction<DB>, communityId: number, ids: readonly number[]): Promise<Map<number, ObjectFieldDefinition>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<ObjectFieldDefinition>`
    select f.id, f.name, f.entity_types as "entityTypes", f.value_type as "valueType", f.multivalue,
      f.enum_values as "enumValues", f.deleted_at is not null as deleted, '{}'::bigint[] as writers, f.object_type_id as "objectTypeId"
    from custom_fields f
    where f.community_id = ${communityId} and f.id = any(${[...ids]}::bigint[])`.execute(trx);
  return new Map(rows.rows.map((row) => [row.id, row]));
}

/** The live contact each ID names (itself, or the survivor it was merged into); absent when there is none. */
export async function resolveContacts(trx: Transaction<DB>, communityId: number, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ given: number; id: number }>`
    select t.id as given, coalesce(c.id, m.survivor_id) as id
    from unnest(${[...ids]}::bigint[]) as t(id)
    left join contacts c on c.community_id = ${communityId} and c.id = t.id
    left join contact_merges m on m.community_id = ${communityId} and m.merged_id = t.id and m.unmerged_at is null
    where c.id is not null or m.survivor_id is not null`.execute(trx);
  return new Map(rows.rows.map((row) => [row.given, row.id]));
}

/**
 * Holds the contacts (in ID order, as merges lock them) until the transaction ends, so a merge cannot delete
 * one before the links to it are written; a merge moves links only once they are committed. Answers how
 * many still exist: fewer means one was merged meanwhile.
 */
export async function holdContacts(trx: Transaction<DB>, communityId: number, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await sql<{ id: number }>`
    select id from contacts where community_id = ${communityId} and id = any(${[...ids]}::bigint[])
    order by id
    for key share`.execute(trx);
  return rows.rows.length;
}

export async function existingOrganizations(trx: Transaction<DB>, communityId: number, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await trx
    .selectFrom('organizations')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** The object type of each existing object among `ids`. */
export async function objectTypesOf(trx: Transaction<DB>, communityId: number, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('objects')
    .select(['id', 'object_type_id as objectTypeId'])
    .where('community_id', '=', communityId)
    .where('id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .execute();
  return new Map(rows.map((row) => [row.id, row.objectTypeId]));
}

/**
 * Inserts or updates the objects by record key, in one statement. Rows are written in key order, so two
 * imports that share keys lock them in the same order and do not deadlock. `created` is false for a row
 * that existed: an updated row carries this transaction's ID in xmax, a new one carries 0.
 */
export async function upsertObjects(
  trx: Transaction<DB>,
  target: { communityId: number; objectTypeId: number; now: Date },
  records: readonly { recordKey: string; name: string }[],
): Promise<Map<string, { id: number; created: boolean }>> {
  const rows = await sql<{ id: number; recordKey: string; created: boolean }>`
    insert into objects (community_id, object_type_id, record_key, name, created_at, updated_at)
    select ${target.communityId}, ${target.objectTypeId}, t.record_key, t.name, ${target.now}, ${target.now}
    from unnest(${records.map((record) => record.recordKey)}::text[], ${records.map((record) => record.name)}::text[]) as t(record_key, name)
    order by t.record_key
    on conflict (community_id, object_type_id, record_key) do update set name = excluded.name, updated_at = excluded.updated_at
    returning id, record_key as "recordKey", (xmax = 0) as created`.execute(trx);
  return new Map(rows.rows.map((row) => [row.recordKey, { id: row.id, created: row.created }]));
}

/** Sets (a value) and clears (null) custom field values of many objects: one statement for each. */
export async function writeFieldValues(
  trx: Transaction<DB>,
  target: { communityId: number; now: Date },
  values: readonly { objectId: number; fieldId: number; value: unknown }[],
) {
  const set = values.filter((entry) => entry.value !== null);
  const cleared = values.filter((entry) => entry.value === null);
  if (set.length) {
    await sql`
      insert into custom_field_values (community_id, entity_type, entity_id, custom_field_id, value, updated_at)
      select ${target.communityId}, 'object', t.object_id, t.field_id, t.value::jsonb, ${target.now}
      from unnest(${set.map((entry) => entry.objectId)}::bigint[], ${set.map((entry) => entry.fieldId)}::bigint[],
        ${set.map((entry) => JSON.stringify(entry.value))}::text[]) as t(object_id, field_id, value)
      on conflict (community_id, entity_type, entity_id, custom_field_id)
      do update set value = excluded.value, updated_at = excluded.updated_at`.execute(trx);
  }
  if (cleared.length) {
    await sql`
      delete from custom_field_values v
      using unnest(${cleared.map((entry) => entry.objectId)}::bigint[], ${cleared.map((entry) => entry.fieldId)}::bigint[]) as t(object_id, field_id)
      where v.community_id = ${target.communityId} and v.entity_type = 'object' and v.entity_id = t.object_id and v.custom_field_id = t.field_id`.execute(trx);
  }
}

/**
 * Makes `links` the associations of the given objects: links not listed go, new ones are added, and those
 * that stay keep their creation time. An object with no links listed ends with none.
 */
export async function replaceAssociations(
  trx: Transaction<DB>,
  communityId: number,
  objectIds: readonly number[],
  links: readonly { objectId: number; assocId: number; targetId: number }[],
  now: Date,
) {
  if (objectIds.length === 0) return;
  const wanted = sql`unnest(${links.map((link) => link.objectId)}::bigint[], ${links.map((link) => link.assocId)}::bigint[],
    ${links.map((link) => link.targetId)}::bigint[]) as t(object_id, assoc_id, target_id)`;
  await sql`
    delete from object_associations a
    where a.community_id = ${communityId} and a.object_id = any(${[...objectIds]}::bigint[])
      and not exists (select 1 from ${wanted} where t.object_id = a.object_id and t.assoc_id = a.assoc_id and t.target_id = a.target_id)`.execute(trx);
  if (links.length === 0) return;
  // Two targets of one request may be the same contact once merged IDs resolve: one link is kept.
  await sql`
    insert into object_associations (community_id, object_id, assoc_id, target_id, created_at)
    select ${communityId}, t.object_id, t.assoc_id, t.target_id, ${now} from ${wanted}
    on conflict do nothing`.execute(trx);
}
