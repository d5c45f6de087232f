import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTogether, writeTogether, type Lookup } from '../../src/core/lookups.ts';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

// Statements that share one round trip (src/core/lookups.ts), on a table of the test's own.
describe.each(ENGINES)('readTogether and writeTogether (%s)', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(engine);
    await sql`create table lookup_test (k text primary key, v int not null)`.execute(t.database.db);
    await sql`insert into lookup_test values ('a', 1), ('b', 2), ('c', 3)`.execute(t.database.db);
  });
  afterAll(async () => {
    await t?.drop();
  });

  const valuesOf = (keys: string[]): Lookup<Map<string, number>> => ({
    rows: keys.length ? sql`select k, v from lookup_test where k = any(${keys}::text[])` : null,
    read: (rows) => new Map(rows.map((row) => [row.k as string, row.v as number])),
  });
  const count = (): Lookup<number> => ({ rows: sql`select count(*)::int as n from lookup_test`, read: (rows) => rows[0]!.n as number });

  it('reads several lookups in one statement, each with its own rows, and a lookup with nothing to read as empty', async () => {
    const found = await readTogether(t.database.db, { some: valuesOf(['a', 'c', 'zz']), none: valuesOf([]), all: count() });
    expect(found.some).toEqual(
      new Map([
        ['a', 1],
        ['c', 3],
      ]),
    );
    expect(found.none).toEqual(new Map());
    expect(found.all).toBe(3);
    // Nothing to read at all: no statement, every lookup reads no rows.
    expect(await readTogether(t.database.db, { none: valuesOf([]) })).toEqual({ none: new Map() });
  });

  it('runs independent writes as one statement, all of them, each seeing the table as it was before', async () => {
    await t.database.db
      .transaction()
      .execute(async (trx) => {
        await writeTogether(trx, [
          sql`insert into lookup_test select 'd', count(*)::int from lookup_test`,
          null,
          sql`update lookup_test set v = v * 10 where k = 'a'`,
          sql`delete from lookup_test where k = 'b'`,
        ]);
        const rows = await sql<{ k: string; v: number }>`select k, v from lookup_test order by k`.execute(trx);
        // 'd' counted the three rows there were: the delete of 'b' in the same statement was not seen.
        expect(rows.rows).toEqual([
          { k: 'a', v: 10 },
          { k: 'c', v: 3 },
          { k: 'd', v: 3 },
        ]);
        await writeTogether(trx, [null, null]);
        await writeTogether(trx, [sql`update lookup_test set v = 0 where k = 'c'`]);
        expect((await readTogether(trx, { c: valuesOf(['c']) })).c.get('c')).toBe(0);
        // Rolled back: the next test starts from the same rows.
        throw new Rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
    expect((await readTogether(t.database.db, { all: count() })).all).toBe(3);
  });
});

class Rollback extends Error {}
