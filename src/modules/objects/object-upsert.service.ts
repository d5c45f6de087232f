import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { RetryTransaction, retryingTransaction } from '../../db/transaction.ts';
import { HearthError } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey, type IdEntity } from '../../core/ids.ts';
import { auditTx } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';
import { checkCustomFieldValue } from '../custom-fields/index.ts';
import * as admin from './object-type-admin.repository.ts';
import * as upserts from './object-upsert.repository.ts';

export const MAX_RECORDS_PER_UPSERT = 1000;
export const RECORD_KEY_MAX = 500;
export const OBJECT_NAME_MAX = 500;

export interface CustomFieldWriteInput {
  customFieldId: string;
  customFieldValue: { type?: unknown; value?: unknown } | null;
}

export interface ObjectRecordInput {
  /** The object's key within its type: the same key again updates the object. */
  recordKey: string;
  name: string;
  /** Values to set (null clears); fields not listed keep their values. */
  customFields?: CustomFieldWriteInput[];
  /** When given, the object's associations become exactly these; when absent, they stay as they are. */
  associations?: { objectAssocType: string; targetId: string }[];
}

export interface ObjectUpsertInput {
  objectTypeId: string;
  records: ObjectRecordInput[];
}

export interface ObjectUpsertResult {
  /** co_N of each record, in the order given. */
  ids: string[];
  created: number;
  updated: number;
}

export interface UpsertFault {
  /** Index of the record at fault; null for a fault of the whole request. */
  record: number | null;
  /** Where in the record (or the request): `customFields[0].customFieldId`. */
  path: string;
  message: string;
  /** The offending ID, for `error.invalidIds`. */
  id?: string;
}

/** A rejected upsert: one 400 naming every fault. `faults` lets the importer say which line each came from. */
export class ObjectUpsertRejected extends HearthError {
  constructor(readonly faults: UpsertFault[]) {
    const ids = [...new Set(faults.flatMap((fault) => (fault.id === undefined ? [] : [fault.id])))];
    const code = faults.every((fault) => fault.record === null && fault.path === 'objectTypeId') ? 'invalid_object_type_id' : 'invalid_parameters';
    super(code, faults.map(describeFault).join('; '), { invalidIds: ids.length ? ids : undefined });
  }
}

export function describeFault(fault: UpsertFault): string {
  const where = fault.record === null ? fault.path : `records[${fault.record}].${fault.path}`;
  return `${where}: ${fault.message}`;
}

const TARGET_ID_ENTITY: Record<string, IdEntity> = { contact: 'contact', organization: 'organization', object: 'object' };

function keyOf(entity: IdEntity, value: unknown): number | null {
  const prefix = ID_PREFIXES[entity];
  return typeof value === 'string' && value.startsWith(prefix) ? parseKey(value.slice(prefix.length)) : null;
}

interface Plan {
  values: { record: number; fieldId: number; value: unknown }[];
  links: { record: number; assocId: number; targetId: number }[];
}

