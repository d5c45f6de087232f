import fc from 'fast-check';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type RawBuilder, type SqlBool } from 'kysely';
import { describe, expect, it } from 'vitest';
import { HearthError } from '../../../src/core/errors.ts';
import {
  compileLightFilter,
  describeFields,
  ENTITY_TABLES,
  FILTER_ENTITIES,
  type CompileOptions,
  type DynamicFields,
  type FilterEntity,
} from '../../../src/modules/filter-fields/entity-filters.ts';
import { anyFilterText, customFieldMap, validExpression, validLeaf, type Json } from './arbitraries.ts';

// A Kysely that only compiles: no database.
const db = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const COMMUNITY = 424242;
const NOW = new Date('2024-06-15T12:00:00.000Z');
const DYNAMIC: DynamicFields = {
  customFields: customFieldMap([
    [11, { valueType: 'string', entityTypes: ['contact', 'organization', 'object'] }],
    [12, { valueType: 'int', entityTypes: ['contact', 'organization', 'object'] }],
    [13, { valueType: 'date', entityTypes: ['contact', 'organization', 'object'] }],
    [14, { valueType: 'boolean', entityTypes: ['contact', 'organization', 'object'] }],
    [15, { valueType: 'enum', entityTypes: ['contact'], multivalue: true }],
    [16, { valueType: 'multi-line', entityTypes: ['contact'] }],
  ]),
  leadScores: new Set([21]),
};

const options = (entity: FilterEntity = 'contact'): CompileOptions => ({ entity, communityId: COMMUNITY, now: NOW, ...DYNAMIC });
const compiled = (fragment: RawBuilder<SqlBool>) => fragment.compile(db);
const compile = (raw: unknown, entity: FilterEntity = 'contact') => compiled(compileLightFilter(raw, options(entity)));

const leaf = (type: string, field: string, params: Json): Json => ({ type, field, params });
const and = (...clauses: Json[]): Json => ({ type: 'and', clauses });
const or = (...clauses: Json[]): Json => ({ type: 'or', clauses });

/** Reference tables shared by every community (no community_id): nothing ties them to one. */
const SHARED_TABLES = new Set(Object.values(ENTITY_TABLES).flatMap((list) => (list.shared ? [list.table] : [])));

/** Every table a fragment reads, with its alias: each must be tied to the community by a parameter, but the shared ones. */
function checkCommunityScope(sqlText: string, parameters: readonly unknown[]): number {
  const tables = [...sqlText.matchAll(/\b(?:from|join) ([a-z_]+) (f_[a-z]+)\b/g)].filter(([, table]) => !SHARED_TABLES.has(table!));
  for (const [, table, alias] of tables) {
    const scoped = [...sqlText.matchAll(new RegExp(`\\b${alias}\\.community_id = (\\$(\\d+)|f_[a-z]+\\.community_id)`, 'g'))];
    expect(scoped.length, `${table} ${alias} in ${sqlText}`).toBeGreaterThan(0);
    for (const [, , index] of scoped) if (index) expect(parameters[Number(index) - 1]).toBe(COMMUNITY);
  }
  return tables.length;
}

