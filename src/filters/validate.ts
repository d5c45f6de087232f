import { HearthError } from '../core/errors.ts';
import { parseDateBound, parseDuration } from './date-values.ts';
import { likeUsesTrigrams, MIN_TRIGRAM_LIKE, quote, type CheckedLeaf, type FilterField, type FilterItem } from './field-kinds.ts';
import { CLAUSE_OPS, GROUP_TYPES, MAX_CLAUSES, MAX_DEPTH, MAX_LIST_VALUES, type ClauseKind, type GroupType } from './light-filter.schema.ts';

/**
 * Reads and checks a lightFilter expression, without a database: the JSON, its structure, its depth and
 * size, each field for the list, each clause kind and operator for its field, and each value. The first
 * fault is a 400 `invalid_filter` whose message names its JSON path (`clauses[1].clauses[0].params.op`).
 */

export interface CheckedGroup {
  type: GroupType;
  clauses: CheckedNode[];
}

export interface CheckedClause {
  /** Where the clause is in the expression, e.g. `clauses[2].clauses[0]`. */
  path: string;
  field: FilterField;
  leaf: CheckedLeaf;
}

export type CheckedNode = CheckedGroup | CheckedClause;

export interface FilterOptions {
  /** What the list holds, for messages: `"x" is not a filterable field of contacts`. */
  listName: string;
  /** The list's field of that name, the community's own included; null when there is none. */
  resolveField(name: string): FilterField | null;
  /** Whether the engine has the trigram indexes (pg_trgm): without them every `like` reads each row's text. */
  trigramIndexes?: boolean;
}

/**
 * `like` clauses one expression may hold on text without a trigram index: each is a substring search of
 * every candidate row, and a hundred of them OR-ed ran for half a minute on 200,000 activities.
 */
export const MAX_UNINDEXED_LIKES = 10;

export function invalidFilter(path: string, problem: string, invalidIds?: string[]): HearthError {
  return new HearthError('invalid_filter', path ? `lightFilter ${path}: ${problem}` : `lightFilter: ${problem}`, invalidIds ? { invalidIds } : {});
}

/** `raw` is the URL-decoded text of the parameter, or JSON already parsed. */
export function validateExpression(raw: unknown, options: FilterOptions): CheckedGroup {
  let expression = raw;
  if (typeof raw === 'string') {
    try {
      expression = JSON.parse(raw);
    } catch (error) {
      throw invalidFilter('', `not valid JSON (${(error as Error).message})`);
    }
  }
  const walker = new Walker(options);
  if (!isObject(expression)) throw invalidFilter('', `must be a JSON object {"type": "and" | "or", "clauses": [...]}, not ${show(expression)}`);
  if (typeof expression.type === 'string' && Object.hasOwn(CLAUSE_OPS, expression.type)) {
    throw invalidFilter('type', `the top level must be a group: {"type": "and" | "or", "clauses": [...]}`);
  }
  return walker.group(expression, '', 1);
}

class Walker {
  private leaves = 0;
  private unindexedLikes = 0;

  constructor(private readonly options: FilterOptions) {}

  group(node: Record<string, unknown>, path: string, depth: number): CheckedGroup {
    if (depth > MAX_DEPTH) throw invalidFilter(path, `groups nest at most ${MAX_DEPTH} deep (the top group is depth 1)`);
    unknownKeys(node, path, ['type', 'clauses'], 'a group has only type and clauses');
    const type = node.type as GroupType;
    if (!GROUP_TYPES.includes(type)) throw invalidFilter(at(path, 'type'), `must be "and" or "or", not ${show(node.type)}`);
    const clauses = node.clauses;
    if (!Array.isArray(clauses)) throw invalidFilter(at(path, 'clauses'), `must be an array of clauses, not ${show(clauses)}`);
    if (clauses.length === 0) throw invalidFilter(at(path, 'clauses'), 'must hold at least one clause');
    return { type, clauses: clauses.map((clause, index) => this.node(clause, `${at(path, 'clauses')}[${index}]`, depth)) };
  }

  private node(node: unknown, path: string, depth: number): CheckedNode {
    if (!isObject(node)) throw invalidFilter(path, `a clause must be an object, not ${show(node)}`);
    const type = node.type;
    if (typeof type === 'string' && (GROUP_TYPES as readonly string[]).includes(type)) return this.group(node, path, depth + 1);
    if (typeof type !== 'string' || !Object.hasOwn(CLAUSE_OPS, type)) {
      const expected = `"and" or "or" for a group, or a clause kind (${Object.keys(CLAUSE_OPS).join(', ')})`;
      throw invalidFilter(at(path, 'type'), type === undefined ? `is required: ${expected}` : `must be ${expected}, not ${show(type)}`);
    }
    return this.leaf(node, type as ClauseKind, path);
  }

