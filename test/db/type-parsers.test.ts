import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

/**
 * Each column: its SQL type, the value as SQL text, and the JavaScript value every engine must return.
 * The same table drives a query with the values inlined (no parameters: PGlite's `exec` path) and one
 * with every value passed as a parameter (PGlite's `query` path, the extended protocol on PostgreSQL).
 */
const COLUMNS: [name: string, type: string, text: string | null, expected: unknown][] = [
  ['int8', 'int8', '9007199254740991', 9007199254740991],
  ['int8_negative', 'int8', '-42', -42],
  ['int8_array', 'int8[]', '{1,NULL,-3,9007199254740991}', [1, null, -3, 9007199254740991]],
  ['int8_array_empty', 'int8[]', '{}', []],
  ['int4', 'int4', '2147483647', 2147483647],
  ['int4_array', 'int4[]', '{7,8}', [7, 8]],
  ['int2', 'int2', '-7', -7],
  ['numeric', 'numeric', '12.50', 12.5],
  ['numeric_integer', 'numeric(20,0)', '123456789012', 123456789012],
  ['numeric_array', 'numeric[]', '{1.25,NULL}', [1.25, null]],
  ['float8', 'float8', '0.1', 0.1],
  ['date', 'date', '2024-02-29', '2024-02-29'],
  ['date_early', 'date', '0001-01-01', '0001-01-01'],
  ['date_array', 'date[]', '{2024-01-01,NULL}', ['2024-01-01', null]],
  ['timestamptz', 'timestamptz', '2024-02-29 12:34:56.123456+02', new Date('2024-02-29T10:34:56.123Z')],
  ['timestamptz_utc', 'timestamptz', '1999-12-31 23:59:59.999+00', new Date('1999-12-31T23:59:59.999Z')],
  ['timestamp', 'timestamp', '2024-02-29 12:34:56.123456', new Date('2024-02-29T12:34:56.123Z')],
  ['json', 'json', '{"a":[1,"x",null],"b":{"c":1.5}}', { a: [1, 'x', null], b: { c: 1.5 } }],
  ['json_scalar', 'json', '"text"', 'text'],
  ['jsonb', 'jsonb', '{"b":{"c":true},"a":[]}', { a: [], b: { c: true } }],
  ['jsonb_array', 'jsonb', '[1,"two",null,{"x":false}]', [1, 'two', null, { x: false }]],
  ['text_array', 'text[]', '{a,NULL,"b,c","\\"q\\"","",NULL-ish}', ['a', null, 'b,c', '"q"', '', 'NULL-ish']],
  ['varchar_array', 'varchar[]', '{x,y}', ['x', 'y']],
  ['text', 'text', 'plain', 'plain'],
  ['bool_true', 'bool', 'true', true],
  ['bool_false', 'bool', 'false', false],
  ['bool_array', 'bool[]', '{t,f,NULL}', [true, false, null]],
  // Nulls of every parsed type stay null.
  ['null_int8', 'int8', null, null],
  ['null_int8_array', 'int8[]', null, null],
  ['null_numeric', 'numeric', null, null],
  ['null_date', 'date', null, null],
  ['null_timestamptz', 'timestamptz', null, null],
  ['null_timestamp', 'timestamp', null, null],
  ['null_json', 'json', null, null],
  ['null_jsonb', 'jsonb', null, null],
  ['null_text_array', 'text[]', null, null],
  ['null_bool', 'bool', null, null],
];

const EXPECTED = Object.fromEntries(COLUMNS.map(([name, , , expected]) => [name, expected]));

const literal = (text: string | null) => (text === null ? 'null' : `'${text.replace(/'/g, "''")}'`);

const inlined: RawBuilder<Record<string, unknown>> = sql.raw(
  `select ${COLUMNS.map(([name, type, text]) => `${literal(text)}::${type} as ${name}`).join(', ')}`,
);

const parameterized: RawBuilder<Record<string, unknown>> = sql`select ${sql.join(
  COLUMNS.map(([name, type, text]) => sql`${text}::${sql.raw(type)} as ${sql.ref(name)}`),
)}`;

describe.each(ENGINES)('type parsers (%s)', (engine) => {
  let t: TestDatabase;
  const zone = process.env.TZ;
  beforeAll(async () => {
    // A process time zone far from UTC, so a timestamp or date read as local time would show.
    process.env.TZ = 'Pacific/Chatham';
    t = await createTestDatabase(engine);
  });
  afterAll(async () => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
    await t.drop();
  });

  it('runs in a time zone that is not UTC', () => {
    expect(new Date('2024-02-29T12:00:00Z').getTimezoneOffset()).not.toBe(0);
  });

  it('the inlined query really has no parameters, the other one one per column', () => {
    expect(inlined.compile(t.database.db).parameters).toEqual([]);
    expect(parameterized.compile(t.database.db).parameters).toHaveLength(COLUMNS.length);
  });

  it.each([
    ['without parameters', inlined],
    ['with parameters', parameterized],
  ])('a query %s returns the expected JavaScript values', async (_name, query) => {
    const { rows } = await query.execute(t.database.db);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    for (const [name, , , expected] of COLUMNS) {
      expect(row[name], name).toStrictEqual(expected);
    }
    expect(Object.keys(row).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('returns int8 aggregates and values read from a table as numbers, dates as strings', async () => {
    const db = t.database.db;
    const { rows } = await sql<{ n: unknown; total: unknown; day: unknown; at: unknown; scopes: unknown }>`
      select count(*) as n, sum(g)::int8 as total, ('2024-01-01'::date + max(g)) as day,
             to_timestamp(1700000000.123456) as at, array_agg(g order by g)::int8[] as scopes
      from generate_series(1, 3) g`.execute(db);
    expect(rows).toStrictEqual([{ n: 3, total: 6, day: '2024-01-04', at: new Date('2023-11-14T22:13:20.123Z'), scopes: [1, 2, 3] }]);
    // The same through the parameterized path.
    const again = await sql<{ n: unknown }>`select count(*) as n from generate_series(1, ${3}::int) g`.execute(db);
    expect(again.rows).toStrictEqual([{ n: 3 }]);
  });

  it("reads a schema table's bigint keys, timestamps and text arrays with the same parsers", async () => {
    const db = t.database.db;
    const community = await db
      .insertInto('communities')
      .values({ name: 'Parsers', company_domains: ['a.test', 'b.test'] })
      .returning(['id', 'created_at', 'company_domains'])
      .executeTakeFirstOrThrow();
    expect(typeof community.id).toBe('number');
    expect(community.created_at).toBeInstanceOf(Date);
    expect(community.company_domains).toStrictEqual(['a.test', 'b.test']);
    const found = await db.selectFrom('communities').select(['id', 'created_at', 'company_domains']).where('id', '=', community.id).executeTakeFirstOrThrow();
    expect(found).toStrictEqual(community);
  });
});
