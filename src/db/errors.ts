/**
 * A Citus coordinator relays a worker's error raised while it copies the rows of an `INSERT … SELECT` into
 * a shard with its message but without its code (as XX000, internal error). The classes the services act
 * on are recognised there by PostgreSQL's message (docs/scaling.md, "What Hearth does differently on a coordinator").
 */
const RELAYED_WITHOUT_CODE: [fragment: string, code: string][] = [
  ['duplicate key value violates unique constraint', '23505'],
  ['violates foreign key constraint', '23503'],
  ['deadlock detected', '40P01'],
  ['could not serialize access', '40001'],
];

/** The SQLSTATE of a database error (both engines report it as `code`), or undefined for any other error. */
export function sqlState(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  if (code === 'XX000' && typeof message === 'string') {
    const relayed = RELAYED_WITHOUT_CODE.find(([fragment]) => message.includes(fragment));
    if (relayed) return relayed[1];
  }
  return code;
}

/** PostgreSQL error classes that the services turn into answers. */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === '23505';
}

export function isForeignKeyViolation(error: unknown): boolean {
  return sqlState(error) === '23503';
}