  private leaf(node: Record<string, unknown>, kind: ClauseKind, path: string): CheckedClause {
    this.leaves += 1;
    if (this.leaves > MAX_CLAUSES) throw invalidFilter(path, `an expression holds at most ${MAX_CLAUSES} clauses`);
    unknownKeys(node, path, ['type', 'field', 'params'], 'a clause has only type, field and params');
    const name = node.field;
    if (typeof name !== 'string') throw invalidFilter(at(path, 'field'), name === undefined ? 'is required' : `must be a string, not ${show(name)}`);
    const field = this.options.resolveField(name);
    if (!field) throw invalidFilter(at(path, 'field'), `${quote(name)} is not a filterable field of ${this.options.listName}`);
    const fieldOps = field.ops[kind];
    if (!fieldOps) {
      const kinds = Object.keys(field.ops).join(', ');
      throw invalidFilter(at(path, 'type'), `field ${quote(name)} does not take ${kind}; it takes ${kinds}`);
    }
    const paramsPath = at(path, 'params');
    const params = node.params;
    if (!isObject(params)) throw invalidFilter(paramsPath, params === undefined ? 'is required' : `must be an object, not ${show(params)}`);
    unknownKeys(
      params,
      paramsPath,
      kind === 'dateRangeFilter' ? ['op', 'value', 'min', 'max'] : ['op', 'value'],
      `${kind} params are ${kind === 'dateRangeFilter' ? 'op, value, min and max' : 'op and value'}`,
    );
    const op = params.op;
    const kindOps = CLAUSE_OPS[kind] as readonly string[];
    if (typeof op !== 'string' || !kindOps.includes(op)) {
      throw invalidFilter(
        at(paramsPath, 'op'),
        op === undefined ? `is required (${kindOps.join(', ')})` : `${show(op)} is not an operator of ${kind} (${kindOps.join(', ')})`,
      );
    }
    if (!fieldOps.includes(op))
      throw invalidFilter(at(paramsPath, 'op'), `field ${quote(name)} takes ${kind} with op ${fieldOps.join(', ')}, not ${quote(op)}`);
    const leaf = this.values(kind, op, params, paramsPath, field);
    if (leaf.kind === 'stringFilter' && leaf.op === 'like' && !likeUsesTrigrams(field, leaf.value, this.options.trigramIndexes)) {
      this.unindexedLikes += 1;
      if (this.unindexedLikes > MAX_UNINDEXED_LIKES) {
        throw invalidFilter(
          at(paramsPath, 'op'),
          `an expression holds at most ${MAX_UNINDEXED_LIKES} like clauses that no trigram index serves (on ${quote(name)} here, or with fewer than ${MIN_TRIGRAM_LIKE} characters); use eq or startsWith, or fewer like clauses`,
        );
      }
    }
    return { path, field, leaf };
  }

  private values(kind: ClauseKind, op: string, params: Record<string, unknown>, path: string, field: FilterField): CheckedLeaf {
    const valuePath = at(path, 'value');
    const value = params.value;
    switch (kind) {
      case 'booleanFilter':
        if (typeof value !== 'boolean') throw invalidFilter(valuePath, `must be true or false, not ${show(value)}`);
        return { kind, op: 'eq', value };
      case 'numberFilter':
        if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidFilter(valuePath, `must be a number, not ${show(value)}`);
        return { kind, op: op as 'eq', value };
      case 'stringFilter':
        return { kind, op: op as 'eq', value: item(field, value, valuePath) };
      case 'stringListFilter': {
        if (!Array.isArray(value)) throw invalidFilter(valuePath, `must be an array of strings, not ${show(value)}`);
        if (value.length > MAX_LIST_VALUES) throw invalidFilter(valuePath, `holds at most ${MAX_LIST_VALUES} values`);
        return { kind, op: op as 'any', values: value.map((one, index) => item(field, one, `${valuePath}[${index}]`)) };
      }
      case 'dateRangeFilter':
        return { kind, op: 'in', range: dateRange(params, path) };
    }
  }
}

function item(field: FilterField, value: unknown, path: string): FilterItem {
  if (typeof value !== 'string') throw invalidFilter(path, `must be a string, not ${show(value)}`);
  if (value.includes('\u0000')) throw invalidFilter(path, 'must not contain the NUL character');
  const read = field.item(value);
  if ('reason' in read) throw invalidFilter(path, read.reason, read.id ? [value] : undefined);
  return read.value;
}

function dateRange(params: Record<string, unknown>, path: string) {
  const given = (key: string) => params[key] !== undefined && params[key] !== null;
  const bound = (key: 'min' | 'max') => {
    if (!given(key)) return null;
    const text = params[key];
    const parsed = typeof text === 'string' ? parseDateBound(text) : null;
    if (!parsed) throw invalidFilter(at(path, key), `must be a date (YYYY-MM-DD) or an ISO 8601 date-time, or null; not ${show(text)}`);
    return parsed;
  };
  const min = bound('min');
  const max = bound('max');
  if (!given('value')) {
    if (!min && !max) throw invalidFilter(at(path, 'value'), 'a dateRangeFilter needs a duration (value) or bounds (min, max)');
    return { duration: null, min, max };
  }
  const text = params.value;
  const duration = typeof text === 'string' ? parseDuration(text) : null;
  if (!duration) throw invalidFilter(at(path, 'value'), `must be an ISO 8601 duration such as P7D, PT12H or P1Y2M, not ${show(text)}`);
  if (min || max) throw invalidFilter(at(path, given('min') ? 'min' : 'max'), 'give either a duration (value) or bounds (min, max), not both');
  return { duration, min: null, max: null };
}

function unknownKeys(node: Record<string, unknown>, path: string, allowed: readonly string[], hint: string): void {
  const extra = Object.keys(node).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw invalidFilter(at(path, extra), `unknown property; ${hint}`);
}

/** `path.key`, or `path["odd key"]` for a key that is not a plain name. */
function at(path: string, key: string): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return `${path}[${quote(key)}]`;
  return path ? `${path}.${key}` : key;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short description of a JSON value for a message; never the whole of a large value. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value === 'object' ? 'JSON object' : typeof value}`;
}
