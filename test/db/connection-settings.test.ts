import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

// PostgreSQL's JIT compiled a batch's statements over arrays for about 300 ms each, to run them in one:
// every pooled connection turns it off before its first statement.
describe.skipIf(!ENGINES.includes('postgres'))('connection settings (postgres)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('has JIT off on every pooled connection, from its first statement', async () => {
    // Several at once, so the pool opens several connections.
    const settings = await Promise.all(
      Array.from({ length: 4 }, () => t.database.db.transaction().execute(async (trx) => (await sql<{ jit: string }>`show jit`.execute(trx)).rows[0]!.jit)),
    );
    expect(settings).toEqual(['off', 'off', 'off', 'off']);
  });
});
