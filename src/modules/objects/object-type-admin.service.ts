import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { conflict, HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey } from '../../core/ids.ts';
import { auditTx } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';
import * as admin from './object-type-admin.repository.ts';
import { presentObjectType } from './object-type.presenters.ts';

export const TARGET_ENTITIES = ['contact', 'organization', 'object'] as const;
/** A key, not prose: it names the association in object upserts and in `--assoc type:target[:cot_N]`. */
export const ASSOC_TYPE_PATTERN = '^[A-Za-z0-9_-]{1,100}$';
const ASSOC_TYPE = new RegExp(ASSOC_TYPE_PATTERN);
export const OBJECT_TYPE_NAME_MAX = 200;

export interface AssocInput {
  objectAssocType: string;
  targetEntity: string;
  /** cot_N, required exactly when targetEntity is `object`. */
  targetObjectTypeId?: string | null;
}

export interface NewObjectType {
  name: string;
  assocs?: AssocInput[];
}

interface Fault {
  message: string;
  /** The offending ID, for `error.invalidIds`. */
  id?: string;
  /** A fault about an object type ID: alone, the answer is `invalid_object_type_id` (docs/behaviour.md, Errors). */
  objectType?: boolean;
}

/** One 400 that names every fault. */
function faultError(faults: Fault[]): HearthError {
  const ids = faults.flatMap((fault) => (fault.id === undefined ? [] : [fault.id]));
  const code = faults.every((fault) => fault.objectType) ? 'invalid_object_type_id' : 'invalid_parameters';
  return new HearthError(code, faults.map((fault) => fault.message).join('; '), { invalidIds: ids.length ? [...new Set(ids)] : undefined });
}

/**
 * Checks associations as given: a key-like `objectAssocType` not used twice (nor by `taken`), a known target
 * entity, and `targetObjectTypeId` exactly when the target is an object, naming an object type of the
 * community. Every fault is collected; none is thrown here.
 */
async function checkAssocs(
  trx: Transaction<DB>,
  communityId: number,
  inputs: readonly AssocInput[],
  path: (index: number) => string,
  taken: ReadonlySet<string>,
) {
  const faults: Fault[] = [];
  const assocs: admin.NewAssoc[] = [];
  const seen = new Set(taken);
  const targetKeys = new Map<number, number>();
  for (const [index, input] of inputs.entries()) {
    const at = path(index);
    let ok = true;
    if (typeof input.objectAssocType !== 'string' || !ASSOC_TYPE.test(input.objectAssocType)) {
      faults.push({ message: `${at}.objectAssocType ${JSON.stringify(input.objectAssocType)} must be 1 to 100 letters, digits, "_" or "-"` });
      ok = false;
    } else if (seen.has(input.objectAssocType)) {
      faults.push({ message: `${at}.objectAssocType "${input.objectAssocType}" is given more than once` });
      ok = false;
    } else {
      seen.add(input.objectAssocType);
    }
    if (!(TARGET_ENTITIES as readonly string[]).includes(input.targetEntity)) {
      faults.push({ message: `${at}.targetEntity must be one of ${TARGET_ENTITIES.join(', ')}; got ${JSON.stringify(input.targetEntity)}` });
      continue;
    }
    const given = input.targetObjectTypeId ?? null;
    let target: number | null = null;
    if (input.targetEntity === 'object') {
      const key = typeof given === 'string' && given.startsWith(ID_PREFIXES.object_type) ? parseKey(given.slice(ID_PREFIXES.object_type.length)) : null;
      if (given === null) {
        faults.push({ message: `${at}.targetObjectTypeId is required when targetEntity is object` });
        ok = false;
      } else if (key === null) {
        faults.push({
          message: `${at}.targetObjectTypeId ${JSON.stringify(given)} is not an object type ID (cot_<number>)`,
          id: String(given),
          objectType: true,
        });
        ok = false;
      } else {
        target = key;
        targetKeys.set(index, key);
      }
    } else if (given !== null) {
      faults.push({ message: `${at}.targetObjectTypeId is only for targetEntity object, not ${input.targetEntity}`, id: String(given), objectType: true });
      ok = false;
    }
    if (ok) assocs.push({ assocType: input.objectAssocType, targetEntity: input.targetEntity as admin.NewAssoc['targetEntity'], targetObjectTypeId: target });
  }
  const known = await admin.existingObjectTypeIds(trx, communityId, [...new Set(targetKeys.values())]);
  for (const [index, key] of targetKeys) {
    if (!known.has(key)) {
      faults.push({ message: `${path(index)}.targetObjectTypeId cot_${key} is not an object type of this community`, id: `cot_${key}`, objectType: true });
    }
  }
  return { faults, assocs };
}

