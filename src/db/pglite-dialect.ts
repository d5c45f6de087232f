import { parse, protocol, type PGlite } from '@electric-sql/pglite';
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
import { StatementNames } from './prepared-statements.ts';

/**
 * Kysely dialect for the embedded PGlite database. PGlite is one PostgreSQL session, so the driver hands
 * out its single connection to one caller at a time: a transaction holds it from BEGIN to COMMIT, and
 * everything else waits in line, exactly like a pool of size one. Between two callers, it does autovacuum's
 * work, which PGlite has no worker for (pglite-autovacuum.ts).
 */
export class PGliteDialect implements Dialect {
  private driver: PGliteDriver | null = null;

  constructor(private readonly pglite: PGlite) {}

  createDriver(): Driver {
    this.driver = new PGliteDriver(this.pglite);
    return this.driver;
  }

  /** The one session as a pool of one: whether a caller holds it, and how many wait for it. */
  use(): { max: number; total: number; idle: number; waiting: number } {
    const held = this.driver?.held ?? false;
    return { max: 1, total: 1, idle: held ? 0 : 1, waiting: this.driver?.waiting ?? 0 };
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
  /** Callers waiting for the session, and whether one holds it (the metrics read them). */
  waiting = 0;
  held = false;

  constructor(pglite: PGlite) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    this.waiting += 1;
    await previous;
    this.waiting -= 1;
    this.held = true;
    this.release = release;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = null;
    this.held = false;
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
  private readonly names = new StatementNames();
  /** Named statements the session has parsed. */
  private readonly parsed = new Set<string>();

  constructor(private readonly pglite: PGlite) {}

  /**
   * One call into the database per statement. PGlite's own `query` makes six (parse, describe the
   * statement to learn its parameters' types, bind, describe, execute, sync), each a trip through its
   * mutexes and the WebAssembly boundary, which cost more than a small statement's own work. Here the
   * extended-protocol messages go in one batch, with parameters as text for the server to read by the
   * types it infers, as node-postgres sends them on PostgreSQL.
   */
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Without parameters, use the simple protocol, as `pg` does: it accepts scripts of several
    // statements, which migrations rely on. The last statement's result is the answer.
    // A repeated text runs as a named statement (prepared-statements.ts), parsed the first time; until a
    // run has shown the parse done, a Close first (not an error when there is no such statement) lets a
    // parse that succeeded before a failed execution be made again.
    const name = compiled.parameters.length === 0 ? null : this.names.nameOf(compiled.sql);
    const parsing =
      name === null
        ? [protocol.serialize.parse({ text: compiled.sql })]
        : this.parsed.has(name)
          ? []
          : [protocol.serialize.close({ type: 'S', name }), protocol.serialize.parse({ name, text: compiled.sql })];
    const message =
      compiled.parameters.length === 0
        ? protocol.serialize.query(compiled.sql)
        : batch([
            ...parsing,
            protocol.serialize.bind({ statement: name ?? '', values: compiled.parameters.map(toParameter) }),
            protocol.serialize.describe({ type: 'P' }),
            protocol.serialize.execute({}),
            protocol.serialize.sync(),
          ]);
    // Throws the statement's error, once the batch has run to its end (Sync) and the session is ready again.
    const { messages } = await this.pglite.execProtocol(message, { syncToFs: false });
    if (name !== null) this.parsed.add(name);
    await this.pglite.syncToFs();
    const result = parse.parseResults(messages, this.pglite.parsers).at(-1);
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

function batch(messages: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(messages.reduce((length, message) => length + message.length, 0));
  let offset = 0;
  for (const message of messages) {
    bytes.set(message, offset);
    offset += message.length;
  }
  return bytes;
}

/**
 * A parameter's text form, as node-postgres makes it (`prepareValue`): arrays as array literals, plain
 * objects as JSON, dates as ISO 8601 in UTC (PGlite's form: the same instant as node-postgres's local time).
 */
export function toParameter(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (Array.isArray(value)) return arrayLiteral(value);
  return JSON.stringify(value);
}

function arrayLiteral(items: readonly unknown[]): string {
  const elements = items.map((item) => {
    if (item === null || item === undefined) return 'NULL';
    if (Array.isArray(item)) return arrayLiteral(item);
    return `"${toParameter(item)!.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${elements.join(',')}}`;
}
