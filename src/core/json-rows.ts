/**
 * Typed parsers of the rows that come back as JSON (readTogether's lookups, writeTogether's returning
 * writes): Kysely does not type them, and a cast would let a renamed column or a changed type through as
 * `undefined` or a string where a number was meant. A parser is declared once per row shape, checks each
 * field's JSON type as it reads it, and returns the row itself typed (no copy): one typeof test per
 * field, nothing the ingestion path can measure (docs/architecture.md, "Query paths").
 *
 * In JSON, PostgreSQL's bigint and integer are numbers (keys fit in a double), and timestamps are
 * strings: a row shape names them as such.
 */

type Kind = 'string' | 'string or null' | 'integer' | 'integer or null' | 'boolean';

interface KindValue {
  string: string;
  'string or null': string | null;
  integer: number;
  'integer or null': number | null;
  boolean: boolean;
}

// Each kind's test of a value `v`, as JavaScript source (see jsonRow).
const TESTS: Record<Kind, string> = {
  string: "typeof v === 'string'",
  'string or null': "v === null || typeof v === 'string'",
  integer: 'Number.isSafeInteger(v)',
  'integer or null': 'v === null || Number.isSafeInteger(v)',
  boolean: "typeof v === 'boolean'",
};

export type JsonRowShape = Readonly<Record<string, Kind>>;
export type JsonRow<S extends JsonRowShape> = { -readonly [K in keyof S]: KindValue[S[K]] };

/** A row that does not have its declared shape: the statement and its reader disagree (a bug, not bad input). */
export class JsonRowError extends Error {}

/**
 * The parser of rows of `shape`, named by `name` in its error. It is compiled to one function that reads
 * each field by its constant name (as TypeBox compiles its checkers): a loop over the field names made each
 * read a lookup by a varying key, ten times the cost of the casts it replaces; compiled, it costs what
 * they did. The source is made from the shape's keys (quoted) and the fixed tests above, never from data.
 */
export function jsonRow<const S extends JsonRowShape>(name: string, shape: S): (row: Record<string, unknown>) => JsonRow<S> {
  const checks = Object.entries(shape).map(
    ([key, kind]) => `v = row[${JSON.stringify(key)}]; if (!(${TESTS[kind]})) fail(${JSON.stringify(key)}, ${JSON.stringify(kind)}, v);`,
  );
  const fail = (key: string, kind: Kind, value: unknown): never => {
    throw new JsonRowError(`${name}: ${key} is ${JSON.stringify(value) ?? 'missing'}, not ${kind}`);
  };
  return new Function('fail', `return function (row) { let v; ${checks.join(' ')} return row; };`)(fail) as (row: Record<string, unknown>) => JsonRow<S>;
}
