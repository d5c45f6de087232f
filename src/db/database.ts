import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import fs from 'node:fs';
import { Kysely, PostgresDialect, sql, type LogEvent } from 'kysely';
import pg from 'pg';
import { dataDirUnavailable, embeddedUnopenable, postgresUnavailable } from './database-errors.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { OwnerOnlyNodeFS, prepareDataDir } from './data-dir.ts';
import { migrateToLatest } from './migrate.ts';
import type { Distribution } from './citus.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { preparingPool } from './prepared-statements.ts';
import { outsideRequestScope, scopedPool } from './request-scope.ts';
import { PlannerStatistics } from './statistics.ts';
import type { DB } from './schema.ts';
import { TYPE_PARSERS, pgTypes } from './type-parsers.ts';

export type Engine = 'postgres' | 'pglite';

export interface Database {
  db: Kysely<DB>;
  engine: Engine;
  /** Whether several processes may use this database at once (PostgreSQL), or only this one (PGlite). */
  shared: boolean;
  /** Whether it is a Citus coordinator's database, its tables distributed by community (docs/scaling.md). */
  citus: boolean;
  /** On a coordinator, the tables this open placed: all of them when it is the first open of a restored database. */
  placedAtOpen: Distribution | null;
  /** Listens to a notification channel until the database closes (see ListenHandlers). */
  listen: Listen;
  /** Cancels the statements these backends are running (a request whose client left; request-scope.ts). */
  cancel(backends: number[]): Promise<void>;
  /** How the connections are used now (the metrics' pool gauges). */
  poolUse(): PoolUse;
  /**
   * The embedded database: its data directory as a gzipped tar (PGlite's dump), taken between two callers
   * of its one connection, after a checkpoint, so no transaction is half in it. PostgreSQL has pg_dump.
   */
  dump?(): Promise<Blob>;
  /** PostgreSQL: the planner statistics this process keeps current (statistics.ts); the embedded driver does its own. */
  statistics?: PlannerStatistics;
  close(): Promise<void>;
}

/**
 * Connections of this process's pool: at most `max`, `total` open, `idle` of them free, and `waiting`
 * callers queued for one. The embedded database is a pool of one session (pglite-dialect.ts).
 */
