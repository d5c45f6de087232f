import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

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

/**
 * A validator compiled on its first use. Compiling costs milliseconds per schema, and there are hundreds (every
 * route's parts, every import format): paid up front, they made every app start and every `hearth` command
 * about a second slower, mostly for schemas that process never used. The errors of the last call are on the
 * returned function, as Ajv and Fastify expect.
 */
function lazily(ajv: Ajv, schema: object): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown) => {
    compiled ??= ajv.compile(schema);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  }) as ValidateFunction;
  validate.errors = null;
  return validate;
}

/** A validator for a JSON body (a route's, an imported line's or record's): nothing coerced. */
export const compileBodyValidator = (schema: object) => lazily(bodies, schema);

/** A validator for values that arrive as text (query strings, path parameters): coerced from text. */
export const compileTextValidator = (schema: object) => lazily(textParts, schema);

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
 * Text PostgreSQL cannot store: the NUL character, and lone UTF-16 surrogates (JSON allows `"\ud800"`, but
 * it is no character, and jsonb refuses it). Every request is checked up front instead of failing deep in
 * a query; the answer names where the value is and what is wrong with it. The walk keeps its own stack, so
 * no nesting of user data can exhaust the call stack (bodies are bounded in depth before this anyway).
 */
export function findInvalidText(value: unknown, path = ''): { path: string; problem: string } | null {
  const pending: [unknown, string][] = [[value, path]];
  while (pending.length > 0) {
    const [item, at] = pending.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return { path: at || '(value)', problem: 'contains the NUL character (\\u0000)' };
      if (LONE_SURROGATE.test(item)) return { path: at || '(value)', problem: 'is not valid Unicode (it has a lone UTF-16 surrogate)' };
    } else if (Array.isArray(item)) {
      // Pushed in reverse, so the first problem in document order is found first.
      for (let index = item.length - 1; index >= 0; index -= 1) pending.push([item[index], `${at}[${index}]`]);
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, child] = entries[index]!;
        pending.push([child, at ? `${at}.${key}` : key], [key, at]);
      }
    }
  }
  return null;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
