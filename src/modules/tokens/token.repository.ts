import type { Kysely, Transaction } from 'kysely';
import { announceChange } from '../../core/listened-cache.ts';
import type { DB } from '../../db/schema.ts';

export interface TokenRow {
  communityId: number;
  jti: string;
  name: string;
  scopes: string[];
  appUserId: number | null;
  heldToRole: boolean;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

const columns = [
  'community_id as communityId',
  'jti',
  'name',
  'scopes',
  'app_user_id as appUserId',
  'held_to_role as heldToRole',
  'created_at as createdAt',
  'expires_at as expiresAt',
  'revoked_at as revokedAt',
] as const;

export async function insertToken(
  db: Kysely<DB>,
  token: { communityId: number; jti: string; name: string; scopes: string[]; appUserId: number | null; heldToRole: boolean; expiresAt: Date | null },
): Promise<void> {
  await db
    .insertInto('api_tokens')
    .values({
      community_id: token.communityId,
      jti: token.jti,
      name: token.name,
      scopes: token.scopes,
      app_user_id: token.appUserId,
      held_to_role: token.heldToRole,
      expires_at: token.expiresAt,
    })
    .execute();
}

/** The token with its community's name and its user's login: what every authenticated request needs, in one lookup. */
export async function findActiveToken(db: Kysely<DB>, communityId: number, jti: string) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('communities as c', 'c.id', 't.community_id')
    .leftJoin('app_users as u', (join) => join.onRef('u.community_id', '=', 't.community_id').onRef('u.id', '=', 't.app_user_id'))
    .select([
      't.name',
      't.scopes',
      't.app_user_id as appUserId',
      't.held_to_role as heldToRole',
      'u.login_email as userEmail',
      'u.role as userRole',
      't.revoked_at as revokedAt',
      't.expires_at as expiresAt',
      'c.name as communityName',
    ])
    .where('t.community_id', '=', communityId)
    .where('t.jti', '=', jti)
    .executeTakeFirst();
}

export async function listTokens(db: Kysely<DB>, communityId: number | null): Promise<TokenRow[]> {
  let query = db.selectFrom('api_tokens').select(columns).orderBy('community_id').orderBy('created_at');
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  return query.execute();
}

/** Every process keeps the token rows it read until it hears of a change on this channel (core/listened-cache.ts). */
export const TOKEN_CHANGES = 'hearth_tokens_changed';

/** Revokes the token; in the caller's transaction, so that other processes hear of it when it commits. */
export async function revokeToken(db: Transaction<DB>, jti: string, communityId: number, now: Date): Promise<TokenRow | undefined> {
  const row = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('community_id', '=', communityId)
    .where('jti', '=', jti)
    .where('revoked_at', 'is', null)
    .returning(columns)
    .executeTakeFirst();
  if (row) await announceChange(db, TOKEN_CHANGES, jti);
  return row;
}

/** The live tokens held to a user's role, locked until the caller's transaction ends. */
export async function liveTokensHeldTo(db: Kysely<DB>, communityId: number, userId: number): Promise<TokenRow[]> {
  return db
    .selectFrom('api_tokens')
    .select(columns)
    .where('community_id', '=', communityId)
    .where('app_user_id', '=', userId)
    .where('held_to_role', '=', true)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .forUpdate()
    .execute();
}

export async function setScopes(db: Transaction<DB>, communityId: number, jti: string, scopes: string[]): Promise<void> {
  await db.updateTable('api_tokens').set({ scopes }).where('community_id', '=', communityId).where('jti', '=', jti).execute();
  await announceChange(db, TOKEN_CHANGES, jti);
}

export async function findToken(db: Kysely<DB>, jti: string, communityId: number | null): Promise<TokenRow | undefined> {
  let query = db.selectFrom('api_tokens').select(columns).where('jti', '=', jti);
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  return query.executeTakeFirst();
}

/** The instance's signing secret: created once by whichever process gets there first, then shared. */
export async function loadOrCreateSigningSecret(db: Kysely<DB>, candidate: string): Promise<string> {
  await db
    .insertInto('signing_keys')
    .values({ id: 1, secret: candidate })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const row = await db.selectFrom('signing_keys').select('secret').where('id', '=', 1).executeTakeFirstOrThrow();
  return row.secret;
}