export interface PoolUse {
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

/**
 * What a listener hears: `ready` once it listens (again), each `message`, and `lost` when it may have
 * missed messages (its connection dropped); it then reconnects and is `ready` again.
 */
export interface ListenHandlers {
  ready(): void;
  message(payload: string): void;
  lost(): void;
}

export type Listen = (channel: string, handlers: ListenHandlers) => Promise<void>;

const RECONNECT_MS = 1000;

/** pg_trgm, for the trigram index of `like` filters (migration 0011). */
const PGLITE_EXTENSIONS = { pg_trgm };

export type DatabaseTarget =
  /**
   * `log` sees every statement (the bench records what a request ran). A pooled connection is closed and
   * replaced once it is `connectionLifetimeSeconds` old (0: kept; default 600), so no session keeps plans
   * and caches for the life of the process.
   */
  | { engine: 'postgres'; url: string; poolSize?: number; log?: (event: LogEvent) => void; connectionLifetimeSeconds?: number }
  /**
   * `dataDir: null` keeps the embedded database in memory. `template` starts it from a dump of an already
   * migrated database, which is four times faster than creating one (tests).
   */
  | { engine: 'pglite'; dataDir: string | null; command?: string; template?: Blob; restore?: EmbeddedRestore };

/**
 * `hearth restore`: the data directory's database is replaced by a backup once the directory is locked;
 * the one it replaces is moved to `keepAs`, and moved back should the backup not load.
 */
export interface EmbeddedRestore {
  backup: Blob;
  keepAs: string;
}

/** A dump of a freshly migrated embedded database, to start others from (`template`). */
export async function dumpMigratedPGlite(): Promise<Blob> {
  const pglite = await PGlite.create({ parsers: TYPE_PARSERS, extensions: PGLITE_EXTENSIONS });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  await migrateToLatest(db);
  const dump = await pglite.dumpDataDir('none');
  await db.destroy();
  await pglite.close();
  return dump;
}

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded database in HEARTH_DATA_DIR. */
export function databaseTarget(config: { databaseUrl: string | null; dataDir: string; connectionLifetimeSeconds: number }, command: string): DatabaseTarget {
  return config.databaseUrl
    ? { engine: 'postgres', url: config.databaseUrl, connectionLifetimeSeconds: config.connectionLifetimeSeconds }
    : { engine: 'pglite', dataDir: config.dataDir, command };
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  const database = target.engine === 'postgres' ? openPostgres(target) : await openPGlite(target);
  try {
    const { citus, placed } = await migrateToLatest(database.db);
    database.citus = citus;
    database.placedAtOpen = placed;
  } catch (error) {
    await database.close().catch(() => undefined);
    // The first statement is where a server that refuses, or a database that is missing, shows.
    throw (target.engine === 'postgres' ? postgresUnavailable(error, target.url) : null) ?? error;
  }
  return database;
}

/**
 * How often a process checks whether tables need analyzing (statistics.ts); a check that finds none is one
 * query. Often, because a first backfill grows tables from nothing, and plans made while they were small
 * read them whole until the next analysis (docs/architecture.md, Storage).
 */
const STATISTICS_INTERVAL_MS = 2_000;

function openPostgres({ url, poolSize = 10, log, connectionLifetimeSeconds = 600 }: DatabaseTarget & { engine: 'postgres' }): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes, maxLifetimeSeconds: connectionLifetimeSeconds });
  // An idle client that loses its server emits 'error' on the pool; without a listener that kills the process.
  pool.on('error', () => {});
  // No JIT compilation: Hearth's statements run in milliseconds, and the planner's estimates for a batch's
  // arrays are large enough to make PostgreSQL compile statements (about 300 ms each) that then run in one.
  // Set once per connection, before its first statement (the client runs its queries in order). On a Citus
  // coordinator every statement is planned for its values: Citus routes a statement to its shard only on
  // such a plan, and cannot make a distributed plan of the generic plan of a statement with subqueries
  // (docs/scaling.md).
  pool.on('connect', (client) => {
    void client
      .query(
        `set jit = off; select set_config('plan_cache_mode', 'force_custom_plan', false) where exists (select 1 from pg_extension where extname = 'citus')`,
      )
      .catch(() => undefined);
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: scopedPool(preparingPool(pool)) }), ...(log ? { log } : {}) });
  const statistics = new PlannerStatistics(db);
  statistics.start(STATISTICS_INTERVAL_MS);
  const listeners = new Set<pg.Client>();
  let closed = false;

  /** One dedicated connection per channel, reconnected whenever it drops. */
  const listen: Listen = async (channel, handlers) => {
    const retry = () => setTimeout(() => void connect(), RECONNECT_MS).unref();
    const connect = async (): Promise<void> => {
      if (closed) return;
      const client = new pg.Client({ connectionString: url });
      let live = false;
      client.on('error', () => {});
      client.on('notification', (message) => handlers.message(message.payload ?? ''));
      client.on('end', () => {
        listeners.delete(client);
        if (!live || closed) return;
        handlers.lost();
        retry();
      });
      try {
        await client.connect();
        listeners.add(client);
        await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      } catch {
        await client.end().catch(() => undefined);
        if (!closed) retry();
        return;
      }
      live = true;
      handlers.ready();
    };
    await connect();
  };

  return {
    db,
    engine: 'postgres',
    shared: true,
    citus: false,
    placedAtOpen: null,
    listen,
    async cancel(backends) {
      if (backends.length === 0) return;
      await outsideRequestScope(() => pool.query('select pg_cancel_backend(pid) from unnest($1::int[]) as pid', [backends])).catch(() => undefined);
    },
    poolUse: () => ({ max: poolSize, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    statistics,
    async close() {
      closed = true;
      await statistics.stop();
      await Promise.all([...listeners].map((client) => client.end().catch(() => undefined)));
      await db.destroy();
    },
  };
}

async function openPGlite(target: DatabaseTarget & { engine: 'pglite' }): Promise<Database> {
  let lock: DataDirLock | null = null;
  try {
    if (target.dataDir !== null) {
      prepareDataDir(target.dataDir);
      lock = lockDataDir(target.dataDir, target.command ?? 'hearth');
    }
  } catch (error) {
    throw (target.dataDir !== null ? dataDirUnavailable(error, target.dataDir) : null) ?? error;
  }
  const pgdata = target.dataDir === null ? null : `${target.dataDir}/pgdata`;
  let keptOld = false;
  try {
    if (target.restore && pgdata !== null && fs.existsSync(pgdata)) {
      fs.renameSync(pgdata, target.restore.keepAs);
      keptOld = true;
    }
    const loadDataDir = target.restore?.backup ?? target.template;
    const pglite = await PGlite.create({
      ...(pgdata === null ? {} : { fs: new OwnerOnlyNodeFS(pgdata) }),
      ...(loadDataDir ? { loadDataDir } : {}),
      parsers: TYPE_PARSERS,
      extensions: PGLITE_EXTENSIONS,
    });
    const dialect = new PGliteDialect(pglite);
    const db = new Kysely<DB>({ dialect });
    return {
      db,
      engine: 'pglite',
      poolUse: () => dialect.use(),
      shared: false,
      citus: false,
      placedAtOpen: null,
      // One process, one connection: nothing can be missed.
      async listen(channel, handlers) {
        await pglite.listen(channel, (payload) => handlers.message(payload));
        handlers.ready();
      },
      // PGlite runs a statement to its end on this thread: there is nothing to cancel from outside it.
      async cancel() {},
      dump: () =>
        db.connection().execute(async (connection) => {
          await sql`checkpoint`.execute(connection);
          return pglite.dumpDataDir('gzip');
        }),
      async close() {
        await db.destroy();
        await pglite.close();
        lock?.release();
      },
    };
  } catch (error) {
    if (keptOld && pgdata !== null && target.restore) {
      fs.rmSync(pgdata, { recursive: true, force: true });
      fs.renameSync(target.restore.keepAs, pgdata);
    }
    lock?.release();
    if (target.dataDir === null) throw error;
    throw dataDirUnavailable(error, target.dataDir) ?? embeddedUnopenable(error, target.dataDir);
  }
}
