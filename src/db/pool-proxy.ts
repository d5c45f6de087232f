import type pg from 'pg';

/**
 * The pool as Kysely sees it, with its own `connect`: a layer that does something with each client it
 * lends (request-scope.ts, prepared-statements.ts). Everything else is the pool's own.
 */
export function withConnect(pool: pg.Pool, connect: () => Promise<pg.PoolClient>): pg.Pool {
  return new Proxy(pool, {
    get(target, property, receiver) {
      if (property === 'connect') return connect;
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
