import fc from 'fast-check';
import { CLAUSE_OPS, MAX_CLAUSES, type ClauseKind } from '../../../src/filters/light-filter.schema.ts';
import { MAX_UNINDEXED_LIKES } from '../../../src/filters/validate.ts';
import type { CustomFieldFilterDefinition } from '../../../src/modules/custom-fields/custom-field.filters.ts';
import { describeFields, resolveField, type DynamicFields, type FilterEntity } from '../../../src/modules/filter-fields/entity-filters.ts';

/**
 * fast-check arbitraries for lightFilter expressions: valid ones (built from the field registry, so they
 * follow it as it grows), mutations of valid ones, and random JSON. Shared by the unit and database tests.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Strings that mean something somewhere in an expression: values that mutations and value pools draw from. */
export const VOCABULARY = [
  'and',
  'or',
  'AND',
  ...Object.keys(CLAUSE_OPS),
  ...Object.values(CLAUSE_OPS).flat(),
  'type',
  'field',
  'params',
  'clauses',
  'op',
  'value',
  'min',
  'max',
  'l_1',
  'l_0',
  's_1',
  'sig_1',
  'o_1',
  'c_1',
  'cot_1',
  'a_1',
  'pco_1',
  'pc_1',
  'naics_54',
  'naics_541511',
  'l_',
  'l_-1',
  'l_1.5',
  'l_99999999999999999999',
  'cf_1',
  'cf_999',
  'ls_1',
  'ls_1.percentile',
  'email',
  'github',
  'twitter',
  'linkedin',
  'discord',
  'facebook',
  'positive',
  'negative',
  'neutral',
  'P7D',
  'PT12H',
  'P1Y2M',
  'P999999999Y',
  'P',
  'PT',
  '-P1D',
  'P1.5D',
  '2024-01-01',
  '2024-02-30',
  '2024-06-15T12:00:00Z',
  '2024-06-15T12:00:00.123456+05:30',
  '0000-01-01',
  '9999-12-31',
  '',
  ' ',
  '%',
  '_',
  '\\',
  "'",
  '"',
  "'; drop table contacts; --",
  '\u0000',
  'é',
  '😀',
  '\ud800',
];

const anyString = fc.oneof(fc.constantFrom(...VOCABULARY), fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 8 }));

/** A value any field of this kind might take, valid or not for a given field. */
const numbers = fc.oneof(
  fc.integer({ min: -5, max: 400 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 0.5, 1e21, -1e300, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 63),
);

const durations = fc.oneof(
  fc.constantFrom('P7D', 'PT12H', 'P1Y2M', 'P2W', 'PT0S', 'P0D', 'P1M', 'PT1.5S', 'P999999999Y', 'P999999999W', 'PT999999999H'),
  fc.record({ y: fc.nat(30), m: fc.nat(30), d: fc.nat(400), h: fc.nat(48) }).map(({ y, m, d, h }) => `P${y}Y${m}M${d}DT${h}H`),
);

const dates = fc.oneof(
  fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)),
  fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString()),
  fc.constantFrom(
    '2024-06-15',
    '2024-06-15T12:00:00Z',
    '2024-06-15 12:00',
    '2024-06-15T12:00:00.000001+14:00',
    '2024-02-29',
    '0001-01-01',
    '9999-12-31',
    '9999-12-31T23:59:59.999999-12:00',
  ),
);

/** Values that a field's item reader accepts, from a pool; null when it accepts any text. */
function itemPool(entity: FilterEntity, field: string, dynamic: DynamicFields): string[] | null {
  const resolved = resolveField(entity, field, dynamic)!;
  if (!('reason' in resolved.item('any text at all'))) return null;
  return VOCABULARY.filter((value) => !('reason' in resolved.item(value)));
}

function paramsFor(entity: FilterEntity, field: string, kind: ClauseKind, op: string, dynamic: DynamicFields): fc.Arbitrary<Json> {
  const pool = itemPool(entity, field, dynamic);
  const item =
    pool === null
      ? fc.oneof(
          fc.constantFrom('Ada', 'ada', 'Engineer', 'kubernetes', 'Gold', 'red', 'blue', '#general'),
          fc.string({ maxLength: 10 }).filter((s) => !s.includes('\u0000')),
        )
      : fc.constantFrom(...pool);
  switch (kind) {
    case 'booleanFilter':
      return fc.boolean().map((value) => ({ op, value }));
    case 'numberFilter':
      return numbers.map((value) => ({ op, value }));
    case 'stringFilter':
      return item.map((value) => ({ op, value }));
    case 'stringListFilter':
      return fc.array(item, { maxLength: 4 }).map((value) => ({ op, value }));
    case 'dateRangeFilter':
      return fc.oneof(
        durations.map((value) => ({ op, value }) as Json),
        fc
          .record({ min: fc.option(dates), max: fc.option(dates) }, { requiredKeys: [] })
          .filter((bounds) => !!(bounds.min ?? bounds.max))
          .map((bounds) => ({ op, value: null, ...bounds }) as Json),
      );
  }
}

/** A valid leaf clause for the entity: every field, kind and op of the registry is reachable. */
export function validLeaf(entity: FilterEntity, dynamic: DynamicFields = {}): fc.Arbitrary<Json> {
  const choices = describeFields(entity, dynamic).flatMap(({ field, kinds }) => {
    const resolved = resolveField(entity, field, dynamic)!;
    return kinds.flatMap((kind) => (resolved.ops[kind] ?? []).map((op) => ({ field, kind, op })));
  });
  return fc
    .constantFrom(...choices)
    .chain(({ field, kind, op }) => paramsFor(entity, field, kind, op, dynamic).map((params) => ({ type: kind, field, params }) as Json));
}

