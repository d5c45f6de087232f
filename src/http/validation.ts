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
