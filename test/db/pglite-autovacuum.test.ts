import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

/**
 * The embedded database has no autovacuum worker; its driver does that work between callers
 * (src/db/pglite-autovacuum.ts). PostgreSQL has its own, which these tests do not look at.
 */
describe('autovacuum on the embedded database', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase('pglite');
    await sql`insert into communities (id, name) values (1, 'A'), (2, 'B')`.execute(t.database.db);
    await sql`insert into contacts (community_id, id, name) select 1 + i % 2, i, 'contact ' || i from generate_series(1, 4000) i`.execute(t.database.db);
  });
  afterAll(() => t?.drop());

  /** The statistics of `contacts`, once a run has vacuumed and analyzed it (queries go on meanwhile, as a server's would). */
  async function contactsOnceVacuumed() {
    // A guard against a hang, not a timing: a run is due every second, when the driver gets its connection back.
    for (let attempt = 0; attempt < 200; attempt++) {
      const { rows } = await sql<{ vacuumed: boolean; analyzed: boolean; reltuples: number }>`
        select last_vacuum is not null as vacuumed, last_analyze is not null as analyzed, c.reltuples
        from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'contacts'`.execute(t.database.db);
      if (rows[0]?.vacuumed && rows[0].analyzed) return rows[0];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('contacts was never vacuumed and analyzed');
  }

  it('vacuums and analyzes a table that grew, so the planner knows its size and its columns', async () => {
    const stats = await contactsOnceVacuumed();
    expect(stats.reltuples).toBe(4000);
    // The planner's statistics of the columns: community_id holds two values, each row its own ID.
    const columns = await sql<{ name: string; distinct: number }>`select attname as name, n_distinct as distinct from pg_stats
      where tablename = 'contacts' and attname in ('community_id', 'id') order by attname`.execute(t.database.db);
    expect(columns.rows).toEqual([
      { name: 'community_id', distinct: 2 },
      { name: 'id', distinct: -1 },
    ]);
  });
});