/** A valid expression: groups at most `maxDepth` deep (the top is depth 1). */
export function validExpression(entity: FilterEntity, dynamic: DynamicFields = {}, maxDepth = 4): fc.Arbitrary<Json> {
  const leaf = validLeaf(entity, dynamic);
  const { group } = fc.letrec<{ group: Json; node: Json }>((tie) => ({
    group: fc.record({ type: fc.constantFrom('and', 'or'), clauses: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
    node: fc.oneof({ maxDepth: maxDepth - 1, depthIdentifier: 'group' }, leaf, tie('group')),
  }));
  // Valid everywhere: within the clause limit, and the limit of like clauses on text without a trigram index.
  return group.filter((expression) => countLeaves(expression) <= MAX_CLAUSES && countLikes(expression) <= MAX_UNINDEXED_LIKES);
}

function countLikes(node: Json): number {
  const clauses = (node as { clauses?: Json[] }).clauses;
  if (Array.isArray(clauses)) return clauses.reduce<number>((sum, clause) => sum + countLikes(clause), 0);
  return (node as { params?: { op?: unknown } }).params?.op === 'like' ? 1 : 0;
}

function countLeaves(node: Json): number {
  const clauses = (node as { clauses?: Json[] }).clauses;
  return Array.isArray(clauses) ? clauses.reduce<number>((sum, clause) => sum + countLeaves(clause), 0) : 1;
}

type Path = (string | number)[];

function paths(value: Json, prefix: Path = [], into: Path[] = []): Path[] {
  into.push(prefix);
  if (Array.isArray(value)) value.forEach((child, index) => paths(child, [...prefix, index], into));
  else if (value !== null && typeof value === 'object') for (const [key, child] of Object.entries(value)) paths(child, [...prefix, key], into);
  return into;
}

function get(value: Json, path: Path): Json {
  return path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key]!, value);
}

function set(value: Json, path: Path, replacement: Json | undefined): Json {
  if (path.length === 0) return replacement ?? null;
  const [key, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && replacement === undefined) copy.splice(key as number, 1);
    else copy[key as number] = set(copy[key as number]!, rest, replacement);
    return copy;
  }
  const copy = { ...(value as Record<string, Json>) };
  if (rest.length === 0 && replacement === undefined) delete copy[key as string];
  else copy[key as string] = set(copy[key as string]!, rest, replacement);
  return copy;
}

type Mutation = (value: Json, at: Path) => Json;

const mutationKinds: fc.Arbitrary<Mutation> = fc.oneof(
  // Replace a node with random JSON, a word of the vocabulary, or a number.
  fc.jsonValue({ maxDepth: 3 }).map(
    (random): Mutation =>
      (value, at) =>
        set(value, at, random as Json),
  ),
  anyString.map(
    (word): Mutation =>
      (value, at) =>
        set(value, at, word),
  ),
  numbers.map(
    (number): Mutation =>
      (value, at) =>
        set(value, at, number),
  ),
  // Remove a key or an element.
  fc.constant<Mutation>((value, at) => (at.length ? set(value, at, undefined) : value)),
  // Add an unexpected key to an object.
  fc.tuple(anyString, fc.jsonValue({ maxDepth: 1 })).map(([key, extra]): Mutation => (value, at) => {
    const node = get(value, at);
    return node !== null && typeof node === 'object' && !Array.isArray(node) ? set(value, at, { ...node, [key]: extra as Json }) : value;
  }),
  // Bury a node in groups, perhaps beyond the depth limit.
  fc.integer({ min: 1, max: 10 }).map((levels): Mutation => (value, at) => {
    let node = get(value, at);
    for (let i = 0; i < levels; i += 1) node = { type: 'and', clauses: [node] };
    return set(value, at, node);
  }),
  // Repeat the clauses of a group, perhaps beyond the clause limit.
  fc.integer({ min: 2, max: MAX_CLAUSES + 5 }).map((times): Mutation => (value, at) => {
    const node = get(value, at);
    return Array.isArray(node) ? set(value, at, Array.from({ length: times }, () => node).flat()) : value;
  }),
  // Wrap a value in an array, or take an array's first element.
  fc.constant<Mutation>((value, at) => {
    const node = get(value, at);
    return set(value, at, Array.isArray(node) ? (node[0] ?? null) : [node]);
  }),
);

/** A valid expression with one to three random mutations. */
export function mutatedExpression(entity: FilterEntity, dynamic: DynamicFields = {}): fc.Arbitrary<Json> {
  return fc
    .tuple(validExpression(entity, dynamic, 3), fc.array(fc.tuple(fc.nat(), mutationKinds), { minLength: 1, maxLength: 3 }))
    .map(([expression, mutations]) =>
      mutations.reduce((value, [pick, mutate]) => {
        const all = paths(value);
        return mutate(value, all[pick % all.length]!);
      }, expression),
    );
}

/** Anything a client might send as the parameter: random text, random JSON, valid and mutated expressions. */
export function anyFilterText(entity: FilterEntity, dynamic: DynamicFields = {}): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.json({ maxDepth: 4 }),
    validExpression(entity, dynamic).map((value) => JSON.stringify(value)),
    mutatedExpression(entity, dynamic).map((value) => JSON.stringify(value)),
    mutatedExpression(entity, dynamic).map((value) => JSON.stringify(value).slice(0, -1)),
  );
}

export function customFieldMap(entries: [number, CustomFieldFilterDefinition][]): Map<number, CustomFieldFilterDefinition> {
  return new Map(entries);
}
