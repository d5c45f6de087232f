import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Validation, decided on purpose rather than left to Fastify's defaults:
 * - Nothing is silently removed (Fastify's default `removeAdditional` strips unknown fields): a schema that
 *   forbids extra properties rejects them with a 400 naming each one; a lenient schema keeps them.
 * - Query strings and path parameters arrive as text, so their values are coerced ("5" becomes 5).
 * - Bodies are JSON and are never coerced: `"5"` where a number belongs is a 400, not a guess.
 */
function createAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

const textParts = createAjv(true);
const bodies = createAjv(false);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodies : textParts).compile(schema as object);

const PART_NAMES: Record<string, string> = {
  body: 'body field',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/** One readable sentence per problem, e.g. `unknown query parameter "foo"`, `limit must be <= 1000`. */
export function describeValidation(errors: ErrorObject[], context: string): string {
  const part = PART_NAMES[context] ?? context;
  const messages = errors.map((error) => {
    const where = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (error.keyword === 'additionalProperties') {
      const name = (error.params as { additionalProperty: string }).additionalProperty;
      return `unknown ${part} "${where ? `${where}.` : ''}${name}"`;
    }
    if (error.keyword === 'required') {
      const name = (error.params as { missingProperty: string }).missingProperty;
      return `${part} "${where ? `${where}.` : ''}${name}" is required`;
    }
    if (error.keyword === 'enum' || error.keyword === 'const') {
      const allowed = (error.params as { allowedValues?: unknown[]; allowedValue?: unknown }).allowedValues ?? [
        (error.params as { allowedValue?: unknown }).allowedValue,
      ];
      return `${part} "${where}" must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
    }
    return where ? `${part} "${where}" ${error.message}` : `${context} ${error.message}`;
  });
  return [...new Set(messages)].join('; ');
}

/**
 * PostgreSQL text cannot hold the NUL character, so a value with one would fail deep in a query. Every
 * request is checked up front instead; the answer names where the character is.
 */
export function findNulCharacter(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(value)' : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNulCharacter(item, `${path}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = findNulCharacter(key, path) ?? findNulCharacter(item, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}
