/**
 * Regenerates src/db/schema.ts (the Kysely table types) from the migrations, read off a freshly migrated
 * embedded database (PGlite, in memory): no server is needed. test/unit/db-schema.test.ts regenerates it
 * and fails when it differs from the committed file, so a migration without `npm run db:types` fails CI.
 *
 *   npm run db:types
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresDialect, generate, type GenerateOptions } from 'kysely-codegen';
import { openDatabase } from '../src/db/database.ts';

export const SCHEMA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/db/schema.ts');

/** The text of src/db/schema.ts for the migrations as they are. `template`: a migrated embedded database to start from (tests). */
export async function schemaTypes(template?: Blob): Promise<string> {
  const database = await openDatabase({ engine: 'pglite', dataDir: null, template });
  try {
    const text = await generate({
      // kysely-codegen is typed against its own copy of Kysely; it only runs introspection queries through ours.
      db: database.db as unknown as GenerateOptions['db'],
      dialect: new PostgresDialect({ numericParser: 'number', dateParser: 'string' }),
      excludePattern: 'hearth_migrations*',
      outFile: null,
    });
    // Our type parsers (src/db/type-parsers.ts) read int8 as number, and json is written as JSON text:
    // a JS array handed to a driver would become a PostgreSQL array literal.
    return text
      .replace(/^export type Int8 = .*$/m, 'export type Int8 = ColumnType<number, number, number>;')
      .replace(/^export type Json = JsonValue;$/m, 'export type Json = ColumnType<JsonValue, string, string>;');
  } finally {
    await database.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(SCHEMA_FILE, await schemaTypes());
}
