import { grants, type Scope } from '../core/scopes.ts';

/** What a route needs: a valid token with all of `all`, or with at least one of `any`. */
export type RouteAuth = 'public' | { all: Scope[] } | { any: Scope[] };

export function satisfies(held: readonly string[], auth: Exclude<RouteAuth, 'public'>): boolean {
  return 'all' in auth ? auth.all.every((scope) => grants(held, scope)) : auth.any.some((scope) => grants(held, scope));
}

export function describeAuth(auth: Exclude<RouteAuth, 'public'>): string {
  if ('all' in auth) return auth.all.length ? `scopes: ${auth.all.join(', ')}` : 'any valid token';
  return `one of the scopes: ${auth.any.join(', ')}`;
}
