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

/**
 * The workers of a Citus coordinator when the server's administrative database has the extension and
 * lists them (docs/scaling.md, "Testing on a cluster"); none for a plain PostgreSQL server. A database is
 * made on every node, since Citus does not create one on the workers itself. Asked once per server.
 */
export function citusWorkers(server: string): Promise<string[]> {
  let workers = knownWorkers.get(server);
  if (!workers) {
    workers = readWorkers(server);
    knownWorkers.set(server, workers);
  }
  return workers;
}

const knownWorkers = new Map<string, Promise<string[]>>();

function readWorkers(server: string): Promise<string[]> {
  return withAdmin(server, async (client) => {
    const { rows: extension } = await client.query<{ present: boolean }>(`select exists (select 1 from pg_extension where extname = 'citus') as present`);
    if (!extension[0]?.present) return [];
    const { rows } = await client.query<{ host: string; port: number }>(
      `select nodename as host, nodeport as port from pg_dist_node where groupid <> 0 and noderole = 'primary' order by nodeid`,
    );
    return rows.map((row) => {
      const url = new URL(server);
      url.hostname = row.host;
      url.port = String(row.port);
      return url.toString();
    });
  });
}

/**
 * Creates database `name` on the server, empty or a copy of `template`. On a Citus coordinator, on each
 * worker too: an empty one gets the extension on every node and the coordinator's list of nodes; a copy
 * of a template copied on every node keeps its shards and their placements.
 */
export async function createServerDatabase(server: string, name: string, template: string | null): Promise<void> {
  const workers = await citusWorkers(server);
  const create = `create database ${name}${template ? ` template ${template}` : ''}`;
  for (const node of [server, ...workers]) await withAdmin(node, (client) => client.query(create));
  if (template || workers.length === 0) return;
  for (const node of [server, ...workers]) await withAdmin(inDatabase(node, name), (client) => client.query('create extension citus'));
  await withAdmin(inDatabase(server, name), async (client) => {
    const coordinator = new URL(server);
    await client.query('select citus_set_coordinator_host($1, $2)', [coordinator.hostname, Number(coordinator.port || 5432)]);
    for (const worker of workers) {
      const url = new URL(worker);
      await client.query('select citus_add_node($1, $2)', [url.hostname, Number(url.port || 5432)]);
    }
  });
}

export async function dropServerDatabase(server: string, name: string): Promise<void> {
  const workers = await citusWorkers(server);
  for (const node of [server, ...workers]) {
    await withAdmin(node, async (client) => {
      await client.query(`alter database ${name} with is_template false`).catch(() => undefined);
      await client.query(`drop database if exists ${name} with (force)`);
    });
  }
}

/**
 * Makes `name` a template on every node: no connections from now on, since a template must have none
 * while it is copied.
 */
export async function markTemplate(server: string, name: string): Promise<void> {
  const workers = await citusWorkers(server);
  for (const node of [server, ...workers]) {
    await withAdmin(node, async (client) => {
      await client.query(`alter database ${name} with is_template true allow_connections false`);
      // Citus's maintenance daemon keeps a connection to every database with the extension.
      await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    });
  }
}

export function inDatabase(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}
