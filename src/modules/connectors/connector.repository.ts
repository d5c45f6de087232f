import { sql } from 'kysely';
import type { JsonValue } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';

export type ConnectorState = 'active' | 'backfilling' | 'waiting' | 'paused' | 'failed';

export interface ConnectorRow {
  communityId: number;
  sourceId: number;
  kind: string;
  name: string;
  receiverKey: string;
  settings: JsonValue;
  secrets: string | null;
  secretNames: string[];
  state: ConnectorState;
  reason: string | null;
  waitingUntil: Date | null;
  lastEventAt: Date | null;
  lastSyncAt: Date | null;
  nextSyncAt: Date | null;
  createdAt: Date;
}

export interface StreamRow {
  stream: string;
  checkpoint: JsonValue | null;
  done: boolean;
  records: number;
  total: number | null;
  updatedAt: Date;
}

const selectConnectors = (db: Executor) =>
  db
    .selectFrom('connectors as k')
    .innerJoin('sources as s', (join) => join.onRef('s.community_id', '=', 'k.community_id').onRef('s.id', '=', 'k.source_id'))
    .select([
      'k.community_id as communityId', 'k.source_id as sourceId', 'k.kind', 's.name', 'k.receiver_key as receiverKey', 'k.settings', 'k.secrets',
      'k.secret_names as secretNames', 'k.state', 'k.reason', 'k.waiting_until as waitingUntil', 'k.last_event_at as lastEventAt',
      'k.last_sync_at as lastSyncAt', 'k.next_sync_at as nextSyncAt', 'k.created_at as createdAt',
    ]);

const toRow = (row: Record<string, unknown>) => row as unknown as ConnectorRow;

