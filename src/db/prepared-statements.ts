import { createHash } from 'node:crypto';
import type pg from 'pg';
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
 * Which statement texts of one session run under a name: a text the second time it is seen, until
 * MAX_NAMED texts have names.
 */
export class StatementNames {
  private readonly named = new Map<string, string>();
  private readonly seen = new Set<string>();

  /** The name to run this text under, or null to run it unnamed. */
  nameOf(text: string): string | null {
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

/** What node-postgres answers a `begin`: what Kysely reads of it (nothing). */
const BEGUN = { command: 'BEGIN', rowCount: null, rows: [], fields: [] };

/**
 * node-postgres parses a named statement once per connection, and again after a failed parse.
 *
 * A `begin` also waits for the statement after it: when that one has no parameters (ingestion's `set local`),
 * the two go as one simple query, one round trip instead of two, and the last one's result is the answer;
 * otherwise the `begin` goes first, as before. A `commit` or `rollback` right after it ends a transaction
 * that ran nothing: neither is sent.
 */
function nameRepeatedStatements(client: pg.PoolClient): void {
  namings.add(client);
  const names = new StatementNames();
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let beginWaits = false;
  const plain = (values: unknown) => values === undefined || (Array.isArray(values) && values.length === 0);
  const send = (text: unknown, values?: unknown, callback?: unknown) => {
    // Only the form Kysely uses for statements with parameters; everything else goes through as it is.
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return query(text, values, callback);
    const name = names.nameOf(text);
    return name === null ? query(text, values, callback) : query({ name, text, values }, callback);
  };
  (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    // Only promise calls with a text (Kysely's) are held. A callback or a query object (a cursor) is
    // answered by what query returns at once: the waiting begin is queued before it, as node-postgres
    // runs a client's queries in order; should it fail, the statement after it fails too, and says why.
    if (typeof text !== 'string' || callback !== undefined) {
      if (beginWaits) {
        beginWaits = false;
        query('begin').catch(() => undefined);
      }
      return send(text, values, callback);
    }
    if (text === 'begin' && plain(values) && !beginWaits) {
      beginWaits = true;
      return Promise.resolve(BEGUN);
    }
    if (!beginWaits) return send(text, values);
    beginWaits = false;
    if ((text === 'commit' || text === 'rollback') && plain(values)) return Promise.resolve({ ...BEGUN, command: text.toUpperCase() });
    if (plain(values)) return query(`begin;\n${text}`).then((results) => (Array.isArray(results) ? results.at(-1) : results));
    return query('begin').then(() => send(text, values));
  };
}
