import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DB } from './schema.ts';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Migrations are plain SQL files, numbered, run in order, once, inside one transaction each. Kysely's
 * migrator takes an advisory lock, so processes starting together on one PostgreSQL do not race.
 */
class SqlFileMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const file of fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((name) => name.endsWith('.sql'))
      .sort()) {
      const script = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
      migrations[file.replace(/\.sql$/, '')] = {
        up: async (db) => {
          await sql.raw(script).execute(db);
        },
      };
    }
    return migrations;
  }
}

export async function migrateToLatest(db: Kysely<DB>): Promise<void> {
  const provider = new SqlFileMigrationProvider();
  const migrations = await provider.getMigrations();
  if (await allApplied(db, Object.keys(migrations))) return;
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
