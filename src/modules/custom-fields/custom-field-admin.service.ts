import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { isForeignKeyViolation } from '../../db/errors.ts';
import { conflict, HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey } from '../../core/ids.ts';
import type { Writer } from '../../core/writer.ts';
import { auditTx } from '../audit/index.ts';
import { sourceTx } from '../sources/index.ts';
import * as admin from './custom-field-admin.repository.ts';
import type { AdminDefinitionRow, DefinitionFields } from './custom-field-admin.repository.ts';

export interface NewCustomField {
  name: string;
  entityTypes: string[];
  valueType: string;
  multivalue?: boolean;
  allowedValues?: string[];
  keyField?: boolean;
  description?: string | null;
  objectTypeId?: string;
  writableBySourceIds?: number[];
}

export type CustomFieldChanges = Partial<
  Pick<NewCustomField, 'name' | 'description' | 'valueType' | 'multivalue' | 'allowedValues' | 'keyField' | 'writableBySourceIds'>
>;

export function presentAdminField(row: AdminDefinitionRow) {
  return {
    id: formatId('custom_field', row.id),
    name: row.name,
    entityTypes: row.entityTypes,
    valueType: row.valueType,
    multivalue: row.multivalue,
    allowedValues: row.allowedValues,
    keyField: row.keyField,
    description: row.description,
    objectTypeId: row.objectTypeId === null ? null : formatId('object_type', Number(row.objectTypeId)),
    writableBySourceIds: row.writers.map(Number),
    valueCount: row.valueCount,
    createdAt: row.createdAt.toISOString(),
    retiredAt: row.retiredAt?.toISOString() ?? null,
  };
}

/** `cf_N` as admins name a field; a 400 for anything else. */
export function parseCustomFieldId(value: string): number {
  const id = value.startsWith(ID_PREFIXES.custom_field) ? parseKey(value.slice(ID_PREFIXES.custom_field.length)) : null;
  if (id === null) {
    throw new HearthError('invalid_custom_field_id', `"${value}" is not a valid custom field ID (expected cf_<number>)`, { invalidIds: [value] });
  }
  return id;
}

/**
 * Administration of custom field definitions (docs/writing.md, Custom field definitions): create, change,
 * retire, and which sources may write them. The rules a definition keeps whatever changes: an enum field has
 * allowed values and only an enum field has them or is multi-select; a name is unique among the live fields of
 * each entity type; a field whose records hold values keeps its type, and keeps every allowed value some record
 * holds (its values would no longer be what the field says). Retiring hides the field from every read, filter,
 * sort and write; its values stay stored.
 */
