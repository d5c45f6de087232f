import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NAMED } from '../../src/db/prepared-statements.ts';
import { useGenericPlans } from '../../src/db/transaction.ts';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

// PostgreSQL's JIT compiled a batch's statements over arrays for about 300 ms each, to run them in one.
describe.skipIf(!ENGINES.includes('postgres'))('pooled connections (postgres)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('has JIT off on every connection, from its first statement', async () => {
    // Several at once, so the pool opens several connections.
    const settings = await Promise.all(
      Array.from({ length: 4 }, () => t.database.db.transaction().execute(async (trx) => (await sql<{ jit: string }>`show jit`.execute(trx)).rows[0]!.jit)),
    );
    expect(settings).toEqual(['off', 'off', 'off', 'off']);
  });

});

describe.each(ENGINES)('named prepared statements (%s)', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await t?.drop();
  });

  const namesInSession = async (db: Kysely<DB>) =>
    (await sql<{ name: string }>`select name from pg_prepared_statements where name like 'hearth\\_%'`.execute(db)).rows.map((row) => row.name);

  it('prepares a statement by name the second time a session runs its text, with the same answers', async () => {
    await t.database.db.transaction().execute(async (trx) => {
      const before = await namesInSession(trx);
      const square = (n: number) => sql<{ v: number }>`select ${n}::int * ${n}::int as v, 'prepared-test-1' as tag`.execute(trx);
      expect((await square(3)).rows).toEqual([{ v: 9, tag: 'prepared-test-1' }]);
      expect(await namesInSession(trx)).toEqual(before);
      expect((await square(4)).rows).toEqual([{ v: 16, tag: 'prepared-test-1' }]);
      const after = await namesInSession(trx);
      expect(after.length).toBe(before.length + 1);
      expect((await square(5)).rows).toEqual([{ v: 25, tag: 'prepared-test-1' }]);
      expect(await namesInSession(trx)).toEqual(after);
    });
  });

  it('runs prepared statements on their generic plan after useGenericPlans, in that transaction only', async () => {
    const plans = (db: Kysely<DB>) =>
      sql<{ generic: string; custom: string }>`select generic_plans as generic, custom_plans as custom from pg_prepared_statements
        where statement like '%prepared-test-generic%' and statement not like '%pg_prepared_statements%'`.execute(db);
    const mode = async (db: Kysely<DB>) => (await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(db)).rows[0]!.mode;
    await t.database.db.connection().execute(async (db) => {
      await db.transaction().execute(async (trx) => {
        await useGenericPlans(trx);
        expect(await mode(trx)).toBe('force_generic_plan');
        const lookup = (id: number) => sql`select ${id}::int as id, 'prepared-test-generic' as tag`.execute(trx);
        for (let id = 0; id < 4; id++) await lookup(id);
        // Named from its second run: three runs on a plan, every one the generic plan.
        const [row] = (await plans(trx)).rows;
        expect(row && [Number(row.generic), Number(row.custom)]).toEqual([3, 0]);
      });
      expect(await mode(db)).toBe('auto');
    });
  });

  it('prepares again a statement whose first named run failed after its parse', async () => {
    // One session, outside a transaction: the failed run must not end the test's transaction.
    await t.database.db.connection().execute(async (db) => {
      const divide = (n: number) => sql<{ v: number }>`select 12 / ${n}::int as v, 'prepared-test-2' as tag`.execute(db);
      expect((await divide(3)).rows[0]!.v).toBe(4);
      // The second run is the first named one: parsed, then division by zero.
      await expect(divide(0)).rejects.toThrow(/division by zero/);
      expect((await divide(4)).rows[0]!.v).toBe(3);
      expect((await divide(6)).rows[0]!.v).toBe(2);
    });
  });

  it(`names at most ${MAX_NAMED} texts per session, and runs the others unnamed with the same answers`, async () => {
    await t.database.db.transaction().execute(async (trx) => {
      for (let k = 0; k < MAX_NAMED + 20; k++) {
        for (const n of [1, 2]) {
          const { rows } = await sql<{ v: number }>`select ${n}::int + ${sql.lit(k)} as v`.execute(trx);
          expect(rows).toEqual([{ v: n + k }]);
        }
      }
      expect((await namesInSession(trx)).length).toBe(MAX_NAMED);
    });
  });
});
