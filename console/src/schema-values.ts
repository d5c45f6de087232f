/**
 * A connector kind's settings or secrets as form fields, from the JSON Schema the server publishes for them
 * (`GET /api/v2/admin/connector-kinds`), and the fields' text back into the JSON the API takes. Pure: no DOM,
 * so it is tested without a browser.
 */

/** The part of JSON Schema the kinds' schemas (made by TypeBox) use. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
}

export type Widget = 'text' | 'url' | 'integer' | 'number' | 'boolean' | 'choice' | 'lines' | 'json';

export interface FieldSpec {
  /** The property's name; '' for a whole value this page cannot split into fields (edited as JSON). */
  name: string;
  label: string;
  /** The schema's description, with the properties it names in backticks given by their labels. */
  hint: string | null;
  required: boolean;
  widget: Widget;
  /** A choice's values. */
  options: string[];
  schema: JsonSchema;
}

export interface FormSpec {
  fields: FieldSpec[];
  /**
   * The schema's alternatives (GitHub's repositories or organization, Reddit's subreddits or keywords): each
   * one's required properties. One of them must be complete; empty when there is a single form.
   */
  alternatives: string[][];
  /** What the alternatives mean, from the schema's own description. */
  note: string | null;
}

/** The form's text, by property name: what the inputs hold. */
export type FormValues = Record<string, string>;

export type Converted = { ok: true; value: Record<string, unknown> } | { ok: false; field: string; message: string };

const ACRONYMS: Record<string, string> = { api: 'API', url: 'URL', uri: 'URI', id: 'ID', ids: 'IDs', http: 'HTTP', oauth: 'OAuth', pem: 'PEM', ssl: 'SSL' };

/** `botToken` → "Bot token", `apiUrl` → "API URL", `guild_id` → "Guild ID". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => ACRONYMS[word.toLowerCase()] ?? word.toLowerCase());
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function labelOf(name: string, schema: JsonSchema): string {
  return schema.title ?? humanize(name);
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  const forms = schema.anyOf ?? schema.oneOf;
  return forms ? forms.flatMap(typesOf) : [];
}

/** The values of an enum, whether written as `enum` or (TypeBox's way) as `anyOf` of `const`s. */
function choicesOf(schema: JsonSchema): string[] | null {
  if (schema.enum && schema.enum.every((value) => typeof value === 'string')) return schema.enum as string[];
  const forms = schema.anyOf ?? schema.oneOf;
  if (forms && forms.length > 0 && forms.every((form) => typeof form.const === 'string')) return forms.map((form) => form.const as string);
  return null;
}

function isScalar(schema: JsonSchema): boolean {
  const types = typesOf(schema);
  return types.length > 0 && types.every((type) => type === 'string' || type === 'integer' || type === 'number');
}

function widgetOf(schema: JsonSchema): { widget: Widget; options: string[] } {
  const choices = choicesOf(schema);
  if (choices) return { widget: 'choice', options: choices };
  const types = typesOf(schema);
  if (types.length === 1 && types[0] === 'boolean') return { widget: 'boolean', options: [] };
  if (types.length === 1 && types[0] === 'integer') return { widget: 'integer', options: [] };
  if (types.length === 1 && types[0] === 'number') return { widget: 'number', options: [] };
  if (types.length === 1 && types[0] === 'array' && schema.items && isScalar(schema.items)) return { widget: 'lines', options: [] };
  if (types.length === 1 && types[0] === 'string') return { widget: schema.format === 'uri' ? 'url' : 'text', options: [] };
  // A number or its digits as text (GitHub's app ID): typed as text, sent as the first type it fits.
  if (isScalar(schema)) return { widget: 'text', options: [] };
  return { widget: 'json', options: [] };
}

/** The forms of an object schema: itself, or each object of its `anyOf`; null when it is not objects. */
function objectForms(schema: JsonSchema): JsonSchema[] | null {
  if (schema.properties || schema.type === 'object') return [schema];
  const forms = schema.anyOf ?? schema.oneOf;
  if (forms && forms.length > 0 && forms.every((form) => form.properties || form.type === 'object')) return forms;
  return null;
}

