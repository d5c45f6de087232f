import { createHash } from 'node:crypto';
import pg from 'pg';
import { withConnect } from './pool-proxy.ts';

/**
 * Named prepared statements, on PostgreSQL and the embedded database. An unnamed statement is parsed and
 * planned again each time it runs; for Hearth's statements (long texts, CTEs over arrays) that was a large
 * share of their cost (an ingestion transaction spent about as long binding, which plans, as executing).
 * A statement text a session runs a second time is sent as a named statement from then on: parsed once
 * per session, and planned as PostgreSQL decides for prepared statements (custom plans first, a cached
 * generic plan once it is no worse; ANALYZE and schema changes invalidate it).
 *
 * Texts that vary with their input (an `in (...)` list per count of values) would make many names, so a
 * session names at most MAX_NAMED texts (the hot ones come first, as they repeat soonest) and runs the
 * rest unnamed, as before.
 */
export const MAX_NAMED = 256;
/** Texts remembered as seen once, per session, before the memory starts over. */
const MAX_SEEN = 4_096;

/**
 * Starts a statement planned anew for its own values every time it runs: it is never named, so it never runs on
 * a cached generic plan. For reads whose best plan depends on how many rows a value selects (a period of 7 days
 * or of a year), where a plan made without the values can be far off (a probe that reads one index entry on
 * its custom plan read every row of the table on its generic one), and planning costs little against the read.
 */
export const PLANNED_EACH_TIME_MARK = '/* planned each time */ ';

/**
 * Which statement texts of one session run under a name: a text the second time it is seen, until
 * MAX_NAMED texts have names.
 */
export class StatementNames {
  private readonly named = new Map<string, string>();
  private readonly seen = new Set<string>();

