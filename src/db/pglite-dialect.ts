import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { EmbeddedAutovacuum } from './pglite-autovacuum.ts';

/**
 * Kysely dialect for the embedded PGlite database. PGlite is one PostgreSQL session, so the driver hands
 * out its single connection to one caller at a time: a transaction holds it from BEGIN to COMMIT, and
 * everything else waits in line, exactly like a pool of size one. Between two callers, it does autovacuum's
 * work, which PGlite has no worker for (pglite-autovacuum.ts).
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}

  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}

class PGliteDriver implements Driver {
  private queue: Promise<void> = Promise.resolve();
  private readonly connection: PGliteConnection;
  private release: (() => void) | null = null;
  private readonly autovacuum = new EmbeddedAutovacuum();
  private vacuuming: Promise<void> | null = null;
  private destroyed = false;

  constructor(pglite: PGlite) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.release = release;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = null;
    release?.();
    if (!this.vacuuming && !this.destroyed && this.autovacuum.due()) this.vacuuming = this.vacuum();
  }

  /** One autovacuum run, in line with every other caller; a run that fails is tried again later. */
  private async vacuum(): Promise<void> {
    try {
      const connection = await this.acquireConnection();
      try {
        await this.autovacuum.run(connection);
      } finally {
        await this.releaseConnection();
      }
    } catch {
      // Nothing depends on a run: the next one, an interval later, picks up what this one left.
    } finally {
      this.vacuuming = null;
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const parts = ['start transaction'];
    if (settings.isolationLevel) parts.push(`isolation level ${settings.isolationLevel}`);
    if (settings.accessMode) parts.push(settings.accessMode);
    await connection.executeQuery(CompiledQuery.raw(parts.join(' ')));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    this.destroyed = true;
    await this.vacuuming;
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Without parameters, use the simple protocol, as `pg` does: it accepts scripts of several
    // statements, which migrations rely on. The last statement's result is the answer.
    const result =
      compiled.parameters.length === 0
        ? (await this.pglite.exec(compiled.sql)).at(-1)
        : await this.pglite.query<R>(compiled.sql, [...compiled.parameters]);
    return {
      rows: (result?.rows ?? []) as R[],
      numAffectedRows: result?.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on the embedded database');
  }
}
