import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { HearthError } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey } from '../../core/ids.ts';
import { checkCustomFieldValue } from '../custom-fields/index.ts';
import { type CustomFieldDefinition, customFieldTx } from '../custom-fields/index.ts';

/** One entry of `customFields` in PATCH /api/v2/objects/{id}. */
export interface ObjectFieldWrite {
  customFieldId: string;
  /** null, or a null `value`, clears the field. */
  customFieldValue: { type: string; value?: unknown } | null;
}

interface Fault {
  id: string;
  message: string;
  /** Whether the ID itself is at fault (malformed, unknown, not this object's) rather than its value. */
  aboutId: boolean;
}

const parseFieldKey = (raw: string) => (raw.startsWith(ID_PREFIXES.custom_field) ? parseKey(raw.slice(ID_PREFIXES.custom_field.length)) : null);

/** Why a field cannot be written on an object of this type, or null when it can. */
function unusable(field: CustomFieldDefinition, raw: string, objectTypeId: number): string | null {
  if (field.deleted || !field.entityTypes.includes('object')) return `no object custom field ${raw}`;
  if (field.objectTypeId !== null && field.objectTypeId !== objectTypeId) {
    return `custom field ${raw} ("${field.name}") belongs to object type ${formatId('object_type', field.objectTypeId)}, not ${formatId('object_type', objectTypeId)} (this object's type)`;
  }
  return null;
}

/**
 * Checks every write against the live definitions: the field exists in the community, applies to objects
 * and, when it names an object type, to this object's; each field once; the value fits the field. Every
 * fault is named in one 400 with the offending IDs in `invalidIds` (`invalid_custom_field_id` when only IDs
 * are at fault, `invalid_parameters` when a value is); otherwise the values to store (null clears).
 */
export async function checkObjectFieldWrites(
  trx: Transaction<DB>,
  communityId: number,
  objectTypeId: number,
  writes: readonly ObjectFieldWrite[],
): Promise<{ fieldId: number; value: unknown }[]> {
  const keys = writes.map((write) => parseFieldKey(write.customFieldId));
  const definitions = new Map(
    (await customFieldTx.findDefinitions(trx, communityId, [...new Set(keys.filter((key) => key !== null))])).map((field) => [field.id, field]),
  );
  const faults: Fault[] = [];
  const values: { fieldId: number; value: unknown }[] = [];
  const seen = new Set<number>();
  writes.forEach((write, index) => {
    const raw = write.customFieldId;
    const at = `customFields[${index}]`;
    const key = keys[index] ?? null;
    if (key === null) {
      faults.push({ id: raw, aboutId: true, message: `${at}.customFieldId: "${raw}" is not a valid custom field ID (expected cf_<number>)` });
      return;
    }
    if (seen.has(key)) {
      faults.push({ id: raw, aboutId: true, message: `${at}.customFieldId: custom field ${raw} is given more than once` });
      return;
    }
    seen.add(key);
    const field = definitions.get(key);
    const reason = field ? unusable(field, raw, objectTypeId) : `no object custom field ${raw}`;
    if (!field || reason !== null) {
      faults.push({ id: raw, aboutId: true, message: `${at}.customFieldId: ${reason}` });
      return;
    }
    const checked = checkCustomFieldValue(field, write.customFieldValue);
    if (checked.ok) values.push({ fieldId: field.id, value: checked.value });
    else faults.push({ id: raw, aboutId: false, message: `${at}.customFieldValue: ${checked.reason}` });
  });
  if (faults.length) {
    const code = faults.every((fault) => fault.aboutId) ? 'invalid_custom_field_id' : 'invalid_parameters';
    throw new HearthError(code, faults.map((fault) => fault.message).join('; '), {
      invalidIds: [...new Set(faults.map((fault) => fault.id))],
    });
  }
  return values;
}
