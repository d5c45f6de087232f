import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';
import { lockRow } from '../../core/query-fragments.ts';

/** What an admin decides of a custom field. */
export interface DefinitionFields {
  name: string;
  entityTypes: string[];
  keyField: boolean;
  valueType: string;
  multivalue: boolean;
  allowedValues: string[];
  description: string | null;
  objectTypeId: number | null;
}

/** A custom field definition as admins see it: what the v2 reads show, and what decides its writes. */
export interface AdminDefinitionRow extends DefinitionFields {
  id: number;
  writers: number[];
  createdAt: Date;
  retiredAt: Date | null;
  /** Records holding a value of the field. */
  valueCount: number;
}

const adminColumns = sql`
  f.id, f.name, f.entity_types as "entityTypes", f.key_field as "keyField", f.value_type as "valueType", f.multivalue,
  f.enum_values as "allowedValues", f.description, f.object_type_id as "objectTypeId",
  coalesce(array(select w.source_id from custom_field_writers w where w.community_id = f.community_id and w.custom_field_id = f.id order by w.source_id), '{}') as writers,
  f.created_at as "createdAt", f.deleted_at as "retiredAt",
  (select count(*) from custom_field_values v where v.community_id = f.community_id and v.custom_field_id = f.id)::int as "valueCount"`;

export async function adminDefinitions(db: Executor, communityId: number, includeRetired: boolean): Promise<AdminDefinitionRow[]> {
  const { rows } = await sql<AdminDefinitionRow>`
    select ${adminColumns} from custom_fields f
    where f.community_id = ${communityId} ${includeRetired ? sql`` : sql`and f.deleted_at is null`}
    order by f.id`.execute(db);
  return rows;
}

export async function adminDefinition(db: Executor, communityId: number, id: number): Promise<AdminDefinitionRow | undefined> {
  const { rows } = await sql<AdminDefinitionRow>`
    select ${adminColumns} from custom_fields f where f.community_id = ${communityId} and f.id = ${id}`.execute(db);
  return rows[0];
}

/** The definition, locked until the transaction ends. */
export async function lockedDefinition(trx: Transaction<DB>, communityId: number, id: number): Promise<AdminDefinitionRow | undefined> {
  return (await lockRow(trx, 'custom_fields', communityId, id)) ? adminDefinition(trx, communityId, id) : undefined;
}

/** "cf" in ASCII: the first key of the lock that orders changes to a community's field names. */
const NAMES_LOCK = 0x6366;

/**
 * Live fields of the community named `name` (in any case) that apply to one of `entityTypes`, other than
 * `except`. Takes the community's lock on names first, so that two admins cannot both make the name.
 */
export async function sameNamed(trx: Transaction<DB>, communityId: number, name: string, entityTypes: string[], except: number | null): Promise<number[]> {
  await sql`select pg_advisory_xact_lock(${NAMES_LOCK}, ${communityId}::int)`.execute(trx);
  const { rows } = await sql<{ id: number }>`
    select id from custom_fields
    where community_id = ${communityId} and deleted_at is null and lower(name) = lower(${name})
      and entity_types && ${entityTypes}::text[] ${except === null ? sql`` : sql`and id <> ${except}`}`.execute(trx);
  return rows.map((row) => Number(row.id));
}

/** An enum field shows its allowed values as its samples (the v2 definition's `sampleValues`). */
const samplesOf = (fields: Pick<DefinitionFields, 'valueType' | 'allowedValues'>) =>
  JSON.stringify(fields.valueType === 'enum' ? fields.allowedValues.map((value) => ({ type: 'enum', value })) : []);

export async function insertDefinition(trx: Transaction<DB>, communityId: number, fields: DefinitionFields, now: Date): Promise<number> {
  const { rows } = await sql<{ id: number }>`
    insert into custom_fields (community_id, name, entity_types, key_field, value_type, multivalue, enum_values, sample_values, description, object_type_id, created_at)
    values (${communityId}, ${fields.name}, ${fields.entityTypes}::text[], ${fields.keyField}, ${fields.valueType}, ${fields.multivalue},
      ${fields.allowedValues}::text[], ${samplesOf(fields)}::jsonb, ${fields.description}, ${fields.objectTypeId}, ${now})
    returning id`.execute(trx);
  return Number(rows[0]!.id);
}

export async function updateDefinition(trx: Transaction<DB>, communityId: number, id: number, fields: DefinitionFields): Promise<void> {
  await sql`
    update custom_fields set name = ${fields.name}, key_field = ${fields.keyField}, value_type = ${fields.valueType},
      multivalue = ${fields.multivalue}, enum_values = ${fields.allowedValues}::text[], sample_values = ${samplesOf(fields)}::jsonb,
      description = ${fields.description}
    where community_id = ${communityId} and id = ${id}`.execute(trx);
}

/** Which sources may write the field through the core pushes (none: every source). */
export async function setWriters(trx: Transaction<DB>, communityId: number, id: number, sourceIds: number[]): Promise<void> {
  await sql`delete from custom_field_writers where community_id = ${communityId} and custom_field_id = ${id}`.execute(trx);
  if (sourceIds.length === 0) return;
  await sql`
    insert into custom_field_writers (community_id, custom_field_id, source_id)
    select ${communityId}, ${id}, s from unnest(${sourceIds}::bigint[]) as s`.execute(trx);
}

export async function retireDefinition(trx: Transaction<DB>, communityId: number, id: number, now: Date): Promise<void> {
  await sql`update custom_fields set deleted_at = ${now} where community_id = ${communityId} and id = ${id}`.execute(trx);
}

/** How many records hold each of `values` (of an enum field; a multi-select value counts once per record). */
export async function recordsHolding(db: Executor, communityId: number, id: number, values: string[]): Promise<Map<string, number>> {
  if (values.length === 0) return new Map();
  const { rows } = await sql<{ value: string; records: number }>`
    select o.value, count(*)::int as records
    from custom_field_values v
    cross join lateral (
      select jsonb_array_elements_text(case jsonb_typeof(v.value -> 'value') when 'array' then v.value -> 'value' else jsonb_build_array(v.value -> 'value') end) as value
    ) o
    where v.community_id = ${communityId} and v.custom_field_id = ${id} and o.value = any(${values}::text[])
    group by o.value`.execute(db);
  return new Map(rows.map((row) => [row.value, Number(row.records)]));
}