  /** The name to run this text under, or null to run it unnamed. */
  nameOf(text: string): string | null {
    if (text.startsWith(PLANNED_EACH_TIME_MARK)) return null;
    const known = this.named.get(text);
    if (known !== undefined) return known;
    if (this.named.size >= MAX_NAMED) return null;
    if (!this.seen.has(text)) {
      if (this.seen.size >= MAX_SEEN) this.seen.clear();
      this.seen.add(text);
      return null;
    }
    this.seen.delete(text);
    const name = `hearth_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    this.named.set(text, name);
    return name;
  }
}

const namings = new WeakSet<pg.PoolClient>();

/** The pool, its clients sending repeated statement texts as named prepared statements. */
export function preparingPool(pool: pg.Pool): pg.Pool {
  const connect = async () => {
    const client = await pool.connect();
    if (!namings.has(client)) nameRepeatedStatements(client);
    return client;
  };
  return withConnect(pool, connect);
}

/** What node-postgres answers a statement run for its effect alone: what Kysely reads of it (nothing). */
const done = (command: string) => ({ command, rowCount: null, rows: [], fields: [] });

/** The answer of one statement of several sent together (node-postgres answers an array for several). */
const answerAt = (results: unknown, index: number) => (Array.isArray(results) ? results[index] : results);

/**
 * Starts a transaction's last statement: sent with `commit` right behind it, in the same round trip (see
 * nameRepeatedStatements). A comment, so the statement means the same where nothing reads the mark: the
 * embedded database's driver runs it, and then Kysely's `commit`, as they are.
 */
export const LAST_STATEMENT_MARK = '/* last statement, then commit */ ';

/** node-postgres's connection, as far as a query writes to it. */
interface ProtocolWriter {
  parse(message: { text: string; name: string; types: number[] }): void;
  bind(message: object): void;
  execute(message: object): void;
}

/**
 * A statement with parameters, with statements that take none written in front of it and behind it, in the
 * same write and the same extended-protocol block (one Sync): the server runs them in order and answers
 * once, and if one fails, it runs none of those after it. The answer is the statement's.
 */
class BlockQuery extends pg.Query {
  constructor(
    private readonly prefix: string[],
    config: pg.QueryConfig,
    private readonly suffix: string[],
    callback: (error: Error | undefined, result: unknown) => void,
  ) {
    super(config, undefined, (error: Error | undefined, result: unknown) => callback(error, answerAt(result, prefix.length)));
  }

  private static writeAll(connection: ProtocolWriter, texts: string[]): void {
    for (const text of texts) {
      connection.parse({ text, name: '', types: [] });
      connection.bind({});
      connection.execute({});
    }
  }

  // node-postgres writes a statement with parameters here (Parse, Bind, Describe, then _getRows), between
  // corking and uncorking its socket.
  prepare(connection: ProtocolWriter): void {
    BlockQuery.writeAll(connection, this.prefix);
    (pg.Query.prototype as unknown as { prepare(connection: ProtocolWriter): void }).prepare.call(this, connection);
  }

  // Execute and Sync, when the statement's values were bound (a failed bind syncs without coming here, so
  // nothing behind the statement runs). Rows asked for in pages (a cursor) never come here with a suffix.
  _getRows(connection: ProtocolWriter & { sync(): void }, rows: number | undefined): void {
    if (rows || this.suffix.length === 0) {
      (pg.Query.prototype as unknown as { _getRows(connection: ProtocolWriter, rows: number | undefined): void })._getRows.call(this, connection, rows);
      return;
    }
    connection.execute({ portal: (this as unknown as { portal?: string }).portal, rows });
    BlockQuery.writeAll(connection, this.suffix);
    connection.sync();
  }
}

/**
 * node-postgres parses a named statement once per connection, and again after a failed parse.
 *
 * A transaction's `begin`, and the `set local` statements right after it (ingestion's plan setting), are not
 * sent on their own: they are answered at once (their answers hold nothing) and go in front of the next
 * statement, in the same round trip. A statement that starts with LAST_STATEMENT_MARK, in a transaction,
 * goes with `commit` behind it, in the same round trip, and Kysely's `commit` that follows is answered at
 * once. With parameters, the statement and those around it go in one extended-protocol block (BlockQuery);
 * without, they all go as one simple query. Either way, when one of them fails the server runs nothing
 * after it (a failed last statement leaves its transaction open and failed, for Kysely's `rollback`), and
 * the statement's caller gets the error, the commit's included. A `commit` or `rollback` while statements
 * wait ends a transaction that ran nothing: none of them is sent. A transaction of one read and one write
 * then costs two round trips, where `begin`, the read, the write and `commit` took four.
 */
function nameRepeatedStatements(client: pg.PoolClient): void {
  namings.add(client);
  const names = new StatementNames();
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const waiting: string[] = [];
  /** Between a `begin` and its `commit` or `rollback`. */
  let inTransaction = false;
  /** The transaction's last statement and its commit were answered: only Kysely's `commit` may follow. */
  let committed = false;
  const plain = (values: unknown) => values === undefined || (Array.isArray(values) && values.length === 0);
  const configOf = (text: string, values: unknown[]): pg.QueryConfig => {
    const name = names.nameOf(text);
    return name === null ? { text, values } : { name, text, values };
  };
  const send = (text: unknown, values?: unknown, callback?: unknown) => {
    // Only the form Kysely uses for statements with parameters; everything else goes through as it is.
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return query(text, values, callback);
    return query(configOf(text, values), callback);
  };
  (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    if (committed) {
      committed = false;
      inTransaction = false;
      if (text === 'commit' && plain(values) && callback === undefined) return Promise.resolve(done('COMMIT'));
      // The transaction is over: whatever its caller sends now would run outside it.
      return Promise.reject(new Error(`a statement after a transaction's last statement, which committed it: ${String(text).slice(0, 100)}`));
    }
    if (text === 'begin') inTransaction = true;
    else if (text === 'commit' || text === 'rollback') inTransaction = false;
    // Only promise calls with a text (Kysely's) are held. A callback or a query object (a cursor) is
    // answered by what query returns at once: what waits is queued before it, as node-postgres runs a
    // client's queries in order; should it fail, the statement after it fails too, and says why.
    if (typeof text !== 'string' || callback !== undefined) {
      if (waiting.length) query(waiting.splice(0).join(';\n')).catch(() => undefined);
      return send(text, values, callback);
    }
    if (plain(values) && (waiting.length === 0 ? text === 'begin' : /^set local /i.test(text))) {
      waiting.push(text);
      return Promise.resolve(done(text === 'begin' ? 'BEGIN' : 'SET'));
    }
    const prefix = waiting.splice(0);
    if (prefix.length && (text === 'commit' || text === 'rollback') && plain(values)) return Promise.resolve(done(text.toUpperCase()));
    const last = inTransaction && text.startsWith(LAST_STATEMENT_MARK);
    const suffix = last ? ['commit'] : [];
    if (prefix.length + suffix.length === 0) return send(text, values);
    const answered = plain(values)
      ? query([...prefix, text, ...suffix].join(';\n')).then((results) => answerAt(results, prefix.length))
      : new Promise((resolve, reject) => {
          void query(new BlockQuery(prefix, configOf(text, values as unknown[]), suffix, (error, result) => (error ? reject(error) : resolve(result))));
        });
    return last
      ? answered.then((result) => {
          committed = true;
          return result;
        })
      : answered;
  };
}
