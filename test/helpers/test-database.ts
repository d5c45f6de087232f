import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { inject } from 'vitest';
import { openDatabase, type Database, type Engine } from '../../src/db/database.ts';
import { createServerDatabase, dropServerDatabase, inDatabase } from './admin-connection.ts';

/**
 * PGlite always; PostgreSQL too when TEST_DATABASE_URL names a server. TEST_ENGINES=postgres runs only the
 * latter (a run against a Citus cluster, docs/scaling.md).
 */
export const ENGINES: Engine[] = (process.env.TEST_DATABASE_URL ? (['pglite', 'postgres'] as const) : (['pglite'] as const)).filter(
  (engine) => !process.env.TEST_ENGINES || process.env.TEST_ENGINES.split(',').includes(engine),
);

export interface TestDatabase {
  database: Database;
  /** For PostgreSQL, a URL that other processes can use; null for the in-memory embedded database. */
  url: string | null;
  /** Closes the database, and on PostgreSQL drops it. */
  drop(): Promise<void>;
}

let template: Blob | null = null;

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'pglite') {
    template ??= new Blob([fs.readFileSync(inject('pgliteTemplate'))]);
    const database = await openDatabase({ engine: 'pglite', dataDir: null, template });
    return { database, url: null, drop: () => database.close() };
  }
  // A copy of the run's migrated template (global-setup.ts): opening it finds nothing to migrate.
  const { url, drop } = await createPostgresDatabase({ template: inject('postgresTemplate') });
  const database = await openDatabase({ engine: 'postgres', url, poolSize: 4 });
  return {
    database,
    url,
    async drop() {
      await database.close();
      await drop();
    },
  };
}

/**
 * A database with a unique name on the TEST_DATABASE_URL server, empty or a copy of `template`; `drop`
 * removes it.
 */
export async function createPostgresDatabase(options: { template?: string | null } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) throw new Error('TEST_DATABASE_URL is not set');
  const name = `hearth_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await createServerDatabase(server, name, options.template ?? null);
  return { url: inDatabase(server, name), drop: () => dropServerDatabase(server, name) };
}
