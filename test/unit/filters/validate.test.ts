import { Ajv } from 'ajv';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { LightFilterExpression, MAX_CLAUSES, MAX_DEPTH } from '../../../src/filters/light-filter.schema.ts';
import type { CheckedClause, CheckedGroup, CheckedNode } from '../../../src/filters/validate.ts';
import { validateLightFilter, type DynamicFields, type FilterEntity } from '../../../src/modules/filter-fields/entity-filters.ts';
import { HearthError } from '../../../src/core/errors.ts';
import { anyFilterText, customFieldMap, mutatedExpression, validExpression, type Json } from './arbitraries.ts';

const DYNAMIC: DynamicFields = {
  customFields: customFieldMap([
    [1, { valueType: 'string', entityTypes: ['contact'] }],
    [2, { valueType: 'int', entityTypes: ['contact', 'organization'] }],
    [3, { valueType: 'date', entityTypes: ['contact'] }],
    [4, { valueType: 'boolean', entityTypes: ['contact'] }],
    [5, { valueType: 'enum', entityTypes: ['contact'], multivalue: true }],
    [6, { valueType: 'url', entityTypes: ['organization'] }],
    [7, { valueType: 'number', entityTypes: ['object'] }],
  ]),
  leadScores: new Set([1, 2]),
};

const check = (raw: unknown, entity: FilterEntity = 'contact', dynamic: DynamicFields = DYNAMIC) => validateLightFilter(raw, { entity, ...dynamic });

/** The refusal: status 400, code invalid_filter; returns the message. */
function refusal(raw: unknown, entity: FilterEntity = 'contact', dynamic: DynamicFields = DYNAMIC): HearthError {
  try {
    check(raw, entity, dynamic);
  } catch (error) {
    expect(error).toBeInstanceOf(HearthError);
    const refused = error as HearthError;
    expect(refused.kind).toBe('invalid');
    expect(refused.code).toBe('invalid_filter');
    return refused;
  }
  throw new Error(`accepted: ${typeof raw === 'string' ? raw : JSON.stringify(raw)}`);
}

const leaf = (type: string, field: string, params: Json): Json => ({ type, field, params });
const and = (...clauses: Json[]): Json => ({ type: 'and', clauses });
const name = leaf('stringFilter', 'fullName', { op: 'eq', value: 'Ada' });

function nest(depth: number): Json {
  let node: Json = name;
  for (let i = 0; i < depth; i += 1) node = and(node);
  return node;
}

function leaves(node: CheckedNode): CheckedClause[] {
  return 'field' in node ? [node] : node.clauses.flatMap(leaves);
}