export function createObjectTypeAdminService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db } = deps;

  async function present(trx: Transaction<DB>, communityId: number, type: { id: number; name: string }) {
    return presentObjectType(type, await admin.assocsOf(trx, communityId, type.id));
  }

  /** The object type a path names, locked for the rest of the transaction: malformed 400, unknown or another community's 404. */
  async function lockedType(trx: Transaction<DB>, communityId: number, id: number) {
    const type = await admin.lockObjectType(trx, communityId, id);
    if (!type) throw notFound('object_type_not_found', `object type ${formatId('object_type', id)} not found`);
    return type;
  }

  return {
    /** POST /api/v2/admin/object-types: a new type with its associations; the name is unique per community, whatever its case. */
    async create(writer: Writer, input: NewObjectType) {
      const { communityId } = writer;
      const name = input.name.trim();
      if (!name) throw invalidParameters('an object type needs a name');
      if (name.length > OBJECT_TYPE_NAME_MAX) throw invalidParameters(`an object type name is at most ${OBJECT_TYPE_NAME_MAX} characters`);
      try {
        return await retryingTransaction(db, async (trx) => {
          const checked = await checkAssocs(trx, communityId, input.assocs ?? [], (index) => `assocs[${index}]`, new Set());
          if (checked.faults.length) throw faultError(checked.faults);
          const existing = await admin.findObjectTypeByName(trx, communityId, name);
          if (existing) throw conflict(`an object type named "${existing.name}" already exists (cot_${existing.id})`);
          const type = await admin.insertObjectType(trx, communityId, name, deps.clock.now());
          await admin.insertAssocs(trx, communityId, type.id, checked.assocs);
          await auditTx.recordWrite(trx, writer, {
            operation: 'object_type.create',
            entityIds: [formatId('object_type', type.id)],
            detail: { name, assocs: checked.assocs.map((assoc) => assoc.assocType) },
          });
          return present(trx, communityId, type);
        });
      } catch (error) {
        // A concurrent create of the same name won; the retries ran out before they saw it.
        if (isUniqueViolation(error)) throw conflict(`an object type named "${name}" already exists`);
        throw error;
      }
    },

    /** POST /api/v2/admin/object-types/{id}/assocs: one more association; an objectAssocType the type has is a 409. */
    async addAssoc(writer: Writer, id: number, input: AssocInput) {
      const { communityId } = writer;
      return retryingTransaction(db, async (trx) => {
        const type = await lockedType(trx, communityId, id);
        const taken = new Set((await admin.assocsOf(trx, communityId, type.id)).map((assoc) => assoc.assocType));
        if (taken.has(input.objectAssocType))
          throw conflict(`object type ${formatId('object_type', id)} already has an association "${input.objectAssocType}"`);
        const checked = await checkAssocs(trx, communityId, [input], () => 'body', taken);
        if (checked.faults.length) throw faultError(checked.faults);
        await admin.insertAssocs(trx, communityId, type.id, checked.assocs);
        await auditTx.recordWrite(trx, writer, {
          operation: 'object_type.add_assoc',
          entityIds: [formatId('object_type', type.id)],
          detail: { objectAssocType: input.objectAssocType },
        });
        return present(trx, communityId, type);
      });
    },

    /** DELETE /api/v2/admin/object-types/{id}/assocs/{objectAssocType}: the objects' links through it go too. */
    async removeAssoc(writer: Writer, id: number, assocType: string) {
      const { communityId } = writer;
      return retryingTransaction(db, async (trx) => {
        const type = await lockedType(trx, communityId, id);
        if (!(await admin.deleteAssoc(trx, communityId, type.id, assocType))) {
          throw notFound('object_type_assoc_not_found', `object type ${formatId('object_type', id)} has no association "${assocType}"`);
        }
        await auditTx.recordWrite(trx, writer, {
          operation: 'object_type.remove_assoc',
          entityIds: [formatId('object_type', type.id)],
          detail: { objectAssocType: assocType },
        });
        return present(trx, communityId, type);
      });
    },
  };
}

export type ObjectTypeAdminService = ReturnType<typeof createObjectTypeAdminService>;
