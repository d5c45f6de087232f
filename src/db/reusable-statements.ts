import { CompiledQuery, type Compilable } from 'kysely';

/**
 * Statements compiled once per shape. Building a statement with Kysely's builders and compiling it to
 * SQL allocates a tree of frozen nodes and walks it: for a list request that was an eighth of Hearth's CPU
 * (measured: a page of 50 contacts cost 827 µs of the server's CPU built every time, 727 µs reused). A
 * statement whose text depends only on its shape (which clauses it has, not the values in them) is built
 * once with stand-ins for its values, and later requests of the same shape reuse its text with their own
 * values in the stand-ins' places.
 *
 * A shape is named by its caller and by which of its values are given, null or absent and how long its
 * lists are (the builders may branch on those); everything else that changes the text must be in the name. A
 * stand-in refuses to be read as a value (arithmetic, a template string, a comparison of its content), so
 * a builder that branches on a value fails when it is first compiled rather than reusing a wrong text.
 */

type Scalar = string | number | boolean | Date;
export type StatementValue = Scalar | null | undefined | readonly (Scalar | null)[];
export type StatementValues = Readonly<Record<string, StatementValue>>;

/** Stands in for one value while a shape is built; compiled into the statement as a parameter. */
class StandIn {
  constructor(readonly name: string) {}
  [Symbol.toPrimitive](): never {
    throw new Error(`the value "${this.name}" of a reusable statement was read while it was built; a shape may only pass its values to the query`);
  }
}

interface Shape {
  sql: string;
  /** Each parameter: the name of the value it takes, or a constant of the shape. */
  parameters: readonly ({ name: string; index?: number } | { constant: unknown })[];
}

/** Shapes remembered per process; a caller that names too many starts the memory over. */
const MAX_SHAPES = 2_000;
const shapes = new Map<string, Shape>();

function shapeKey(name: string, values: StatementValues): string {
  // Every field is named with its state, so that a value left out and one given are different shapes.
  let key = name;
  for (const [field, value] of Object.entries(values)) {
    if (value === null || value === undefined) key += `|${field}:${value === null ? 'null' : 'absent'}`;
    else if (Array.isArray(value)) key += `|${field}:[${value.map((item) => (item === null ? 'n' : 'v')).join('')}]`;
    else key += `|${field}`;
  }
  return key;
}

function standIns(values: StatementValues): Record<string, unknown> {
  const stand: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) {
    if (value === null || value === undefined) stand[field] = value;
    else if (Array.isArray(value)) stand[field] = value.map((item, index) => (item === null ? null : new StandIn(`${field}[${index}]`)));
    else stand[field] = new StandIn(field);
  }
  return stand;
}

function learn(compiled: CompiledQuery): Shape {
  return {
    sql: compiled.sql,
    parameters: compiled.parameters.map((parameter) => {
      if (!(parameter instanceof StandIn)) return { constant: parameter };
      const match = /^(.*)\[(\d+)\]$/.exec(parameter.name);
      return match ? { name: match[1]!, index: Number(match[2]) } : { name: parameter.name };
    }),
  };
}

/**
 * The statement `build` makes from `values`, compiled once per shape (see above). `build` receives
 * stand-ins of the same form as `values` (null and absent values as they are, lists element by element).
 */
export function reusableStatement<V extends StatementValues, R>(name: string, values: V, build: (values: V) => Compilable<R>): CompiledQuery<R> {
  const key = shapeKey(name, values);
  let shape = shapes.get(key);
  if (!shape) {
    shape = learn(build(standIns(values) as V).compile());
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, shape);
  }
  const parameters = shape.parameters.map((parameter) => {
    if ('constant' in parameter) return parameter.constant;
    const value = values[parameter.name];
    return parameter.index === undefined ? value : (value as readonly unknown[])[parameter.index];
  });
  return CompiledQuery.raw(shape.sql, parameters) as CompiledQuery<R>;
}
