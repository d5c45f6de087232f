import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** One process's backlog of one community, as it reported it. */
export interface ReportedBacklog {
  communityId: number;
  queuedPushes: number;
  oldestQueuedAt: Date | null;
  storedLastMinute: number;
  batchesLastMinute: number;
}

/** Replaces what this process reported before with `rows` (communities it no longer has work of are dropped). */
export async function replaceReport(db: Kysely<DB>, processId: string, rows: ReportedBacklog[], at: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('ingestion_backlog').where('process_id', '=', processId).execute();
    if (rows.length === 0) return;
    await trx
      .insertInto('ingestion_backlog')
      .values(
        rows.map((row) => ({
          process_id: processId,
          community_id: row.communityId,
          queued_pushes: row.queuedPushes,
          oldest_queued_at: row.oldestQueuedAt,
          stored_last_minute: row.storedLastMinute,
          batches_last_minute: row.batchesLastMinute,
          reported_at: at,
        })),
      )
      .execute();
  });
}

/** What other processes reported at or after `since`, for one community or for every one. */
export async function reportsOfOthers(db: Kysely<DB>, processId: string, since: Date, communityId?: number): Promise<ReportedBacklog[]> {
  let query = db
    .selectFrom('ingestion_backlog')
    .select(['community_id', 'queued_pushes', 'oldest_queued_at', 'stored_last_minute', 'batches_last_minute'])
    .where('process_id', '<>', processId)
    .where('reported_at', '>=', since);
  if (communityId !== undefined) query = query.where('community_id', '=', communityId);
  const rows = await query.orderBy('community_id').execute();
  return rows.map((row) => ({
    communityId: Number(row.community_id),
    queuedPushes: row.queued_pushes,
    oldestQueuedAt: row.oldest_queued_at,
    storedLastMinute: row.stored_last_minute,
    batchesLastMinute: row.batches_last_minute,
  }));
}
