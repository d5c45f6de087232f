import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { LAST_STATEMENT_MARK, MAX_NAMED, PLANNED_EACH_TIME_MARK, preparingPool } from '../../src/db/prepared-statements.ts';
import { useGenericPlans } from '../../src/db/transaction.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { ENGINES, createPostgresDatabase, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

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

  it("analyzes a table that grew, once its changes pass autovacuum's threshold, whatever autovacuum does", async () => {
    const db = t.database.db;
    await sql`insert into communities (id, name) values (901, 'Grown')`.execute(db);
    await sql`insert into contacts (community_id, id, name) select 901, i, 'contact ' || i from generate_series(1, 5000) i`.execute(db);
    // The inserting session reports its counts when it goes idle, at most once a second: wait for them (a
    // guard against a hang, not a timing).
    let analyzed: string[] = [];
    for (let attempt = 0; attempt < 100 && !analyzed.includes('public.contacts'); attempt++) {
      analyzed = await t.database.statistics!.run();
      if (!analyzed.includes('public.contacts')) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(analyzed).toContain('public.contacts');
    const { rows } = await sql<{ analyzed: boolean; reltuples: number }>`select s.last_analyze is not null as analyzed, c.reltuples
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'contacts'`.execute(db);
    expect(rows[0]).toEqual({ analyzed: true, reltuples: 5000 });
    // Nothing changed since: the next round leaves it alone.
    expect(await t.database.statistics!.run()).not.toContain('public.contacts');
  });
});

