import type { Transaction } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import { announceChange } from '../../core/listened-cache.ts';
import type { DB } from '../../db/schema.ts';

/** Every process keeps the keys it read until it hears of a change on this channel (core/listened-cache.ts). */
export const TRACKER_CHANGES = 'hearth_trackers_changed';

export interface TrackerRow {
  id: number;
  sourceId: number;
  publicKey: string;
  allowedOrigins: string[];
  allowUnverifiedIdentify: boolean;
  /** Signs identify calls (an HMAC key): read to verify them, never shown again after it is made. */
  identifySecret: string | null;
  identifySecretCreatedAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
}

const columns = [
  'id',
  'source_id as sourceId',
  'public_key as publicKey',
  'allowed_origins as allowedOrigins',
  'allow_unverified_identify as allowUnverifiedIdentify',
  'identify_secret as identifySecret',
  'identify_secret_created_at as identifySecretCreatedAt',
  'created_at as createdAt',
  'revoked_at as revokedAt',
] as const;

/** The source's live tracker, if it has one. */
export async function liveTracker(db: Executor, communityId: number, sourceId: number): Promise<TrackerRow | undefined> {
  return db
    .selectFrom('website_trackers')
    .select(columns)
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** The community's live trackers, by source. */
export async function liveTrackers(db: Executor, communityId: number): Promise<TrackerRow[]> {
  return db
    .selectFrom('website_trackers')
    .select(columns)
    .where('community_id', '=', communityId)
    .where('revoked_at', 'is', null)
    .orderBy('source_id')
    .execute();
}

/** The tracker of a key, live or revoked. */
export async function trackerByKey(db: Executor, communityId: number, publicKey: string): Promise<TrackerRow | undefined> {
  return db.selectFrom('website_trackers').select(columns).where('community_id', '=', communityId).where('public_key', '=', publicKey).executeTakeFirst();
}

export async function insertTracker(
  db: Executor,
  communityId: number,
  tracker: { sourceId: number; publicKey: string; allowedOrigins: string[]; allowUnverifiedIdentify: boolean; identifySecret: string },
  now: Date,
): Promise<TrackerRow> {
  return db
    .insertInto('website_trackers')
    .values({
      community_id: communityId,
      source_id: tracker.sourceId,
      public_key: tracker.publicKey,
      allowed_origins: tracker.allowedOrigins,
      allow_unverified_identify: tracker.allowUnverifiedIdentify,
      identify_secret: tracker.identifySecret,
      identify_secret_created_at: now,
      created_at: now,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
}

/** In the caller's transaction, so that other processes hear of the change when it commits; so are the two below. */
export async function updateSettings(
  db: Transaction<DB>,
  communityId: number,
  id: number,
  settings: { allowedOrigins?: string[]; allowUnverifiedIdentify?: boolean },
): Promise<TrackerRow> {
  const row = await db
    .updateTable('website_trackers')
    .set({
      ...(settings.allowedOrigins === undefined ? {} : { allowed_origins: settings.allowedOrigins }),
      ...(settings.allowUnverifiedIdentify === undefined ? {} : { allow_unverified_identify: settings.allowUnverifiedIdentify }),
    })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirstOrThrow();
  await announceChange(db, TRACKER_CHANGES, row.publicKey);
  return row;
}

export async function setIdentifySecret(db: Transaction<DB>, communityId: number, id: number, secret: string, now: Date): Promise<TrackerRow> {
  const row = await db
    .updateTable('website_trackers')
    .set({ identify_secret: secret, identify_secret_created_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirstOrThrow();
  await announceChange(db, TRACKER_CHANGES, row.publicKey);
  return row;
}

export async function revokeTracker(db: Transaction<DB>, communityId: number, id: number, now: Date): Promise<void> {
  const row = await db
    .updateTable('website_trackers')
    .set({ revoked_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .returning('public_key as publicKey')
    .executeTakeFirst();
  if (row) await announceChange(db, TRACKER_CHANGES, row.publicKey);
}
