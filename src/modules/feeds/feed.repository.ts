import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';
import type { Parent } from '../company-updates/index.ts';
import type { FeedKind } from './feed-formats.ts';

export interface FeedRow {
  id: number;
  organizationId: number | null;
  objectId: number | null;
  kind: FeedKind;
  url: string;
  intervalMinutes: number;
  etag: string | null;
  lastModified: string | null;
  lastFetchedAt: Date | null;
  lastStatus: string | null;
  failures: number;
  nextFetchAt: Date;
  createdAt: Date;
}

const columns = [
  'id',
  'organization_id as organizationId',
  'object_id as objectId',
  'kind',
  'url',
  'interval_minutes as intervalMinutes',
  'etag',
  'last_modified as lastModified',
  'last_fetched_at as lastFetchedAt',
  'last_status as lastStatus',
  'failures',
  'next_fetch_at as nextFetchAt',
  'created_at as createdAt',
] as const;

const toRow = (row: Record<string, unknown>) =>
  ({
    ...row,
    id: Number(row.id),
    organizationId: row.organizationId === null ? null : Number(row.organizationId),
    objectId: row.objectId === null ? null : Number(row.objectId),
  }) as FeedRow;

export async function insertFeed(
  trx: Transaction<DB>,
  feed: { communityId: number; parent: Parent; kind: FeedKind; url: string; intervalMinutes: number; now: Date },
): Promise<FeedRow> {
  const row = await trx
    .insertInto('feeds')
    .values({
      community_id: feed.communityId,
      organization_id: feed.parent.kind === 'organization' ? feed.parent.id : null,
      object_id: feed.parent.kind === 'object' ? feed.parent.id : null,
      kind: feed.kind,
      url: feed.url,
      interval_minutes: feed.intervalMinutes,
      next_fetch_at: feed.now,
      created_at: feed.now,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return toRow(row);
}

export async function listFeeds(db: Executor, communityId: number): Promise<FeedRow[]> {
  const rows = await db.selectFrom('feeds').select(columns).where('community_id', '=', communityId).orderBy('id').execute();
  return rows.map(toRow);
}

export async function findFeed(db: Executor, communityId: number, id: number, lock = false): Promise<FeedRow | undefined> {
  let query = db.selectFrom('feeds').select(columns).where('community_id', '=', communityId).where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toRow(row) : undefined;
}

/** Removes the feed; what it brought stays, no longer tied to it. */
export async function deleteFeed(trx: Transaction<DB>, communityId: number, id: number): Promise<boolean> {
  await sql`update job_openings set feed_id = null where community_id = ${communityId} and feed_id = ${id}`.execute(trx);
  await sql`update news_items set feed_id = null where community_id = ${communityId} and feed_id = ${id}`.execute(trx);
  const deleted = await trx.deleteFrom('feeds').where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/** What a fetch found out: the validators for the next conditional GET, its outcome, and when to fetch next. */
export async function recordFetch(
  trx: Transaction<DB>,
  communityId: number,
  id: number,
  outcome: { etag?: string | null; lastModified?: string | null; status: string; failed: boolean; at: Date; nextFetchAt?: Date },
): Promise<void> {
  await trx
    .updateTable('feeds')
    .set((eb) => ({
      ...(outcome.etag !== undefined ? { etag: outcome.etag } : {}),
      ...(outcome.lastModified !== undefined ? { last_modified: outcome.lastModified } : {}),
      last_fetched_at: outcome.at,
      last_status: outcome.status,
      failures: outcome.failed ? eb('failures', '+', 1) : 0,
      ...(outcome.nextFetchAt ? { next_fetch_at: outcome.nextFetchAt } : {}),
    }))
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}
