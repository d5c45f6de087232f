/** Token scopes (decisions.md §6). */
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