export function createCustomFieldAdminService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db, clock } = deps;

  function checkShape(fields: DefinitionFields) {
    const problems: string[] = [];
    if (fields.valueType === 'enum' && fields.allowedValues.length === 0) problems.push('an enum field needs allowedValues');
    if (fields.valueType !== 'enum' && fields.allowedValues.length > 0) problems.push(`allowedValues are only for enum fields, not ${fields.valueType}`);
    if (fields.valueType !== 'enum' && fields.multivalue) problems.push(`only an enum field can be multivalue (a multi-select), not ${fields.valueType}`);
    if (fields.objectTypeId !== null && !fields.entityTypes.includes('object')) problems.push('objectTypeId is only for fields that apply to objects');
    if (fields.allowedValues.some((value) => value.trim() !== value)) problems.push('allowedValues must not start or end with spaces');
    if (problems.length) throw invalidParameters(problems.join('; '));
  }

  async function checkName(trx: Transaction<DB>, communityId: number, fields: DefinitionFields, except: number | null) {
    const clash = await admin.sameNamed(trx, communityId, fields.name, fields.entityTypes, except);
    if (clash.length)
      throw conflict(
        `a live custom field of the same entity type is already named "${fields.name}" (${clash.map((id) => formatId('custom_field', id)).join(', ')})`,
      );
  }

  async function checkSources(communityId: number, sourceIds: number[]) {
    const missing: number[] = [];
    for (const sourceId of sourceIds) if (!(await sourceTx.findSource(db, communityId, sourceId))) missing.push(sourceId);
    if (missing.length) throw notFound('source_not_found', `no source ${missing.join(', ')} in this community`);
  }

  async function fieldOf(communityId: number, id: number, executor: Kysely<DB> = db): Promise<AdminDefinitionRow> {
    return found(id, await admin.adminDefinition(executor, communityId, id));
  }

  function found(id: number, row: AdminDefinitionRow | undefined): AdminDefinitionRow {
    if (!row) throw notFound('custom_field_not_found', `custom field ${formatId('custom_field', id)} not found`);
    return row;
  }

  /** The live field, locked until the transaction ends. */
  async function liveFieldOf(trx: Transaction<DB>, communityId: number, id: number): Promise<AdminDefinitionRow> {
    const row = found(id, await admin.lockedDefinition(trx, communityId, id));
    if (row.retiredAt) throw notFound('custom_field_not_found', `custom field ${formatId('custom_field', id)} was retired`);
    return row;
  }

  const get = async (communityId: number, id: number) => presentAdminField(await fieldOf(communityId, id));

  return {
    async list(communityId: number, includeRetired: boolean) {
      return (await admin.adminDefinitions(db, communityId, includeRetired)).map(presentAdminField);
    },

    get,

    /** POST /api/v2/admin/custom-fields. */
    async create(writer: Writer, given: NewCustomField) {
      let objectTypeId: number | null = null;
      if (given.objectTypeId !== undefined) {
        const raw = given.objectTypeId;
        objectTypeId = raw.startsWith(ID_PREFIXES.object_type) ? parseKey(raw.slice(ID_PREFIXES.object_type.length)) : null;
        if (objectTypeId === null)
          throw new HearthError('invalid_object_type_id', `"${raw}" is not a valid object type ID (expected cot_<number>)`, { invalidIds: [raw] });
      }
      const fields: DefinitionFields = {
        name: given.name.trim(),
        entityTypes: given.entityTypes,
        keyField: given.keyField ?? false,
        valueType: given.valueType,
        multivalue: given.multivalue ?? false,
        allowedValues: given.allowedValues ?? [],
        description: given.description ?? null,
        objectTypeId,
      };
      if (!fields.name) throw invalidParameters('name must not be blank');
      checkShape(fields);
      await checkSources(writer.communityId, given.writableBySourceIds ?? []);
      try {
        const id = await db.transaction().execute(async (trx) => {
          await checkName(trx, writer.communityId, fields, null);
          const id = await admin.insertDefinition(trx, writer.communityId, fields, clock.now());
          await admin.setWriters(trx, writer.communityId, id, given.writableBySourceIds ?? []);
          await auditTx.recordWrite(trx, writer, {
            operation: 'custom_field.create',
            entityIds: [formatId('custom_field', id)],
            detail: { name: fields.name, valueType: fields.valueType },
          });
          return id;
        });
        return get(writer.communityId, id);
      } catch (error) {
        if (isForeignKeyViolation(error) && objectTypeId !== null) {
          throw notFound('object_type_not_found', `object type ${formatId('object_type', objectTypeId)} not found`);
        }
        throw error;
      }
    },

    /** PATCH /api/v2/admin/custom-fields/{id}: what is given changes, the rest stays. */
    async update(writer: Writer, id: number, changes: CustomFieldChanges) {
      if (changes.writableBySourceIds) await checkSources(writer.communityId, changes.writableBySourceIds);
      await db.transaction().execute(async (trx) => {
        const row = await liveFieldOf(trx, writer.communityId, id);
        const fields: DefinitionFields = {
          name: changes.name?.trim() ?? row.name,
          entityTypes: row.entityTypes,
          keyField: changes.keyField ?? row.keyField,
          valueType: changes.valueType ?? row.valueType,
          multivalue: changes.multivalue ?? row.multivalue,
          allowedValues: changes.allowedValues ?? (changes.valueType !== undefined && changes.valueType !== 'enum' ? [] : row.allowedValues),
          description: changes.description === undefined ? row.description : changes.description,
          objectTypeId: row.objectTypeId,
        };
        if (!fields.name) throw invalidParameters('name must not be blank');
        checkShape(fields);
        const self = formatId('custom_field', id);
        if (row.valueCount > 0 && (fields.valueType !== row.valueType || fields.multivalue !== row.multivalue)) {
          const from = `${row.valueType}${row.multivalue ? ' (multivalue)' : ''}`;
          const to = `${fields.valueType}${fields.multivalue ? ' (multivalue)' : ''}`;
          throw conflict(
            `custom field ${self} has values on ${row.valueCount} record(s), so its type cannot change from ${from} to ${to}; retire it and create another`,
          );
        }
        const dropped = row.allowedValues.filter((value) => !fields.allowedValues.includes(value));
        const held = await admin.recordsHolding(trx, writer.communityId, id, dropped);
        if (held.size) {
          const list = [...held].map(([value, records]) => `"${value}" (${records} record(s))`).join(', ');
          throw conflict(`custom field ${self} cannot drop allowed values that records hold: ${list}`);
        }
        if (fields.name.toLowerCase() !== row.name.toLowerCase()) await checkName(trx, writer.communityId, fields, id);
        await admin.updateDefinition(trx, writer.communityId, id, fields);
        if (changes.writableBySourceIds) await admin.setWriters(trx, writer.communityId, id, changes.writableBySourceIds);
        await auditTx.recordWrite(trx, writer, { operation: 'custom_field.update', entityIds: [self], detail: { changed: Object.keys(changes).sort() } });
      });
      return get(writer.communityId, id);
    },

    /** DELETE /api/v2/admin/custom-fields/{id}: retired, not erased; a retired field is gone for this route. */
    async retire(writer: Writer, id: number) {
      await db.transaction().execute(async (trx) => {
        await liveFieldOf(trx, writer.communityId, id);
        await admin.retireDefinition(trx, writer.communityId, id, clock.now());
        await auditTx.recordWrite(trx, writer, { operation: 'custom_field.retire', entityIds: [formatId('custom_field', id)] });
      });
      return get(writer.communityId, id);
    },
  };
}

export type CustomFieldAdminService = ReturnType<typeof createCustomFieldAdminService>;
