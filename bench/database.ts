import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  /** The connection string of the new database. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A new, uniquely named database on the server of `serverUrl` (whose own database is only used to create
 * and drop it). The caller migrates it through openDatabase, as Hearth does at start.
 */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `hearth_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await withAdmin(serverUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => withAdmin(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

async function withAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
