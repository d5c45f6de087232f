import { sql } from 'kysely';
import type { JsonValue } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';
import { MAX_CANDIDATES, type CommunityTurns } from '../../core/community-turns.ts';

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
      'k.community_id as communityId',
      'k.source_id as sourceId',
      'k.kind',
      's.name',
      'k.receiver_key as receiverKey',
      'k.settings',
      'k.secrets',
      'k.secret_names as secretNames',
      'k.state',
      'k.reason',
      'k.waiting_until as waitingUntil',
      'k.last_event_at as lastEventAt',
      'k.last_sync_at as lastSyncAt',
      'k.next_sync_at as nextSyncAt',
      'k.created_at as createdAt',
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
  const row = await db
    .selectFrom('connectors')
    .select('source_id')
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Connectors whose periodic sync is due (any community), oldest first. */
export async function dueConnectors(db: Executor, now: Date, limit: number): Promise<{ communityId: number; sourceId: number; kind: string }[]> {
  return db
    .selectFrom('connectors')
    .select(['community_id as communityId', 'source_id as sourceId', 'kind'])
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

/** The streams of every connector of the community, by source (one statement for the admin list). */
export async function listCommunityStreams(db: Executor, communityId: number): Promise<Map<number, StreamRow[]>> {
  const rows = await db
    .selectFrom('connector_streams')
    .select(['source_id as sourceId', 'stream', 'checkpoint', 'done', 'records', 'total', 'updated_at as updatedAt'])
    .where('community_id', '=', communityId)
    .orderBy('source_id')
    .orderBy('stream')
    .execute();
  const bySource = new Map<number, StreamRow[]>();
  for (const { sourceId, ...row } of rows) {
    const list = bySource.get(Number(sourceId)) ?? [];
    list.push(row);
    bySource.set(Number(sourceId), list);
  }
  return bySource;
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

export async function countHourly(
  db: Executor,
  communityId: number,
  sourceId: number,
  at: Date,
  counts: { deliveries?: number; records?: number },
): Promise<void> {
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

/**
 * Deliveries and records of the last 24 hours (the current hour and the 23 before), by source: of one
 * connector, or of each of the community's. Each connector's rows are read by the primary key's range
 * (connector, hour), so the hours before stay unread however many there are.
 */
export async function lastDayCounts(
  db: Executor,
  communityId: number,
  now: Date,
  sourceId?: number,
): Promise<Map<number, { deliveries: number; records: number }>> {
  let query = db
    .selectFrom('connectors as k')
    .innerJoin('connector_hourly_counts as c', (join) =>
      join
        .onRef('c.community_id', '=', 'k.community_id')
        .onRef('c.source_id', '=', 'k.source_id')
        .on('c.hour', '>', new Date(hourOf(now).getTime() - 24 * 3_600_000)),
    )
    .select(['k.source_id as sourceId', sql<number>`sum(c.deliveries)::int8`.as('deliveries'), sql<number>`sum(c.records)::int8`.as('records')])
    .where('k.community_id', '=', communityId)
    .groupBy('k.source_id');
  if (sourceId !== undefined) query = query.where('k.source_id', '=', sourceId);
  const rows = await query.execute();
  return new Map(rows.map((row) => [Number(row.sourceId), { deliveries: Number(row.deliveries), records: Number(row.records) }]));
}

// Deliveries -----------------------------------------------------------------------------------------

/** Stores a verified delivery; false when the same delivery ID was stored before (a redelivery). */
export async function insertDelivery(
  db: Executor,
  delivery: { communityId: number; sourceId: number; deliveryId: string; event: string; headers: JsonValue; payload: string; now: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('connector_deliveries')
    .values({
      community_id: delivery.communityId,
      source_id: delivery.sourceId,
      delivery_id: delivery.deliveryId,
      event: delivery.event,
      headers: JSON.stringify(delivery.headers),
      payload: delivery.payload,
      received_at: delivery.now,
    })
    .onConflict((oc) => oc.columns(['community_id', 'source_id', 'delivery_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export interface DeliveryRow {
  communityId: number;
  id: number;
  sourceId: number;
  event: string;
  headers: JsonValue;
  payload: string;
  /** Times it was claimed, this one included. */
  attempts: number;
}

/**
 * Claims unprocessed deliveries of connectors that are not paused for `leaseMs`, the communities with some
 * taking turns (core/community-turns.ts) and each community's oldest first: another worker skips them until
 * then; a claim whose worker died runs out and they are taken again.
 */
export async function claimDeliveries(db: Executor, now: Date, leaseMs: number, limit: number, turns: CommunityTurns): Promise<DeliveryRow[]> {
  const candidates = async () => {
    const { rows } = await sql<{ communityId: number }>`
      select distinct d.community_id as "communityId" from connector_deliveries d
      join connectors k on k.community_id = d.community_id and k.source_id = d.source_id
      where d.processed_at is null and (d.claimed_until is null or d.claimed_until < ${now}) and k.state <> 'paused'
      limit ${MAX_CANDIDATES}`.execute(db);
    return rows.map((row) => Number(row.communityId));
  };
  return turns.claim(candidates, limit, (communityId, wanted) => claimDeliveriesOf(db, communityId, now, leaseMs, wanted));
}

async function claimDeliveriesOf(db: Executor, communityId: number, now: Date, leaseMs: number, limit: number): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`
    update connector_deliveries d set claimed_until = ${new Date(now.getTime() + leaseMs)}, attempts = d.attempts + 1
    from (
      select d2.community_id, d2.id from connector_deliveries d2
      join connectors k on k.community_id = d2.community_id and k.source_id = d2.source_id
      where d2.community_id = ${communityId} and d2.processed_at is null and (d2.claimed_until is null or d2.claimed_until < ${now})
        and k.state <> 'paused'
      order by d2.id
      limit ${limit}
      for update of d2 skip locked
    ) due
    where d.community_id = ${communityId} and d.community_id = due.community_id and d.id = due.id
    returning d.community_id as "communityId", d.id, d.source_id as "sourceId", d.event, d.headers, d.payload, d.attempts`.execute(db);
  return rows
    .map((row) => ({ ...row, communityId: Number(row.communityId), id: Number(row.id), sourceId: Number(row.sourceId), attempts: Number(row.attempts) }))
    .sort((a, b) => a.id - b.id);
}

/** Postgres text and jsonb hold no NUL character; a platform's value may carry one. */
function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '');
  if (Array.isArray(value)) return value.map(withoutNul);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key.replaceAll('\u0000', ''), withoutNul(item)]));
  return value;
}

export async function finishDelivery(
  db: Executor,
  communityId: number,
  id: number,
  result: { outcome: JsonValue; error: string | null; now: Date; people?: string[]; erasePayload?: boolean },
): Promise<void> {
  await db
    .updateTable('connector_deliveries')
    .set({
      processed_at: result.now,
      outcome: JSON.stringify(withoutNul(result.outcome)),
      error: result.error === null ? null : (withoutNul(result.error) as string),
      claimed_until: null,
      ...(result.people ? { people: sql<string[]>`${result.people}::text[]` } : {}),
      ...(result.erasePayload ? { payload: '' } : {}),
    })
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

/** Gives a delivery back to be processed again from `retryAt` (the database failed, not the delivery), with why. */
export async function releaseDelivery(db: Executor, communityId: number, id: number, error: string, retryAt: Date): Promise<void> {
  await db
    .updateTable('connector_deliveries')
    .set({ claimed_until: retryAt, error: withoutNul(error) as string })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

/** The error the last failed attempt at a delivery left. */
export async function deliveryError(db: Executor, communityId: number, id: number): Promise<string | null> {
  const row = await db.selectFrom('connector_deliveries').select('error').where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
  return row?.error ?? null;
}

// Erasure -------------------------------------------------------------------------------------------

/** Connectors among these sources (an erasure asks for the sources of a contact's profiles). */
export async function connectorSources(
  db: Executor,
  communityId: number,
  sourceIds: number[],
): Promise<{ sourceId: number; kind: string; settings: JsonValue }[]> {
  if (sourceIds.length === 0) return [];
  const rows = await db
    .selectFrom('connectors')
    .select(['source_id as sourceId', 'kind', 'settings'])
    .where('community_id', '=', communityId)
    .where('source_id', 'in', sourceIds)
    .execute();
  return rows.map((row) => ({ ...row, sourceId: Number(row.sourceId) }));
}

/**
 * Forgets platform users of one connector: they leave the people it saw (no profile is asked for them), and
 * the processed deliveries whose pushes named them lose their payloads, and the outcome's listed errors and
 * skipped records (which may quote them). Returns how many deliveries were emptied.
 */
export async function forgetPlatformUsers(db: Executor, communityId: number, sourceId: number, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  await db
    .deleteFrom('connector_people')
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where('platform_user_id', 'in', ids)
    .execute();
  const emptied = await db
    .updateTable('connector_deliveries')
    .set({ payload: '', outcome: sql`(coalesce(outcome, '{}'::jsonb) - 'errors' - 'skipped') || '{"payloadErased": true}'::jsonb` })
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where(sql<boolean>`people && ${ids}::text[]`)
    .where('payload', '<>', '')
    .executeTakeFirst();
  return Number(emptied.numUpdatedRows);
}

/**
 * A page of one connector's deliveries whose people are not known (waiting, set aside, or processed before
 * they were kept), after `afterId`: an erasure reads them.
 */
export async function unreadDeliveries(db: Executor, communityId: number, sourceId: number, afterId: number, limit: number) {
  const rows = await db
    .selectFrom('connector_deliveries')
    .select(['id', 'event', 'headers', 'payload', 'processed_at as processedAt'])
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where('people', 'is', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** Empties one delivery's payload (an erasure), keeping the counts of its outcome. */
export async function erasePayload(db: Executor, communityId: number, id: number, people: string[]): Promise<void> {
  await db
    .updateTable('connector_deliveries')
    .set({
      payload: '',
      people: sql<string[]>`${people}::text[]`,
      outcome: sql`(coalesce(outcome, '{}'::jsonb) - 'errors' - 'skipped') || '{"payloadErased": true}'::jsonb`,
    })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

/** Connectors by community, kind and state, with their records stored and when a waiting one goes on. */
export async function connectorTotals(db: Executor, communityId: number | null) {
  let query = db.selectFrom('connectors as k').select([
    'k.community_id as communityId',
    'k.source_id as sourceId',
    'k.kind',
    'k.state',
    'k.waiting_until as waitingUntil',
    'k.last_event_at as lastEventAt',
    sql<number>`(select coalesce(sum(records), 0)::int8 from connector_hourly_counts c where c.community_id = k.community_id and c.source_id = k.source_id)`.as(
      'records',
    ),
    sql<number>`(select coalesce(sum(deliveries), 0)::int8 from connector_hourly_counts c where c.community_id = k.community_id and c.source_id = k.source_id)`.as(
      'received',
    ),
    // The partial index of unprocessed deliveries: what waits is few, whatever was received.
    sql<number>`(select count(*)::int8 from connector_deliveries d where d.community_id = k.community_id and d.source_id = k.source_id and d.processed_at is null)`.as(
      'pending',
    ),
    // The backfill's progress: streams caught up once, of all the connector's streams (read by the streams' primary key).
    sql<number>`(select count(*)::int8 from connector_streams s where s.community_id = k.community_id and s.source_id = k.source_id)`.as('streams'),
    sql<number>`(select count(*)::int8 from connector_streams s where s.community_id = k.community_id and s.source_id = k.source_id and s.done)`.as(
      'streamsDone',
    ),
  ]);
  if (communityId !== null) query = query.where('k.community_id', '=', communityId);
  return (await query.execute()).map((row) => ({
    communityId: Number(row.communityId),
    sourceId: Number(row.sourceId),
    kind: row.kind,
    state: row.state,
    waitingUntil: row.waitingUntil,
    lastEventAt: row.lastEventAt,
    streams: Number(row.streams),
    streamsDone: Number(row.streamsDone),
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