describe('validateLightFilter: what it accepts', () => {
  it('reads JSON text or parsed JSON, groups and leaves', () => {
    const expression = and(name, { type: 'or', clauses: [leaf('stringListFilter', 'tags', { op: 'all', value: ['l_1', 'l_22'] })] });
    for (const raw of [expression, JSON.stringify(expression)]) {
      const checked = check(raw);
      expect(checked.type).toBe('and');
      expect(leaves(checked).map((clause) => [clause.path, clause.field.field, clause.leaf])).toEqual([
        ['clauses[0]', 'fullName', { kind: 'stringFilter', op: 'eq', value: 'Ada' }],
        ['clauses[1].clauses[0]', 'tags', { kind: 'stringListFilter', op: 'all', values: [1, 22] }],
      ]);
    }
  });

  it('reads prefixed IDs to their keys, and checks listed values', () => {
    const checked = check(
      and(
        leaf('stringListFilter', 'segments', { op: 'any', value: ['s_3'] }),
        leaf('stringListFilter', 'providers', { op: 'none', value: ['sig_4', 'sig_5'] }),
        leaf('stringFilter', 'organizationId', { op: 'eq', value: 'o_9' }),
        leaf('stringListFilter', 'profiles', { op: 'all', value: ['github', 'email'] }),
      ),
    );
    expect(leaves(checked).map((clause) => clause.leaf)).toEqual([
      { kind: 'stringListFilter', op: 'any', values: [3] },
      { kind: 'stringListFilter', op: 'none', values: [4, 5] },
      { kind: 'stringFilter', op: 'eq', value: 9 },
      { kind: 'stringListFilter', op: 'all', values: ['github', 'email'] },
    ]);
  });

  it('reads date ranges: a duration, or bounds with value absent or null', () => {
    const ranges = leaves(
      check(
        and(
          leaf('dateRangeFilter', 'latestActivityTime', { op: 'in', value: 'P7D' }),
          leaf('dateRangeFilter', 'latestActivityTime', { op: 'in', value: 'P7D', min: null, max: null }),
          leaf('dateRangeFilter', 'firstActivityTime', { op: 'in', min: '2024-01-01' }),
          leaf('dateRangeFilter', 'firstActivityTime', { op: 'in', value: null, max: '2024-01-01T10:00:00+02:00' }),
          leaf('dateRangeFilter', 'cf_3', { op: 'in', value: null, min: '2024-01-01', max: '2024-12-31' }),
        ),
      ),
    ).map((clause) => (clause.leaf.kind === 'dateRangeFilter' ? clause.leaf.range : null));
    expect(ranges[0]).toEqual({ duration: { months: 0, days: 7, millis: 0 }, min: null, max: null });
    expect(ranges[1]).toEqual(ranges[0]);
    expect(ranges[2]).toEqual({ duration: null, min: { timestamp: '2024-01-01T00:00:00Z', date: '2024-01-01', dateOnly: true }, max: null });
    expect(ranges[3]?.max).toEqual({ timestamp: '2024-01-01T10:00:00+02:00', date: '2024-01-01', dateOnly: false });
    expect(ranges[4]?.min?.date).toBe('2024-01-01');
  });

  it(`takes ${MAX_DEPTH} levels of groups and ${MAX_CLAUSES} clauses`, () => {
    expect(() => check(nest(MAX_DEPTH))).not.toThrow();
    expect(() => check(and(name, nest(MAX_DEPTH - 1)))).not.toThrow();
    expect(leaves(check(and(...Array.from({ length: MAX_CLAUSES }, () => name))))).toHaveLength(MAX_CLAUSES);
    // 100 clauses spread over nested groups.
    const spread = and(...Array.from({ length: 10 }, () => ({ type: 'or', clauses: Array.from({ length: 10 }, () => name) })));
    expect(leaves(check(spread))).toHaveLength(MAX_CLAUSES);
  });

  it('takes the custom fields and lead scores of the entity only', () => {
    expect(() => check(and(leaf('numberFilter', 'cf_2', { op: 'gt', value: 1 })), 'organization')).not.toThrow();
    expect(() => check(and(leaf('stringFilter', 'cf_6', { op: 'like', value: 'x' })), 'organization')).not.toThrow();
    expect(() => check(and(leaf('numberFilter', 'cf_7', { op: 'lt', value: 1 })), 'object')).not.toThrow();
    expect(() => check(and(leaf('numberFilter', 'ls_2.percentile', { op: 'gte', value: 90 })), 'organization')).not.toThrow();
    expect(refusal(and(leaf('stringFilter', 'cf_6', { op: 'eq', value: 'x' }))).message).toBe(
      'lightFilter clauses[0].field: "cf_6" is not a filterable field of contacts',
    );
    expect(refusal(and(leaf('numberFilter', 'ls_1', { op: 'eq', value: 1 })), 'activity').message).toMatch(
      /clauses\[0\]\.field: "ls_1" is not a filterable field of activities/,
    );
    expect(refusal(and(leaf('numberFilter', 'ls_3', { op: 'eq', value: 1 }))).message).toMatch(/clauses\[0\]\.field/);
    expect(refusal(and(leaf('numberFilter', 'cf_2', { op: 'eq', value: 1 })), 'contact', {}).message).toMatch(/clauses\[0\]\.field/);
  });
});