/** Backticked property names in a description read as their labels: "`keywords`, `domains`, or both" → "“Keywords”, “Domains”, or both". */
function readable(text: string | undefined, labels: Map<string, string>): string | null {
  if (!text) return null;
  return text.replace(/`([^`]+)`/g, (whole, name: string) => (labels.has(name) ? `“${labels.get(name)}”` : whole));
}

/**
 * The fields of a settings or secrets schema. Alternatives (an `anyOf` of objects) are merged: every
 * property once, required when every alternative requires it, and the check that one alternative is complete
 * is left to `valuesToBody` (and the server).
 */
export function formOf(schema: JsonSchema): FormSpec {
  const forms = objectForms(schema);
  if (!forms) {
    return {
      fields: [{ name: '', label: 'Value (JSON)', hint: schema.description ?? null, required: true, widget: 'json', options: [], schema }],
      alternatives: [],
      note: null,
    };
  }
  const properties = new Map<string, JsonSchema>();
  for (const form of forms) for (const [name, property] of Object.entries(form.properties ?? {})) if (!properties.has(name)) properties.set(name, property);
  const labels = new Map([...properties].map(([name, property]) => [name, labelOf(name, property)]));
  const requiredInAll = (name: string) => forms.every((form) => (form.required ?? []).includes(name));
  const fields = [...properties].map(([name, property]): FieldSpec => {
    // An array's own description says what it holds; its items' description gives an example of one.
    const description = [property.description, property.items?.description].filter(Boolean).join('. ');
    return { name, label: labels.get(name)!, hint: readable(description, labels), required: requiredInAll(name), ...widgetOf(property), schema: property };
  });
  return {
    fields,
    alternatives: forms.length > 1 ? forms.map((form) => form.required ?? []) : [],
    note: forms.length > 1 ? readable(schema.description, labels) : null,
  };
}

/** A form without the named fields (the webhook secret, when this page makes it). */
export function withoutFields(form: FormSpec, names: string[]): FormSpec {
  return { ...form, fields: form.fields.filter((field) => !names.includes(field.name)) };
}

/** Where a new form starts: a required choice or yes/no at its default (or first value); the rest empty. */
export function initialValues(form: FormSpec): FormValues {
  const values: FormValues = {};
  for (const field of form.fields) {
    if (field.widget === 'boolean' && (field.required || typeof field.schema.default === 'boolean')) values[field.name] = String(field.schema.default ?? false);
    else if (field.widget === 'choice' && field.required) values[field.name] = String(field.schema.default ?? field.options[0] ?? '');
    else values[field.name] = '';
  }
  return values;
}

/** Whether a yes/no is a checkbox (it always has a value) or a choice that may be left unset (the platform's default). */
export function isCheckbox(field: FieldSpec): boolean {
  return field.widget === 'boolean' && (field.required || typeof field.schema.default === 'boolean');
}

type One = { ok: true; value: unknown } | { ok: false; message: string };

function matches(pattern: string, text: string): boolean {
  try {
    // As the server's validator (Ajv) reads patterns: with the u flag.
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return true;
  }
}

function checkString(text: string, schema: JsonSchema): string | null {
  if (schema.minLength !== undefined && [...text].length < schema.minLength) return `must be at least ${schema.minLength} characters long`;
  if (schema.maxLength !== undefined && [...text].length > schema.maxLength) return `must be at most ${schema.maxLength} characters long`;
  if (schema.pattern && !matches(schema.pattern, text)) return `does not have the expected form${schema.description ? ` (${schema.description})` : ''}`;
  if (schema.format === 'uri' && !/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(text)) return 'is not a URL';
  return null;
}

function checkNumber(value: number, schema: JsonSchema): string | null {
  if (schema.minimum !== undefined && value < schema.minimum) return `must be at least ${schema.minimum}`;
  if (schema.maximum !== undefined && value > schema.maximum) return `must be at most ${schema.maximum}`;
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return `must be more than ${schema.exclusiveMinimum}`;
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return `must be less than ${schema.exclusiveMaximum}`;
  return null;
}

/** One scalar from its text: as the first of the schema's types (or alternatives) it fits. */
function scalar(text: string, schema: JsonSchema): One {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && !choicesOf(schema)) {
    let first: string | null = null;
    for (const alternative of alternatives) {
      const made = scalar(text, { ...alternative, description: alternative.description ?? schema.description });
      if (made.ok) return made;
      first ??= made.message;
    }
    return { ok: false, message: first ?? 'is not a valid value' };
  }
  const choices = choicesOf(schema);
  if (choices) return choices.includes(text) ? { ok: true, value: text } : { ok: false, message: `must be one of ${choices.join(', ')}` };
  const types = typesOf(schema);
  if (types.includes('integer') && /^[-+]?\d+$/.test(text)) {
    const value = Number(text);
    const wrong = checkNumber(value, schema);
    return wrong ? { ok: false, message: wrong } : { ok: true, value };
  }
  if (types.includes('number') && text !== '' && Number.isFinite(Number(text))) {
    const value = Number(text);
    const wrong = checkNumber(value, schema);
    return wrong ? { ok: false, message: wrong } : { ok: true, value };
  }
  if (types.includes('string') || types.length === 0) {
    const wrong = checkString(text, schema);
    return wrong ? { ok: false, message: wrong } : { ok: true, value: text };
  }
  return { ok: false, message: types.includes('integer') ? 'must be a whole number' : 'must be a number' };
}

/** A list typed one per line (or separated by commas): each item trimmed, the empty ones dropped. */
export function splitLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);
}

function fieldValue(field: FieldSpec, text: string): One {
  const schema = field.schema;
  switch (field.widget) {
    case 'boolean':
      return { ok: true, value: text === 'true' };
    case 'lines': {
      const items: unknown[] = [];
      for (const item of splitLines(text)) {
        const made = scalar(item, schema.items ?? {});
        if (!made.ok) return { ok: false, message: `has “${item}”, which ${made.message}` };
        items.push(made.value);
      }
      if (schema.minItems !== undefined && items.length < schema.minItems) return { ok: false, message: `needs at least ${schema.minItems} (one per line)` };
      if (schema.maxItems !== undefined && items.length > schema.maxItems) return { ok: false, message: `takes at most ${schema.maxItems}` };
      return { ok: true, value: items };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch {
        return { ok: false, message: 'is not JSON' };
      }
    default:
      return scalar(text, schema);
  }
}

/**
 * The JSON the API takes, from the form's text: numbers parsed, lists split, empty optional fields left out.
 * The first field found wrong is named instead (its name, and a sentence with its label), so the page can say
 * so before anything is sent. `partial`: every field optional, the given ones only (a change of secrets).
 */
export function valuesToBody(form: FormSpec, values: FormValues, options: { partial?: boolean } = {}): Converted {
  const body: Record<string, unknown> = {};
  for (const field of form.fields) {
    const raw = values[field.name] ?? '';
    // A secret is pasted: spaces around it are the copy's, not the secret's.
    const text = field.widget === 'lines' || field.widget === 'json' ? raw : raw.trim();
    const empty = field.widget === 'lines' ? splitLines(text).length === 0 : text.trim() === '';
    if (empty) {
      if (field.required && !options.partial) return { ok: false, field: field.name, message: `“${field.label}” is required.` };
      continue;
    }
    const made = fieldValue(field, text);
    if (!made.ok) return { ok: false, field: field.name, message: `“${field.label}” ${made.message}.` };
    if (field.name === '') {
      return made.value !== null && typeof made.value === 'object' && !Array.isArray(made.value)
        ? { ok: true, value: made.value as Record<string, unknown> }
        : { ok: false, field: '', message: `“${field.label}” is not a JSON object.` };
    }
    body[field.name] = made.value;
  }
  if (!options.partial && form.alternatives.length > 0 && !form.alternatives.some((required) => required.every((name) => name in body))) {
    // Named after the first alternative's first missing field, where the person is most likely to start.
    const missing = form.alternatives[0]!.find((name) => !(name in body)) ?? '';
    const labelOf = (name: string) => `“${form.fields.find((field) => field.name === name)?.label ?? name}”`;
    return { ok: false, field: missing, message: `Give ${form.alternatives.map((required) => required.map(labelOf).join(' and ')).join(', or ')}.` };
  }
  return { ok: true, value: body };
}