export async function insertConnector(
  db: Executor,
  row: { communityId: number; sourceId: number; kind: string; receiverKey: string; settings: JsonValue; secrets: string; secretNames: string[]; now: Date },
): Promise<void> {
  await db
    .insertInto('connectors')
    .values({
      community_id: row.communityId,
      source_id: row.sourceId,
      kind: row.kind,
      receiver_key: row.receiverKey,
      settings: JSON.stringify(row.settings),
      secrets: row.secrets,
      secret_names: sql<string[]>`${row.secretNames}::text[]`,
      state: 'backfilling',
      next_sync_at: row.now,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

export async function listConnectors(db: Executor, communityId: number): Promise<ConnectorRow[]> {
  return (await selectConnectors(db).where('k.community_id', '=', communityId).orderBy('k.source_id').execute()).map(toRow);
}

export async function findConnector(db: Executor, communityId: number, sourceId: number, lock = false): Promise<ConnectorRow | undefined> {
  let query = selectConnectors(db).where('k.community_id', '=', communityId).where('k.source_id', '=', sourceId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toRow(row) : undefined;
}

export async function findConnectorByKey(db: Executor, communityId: number, receiverKey: string): Promise<ConnectorRow | undefined> {
  const row = await selectConnectors(db).where('k.community_id', '=', communityId).where('k.receiver_key', '=', receiverKey).executeTakeFirst();
  return row ? toRow(row) : undefined;
}

export async function updateConnector(
  db: Executor,
  communityId: number,
  sourceId: number,
  changes: Partial<{
    settings: JsonValue;
    secrets: string;
    secretNames: string[];
    state: ConnectorState;
    reason: string | null;
    waitingUntil: Date | null;
    lastSyncAt: Date;
    lastEventAt: Date;
    nextSyncAt: Date;
  }>,
  now: Date,
): Promise<void> {
  await db
    .updateTable('connectors')
    .set({
      ...(changes.settings !== undefined ? { settings: JSON.stringify(changes.settings) } : {}),
      ...(changes.secrets !== undefined ? { secrets: changes.secrets } : {}),
      ...(changes.secretNames !== undefined ? { secret_names: sql<string[]>`${changes.secretNames}::text[]` } : {}),
      ...(changes.state !== undefined ? { state: changes.state } : {}),
      ...(changes.reason !== undefined ? { reason: changes.reason } : {}),
      ...(changes.waitingUntil !== undefined ? { waiting_until: changes.waitingUntil } : {}),
      ...(changes.lastSyncAt !== undefined ? { last_sync_at: changes.lastSyncAt } : {}),
      ...(changes.lastEventAt !== undefined ? { last_event_at: changes.lastEventAt } : {}),
      ...(changes.nextSyncAt !== undefined ? { next_sync_at: changes.nextSyncAt } : {}),
      updated_at: now,
    })
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .execute();
}

export async function deleteConnector(db: Executor, communityId: number, sourceId: number): Promise<boolean> {
  const deleted = await db.deleteFrom('connectors').where('community_id', '=', communityId).where('source_id', '=', sourceId).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/** Whether the source has a connector (data-available asks, for any source). */
export async function isConnectorSource(db: Executor, communityId: number, sourceId: number): Promise<boolean> {
  const row = await db.selectFrom('connectors').select('source_id').where('community_id', '=', communityId).where('source_id', '=', sourceId).executeTakeFirst();
  return row !== undefined;
}

/** Connectors whose periodic sync is due (any community), oldest first. */
export async function dueConnectors(db: Executor, now: Date, limit: number): Promise<{ communityId: number; sourceId: number }[]> {
  return db
    .selectFrom('connectors')
    .select(['community_id as communityId', 'source_id as sourceId'])
    .where('state', 'in', ['active', 'backfilling'])
    .where('next_sync_at', '<=', now)
    .orderBy('next_sync_at')
    .limit(limit)
    .execute();
}

// Streams --------------------------------------------------------------------------------------------

export async function listStreams(db: Executor, communityId: number, sourceId: number): Promise<StreamRow[]> {
  return db
    .selectFrom('connector_streams')
    .select(['stream', 'checkpoint', 'done', 'records', 'total', 'updated_at as updatedAt'])
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .orderBy('stream')
    .execute();
}

export async function ensureStreams(db: Executor, communityId: number, sourceId: number, streams: string[], now: Date): Promise<void> {
  if (streams.length === 0) return;
  await db
    .insertInto('connector_streams')
    .values(streams.map((stream) => ({ community_id: communityId, source_id: sourceId, stream, updated_at: now })))
    .onConflict((oc) => oc.columns(['community_id', 'source_id', 'stream']).doNothing())
    .execute();
}

export async function saveCheckpoint(
  db: Executor,
  communityId: number,
  sourceId: number,
  stream: string,
  page: { checkpoint: JsonValue; done: boolean; records: number; total: number | null | undefined },
  now: Date,
): Promise<void> {
  await db
    .updateTable('connector_streams')
    .set((eb) => ({
      checkpoint: JSON.stringify(page.checkpoint),
      done: page.done,
      records: eb('records', '+', page.records),
      ...(page.total !== undefined ? { total: page.total } : {}),
      updated_at: now,
    }))
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where('stream', '=', stream)
    .execute();
}

// Counts ---------------------------------------------------------------------------------------------

const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);

export async function countHourly(db: Executor, communityId: number, sourceId: number, at: Date, counts: { deliveries?: number; records?: number }): Promise<void> {
  const deliveries = counts.deliveries ?? 0;
  const records = counts.records ?? 0;
  if (deliveries === 0 && records === 0) return;
  await db
    .insertInto('connector_hourly_counts')
    .values({ community_id: communityId, source_id: sourceId, hour: hourOf(at), deliveries, records })
    .onConflict((oc) =>
      oc.columns(['community_id', 'source_id', 'hour']).doUpdateSet((eb) => ({
        deliveries: eb('connector_hourly_counts.deliveries', '+', deliveries),
        records: eb('connector_hourly_counts.records', '+', records),
      })),
    )
    .execute();
}

/** Deliveries and records of the last 24 hours (the current hour and the 23 before), by source. */
export async function lastDayCounts(db: Executor, communityId: number, now: Date): Promise<Map<number, { deliveries: number; records: number }>> {
  const rows = await db
    .selectFrom('connector_hourly_counts')
    .select(['source_id as sourceId', sql<number>`sum(deliveries)::int8`.as('deliveries'), sql<number>`sum(records)::int8`.as('records')])
    .where('community_id', '=', communityId)
    .where('hour', '>', new Date(hourOf(now).getTime() - 24 * 3_600_000))
    .groupBy('source_id')
    .execute();
  return new Map(rows.map((row) => [Number(row.sourceId), { deliveries: Number(row.deliveries), records: Number(row.records) }]));
}

// Deliveries -----------------------------------------------------------------------------------------

/** Stores a verified delivery; false when the same delivery ID was stored before (a redelivery). */
/**
 * Stores a receiver request once per delivery ID, and, when it is new, counts it in its hour and notes the
 * connector's last event: one statement, so that the two rows every delivery of a connector updates (its hour's
 * count and the connector's own) are locked only while it runs, not across a transaction's round trips;
 * concurrent deliveries queued on those locks before.
 */
export async function insertDelivery(
  db: Executor,
  delivery: { communityId: number; sourceId: number; deliveryId: string; event: string; headers: JsonValue; payload: string; now: Date },
): Promise<boolean> {
  const { communityId, sourceId, now } = delivery;
  const { rows } = await sql<{ inserted: number }>`
    with inserted as (
      insert into connector_deliveries (community_id, source_id, delivery_id, event, headers, payload, received_at)
      values (${communityId}, ${sourceId}, ${delivery.deliveryId}, ${delivery.event}, ${JSON.stringify(delivery.headers)}::jsonb, ${delivery.payload}, ${now})
      on conflict (community_id, source_id, delivery_id) do nothing
      returning id
    ), counted as (
      insert into connector_hourly_counts (community_id, source_id, hour, deliveries, records)
      select ${communityId}, ${sourceId}, ${hourOf(now)}, 1, 0 from inserted
      on conflict (community_id, source_id, hour) do update set deliveries = connector_hourly_counts.deliveries + 1
    ), noted as (
      update connectors set last_event_at = ${now}, updated_at = ${now}
      where community_id = ${communityId} and source_id = ${sourceId} and exists (select 1 from inserted)
    )
    select count(*)::int as inserted from inserted`.execute(db);
  return Number(rows[0]?.inserted ?? 0) > 0;
}

export interface DeliveryRow {
  communityId: number;
  id: number;
  sourceId: number;
  event: string;
  headers: JsonValue;
  payload: string;
}

/**
 * Claims the oldest unprocessed deliveries of connectors that are not paused (any community) for `leaseMs`:
 * another worker skips them until then; a claim whose worker died runs out and they are taken again.
 */
export async function claimDeliveries(db: Executor, now: Date, leaseMs: number, limit: number): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`
    update connector_deliveries d set claimed_until = ${new Date(now.getTime() + leaseMs)}
    from (
      select d2.community_id, d2.id from connector_deliveries d2
      join connectors k on k.community_id = d2.community_id and k.source_id = d2.source_id
      where d2.processed_at is null and (d2.claimed_until is null or d2.claimed_until < ${now}) and k.state <> 'paused'
      order by d2.id
      limit ${limit}
      for update of d2 skip locked
    ) due
    where d.community_id = due.community_id and d.id = due.id
    returning d.community_id as "communityId", d.id, d.source_id as "sourceId", d.event, d.headers, d.payload`.execute(db);
  return rows.map((row) => ({ ...row, communityId: Number(row.communityId), id: Number(row.id), sourceId: Number(row.sourceId) })).sort((a, b) => a.id - b.id);
}

export async function finishDelivery(db: Executor, communityId: number, id: number, result: { outcome: JsonValue; error: string | null; now: Date }): Promise<void> {
  await db
    .updateTable('connector_deliveries')
    .set({ processed_at: result.now, outcome: JSON.stringify(result.outcome), error: result.error, claimed_until: null })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

/** Deletes processed deliveries received before `before`, at most `limit` of them; returns how many. */
export async function pruneDeliveries(db: Executor, before: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ count: number }>`
    with gone as (
      delete from connector_deliveries d using (
        select community_id, id from connector_deliveries where processed_at is not null and received_at < ${before} order by received_at limit ${limit}
      ) old
      where d.community_id = old.community_id and d.id = old.id
      returning 1
    )
    select count(*)::int8 as count from gone`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

export async function releaseDelivery(db: Executor, communityId: number, id: number): Promise<void> {
  await db.updateTable('connector_deliveries').set({ claimed_until: null }).where('community_id', '=', communityId).where('id', '=', id).execute();
}

/** Connectors by community, kind and state, with their records stored and when a waiting one goes on. */
export async function connectorTotals(db: Executor, communityId: number | null) {
  let query = db
    .selectFrom('connectors as k')
    .select([
      'k.community_id as communityId', 'k.source_id as sourceId', 'k.kind', 'k.state', 'k.waiting_until as waitingUntil',
      sql<number>`(select coalesce(sum(records), 0)::int8 from connector_hourly_counts c where c.community_id = k.community_id and c.source_id = k.source_id)`.as('records'),
      sql<number>`(select coalesce(sum(deliveries), 0)::int8 from connector_hourly_counts c where c.community_id = k.community_id and c.source_id = k.source_id)`.as('received'),
      // The partial index of unprocessed deliveries: what waits is few, whatever was received.
      sql<number>`(select count(*)::int8 from connector_deliveries d where d.community_id = k.community_id and d.source_id = k.source_id and d.processed_at is null)`.as('pending'),
    ]);
  if (communityId !== null) query = query.where('k.community_id', '=', communityId);
  return (await query.execute()).map((row) => ({
    communityId: Number(row.communityId),
    sourceId: Number(row.sourceId),
    kind: row.kind,
    state: row.state,
    waitingUntil: row.waitingUntil,
    records: Number(row.records),
    received: Number(row.received),
    processed: Number(row.received) - Number(row.pending),
  }));
}

// People ---------------------------------------------------------------------------------------------

export async function recordPeople(db: Executor, communityId: number, sourceId: number, ids: string[], now: Date): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return;
  await db
    .insertInto('connector_people')
    .values(unique.map((id) => ({ community_id: communityId, source_id: sourceId, platform_user_id: id, seen_at: now })))
    .onConflict((oc) => oc.columns(['community_id', 'source_id', 'platform_user_id']).doNothing())
    .execute();
}

export async function unprofiledPeople(db: Executor, communityId: number, sourceId: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('connector_people')
    .select('platform_user_id')
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where('profiled_at', 'is', null)
    .orderBy('platform_user_id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.platform_user_id);
}

export async function markProfiled(db: Executor, communityId: number, sourceId: number, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('connector_people')
    .set({ profiled_at: now })
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where('platform_user_id', 'in', ids)
    .execute();
}