describe('validateLightFilter: what it refuses, naming the JSON path', () => {
  const deep = nest(MAX_DEPTH);
  const cases: [string, unknown, string][] = [
    ['malformed JSON', '{"type": "and", "clauses": [', 'lightFilter: not valid JSON'],
    ['empty text', '', 'lightFilter: not valid JSON'],
    ['JSON that is not an object', '[1, 2]', 'lightFilter: must be a JSON object'],
    ['null', 'null', 'lightFilter: must be a JSON object'],
    ['a leaf at the top', name, 'lightFilter type: the top level must be a group'],
    ['a missing group type', { clauses: [name] }, 'lightFilter type: must be "and" or "or", not nothing'],
    ['a bad group type', { type: 'xor', clauses: [name] }, 'lightFilter type: must be "and" or "or", not "xor"'],
    ['missing clauses', { type: 'and' }, 'lightFilter clauses: must be an array of clauses, not nothing'],
    ['clauses not an array', { type: 'and', clauses: {} }, 'lightFilter clauses: must be an array'],
    ['no clauses', { type: 'or', clauses: [] }, 'lightFilter clauses: must hold at least one clause'],
    ['an unknown group property', { type: 'and', clauses: [name], not: true }, 'lightFilter not: unknown property'],
    ['an odd property name', { type: 'and', clauses: [name], 'a b': 1 }, 'lightFilter ["a b"]: unknown property'],
    ['a clause that is not an object', and(name, 'fullName'), 'lightFilter clauses[1]: a clause must be an object, not "fullName"'],
    ['a clause without a type', and({ field: 'fullName', params: {} }), 'lightFilter clauses[0].type: is required'],
    ['an unknown clause kind', and(leaf('regexFilter', 'fullName', {})), 'lightFilter clauses[0].type: must be "and" or "or" for a group, or a clause kind'],
    ['a nested group fault', and(name, and(name, { type: 'and', clauses: null })), 'lightFilter clauses[1].clauses[1].clauses: must be an array'],
    [
      'an unknown field',
      and(leaf('stringFilter', 'shoeSize', { op: 'eq', value: '9' })),
      'lightFilter clauses[0].field: "shoeSize" is not a filterable field of contacts',
    ],
    [
      'a prototype name as a field',
      and(leaf('stringFilter', 'constructor', { op: 'eq', value: '9' })),
      'lightFilter clauses[0].field: "constructor" is not a filterable field',
    ],
    ['a missing field', and({ type: 'stringFilter', params: { op: 'eq', value: 'x' } }), 'lightFilter clauses[0].field: is required'],
    [
      'a field that is not a string',
      and(leaf('stringFilter', 7 as unknown as string, { op: 'eq', value: 'x' })),
      'lightFilter clauses[0].field: must be a string, not 7',
    ],
    [
      'a kind the field does not take',
      and(name, leaf('stringFilter', 'tags', { op: 'eq', value: 'l_1' })),
      'lightFilter clauses[1].type: field "tags" does not take stringFilter; it takes stringListFilter',
    ],
    [
      'a number kind on text',
      and(leaf('numberFilter', 'fullName', { op: 'eq', value: 1 })),
      'lightFilter clauses[0].type: field "fullName" does not take numberFilter',
    ],
    ['an unknown clause property', and({ ...(name as object), negate: true }), 'lightFilter clauses[0].negate: unknown property'],
    ['missing params', and({ type: 'stringFilter', field: 'fullName' }), 'lightFilter clauses[0].params: is required'],
    ['params not an object', and(leaf('stringFilter', 'fullName', ['eq'])), 'lightFilter clauses[0].params: must be an object, not an array'],
    [
      'an unknown param',
      and(leaf('stringFilter', 'fullName', { op: 'eq', value: 'x', caseSensitive: true })),
      'lightFilter clauses[0].params.caseSensitive: unknown property',
    ],
    [
      'min on a stringFilter',
      and(leaf('stringFilter', 'fullName', { op: 'eq', value: 'x', min: null })),
      'lightFilter clauses[0].params.min: unknown property',
    ],
    ['a missing op', and(leaf('stringFilter', 'fullName', { value: 'x' })), 'lightFilter clauses[0].params.op: is required (eq, like, startsWith)'],
    [
      'a bad op',
      and(name, and(name, leaf('numberFilter', 'activityCount7d', { op: 'gtx', value: 1 }))),
      'lightFilter clauses[1].clauses[1].params.op: "gtx" is not an operator of numberFilter (eq, gt, gte, lt, lte)',
    ],
    [
      'an op of another kind',
      and(leaf('stringFilter', 'fullName', { op: 'any', value: 'x' })),
      'lightFilter clauses[0].params.op: "any" is not an operator of stringFilter',
    ],
    [
      'an op the field does not take',
      and(leaf('stringListFilter', 'fullName', { op: 'all', value: ['x'] })),
      'lightFilter clauses[0].params.op: field "fullName" takes stringListFilter with op any, none, not "all"',
    ],
    [
      'a like on an ID',
      and(leaf('stringFilter', 'organizationId', { op: 'like', value: 'o_1' })),
      'lightFilter clauses[0].params.op: field "organizationId" takes stringFilter with op eq',
    ],
    [
      'a string for a boolean',
      and(leaf('booleanFilter', 'cf_4', { op: 'eq', value: 'true' })),
      'lightFilter clauses[0].params.value: must be true or false, not "true"',
    ],
    [
      'a string for a number',
      and(leaf('numberFilter', 'activityCountAll', { op: 'gt', value: '5' })),
      'lightFilter clauses[0].params.value: must be a number, not "5"',
    ],
    ['a missing number', and(leaf('numberFilter', 'ls_1', { op: 'gt' })), 'lightFilter clauses[0].params.value: must be a number, not nothing'],
    ['a number for a string', and(leaf('stringFilter', 'title', { op: 'eq', value: 5 })), 'lightFilter clauses[0].params.value: must be a string, not 5'],
    [
      'a string for a list',
      and(leaf('stringListFilter', 'tags', { op: 'any', value: 'l_1' })),
      'lightFilter clauses[0].params.value: must be an array of strings, not "l_1"',
    ],
    [
      'a number in a list',
      and(leaf('stringListFilter', 'tags', { op: 'any', value: ['l_1', 2] })),
      'lightFilter clauses[0].params.value[1]: must be a string, not 2',
    ],
    [
      'a bare number for a tag',
      and(leaf('stringListFilter', 'tags', { op: 'any', value: ['l_1', '2'] })),
      'lightFilter clauses[0].params.value[1]: "2" is not a tag ID (l_<number>)',
    ],
    [
      'a segment ID for a tag',
      and(leaf('stringListFilter', 'tags', { op: 'any', value: ['s_1'] })),
      'lightFilter clauses[0].params.value[0]: "s_1" is not a tag ID',
    ],
    [
      'a key too large',
      and(leaf('stringListFilter', 'segments', { op: 'any', value: ['s_99999999999999999'] })),
      'lightFilter clauses[0].params.value[0]: "s_99999999999999999" is not a segment ID',
    ],
    [
      'a bad provider',
      and(leaf('stringListFilter', 'providers', { op: 'any', value: ['sig_x'] })),
      'lightFilter clauses[0].params.value[0]: "sig_x" is not a provider ID (sig_<number>)',
    ],
    [
      'a bad organization ID',
      and(leaf('stringFilter', 'organizationId', { op: 'eq', value: '5' })),
      'lightFilter clauses[0].params.value: "5" is not an organization ID (o_<number>)',
    ],
    [
      'an unknown profile type',
      and(leaf('stringListFilter', 'profiles', { op: 'any', value: ['facebook'] })),
      'lightFilter clauses[0].params.value[0]: "facebook" is not a profile type (one of email, github, twitter, linkedin, discord)',
    ],
    [
      'a NUL character',
      and(leaf('stringFilter', 'fullName', { op: 'like', value: 'a\u0000b' })),
      'lightFilter clauses[0].params.value: must not contain the NUL character',
    ],
    [
      'too many list values',
      and(leaf('stringListFilter', 'fullName', { op: 'any', value: Array.from({ length: 1001 }, () => 'x') })),
      'lightFilter clauses[0].params.value: holds at most 1000 values',
    ],
    [
      'a bad duration',
      and(leaf('dateRangeFilter', 'latestActivityTime', { op: 'in', value: '7 days' })),
      'lightFilter clauses[0].params.value: must be an ISO 8601 duration such as P7D, PT12H or P1Y2M, not "7 days"',
    ],
    [
      'a negative duration',
      and(leaf('dateRangeFilter', 'latestActivityTime', { op: 'in', value: '-P7D' })),
      'lightFilter clauses[0].params.value: must be an ISO 8601 duration',
    ],
    [
      'a number for a duration',
      and(leaf('dateRangeFilter', 'latestActivityTime', { op: 'in', value: 7 })),
      'lightFilter clauses[0].params.value: must be an ISO 8601 duration',
    ],
    [
      'no duration and no bounds',
      and(leaf('dateRangeFilter', 'latestActivityTime', { op: 'in', value: null, min: null })),
      'lightFilter clauses[0].params.value: a dateRangeFilter needs a duration (value) or bounds (min, max)',
    ],
    [
      'a bad date',
      and(leaf('dateRangeFilter', 'firstActivityTime', { op: 'in', min: '2023-02-29' })),
      'lightFilter clauses[0].params.min: must be a date (YYYY-MM-DD) or an ISO 8601 date-time, or null; not "2023-02-29"',
    ],
    [
      'a bad upper bound',
      and(leaf('dateRangeFilter', 'firstActivityTime', { op: 'in', min: '2024-01-01', max: 20240101 })),
      'lightFilter clauses[0].params.max: must be a date',
    ],
    [
      'a duration and bounds',
      and(leaf('dateRangeFilter', 'firstActivityTime', { op: 'in', value: 'P1D', max: '2024-01-01' })),
      'lightFilter clauses[0].params.max: give either a duration (value) or bounds (min, max), not both',
    ],
    [
      'a date range op',
      and(leaf('dateRangeFilter', 'firstActivityTime', { op: 'between', min: '2024-01-01' })),
      'lightFilter clauses[0].params.op: "between" is not an operator of dateRangeFilter (in)',
    ],
    [
      'too deep',
      and(name, deep),
      `lightFilter clauses[1]${'.clauses[0]'.repeat(MAX_DEPTH - 1)}: groups nest at most ${MAX_DEPTH} deep (the top group is depth 1)`,
    ],
    ['too deep from the top', nest(MAX_DEPTH + 1), `lightFilter ${'clauses[0].'.repeat(MAX_DEPTH).slice(0, -1)}: groups nest at most ${MAX_DEPTH} deep`],
    [
      'too many clauses',
      and(...Array.from({ length: MAX_CLAUSES + 1 }, () => name)),
      `lightFilter clauses[${MAX_CLAUSES}]: an expression holds at most ${MAX_CLAUSES} clauses`,
    ],
    [
      'too many clauses across groups',
      and(...Array.from({ length: 11 }, () => ({ type: 'or', clauses: Array.from({ length: 10 }, () => name) }))),
      'lightFilter clauses[10].clauses[0]: an expression holds at most 100 clauses',
    ],
  ];

  it.each(cases)('%s', (_, raw, message) => {
    expect(refusal(raw).message.startsWith(message), refusal(raw).message).toBe(true);
  });

  it('lists the offending ID in invalidIds', () => {
    expect(refusal(and(leaf('stringListFilter', 'tags', { op: 'any', value: ['l_1', 'tag-2'] }))).extra.invalidIds).toEqual(['tag-2']);
    expect(refusal(and(leaf('stringListFilter', 'profiles', { op: 'any', value: ['myspace'] }))).extra.invalidIds).toBeUndefined();
  });

  it('refuses the fields of other entities', () => {
    expect(refusal(and(leaf('booleanFilter', 'isUserInitiated', { op: 'eq', value: true }))).message).toMatch(/clauses\[0\]\.field/);
    expect(refusal(and(leaf('stringListFilter', 'profiles', { op: 'any', value: ['email'] })), 'organization').message).toMatch(/of organizations/);
    expect(refusal(and(leaf('dateRangeFilter', 'visitTime', { op: 'in', value: 'P1D' })), 'object').message).toMatch(/of objects/);
    expect(refusal(and(leaf('stringListFilter', 'tags', { op: 'any', value: ['l_1'] })), 'website_visit').message).toMatch(/of website visits/);
  });

  it('describes huge or deeply nested values without printing them', () => {
    let deepArray: Json = [];
    for (let i = 0; i < 100_000; i += 1) deepArray = [deepArray];
    const message = refusal(and(leaf('stringFilter', 'fullName', { op: 'eq', value: deepArray }))).message;
    expect(message).toBe('lightFilter clauses[0].params.value: must be a string, not an array');
    expect(refusal(and(leaf('stringFilter', 'x'.repeat(100_000), { op: 'eq', value: 'x' }))).message.length).toBeLessThan(200);
  });
});

