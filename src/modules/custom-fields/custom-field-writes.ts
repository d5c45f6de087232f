import type { Executor } from '../../core/executor.ts';
import { HearthError } from '../../core/errors.ts';
import { checkCustomFieldValue } from './custom-field-values.ts';
import * as customFields from './custom-field.repository.ts';

export interface CustomFieldWrite {
  /** The field's ID as given (integer, or `cf_N`). */
  field: unknown;
  value: { type?: unknown; value?: unknown } | null | undefined;
  /** Where it was in the request, for the error: `customFields[2]`. */
  path: string;
}

/**
 * Checks custom field writes against their definitions: the field exists, applies to the entity, may be
 * written by the source (when the write comes from one) and the value fits. Every fault is named in one
 * 400; otherwise the values to store (null clears).
 */
export async function checkCustomFieldWrites(
  trx: Executor,
  target: { communityId: number; entityType: 'contact' | 'organization' | 'object'; sourceId: number | null },
  writes: CustomFieldWrite[],
): Promise<{ fieldId: number; value: unknown }[]> {
  const key = (given: unknown) => (typeof given === 'number' ? given : typeof given === 'string' ? Number(given.replace(/^cf_/, '')) : NaN);
  const ids = writes.map((write) => key(write.field)).filter(Number.isSafeInteger);
  const definitions = new Map((await customFields.findDefinitions(trx, target.communityId, ids)).map((field) => [field.id, field]));
  const faults: string[] = [];
  const values: { fieldId: number; value: unknown }[] = [];
  const seen = new Set<number>();
  for (const write of writes) {
    const field = definitions.get(key(write.field));
    if (field && seen.has(field.id)) {
      faults.push(`${write.path}: custom field ${field.id} is given more than once`);
      continue;
    }
    if (field) seen.add(field.id);
    if (!field || field.deleted || !field.entityTypes.includes(target.entityType)) {
      faults.push(`${write.path}: no ${target.entityType} custom field ${JSON.stringify(write.field)}`);
      continue;
    }
    if (target.sourceId !== null && field.writers.length && !field.writers.includes(target.sourceId)) {
      faults.push(`${write.path}: source ${target.sourceId} may not write custom field ${field.id} ("${field.name}")`);
      continue;
    }
    const checked = checkCustomFieldValue(field, write.value);
    if (checked.ok) values.push({ fieldId: field.id, value: checked.value });
    else faults.push(`${write.path}: ${checked.reason}`);
  }
  if (faults.length) throw new HearthError('invalid_custom_fields', faults.join('; '), { coreReason: 'invalid-request-body' });
  return values;
}
