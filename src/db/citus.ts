import { sql, type QueryExecutorProvider } from 'kysely';

/**
 * Hearth on a Citus coordinator (docs/scaling.md): every table with a `community_id` is distributed by it,
 * all in one colocation group, so a community's rows of every table live on one node and a request about
 * one community is planned as a router query; the tables shared by all communities are reference tables,
 * copied to every node. These stay plain tables of the coordinator: the migrator's own, and the rate-limit
 * counters (unlogged, written on most requests, never joined with anything).
 */
const COORDINATOR_ONLY = new Set(['hearth_migrations', 'hearth_migrations_lock', 'rate_limit_counters']);

/** Whether this database has the Citus extension: it is then a coordinator's database. */
export async function citusPresent(db: QueryExecutorProvider): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`select exists (select 1 from pg_extension where extname = 'citus') as present`.execute(db);
  return rows[0]?.present ?? false;
}

/** Whether any of the database's tables is distributed already. */
export async function tablesDistributed(db: QueryExecutorProvider): Promise<boolean> {
  const { rows } = await sql<{ any: boolean }>`select exists (select 1 from citus_tables where citus_table_type = 'distributed') as any`.execute(db);
  return rows[0]?.any ?? false;
}

/** Where each table lives: distributed by community, a reference table on every node, or the coordinator's. */
export async function tablePlacement(db: QueryExecutorProvider): Promise<{ table: string; type: string }[]> {
  const plans = await tablePlans(db);
  return plans.map((plan) => ({ table: plan.name, type: plan.has ?? 'coordinator' }));
}

/** The key of pg_advisory_xact_lock(bigint) held while tables are distributed ("dist"). */
const DISTRIBUTE_LOCK = 0x64697374;

export interface Distribution {
  /** Tables made reference tables by this call, and tables distributed by it. */
  reference: string[];
  distributed: string[];
}

interface TablePlan {
  name: string;
  want: 'reference' | 'distributed' | 'coordinator';
  has: 'reference' | 'distributed' | 'local' | null;
}

/**
 * Distributes the tables that are not yet: idempotent, so it runs after every migration on a coordinator
 * (and as `hearth db distribute`). Citus accepts a foreign key only between tables it already manages, so
 * the keys that touch a table still to distribute are dropped first and added again once every table has
 * its place; on a database with rows this copies them to the nodes. Run it in a transaction in Citus's
 * sequential mode (migrate.ts), so that a failure leaves every key in place.
 */
export async function distributeTables(db: QueryExecutorProvider): Promise<Distribution> {
  const done: Distribution = { reference: [], distributed: [] };
  const pendingNow = async () => (await tablePlans(db)).filter((table) => table.want !== 'coordinator' && table.has !== table.want);
  if ((await pendingNow()).length === 0) return done;
  // Processes starting together on a new database: one distributes, the others find it done.
  await sql`select pg_advisory_xact_lock(${DISTRIBUTE_LOCK})`.execute(db);
  const pending = await pendingNow();
  if (pending.length === 0) return done;

  const names = pending.map((table) => table.name);
  const { rows: keys } = await sql<{ table: string; name: string; definition: string }>`
    select conrelid::regclass::text as "table", conname as name, pg_get_constraintdef(oid) as definition
    from pg_constraint
    where contype = 'f' and (conrelid::regclass::text = any(${names}) or confrelid::regclass::text = any(${names}))
    order by conrelid::regclass::text, conname`.execute(db);
  for (const key of keys) await sql`alter table ${sql.id(key.table)} drop constraint ${sql.id(key.name)}`.execute(db);

  // Triggers already on a table must be allowed to stay there (the row triggers of docs/scaling.md). Rows a
  // table already has are copied to its shards: they are not new, so its triggers stay quiet meanwhile.
  await sql`set local citus.enable_unsafe_triggers = on`.execute(db);
  for (const table of pending) await sql`alter table ${sql.id(table.name)} disable trigger user`.execute(db);
  for (const table of pending.filter((t) => t.want === 'reference')) {
    await sql`select create_reference_table(${table.name})`.execute(db);
    done.reference.push(table.name);
  }
  for (const table of pending.filter((t) => t.want === 'distributed')) {
    await sql`select create_distributed_table(${table.name}, 'community_id', colocate_with => 'default')`.execute(db);
    done.distributed.push(table.name);
  }
  for (const key of keys) await sql`alter table ${sql.id(key.table)} add constraint ${sql.id(key.name)} ${sql.raw(key.definition)}`.execute(db);
  // The functions the triggers call must be on every node. Those made while the extension was there are;
  // those made before it (a database distributed in place) are sent now, once the tables they name are.
  await sql`
    select create_distributed_function(p.oid::regprocedure)
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public'
      and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
      and not exists (select 1 from pg_dist_object o where o.classid = 'pg_proc'::regclass and o.objid = p.oid)`.execute(db);
  for (const table of pending) await sql`alter table ${sql.id(table.name)} enable trigger user`.execute(db);
  return done;
}

async function tablePlans(db: QueryExecutorProvider): Promise<TablePlan[]> {
  const { rows } = await sql<{ name: string; tenant: boolean; has: TablePlan['has'] }>`
    select c.relname as name,
           exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'community_id' and not a.attisdropped) as tenant,
           t.citus_table_type as has
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    left join citus_tables t on t.table_name = c.oid
    where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
    order by c.relname`.execute(db);
  return rows.map((row) => ({
    name: row.name,
    want: COORDINATOR_ONLY.has(row.name) ? 'coordinator' : row.tenant ? 'distributed' : 'reference',
    has: row.has,
  }));
}
