import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type SqlBool } from 'kysely';
import { describe, expect, it } from 'vitest';
import { reusableStatement } from '../../src/db/reusable-statements.ts';

// Compiles only: Kysely's dummy driver runs nothing, so the texts and parameters are what is compared.
const db = new Kysely<{ t: { id: number; a: number | null; b: string } }>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

interface Values {
  [name: string]: number | string | null | undefined | (string | null)[];
  id: number;
  b?: string;
  after: (string | null)[] | null;
}

const build = (values: Values) => {
  let query = db.selectFrom('t').select(['id', 'b']).where('id', '>', values.id);
  if (values.b !== undefined) query = query.where('b', '=', values.b);
  if (values.after) query = query.where(sql<SqlBool>`(a, id) > (${sql.join(values.after.map((value) => (value === null ? sql`null` : sql`${value}`)))})`);
  return query.limit(10);
};

describe('reusableStatement', () => {
  const cases: Values[] = [
    { id: 1, after: null },
    { id: 2, b: 'x', after: null },
    { id: 3, after: ['4', '5'] },
    { id: 4, b: 'y', after: [null, '6'] },
    { id: 5, after: ['7', null] },
  ];

  it('gives, for every shape, the text and parameters that building with the values gives', () => {
    // Twice over, so that the second pass reuses every shape the first learned.
    for (const values of [...cases, ...cases.map((values) => ({ ...values, id: values.id + 100 }))]) {
      const reused = reusableStatement('test', values, build);
      const built = build(values).compile();
      expect({ sql: reused.sql, parameters: reused.parameters }).toEqual({ sql: built.sql, parameters: built.parameters });
    }
  });

  it('reuses one text for one shape', () => {
    const first = reusableStatement('same', { id: 1, after: ['a', 'b'] }, build);
    const second = reusableStatement('same', { id: 9, after: ['c', 'd'] }, build);
    // The same string, not merely equal: nothing was compiled the second time.
    expect(Object.is(first.sql, second.sql)).toBe(true);
    expect(second.parameters).toEqual([9, 'c', 'd', 10]);
  });

  it('refuses a builder that reads a value instead of passing it on', () => {
    const reading = (values: { limit: number }) =>
      db
        .selectFrom('t')
        .select('id')
        .limit(values.limit + 1);
    expect(() => reusableStatement('reading', { limit: 5 }, reading)).toThrow(/"limit" of a reusable statement was read/);
  });
});