export function createObjectUpsertService(deps: { db: Kysely<DB>; clock: Clock }) {
  /** Every fault of the request, found with one query per kind of reference, before anything is written. */
  async function check(trx: Transaction<DB>, communityId: number, input: ObjectUpsertInput): Promise<{ objectTypeId: number; plan: Plan }> {
    const typeKey = keyOf('object_type', input.objectTypeId);
    const typeExists = typeKey !== null && (await admin.existingObjectTypeIds(trx, communityId, [typeKey])).has(typeKey);
    if (typeKey === null || !typeExists) {
      throw new ObjectUpsertRejected([
        {
          record: null,
          path: 'objectTypeId',
          message:
            typeKey === null
              ? `${JSON.stringify(input.objectTypeId)} is not an object type ID (cot_<number>)`
              : `${input.objectTypeId} is not an object type of this community`,
          id: String(input.objectTypeId),
        },
      ]);
    }
    const cot = formatId('object_type', typeKey);
    const faults: UpsertFault[] = [];
    const { records } = input;
    if (records.length === 0 || records.length > MAX_RECORDS_PER_UPSERT) {
      faults.push({ record: null, path: 'records', message: `takes 1 to ${MAX_RECORDS_PER_UPSERT} records; got ${records.length}` });
    }
    const assocs = new Map((await admin.assocsOf(trx, communityId, typeKey)).map((assoc) => [assoc.assocType, assoc]));
    const keys = new Map<string, number>();
    const fieldWrites: { record: number; path: string; fieldId: number; given: string; write: CustomFieldWriteInput }[] = [];
    const targets: {
      record: number;
      path: string;
      assocId: number;
      entity: IdEntity;
      key: number;
      given: string;
      targetObjectTypeId: number | null;
      assocType: string;
    }[] = [];

    for (const [index, record] of records.entries()) {
      const fault = (path: string, message: string, id?: string) => faults.push({ record: index, path, message, id });
      if (record.recordKey.trim() === '' || record.recordKey.length > RECORD_KEY_MAX) {
        fault('recordKey', `must be 1 to ${RECORD_KEY_MAX} characters, not blank`);
      } else if (keys.has(record.recordKey)) {
        fault('recordKey', `"${record.recordKey}" is also the key of records[${keys.get(record.recordKey)}]`);
      } else {
        keys.set(record.recordKey, index);
      }
      const name = record.name.trim();
      if (name === '' || name.length > OBJECT_NAME_MAX) fault('name', `must be 1 to ${OBJECT_NAME_MAX} characters, not blank`);
      for (const [at, write] of (record.customFields ?? []).entries()) {
        const fieldId = keyOf('custom_field', write.customFieldId);
        if (fieldId === null)
          fault(
            `customFields[${at}].customFieldId`,
            `${JSON.stringify(write.customFieldId)} is not a custom field ID (cf_<number>)`,
            String(write.customFieldId),
          );
        else fieldWrites.push({ record: index, path: `customFields[${at}]`, fieldId, given: write.customFieldId, write });
      }
      for (const [at, link] of (record.associations ?? []).entries()) {
        const assoc = assocs.get(link.objectAssocType);
        if (!assoc) {
          const known = [...assocs.keys()].map((type) => `"${type}"`).join(', ') || 'none';
          fault(`associations[${at}].objectAssocType`, `object type ${cot} has no association "${link.objectAssocType}" (it has ${known})`);
          continue;
        }
        const entity = TARGET_ID_ENTITY[assoc.targetEntity]!;
        const key = keyOf(entity, link.targetId);
        if (key === null) {
          fault(
            `associations[${at}].targetId`,
            `association "${assoc.assocType}" links to a ${assoc.targetEntity}: ${JSON.stringify(link.targetId)} is not a ${ID_PREFIXES[entity]}<number> ID`,
            String(link.targetId),
          );
          continue;
        }
        targets.push({
          record: index,
          path: `associations[${at}].targetId`,
          assocId: assoc.id,
          entity,
          key,
          given: link.targetId,
          targetObjectTypeId: assoc.targetObjectTypeId,
          assocType: assoc.assocType,
        });
      }
    }

    const idsOf = (entity: IdEntity) => [...new Set(targets.filter((target) => target.entity === entity).map((target) => target.key))];
    // One after another: a transaction holds one connection, so there is nothing to gain in parallel.
    const definitions = await upserts.fieldDefinitions(trx, communityId, [...new Set(fieldWrites.map((write) => write.fieldId))]);
    const contacts = await upserts.resolveContacts(trx, communityId, idsOf('contact'));
    const live = [...new Set(contacts.values())];
    // A contact merged between the two reads: start over, and the merged ID resolves to its survivor.
    if ((await upserts.holdContacts(trx, communityId, live)) < live.length) throw new RetryTransaction();
    const organizations = await upserts.existingOrganizations(trx, communityId, idsOf('organization'));
    const objects = await upserts.objectTypesOf(trx, communityId, idsOf('object'));

    const plan: Plan = { values: [], links: [] };
    const written = new Set<string>();
    for (const write of fieldWrites) {
      const field = definitions.get(write.fieldId);
      const fault = (message: string, id?: string) => faults.push({ record: write.record, path: write.path, message, id });
      if (!field || field.deleted || !field.entityTypes.includes('object') || (field.objectTypeId !== null && field.objectTypeId !== typeKey)) {
        fault(`no custom field ${write.given} for objects of type ${cot}`, write.given);
        continue;
      }
      if (written.has(`${write.record}:${field.id}`)) {
        fault(`custom field ${write.given} is given more than once`);
        continue;
      }
      written.add(`${write.record}:${field.id}`);
      const checked = checkCustomFieldValue(field, write.write.customFieldValue);
      if (checked.ok) plan.values.push({ record: write.record, fieldId: field.id, value: checked.value });
      else fault(checked.reason);
    }
    for (const target of targets) {
      const fault = (message: string) => faults.push({ record: target.record, path: target.path, message, id: target.given });
      if (target.entity === 'contact') {
        const live = contacts.get(target.key);
        if (live === undefined) fault(`${target.given} is not a contact of this community`);
        else plan.links.push({ record: target.record, assocId: target.assocId, targetId: live });
      } else if (target.entity === 'organization') {
        if (!organizations.has(target.key)) fault(`${target.given} is not an organization of this community`);
        else plan.links.push({ record: target.record, assocId: target.assocId, targetId: target.key });
      } else {
        const type = objects.get(target.key);
        if (type === undefined) fault(`${target.given} is not an object of this community`);
        else if (type !== target.targetObjectTypeId) {
          fault(
            `${target.given} is an object of type ${formatId('object_type', type)}, but association "${target.assocType}" links to objects of type ${formatId('object_type', target.targetObjectTypeId!)}`,
          );
        } else plan.links.push({ record: target.record, assocId: target.assocId, targetId: target.key });
      }
    }
    // Grouped by record (the sort is stable), so a record's faults read together.
    if (faults.length) throw new ObjectUpsertRejected(faults.sort((a, b) => (a.record ?? -1) - (b.record ?? -1)));
    return { objectTypeId: typeKey, plan };
  }

  return {
    /**
     * POST /api/v2/admin/objects and `hearth objects import`: inserts or updates objects of one type by
     * record key, with their custom field values and associations, all or nothing in one transaction.
     */
    async upsert(writer: Writer, input: ObjectUpsertInput): Promise<ObjectUpsertResult> {
      const { communityId } = writer;
      return retryingTransaction(deps.db, async (trx) => {
        const { objectTypeId, plan } = await check(trx, communityId, input);
        const now = deps.clock.now();
        const rows = await upserts.upsertObjects(
          trx,
          { communityId, objectTypeId, now },
          input.records.map((record) => ({ recordKey: record.recordKey, name: record.name.trim() })),
        );
        const idOf = (record: number) => rows.get(input.records[record]!.recordKey)!.id;
        await upserts.writeFieldValues(
          trx,
          { communityId, now },
          plan.values.map((entry) => ({ objectId: idOf(entry.record), fieldId: entry.fieldId, value: entry.value })),
        );
        const replaced = input.records.flatMap((record, index) => (record.associations === undefined ? [] : [idOf(index)]));
        await upserts.replaceAssociations(
          trx,
          communityId,
          replaced,
          plan.links.map((link) => ({ objectId: idOf(link.record), assocId: link.assocId, targetId: link.targetId })),
          now,
        );
        const created = [...rows.values()].filter((row) => row.created).length;
        const ids = input.records.map((_, index) => formatId('object', idOf(index)));
        await auditTx.recordWrite(trx, writer, {
          operation: 'objects.upsert',
          entityIds: ids,
          detail: { objectTypeId: formatId('object_type', objectTypeId), created, updated: rows.size - created },
        });
        return { ids, created, updated: rows.size - created };
      });
    },
  };
}

export type ObjectUpsertService = ReturnType<typeof createObjectUpsertService>;