describe('validateLightFilter: properties', () => {
  const entities: FilterEntity[] = ['contact', 'organization', 'activity', 'object', 'website_visit'];
  // The schema as the OpenAPI document and Ajv (the service's validator) read it.
  const ajvCheck = new Ajv({ strict: false }).compile(LightFilterExpression as object);

  it.each(entities)('accepts every valid expression for %s, and the TypeBox schema agrees', (entity) => {
    fc.assert(
      fc.property(validExpression(entity, DYNAMIC), (expression) => {
        check(expression, entity);
        expect(Value.Check(LightFilterExpression, expression)).toBe(true);
        expect(ajvCheck(expression)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it.each(entities)('for %s, anything else either passes or is refused with a 400 invalid_filter that names a path', (entity) => {
    fc.assert(
      fc.property(fc.oneof(anyFilterText(entity, DYNAMIC), mutatedExpression(entity, DYNAMIC)), (raw) => {
        let checked: CheckedGroup | null = null;
        try {
          checked = check(raw, entity);
        } catch (error) {
          if (!(error instanceof HearthError)) throw error;
          expect(error.kind).toBe('invalid');
          expect(error.code).toBe('invalid_filter');
          expect(error.message).toMatch(/^lightFilter(:| \S.*?:) \S/);
          return;
        }
        // What passes is what the schema describes.
        const parsed: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
        expect(Value.Check(LightFilterExpression, parsed)).toBe(true);
        expect(ajvCheck(parsed)).toBe(true);
        expect(leaves(checked).length).toBeLessThanOrEqual(MAX_CLAUSES);
      }),
      { numRuns: 1000 },
    );
  });
});
