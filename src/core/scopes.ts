/** Token scopes (docs/behaviour.md, Scopes). */
export const SCOPES = [
  'contacts:read',
  'contacts:write',
  'organizations:read',
  'organizations:write',
  'activities:read',
  'segments:read',
  'segments:write',
  'objects:read',
  'objects:write',
  'prospector:read',
  'sources:write',
  'tags:write',
  'privacy:write',
  'read',
  'write',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Scopes a token gets when none are named. */
export const DEFAULT_SCOPES: Scope[] = ['read', 'write'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** `read` encompasses every `:read` scope; `write` every `:write` scope (the core writes included). */
export function grants(held: readonly string[], needed: Scope): boolean {
  if (held.includes(needed)) return true;
  if (needed.endsWith(':read')) return held.includes('read');
  if (needed.endsWith(':write')) return held.includes('write');
  return false;
}

/** The roles of console users. */
export type Role = 'admin' | 'member';

/** What a console user's role grants: members read and write data, admins also manage tokens, users and sources. */
export const ROLE_SCOPES: Record<Role, Scope[]> = {
  admin: ['read', 'write', 'admin'],
  member: ['read', 'write'],
};

/**
 * The part of `scopes` that `role` grants, by the same rule the guard applies (`grants`): a member's role
 * keeps `read`, `write` and every `:read` and `:write` scope, and drops `admin`.
 */
export function withinRole(scopes: readonly string[], role: Role): string[] {
  return scopes.filter((scope) => isScope(scope) && grants(ROLE_SCOPES[role], scope));
}
