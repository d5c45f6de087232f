import type { CustomFieldDefinition } from './custom-field.repository.ts';

/** A custom field value as clients send it and as Hearth stores and shows it: `{type, value}`. */
export interface TypedValue {
  type: string;
  value: unknown;
}

export type Checked = { ok: true; value: TypedValue | null } | { ok: false; reason: string };

/**
 * Checks a value against its field's definition. `null` (or a missing value) clears the field. The value's
 * `type`, when given, must be the field's type. Multi-select enum fields take an array of allowed values.
 */
export function checkCustomFieldValue(field: CustomFieldDefinition, given: { type?: unknown; value?: unknown } | null | undefined): Checked {
  if (given === null || given === undefined || given.value === null || given.value === undefined) return { ok: true, value: null };
  if (given.type !== undefined && given.type !== field.valueType) {
    return { ok: false, reason: `custom field ${field.id} ("${field.name}") takes type "${field.valueType}", not "${String(given.type)}"` };
  }
  const fail = (what: string): Checked => ({
    ok: false,
    reason: `custom field ${field.id} ("${field.name}") needs ${what}; got ${JSON.stringify(given.value)}`,
  });
  const value = given.value;
  switch (field.valueType) {
    case 'string':
      return typeof value === 'string' ? ok(field, value) : fail('a string');
    case 'url':
      return typeof value === 'string' && isHttpUrl(value) ? ok(field, value.trim()) : fail('an http(s) URL');
    case 'int':
      return typeof value === 'number' && Number.isSafeInteger(value) ? ok(field, value) : fail('an integer');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? ok(field, value) : fail('a number');
    case 'boolean':
      return typeof value === 'boolean' ? ok(field, value) : fail('true or false');
    case 'date':
      return typeof value === 'string' && isDate(value) ? ok(field, value) : fail('a date as YYYY-MM-DD');
    case 'enum': {
      const allowed = `one of ${field.enumValues.map((option) => JSON.stringify(option)).join(', ')}`;
      if (field.multivalue) {
        const values = Array.isArray(value) ? value : [value];
        return values.every((item) => typeof item === 'string' && field.enumValues.includes(item))
          ? ok(field, [...new Set(values as string[])])
          : fail(`values from ${allowed}`);
      }
      return typeof value === 'string' && field.enumValues.includes(value) ? ok(field, value) : fail(allowed);
    }
    default:
      return fail(`a value of type ${field.valueType}`);
  }
}

function ok(field: CustomFieldDefinition, value: unknown): Checked {
  return { ok: true, value: { type: field.valueType, value } };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value.trim());
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.includes('.');
  } catch {
    return false;
  }
}

function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().startsWith(value);
}