// A transaction's `begin` and `set local` statements travel with its first statement: one round trip.
describe.skipIf(!ENGINES.includes('postgres'))('begin with the statement after it (postgres)', () => {
  let created: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  beforeAll(async () => {
    created = await createPostgresDatabase();
    pool = preparingPool(new pg.Pool({ connectionString: created.url, max: 1 }));
  });
  afterAll(async () => {
    await pool?.end();
    await created?.drop();
  });

  /** Runs `work` on one client, counting the database's answers to whole requests (round trips). */
  const roundTrips = async (work: (query: (text: string, values?: unknown[]) => Promise<pg.QueryResult>) => Promise<void>) => {
    const client = await pool.connect();
    let count = 0;
    const connection = (client as unknown as { connection: { on(event: string, listener: () => void): void; off(event: string, listener: () => void): void } })
      .connection;
    const counted = () => count++;
    connection.on('readyForQuery', counted);
    try {
      await work((text, values) => client.query(text, values ?? []));
    } finally {
      connection.off('readyForQuery', counted);
      client.release();
    }
    return count;
  };
  const inTransaction = async (query: (text: string) => Promise<pg.QueryResult>) =>
    (await query('select now() = statement_timestamp() as fresh')).rows[0].fresh === false;

  it('sends a begin, its set local and a statement without parameters as one request, in the transaction', async () => {
    const trips = await roundTrips(async (query) => {
      expect((await query('begin')).rows).toEqual([]);
      const set = await query('set local plan_cache_mode = force_generic_plan');
      expect(set.command).toBe('SET');
      expect((await query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await inTransaction(query)).toBe(true);
      expect((await query('select current_setting($1) as mode', ['plan_cache_mode'])).rows[0].mode).toBe('force_generic_plan');
      await query('commit');
    });
    expect(trips).toBe(4);
    await roundTrips(async (query) => {
      expect((await query('select current_setting($1) as mode', ['plan_cache_mode'])).rows[0].mode).toBe('auto');
    });
  });

  it('sends a begin and its set local with a statement that has parameters, and nothing for an empty transaction', async () => {
    const trips = await roundTrips(async (query) => {
      await query('begin');
      await query('set local plan_cache_mode = force_generic_plan');
      expect((await query('select $1::int as v, current_setting($2) as mode', [7, 'plan_cache_mode'])).rows).toEqual([{ v: 7, mode: 'force_generic_plan' }]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await inTransaction(query)).toBe(true);
      await query('rollback');
      await query('begin');
      await query('set local plan_cache_mode = force_generic_plan');
      await query('commit');
    });
    expect(trips).toBe(3);
  });

  it('runs nothing after a statement sent in front that fails', async () => {
    await roundTrips(async (query) => {
      await query('create table if not exists begin_test (v int)');
      await query('delete from begin_test');
      await query('begin');
      await query('set local plan_cache_mode = no_such_mode');
      await expect(query('insert into begin_test values ($1)', [1])).rejects.toThrow(/plan_cache_mode/);
      await query('rollback');
      expect((await query('select count(*)::int as n from begin_test')).rows[0].n).toBe(0);
    });
  });

  it('fails the statement that fails, and the transaction is rolled back as before', async () => {
    await roundTrips(async (query) => {
      await query('create table if not exists begin_test (v int)');
      await query('begin');
      await expect(query('insert into begin_test values (1); select 1 / 0')).rejects.toThrow(/division by zero/);
      await query('rollback');
      expect((await query('select count(*)::int as n from begin_test')).rows[0].n).toBe(0);
    });
  });

  describe("a transaction's last statement, sent with its commit", () => {
    const count = async () => {
      const other = new pg.Client({ connectionString: created.url });
      await other.connect();
      try {
        return (await other.query('select count(*)::int as n from last_test')).rows[0].n as number;
      } finally {
        await other.end();
      }
    };
    beforeAll(async () => {
      await roundTrips(async (query) => {
        await query('create table last_test (v int unique deferrable initially deferred)');
      });
    });

    it('sends begin, set local, a read, the last write and commit in two round trips; the commit after it is answered at once', async () => {
      await roundTrips((query) => query('delete from last_test').then(() => undefined));
      const trips = await roundTrips(async (query) => {
        await query('begin');
        await query('set local plan_cache_mode = force_generic_plan');
        expect((await query('select $1::int as v', [1])).rows).toEqual([{ v: 1 }]);
        const written = await query(`${LAST_STATEMENT_MARK}insert into last_test values ($1), ($2) returning v`, [1, 2]);
        expect(written.rows).toEqual([{ v: 1 }, { v: 2 }]);
        // Committed already: another session sees the rows before this one says commit.
        expect(await count()).toBe(2);
        expect((await query('commit')).command).toBe('COMMIT');
      });
      expect(trips).toBe(2);
      // The session is out of its transaction: a statement now runs by itself.
      await roundTrips(async (query) => {
        expect((await query('select now() = statement_timestamp() as fresh')).rows[0].fresh).toBe(true);
      });
    });

    it('sends the whole transaction as one request when the last statement is its first, with or without parameters', async () => {
      await roundTrips((query) => query('delete from last_test').then(() => undefined));
      const trips = await roundTrips(async (query) => {
        await query('begin');
        await query(`${LAST_STATEMENT_MARK}insert into last_test values ($1)`, [1]);
        await query('commit');
        await query('begin');
        await query(`${LAST_STATEMENT_MARK}insert into last_test values (2)`);
        await query('commit');
      });
      expect(trips).toBe(2);
      expect(await count()).toBe(2);
    });

    it('commits nothing when the last statement fails, and leaves the transaction to its rollback', async () => {
      await roundTrips((query) => query('delete from last_test').then(() => undefined));
      await roundTrips(async (query) => {
        await query('begin');
        await query('insert into last_test values ($1)', [1]);
        await expect(query(`${LAST_STATEMENT_MARK}insert into last_test values ($1::int / 0)`, [1])).rejects.toThrow(/division by zero/);
        await expect(query('select 1')).rejects.toThrow(/current transaction is aborted/);
        await query('rollback');
      });
      expect(await count()).toBe(0);
    });

    it('fails the statement when its commit fails (a deferred constraint), and stores nothing', async () => {
      await roundTrips((query) => query('delete from last_test').then(() => undefined));
      await roundTrips(async (query) => {
        await query('begin');
        await expect(query(`${LAST_STATEMENT_MARK}insert into last_test values ($1), ($1)`, [5])).rejects.toMatchObject({ code: '23505' });
        // The failed commit ended the transaction: Kysely's rollback finds none, which is no error.
        await query('rollback');
      });
      expect(await count()).toBe(0);
    });

    it('refuses a statement after the last one, which would run outside the transaction', async () => {
      await roundTrips(async (query) => {
        await query('begin');
        await query(`${LAST_STATEMENT_MARK}insert into last_test values ($1)`, [9]);
        await expect(query('insert into last_test values ($1)', [10])).rejects.toThrow(/after a transaction's last statement/);
      });
      expect(await count()).toBe(1);
    });

    it('runs a marked statement outside a transaction as any other', async () => {
      await roundTrips(async (query) => {
        await query(`${LAST_STATEMENT_MARK}insert into last_test values ($1)`, [11]);
        expect((await query('select count(*)::int as n from last_test where v = $1', [11])).rows[0].n).toBe(1);
      });
    });
  });
});

describe.skipIf(!ENGINES.includes('postgres'))('connection lifetime (postgres)', () => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    database = await openDatabase({ engine: 'postgres', url: created.url, poolSize: 1, connectionLifetimeSeconds: 1 });
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('replaces a pooled connection once it is older than its lifetime', async () => {
    const backend = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.db)).rows[0]!.pid;
    const first = await backend();
    expect(await backend()).toBe(first);
    // A guard against a hang, not a timing: the pool closes the connection a second after it opened.
    let later = first;
    for (let attempt = 0; attempt < 100 && later === first; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      later = await backend();
    }
    expect(later).not.toBe(first);
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

  it('never names a statement marked to be planned each time, however often it runs', async () => {
    await t.database.db.transaction().execute(async (trx) => {
      const before = await namesInSession(trx);
      for (const n of [1, 2, 3, 4, 5, 6, 7]) {
        const { rows } = await sql<{ v: number }>`${sql.raw(PLANNED_EACH_TIME_MARK)}select ${n}::int as v, 'prepared-test-planned' as tag`.execute(trx);
        expect(rows).toEqual([{ v: n, tag: 'prepared-test-planned' }]);
      }
      expect(await namesInSession(trx)).toEqual(before);
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
