import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServerDatabase, dropServerDatabase, inDatabase, markTemplate } from './admin-connection.ts';
import type { TestProject } from 'vitest/node';
import { dumpMigratedPGlite, openDatabase } from '../../src/db/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    pgliteDataDirTemplate: string;
    postgresTemplate: string | null;
  }
}

/**
 * Builds the migrated embedded-database templates once per run (keyed by the migrations' content): a dump
 * for the in-process tests, and a data directory for the `hearth` processes (helpers/process.ts). With
 * TEST_DATABASE_URL, also a migrated PostgreSQL database of this run's, that createTestDatabase copies
 * (CREATE DATABASE … TEMPLATE) instead of migrating each new database (about a second each), dropped at
 * the end of the run.
 */
export default async function setup(project: TestProject) {
  const dir = path.resolve('src/db/migrations');
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(dir).sort()) hash.update(file).update(fs.readFileSync(path.join(dir, file)));
  const key = hash.digest('hex').slice(0, 16);
  const file = path.join(os.tmpdir(), `hearth-pglite-template-${key}.tar`);
  if (!fs.existsSync(file)) {
    const dump = await dumpMigratedPGlite();
    const partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  }
  project.provide('pgliteTemplate', file);

  // A data directory is in the embedded engine's own on-disk format: its version is part of the key.
  const { version } = JSON.parse(fs.readFileSync(path.resolve('node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
  const dataDir = path.join(os.tmpdir(), `hearth-pglite-data-dir-${key}-${version}`);
  if (!fs.existsSync(dataDir)) {
    const partial = `${dataDir}.${process.pid}`;
    fs.rmSync(partial, { recursive: true, force: true });
    // Made as `hearth` makes one: the same file system, modes and extensions, then the migrations.
    const database = await openDatabase({ engine: 'pglite', dataDir: partial, command: 'hearth test template' });
    await database.close();
    try {
      fs.renameSync(partial, dataDir);
    } catch {
      // Another run made it first.
      fs.rmSync(partial, { recursive: true, force: true });
    }
  }
  project.provide('pgliteDataDirTemplate', dataDir);

  const server = process.env.TEST_DATABASE_URL;
  if (!server) {
    project.provide('postgresTemplate', null);
    return;
  }
  const name = `hearth_template_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await createServerDatabase(server, name, null);
  const database = await openDatabase({ engine: 'postgres', url: inDatabase(server, name), poolSize: 1 });
  await database.close();
  // Without connections autovacuum leaves the template alone too, so every copy starts from the
  // statistics a migration leaves.
  await markTemplate(server, name);
  project.provide('postgresTemplate', name);
  return () => dropServerDatabase(server, name);
}
