import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CustomFieldDefinition } from '../custom-fields/index.ts';

/**
 * The SQL of bulk updates: the reads that validate a request (each taking the lock that keeps what it read
 * true until the transaction ends) and the batched writes, one statement per kind of change for every
 * record at once. Every statement is scoped by community_id.
 */

type Trx = Transaction<DB>;
export type BulkEntity = 'contact' | 'organization' | 'object';

/**
 * For each given contact key, the live contact it names: itself, or the survivor it was merged into
 * (docs/behaviour.md, IDs). Keys that name nothing are left out.
 */
export async function resolveContactKeys(trx: Trx, communityId: number, keys: number[]): Promise<Map<number, number>> {
  if (keys.length === 0) return new Map();
  const rows = await sql<{ key: number; id: number }>`
    select g.key, coalesce(c.id, m.survivor_id) as id
    from unnest(${keys}::bigint[]) as g(key)
    left join contacts c on c.community_id = ${communityId} and c.id = g.key
    left join contact_merges m on c.id is null and m.community_id = ${communityId} and m.merged_id = g.key and m.unmerged_at is null
    where c.id is not null or m.survivor_id is not null`.execute(trx);
  return new Map(rows.rows.map((row) => [row.key, row.id]));
}

/**
 * The records among `ids` that exist, with their object type (custom objects; null otherwise), locked in ID
 * order FOR KEY SHARE until the transaction ends: a merge (which locks contacts FOR UPDATE) or a deletion
 * waits for this update, and then carries its rows along, instead of leaving them pointing at nothing.
 * Ordinary updates of the records (ingestion) do not wait.
 */
export async function lockRecords(trx: Trx, communityId: number, entity: BulkEntity, ids: number[]): Promise<Map<number, number | null>> {
  if (ids.length === 0) return new Map();
  const table = { contact: 'contacts', organization: 'organizations', object: 'objects' }[entity];
  const objectType = entity === 'object' ? sql`object_type_id` : sql`null::bigint`;
  const rows = await sql<{ id: number; objectTypeId: number | null }>`
    select id, ${objectType} as "objectTypeId" from ${sql.table(table)}
    where community_id = ${communityId} and id = any(${ids}::bigint[])
    order by id
    for key share`.execute(trx);
  return new Map(rows.rows.map((row) => [row.id, row.objectTypeId]));
}

export interface TagState {
  id: number;
  entityTypes: string[];
  deleted: boolean;
}

/**
 * The tags among `ids`, deleted or not, locked FOR KEY SHARE: deleting a tag locks it FOR UPDATE and then
 * removes its assignments, so it waits for this update and removes what it assigned too (tag.repository.ts).
 */
export async function lockTags(trx: Trx, communityId: number, ids: number[]): Promise<Map<number, TagState>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<TagState>`
    select id, entity_types as "entityTypes", deleted_at is not null as deleted from tags
    where community_id = ${communityId} and id = any(${ids}::bigint[])
    order by id
    for key share`.execute(trx);
  return new Map(rows.rows.map((row) => [row.id, row]));
}

export type FieldDefinition = CustomFieldDefinition & { objectTypeId: number | null };

/** The custom field definitions among `ids`, deleted or not, with the object type of object fields. */
export async function findFields(trx: Trx, communityId: number, ids: number[]): Promise<Map<number, FieldDefinition>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<FieldDefinition>`
    select id, name, entity_types as "entityTypes", value_type as "valueType", multivalue, enum_values as "enumValues",
      deleted_at is not null as deleted, '{}'::bigint[] as writers, object_type_id as "objectTypeId"
    from custom_fields
    where community_id = ${communityId} and id = any(${ids}::bigint[])`.execute(trx);
  return new Map(rows.rows.map((row) => [row.id, row]));
}

/**
 * Assigns every tag to every record, in one statement, in (record, tag) order so that two concurrent
 * updates of overlapping records take their row locks in the same order. Assignments already present stay.
 */
export async function addTagAssignments(trx: Trx, communityId: number, entity: 'contact' | 'organization', ids: number[], tagIds: number[]) {
  if (ids.length === 0 || tagIds.length === 0) return;
  await sql`
    insert into tag_assignments (community_id, tag_id, entity_type, entity_id)
    select ${communityId}, t.id, ${entity}, r.id
    from unnest(${ids}::bigint[]) as r(id) cross join unnest(${tagIds}::bigint[]) as t(id)
    order by r.id, t.id
    on conflict do nothing`.execute(trx);
}

/** Takes every tag off every record; assignments that are not there are no matter. */
export async function removeTagAssignments(trx: Trx, communityId: number, entity: 'contact' | 'organization', ids: number[], tagIds: number[]) {
  if (ids.length === 0 || tagIds.length === 0) return;
  await sql`
    delete from tag_assignments
    where community_id = ${communityId} and entity_type = ${entity}
      and entity_id = any(${ids}::bigint[]) and tag_id = any(${tagIds}::bigint[])`.execute(trx);
}

/**
 * Sets (a value) or clears (null) custom field values of every record: one upsert for the values set, in
 * (record, field) order, and one delete for the fields cleared. A value equal to the stored one is not
 * written again, so a retried request changes nothing, not even `updated_at`.
 */
export async function writeCustomFieldValues(
  trx: Trx,
  target: { communityId: number; entity: BulkEntity; now: Date },
  ids: number[],
  values: { fieldId: number; value: unknown }[],
) {
  if (ids.length === 0) return;
  const set = values.filter((entry) => entry.value !== null);
  const cleared = values.filter((entry) => entry.value === null).map((entry) => entry.fieldId);
  if (set.length) {
    await sql`
      insert into custom_field_values as v (community_id, entity_type, entity_id, custom_field_id, value, updated_at)
      select ${target.communityId}, ${target.entity}, r.id, f.id, f.value::jsonb, ${target.now}
      from unnest(${ids}::bigint[]) as r(id)
      cross join unnest(${set.map((entry) => entry.fieldId)}::bigint[], ${set.map((entry) => JSON.stringify(entry.value))}::text[]) as f(id, value)
      order by r.id, f.id
      on conflict (community_id, entity_type, entity_id, custom_field_id)
      do update set value = excluded.value, updated_at = excluded.updated_at
        where v.value is distinct from excluded.value`.execute(trx);
  }
  if (cleared.length) {
    await sql`
      delete from custom_field_values
      where community_id = ${target.communityId} and entity_type = ${target.entity}
        and entity_id = any(${ids}::bigint[]) and custom_field_id = any(${cleared}::bigint[])`.execute(trx);
  }
}

/** Adds every record to the segment; records already in it are skipped (their status stays). */
export async function addSegmentMemberships(trx: Trx, communityId: number, segmentId: number, ids: number[]) {
  if (ids.length === 0) return;
  await sql`
    insert into segment_memberships (community_id, segment_id, entity_id)
    select ${communityId}, ${segmentId}, r.id from unnest(${ids}::bigint[]) as r(id)
    order by r.id
    on conflict do nothing`.execute(trx);
}
