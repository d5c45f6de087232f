import { sql, type Kysely } from 'kysely';
import type { Role } from '../../core/scopes.ts';
import type { DB } from '../../db/schema.ts';

export type { Role };

export interface AppUserRow {
  communityId: number;
  id: number;
  name: string;
  loginEmail: string;
  role: Role;
  hasPassword: boolean;
  createdAt: Date;
}

const userColumns = ['u.community_id as communityId', 'u.id', 'u.name', 'u.login_email as loginEmail', 'u.role', 'u.created_at as createdAt'] as const;

function present(row: {
  communityId: number;
  id: number;
  name: string;
  loginEmail: string;
  role: string;
  createdAt: Date;
  passwordHash: string | null;
}): AppUserRow {
  return {
    communityId: row.communityId,
    id: row.id,
    name: row.name,
    loginEmail: row.loginEmail,
    role: row.role as Role,
    hasPassword: row.passwordHash !== null,
    createdAt: row.createdAt,
  };
}

/**
 * The users signing in with this address: of one community, or of every community when the sign-in names
 * none. That is the one read of this module not scoped by a community: before sign-in no community is
 * known, and the password then decides which of the (usually one) matches it is.
 */
export async function usersByLoginEmail(db: Kysely<DB>, email: string, communityId: number | null) {
  let query = db
    .selectFrom('app_users as u')
    .select([...userColumns, 'u.password_hash as passwordHash'])
    .where(sql<boolean>`lower(u.login_email) = lower(${email})`);
  if (communityId !== null) query = query.where('u.community_id', '=', communityId);
  return query.orderBy('u.community_id').limit(20).execute();
}

export async function findUser(db: Kysely<DB>, communityId: number, id: number) {
  const row = await db
    .selectFrom('app_users as u')
    .select([...userColumns, 'u.password_hash as passwordHash'])
    .where('u.community_id', '=', communityId)
    .where('u.id', '=', id)
    .executeTakeFirst();
  return row ? { ...present(row), passwordHash: row.passwordHash } : undefined;
}

export async function listUsers(db: Kysely<DB>, communityId: number): Promise<AppUserRow[]> {
  const rows = await db
    .selectFrom('app_users as u')
    .select([...userColumns, 'u.password_hash as passwordHash'])
    .where('u.community_id', '=', communityId)
    .orderBy('u.id')
    .execute();
  return rows.map(present);
}

export async function countAdmins(db: Kysely<DB>, communityId: number): Promise<number> {
  const row = await db
    .selectFrom('app_users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('community_id', '=', communityId)
    .where('role', '=', 'admin')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function setPassword(db: Kysely<DB>, communityId: number, userId: number, hash: string, now: Date) {
  await db
    .updateTable('app_users')
    .set({ password_hash: hash, password_changed_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', userId)
    .execute();
}

export async function updateUser(db: Kysely<DB>, communityId: number, userId: number, changes: { name?: string; role?: Role }) {
  await db.updateTable('app_users').set(changes).where('community_id', '=', communityId).where('id', '=', userId).execute();
}

export async function deleteUser(db: Kysely<DB>, communityId: number, userId: number) {
  await db.deleteFrom('app_users').where('community_id', '=', communityId).where('id', '=', userId).execute();
}

export async function insertSession(
  db: Kysely<DB>,
  session: { communityId: number; userId: number; secretHash: string; via: 'password' | 'link'; expiresAt: Date; now: Date },
): Promise<number> {
  const row = await db
    .insertInto('app_sessions')
    .values({
      community_id: session.communityId,
      user_id: session.userId,
      secret_hash: session.secretHash,
      via: session.via,
      created_at: session.now,
      expires_at: session.expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A live session with its user and community, by the hash of its secret. */
export function findSession(db: Kysely<DB>, communityId: number, secretHash: string, now: Date) {
  return db
    .selectFrom('app_sessions as s')
    .innerJoin('app_users as u', (join) => join.onRef('u.community_id', '=', 's.community_id').onRef('u.id', '=', 's.user_id'))
    .innerJoin('communities as c', 'c.id', 's.community_id')
    .select(['s.id', 's.via', 's.expires_at as expiresAt', 'u.id as userId', 'u.name', 'u.login_email as loginEmail', 'u.role', 'c.name as communityName'])
    .where('s.community_id', '=', communityId)
    .where('s.secret_hash', '=', secretHash)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteSession(db: Kysely<DB>, communityId: number, secretHash: string) {
  return db.deleteFrom('app_sessions').where('community_id', '=', communityId).where('secret_hash', '=', secretHash).returning('id').executeTakeFirst();
}

/** Ends a user's sessions (but `keep`, the one changing its password), and any that expired. */
export async function deleteUserSessions(db: Kysely<DB>, communityId: number, userId: number, keep: number | null, now: Date) {
  let query = db
    .deleteFrom('app_sessions')
    .where('community_id', '=', communityId)
    .where((eb) => eb.or([eb('user_id', '=', userId), eb('expires_at', '<=', now)]));
  if (keep !== null) query = query.where('id', '!=', keep);
  await query.execute();
}

export async function insertLink(db: Kysely<DB>, link: { communityId: number; userId: number; secretHash: string; expiresAt: Date; now: Date }) {
  await db
    .insertInto('app_sign_in_links')
    .values({ community_id: link.communityId, user_id: link.userId, secret_hash: link.secretHash, created_at: link.now, expires_at: link.expiresAt })
    .execute();
}

/** The user a link was made for, whatever its state: the caller locks that user before using the link. */
export async function linkUser(db: Kysely<DB>, communityId: number, secretHash: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('app_sign_in_links')
    .select('user_id as userId')
    .where('community_id', '=', communityId)
    .where('secret_hash', '=', secretHash)
    .executeTakeFirst();
  return row?.userId;
}

/**
 * Locks a user's row until the transaction ends, so that the issue and the use of their links are taken
 * one at a time: two of them at once would otherwise each lock one link and wait for the other's.
 */
export async function lockUser(db: Kysely<DB>, communityId: number, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('app_users')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', '=', userId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes a user's links not used yet (live or expired): a newer link, or one used, replaces them. */
export async function voidLinks(db: Kysely<DB>, communityId: number, userId: number) {
  await db.deleteFrom('app_sign_in_links').where('community_id', '=', communityId).where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

/** Marks a live link used and answers its user; a used, expired, voided or unknown link answers nothing. */
export async function useLink(db: Kysely<DB>, communityId: number, secretHash: string, now: Date) {
  return db
    .updateTable('app_sign_in_links')
    .set({ used_at: now })
    .where('community_id', '=', communityId)
    .where('secret_hash', '=', secretHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id as userId')
    .executeTakeFirst();
}

/**
 * A link's session that sets a password is held to it from then on, as a password's session is. Answers
 * whether this call did it: of two changes made at once by the session, only one may go without the password.
 */
export async function markSessionPasswordKnown(db: Kysely<DB>, communityId: number, sessionId: number): Promise<boolean> {
  const row = await db
    .updateTable('app_sessions')
    .set({ via: 'password' })
    .where('community_id', '=', communityId)
    .where('id', '=', sessionId)
    .where('via', '=', 'link')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
