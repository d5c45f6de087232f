import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DB } from './schema.ts';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider, type QueryExecutorProvider } from 'kysely';
import { citusPresent, distributeTables, tablesDistributed, type Distribution } from './citus.ts';
import { createsTable, splitStatements } from './sql-statements.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Migrations are plain SQL files, numbered, run in order, once, inside one transaction each. Kysely's
 * migrator takes an advisory lock, so processes starting together on one PostgreSQL do not race.
 *
 * On a Citus coordinator each statement is sent by itself, in the sequential mode Citus needs for DDL
 * and foreign keys in one transaction, and a table a migration creates is distributed at once when the
 * database is distributed already, so that the migration's next statements can add its foreign keys
 * (docs/scaling.md, "Migrations").
 */
class SqlFileMigrationProvider implements MigrationProvider {
  constructor(private readonly citus: boolean) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const file of fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((name) => name.endsWith('.sql'))
      .sort()) {
      const script = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
      migrations[file.replace(/\.sql$/, '')] = {
        up: this.citus
          ? (db) => runOnCoordinator(db, script)
          : async (db) => {
              await sql.raw(script).execute(db);
            },
      };
    }
    return migrations;
  }
}

async function runOnCoordinator(db: QueryExecutorProvider, script: string): Promise<void> {
  await sql`set local citus.multi_shard_modify_mode to 'sequential'`.execute(db);
  // Triggers on distributed tables are allowed: those Hearth keeps run on shards (docs/scaling.md).
  await sql`set local citus.enable_unsafe_triggers = on`.execute(db);
  const distributed = await tablesDistributed(db);
  for (const statement of splitStatements(script)) {
    await sql.raw(statement).execute(db);
    if (distributed && createsTable(statement)) await distributeTables(db);
  }
}

/**
 * Brings the database to the latest migration. On a Citus coordinator, also distributes the tables that
 * are not yet (a new database's, once all its migrations have run), in the same transaction.
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<{ citus: boolean; placed: Distribution | null }> {
  const citus = await citusPresent(db);
  const provider = new SqlFileMigrationProvider(citus);
  const migrations = await provider.getMigrations();
  if (await allApplied(db, Object.keys(migrations))) return { citus, placed: citus ? await distributeAll(db) : null };
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'hearth_migrations',
    migrationLockTableName: 'hearth_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error) {
    const name = failed ? ` ${failed.migrationName}` : '';
    throw new Error(`Database migration${name} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return { citus, placed: citus ? await distributeAll(db) : null };
}

/**
 * Distributes the tables of a Citus coordinator's database that are not yet (`hearth db distribute`), all
 * at once or nothing: distribution drops foreign keys and adds them back.
 */
export async function distributeAll(db: Kysely<DB>): Promise<Distribution> {
  return db.transaction().execute(async (trx) => {
    await sql`set local citus.multi_shard_modify_mode to 'sequential'`.execute(trx);
    return distributeTables(trx);
  });
}

/**
 * Whether the database has applied exactly these migrations, so there is nothing to do. Every start asks
 * (each `hearth` command, each server, each test database), and almost always the answer is yes: two small
 * reads, where the migrator first introspects every column of every table to find its own table (130 ms
 * on the embedded database, twice) and takes its lock. Anything else goes to the migrator, under its lock.
 */
async function allApplied(db: Kysely<DB>, names: string[]): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`select to_regclass('hearth_migrations') is not null as present`.execute(db);
  if (!rows[0]?.present) return false;
  const applied = await sql<{ name: string }>`select name from hearth_migrations order by name`.execute(db);
  const wanted = [...names].sort();
  return applied.rows.length === wanted.length && applied.rows.every((row, index) => row.name === wanted[index]);
}
