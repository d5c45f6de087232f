import pg from 'pg';

/**
 * Runs `work` on a connection of its own to the server's administrative database (creating and dropping
 * test databases), closed afterwards. Apart from test-database.ts because the run's global setup uses it
 * too, where `vitest` itself cannot be imported.
 */
export async function withAdmin<T>(server: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