describe('compileLightFilter', () => {
  it('compiles groups to parenthesized and/or with one fragment per clause', () => {
    const { sql, parameters } = compile(
      and(
        leaf('stringFilter', 'fullName', { op: 'eq', value: 'Ada' }),
        or(leaf('stringFilter', 'title', { op: 'like', value: 'eng' }), leaf('stringFilter', 'companyName', { op: 'startsWith', value: 'Ini' })),
      ),
    );
    expect(sql).toBe('(("c"."full_name" = $1::text) and (("c"."title" ilike $2::text) or (starts_with("c"."company_name", $3::text))))');
    expect(parameters).toEqual(['Ada', '%eng%', 'Ini']);
  });

  it('uses the base table alias of each entity', () => {
    for (const entity of FILTER_ENTITIES) {
      const field = describeFields(entity).find((one) => one.kinds.includes('stringFilter') && one.ops.includes('eq'))!;
      const { sql } = compile(and(leaf('stringFilter', field.field, { op: 'eq', value: 'x' })), entity);
      expect(sql).toContain(`"${ENTITY_TABLES[entity].alias}".`);
    }
  });

  it('counts activity windows back from now over (now − window, now], by contact and community', () => {
    const windows: [string, number][] = [
      ['7d', 7],
      ['28d', 28],
      ['8w', 56],
      ['12w', 84],
      ['6m', 182],
      ['1y', 365],
    ];
    for (const [window, days] of windows) {
      const { sql, parameters } = compile(and(leaf('numberFilter', `activityCount${window}`, { op: 'gte', value: 2 })));
      expect(sql).toMatch(
        /select count\(\*\) from activities f_a where f_a\.community_id = \$1 and f_a\.contact_id = c\.id\s+and f_a\.activity_time > \$2::timestamptz and f_a\.activity_time <= \$3::timestamptz\) >= \$4::numeric/,
      );
      expect(parameters).toEqual([COMMUNITY, new Date(NOW.getTime() - days * 86_400_000).toISOString(), NOW.toISOString(), 2]);
    }
    const all = compile(and(leaf('numberFilter', 'activityCountAll', { op: 'lt', value: 3 })));
    expect(all.sql).toBe('(("c"."activity_count_all" < $1::numeric))');
  });

  it('compiles durations and inclusive bounds', () => {
    const duration = compile(and(leaf('dateRangeFilter', 'latestActivityTime', { op: 'in', value: 'P1M' })));
    expect(duration.sql).toBe('((("c"."latest_activity_at" > $1::timestamptz and "c"."latest_activity_at" <= $2::timestamptz)))');
    expect(duration.parameters).toEqual(['2024-05-15T12:00:00.000Z', NOW.toISOString()]);
    const bounds = compile(and(leaf('dateRangeFilter', 'firstActivityTime', { op: 'in', value: null, min: '2024-01-01', max: '2024-01-31' })));
    expect(bounds.sql).toBe(`((("c"."first_activity_at" >= $1::timestamptz and "c"."first_activity_at" < $2::timestamptz + interval '24 hours')))`);
    expect(bounds.parameters).toEqual(['2024-01-01T00:00:00Z', '2024-01-31T00:00:00Z']);
    const instants = compile(and(leaf('dateRangeFilter', 'firstActivityTime', { op: 'in', max: '2024-01-31T10:00:00.5+01:00' })));
    expect(instants.sql).toBe('((("c"."first_activity_at" <= $1::timestamptz)))');
    expect(instants.parameters).toEqual(['2024-01-31T10:00:00.5+01:00']);
  });

  it('compiles custom fields by value type and lead scores, scoped to the community', () => {
    const { sql, parameters } = compile(
      and(
        leaf('stringListFilter', 'cf_15', { op: 'all', value: ['red', 'blue'] }),
        leaf('numberFilter', 'cf_12', { op: 'gt', value: 5 }),
        leaf('dateRangeFilter', 'cf_13', { op: 'in', value: 'P7D' }),
        leaf('booleanFilter', 'cf_14', { op: 'eq', value: true }),
        leaf('numberFilter', 'ls_21', { op: 'gte', value: 50 }),
        leaf('numberFilter', 'ls_21.percentile', { op: 'gte', value: 90 }),
      ),
    );
    expect(checkCommunityScope(sql, parameters)).toBe(6);
    expect(sql).toContain('"f_ls"."score"');
    expect(sql).toContain('"f_ls"."percentile"');
    expect(parameters).toContain('2024-06-08');
    expect(parameters).toContain('2024-06-15');
  });

  it('refuses a custom field of a type it cannot filter', () => {
    expect(() => compile(and(leaf('stringFilter', 'cf_16', { op: 'eq', value: 'x' })))).toThrow(HearthError);
  });

  it.each(FILTER_ENTITIES)('compiles every field, kind and operator of %s, naming the community in every subquery', (entity) => {
    fc.assert(
      fc.property(validLeaf(entity, DYNAMIC), (clause) => {
        const { sql, parameters } = compile(and(clause), entity);
        checkCommunityScope(sql, parameters);
      }),
      { numRuns: 400 },
    );
  });

  it('makes like a case-insensitive substring whose %, _ and \\ are literal', () => {
    const { sql, parameters } = compile(and(leaf('stringFilter', 'title', { op: 'like', value: '50%_off\\now' })));
    expect(sql).toBe('(("c"."title" ilike $1::text))');
    expect(parameters).toEqual(['%50\\%\\_off\\\\now%']);
  });

  it('never writes a value into the SQL text: values are parameters', () => {
    const marked = fc
      .string({ minLength: 1, maxLength: 10 })
      .filter((text) => !text.includes('\u0000'))
      .map((text) => `zq${text}'"--;zq`);
    fc.assert(
      fc.property(marked, fc.constantFrom('fullName', 'title', 'location.city', 'cf_11'), fc.constantFrom('eq', 'like', 'startsWith'), (value, field, op) => {
        const { sql, parameters } = compile(
          and(leaf('stringFilter', field, { op, value }), leaf('stringListFilter', field, { op: field === 'cf_11' ? 'all' : 'any', value: [value, value] })),
        );
        expect(sql).not.toContain('zq');
        // A like pattern carries the value with its % _ and \ escaped.
        const pattern = `%${value.replace(/[\\%_]/g, '\\$&')}%`;
        expect(parameters.includes(value) || parameters.includes(pattern)).toBe(true);
      }),
    );
  });

  it.each(FILTER_ENTITIES)('for %s, any input compiles or is refused with a 400 invalid_filter', (entity) => {
    fc.assert(
      fc.property(anyFilterText(entity, DYNAMIC), (raw) => {
        try {
          const { sql, parameters } = compile(raw, entity);
          checkCommunityScope(sql, parameters);
        } catch (error) {
          if (!(error instanceof HearthError) || error.kind !== 'invalid' || error.code !== 'invalid_filter') throw error;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('compiles deep valid expressions', () => {
    fc.assert(
      fc.property(validExpression('contact', DYNAMIC, 8), (expression) => {
        compile(expression);
      }),
      { numRuns: 100 },
    );
  });
});
