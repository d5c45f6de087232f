import { randomBytes } from 'node:crypto';
import { createServerDatabase, dropServerDatabase, inDatabase } from '../test/helpers/admin-connection.ts';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  /** The connection string of the new database. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A new, uniquely named database on the server of `serverUrl` (whose own database is only used to create
 * and drop it; on a Citus coordinator, on every node: docs/scaling.md). The caller migrates it through
 * openDatabase, as Hearth does at start.
 */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `hearth_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await createServerDatabase(serverUrl, name, null);
  return { url: inDatabase(serverUrl, name), name, drop: () => dropServerDatabase(serverUrl, name) };
}
