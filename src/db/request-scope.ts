import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import { withConnect } from './pool-proxy.ts';

/**
 * What the database knows of the HTTP request it works for: the statement timeout its statements run
 * under, and the server processes (PostgreSQL backend PIDs) running them now, so that a request whose
 * client has gone away can have its statements cancelled. Work outside a request (jobs, the CLI,
 * migrations) runs without a scope, and so without a timeout.
 */
export interface RequestScope {
  statementTimeoutMs: number;
  backends: Set<number>;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (and everything it starts) as part of one request. */
export function runInRequestScope(statementTimeoutMs: number, work: () => void): RequestScope {
  const scope: RequestScope = { statementTimeoutMs, backends: new Set() };
  scopes.run(scope, work);
  return scope;
}

/** Runs `work` outside any request, e.g. a cancellation that must not be cancelled itself. */
export function outsideRequestScope<T>(work: () => T): T {
  return scopes.exit(work);
}

/**
 * The pool Kysely uses, with each checked-out connection set to the statement timeout of the scope that
 * takes it (none outside a request). A connection keeps its setting between uses, so it is sent only when
 * it changes: a pool serving only requests sends it once per connection.
 */
export function scopedPool(pool: pg.Pool): pg.Pool {
  const settings = new WeakMap<pg.PoolClient, number>();
  const connect = async () => {
    const scope = scopes.getStore();
    const client = await pool.connect();
    const timeout = scope?.statementTimeoutMs ?? 0;
    try {
      if ((settings.get(client) ?? 0) !== timeout) {
        await client.query(`set statement_timeout = ${Math.trunc(timeout)}`);
        settings.set(client, timeout);
      }
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    const pid = (client as pg.PoolClient & { processID?: number }).processID;
    if (scope && typeof pid === 'number') {
      scope.backends.add(pid);
      const release = client.release.bind(client);
      client.release = (error?: Error | boolean) => {
        scope.backends.delete(pid);
        client.release = release;
        return release(error);
      };
    }
    return client;
  };
  return withConnect(pool, connect);
}
