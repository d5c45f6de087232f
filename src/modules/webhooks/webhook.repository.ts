import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import { MAX_CANDIDATES, type CommunityTurns } from '../../core/community-turns.ts';
import type { Write } from '../../core/lookups.ts';
import { FILTER_TABLES, type EventKind, type EventRow, type FilterEntity } from './webhook-events.ts';

export interface SubscriptionRow {
  communityId: number;
  id: number;
  url: string;
  eventKinds: EventKind[];
  description: string | null;
  lightFilter: unknown;
  filterEntity: FilterEntity | null;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const subscriptionColumns = sql`
  community_id as "communityId", id, url, event_kinds as "eventKinds", description, light_filter as "lightFilter",
  filter_entity as "filterEntity", secret, previous_secret as "previousSecret", previous_secret_until as "previousSecretUntil",
  enabled, disabled_at as "disabledAt", disabled_reason as "disabledReason", failing_since as "failingSince",
  created_at as "createdAt", updated_at as "updatedAt"`;

const toSubscription = (row: SubscriptionRow): SubscriptionRow => ({ ...row, communityId: Number(row.communityId), id: Number(row.id) });

export async function insertSubscription(
  db: Executor,
  row: {
    communityId: number;
    url: string;
    eventKinds: string[];
    description: string | null;
    lightFilter: unknown;
    filterEntity: string | null;
    secret: string;
    now: Date;
  },
): Promise<SubscriptionRow> {
  const { rows } = await sql<SubscriptionRow>`
    insert into webhook_subscriptions (community_id, url, event_kinds, description, light_filter, filter_entity, secret, created_at, updated_at)
    values (${row.communityId}, ${row.url}, ${row.eventKinds}::text[], ${row.description},
            ${row.lightFilter === null ? null : JSON.stringify(row.lightFilter)}::jsonb, ${row.filterEntity}, ${row.secret}, ${row.now}, ${row.now})
    returning ${subscriptionColumns}`.execute(db);
  return toSubscription(rows[0]!);
}

export async function findSubscription(db: Executor, communityId: number, id: number, lock = false): Promise<SubscriptionRow | undefined> {
  const { rows } = await sql<SubscriptionRow>`
    select ${subscriptionColumns} from webhook_subscriptions where community_id = ${communityId} and id = ${id} ${lock ? sql`for update` : sql``}`.execute(db);
  return rows[0] ? toSubscription(rows[0]) : undefined;
}

export async function listSubscriptions(db: Executor, communityId: number): Promise<SubscriptionRow[]> {
  const { rows } = await sql<SubscriptionRow>`
    select ${subscriptionColumns} from webhook_subscriptions where community_id = ${communityId} order by id`.execute(db);
  return rows.map(toSubscription);
}

/**
 * The subscriptions of these communities, disabled ones included: their deliveries wait, unclaimed, until an
 * admin enables them again.
 */
export async function subscriptionsOf(db: Executor, communityIds: number[]): Promise<SubscriptionRow[]> {
  const { rows } = await sql<SubscriptionRow>`
    select ${subscriptionColumns} from webhook_subscriptions where community_id = any (${communityIds}::bigint[]) order by community_id, id`.execute(db);
  return rows.map(toSubscription);
}

export async function updateSubscription(
  db: Executor,
  communityId: number,
  id: number,
  changes: Partial<{
    url: string;
    eventKinds: string[];
    description: string | null;
    filter: { lightFilter: unknown; filterEntity: string | null };
    secret: string;
    previousSecret: string | null;
    previousSecretUntil: Date | null;
    enabled: boolean;
    disabledReason: string | null;
  }>,
  now: Date,
): Promise<SubscriptionRow> {
  const sets: RawBuilder<unknown>[] = [sql`updated_at = ${now}`];
  if (changes.url !== undefined) sets.push(sql`url = ${changes.url}`);
  if (changes.eventKinds !== undefined) sets.push(sql`event_kinds = ${changes.eventKinds}::text[]`);
  if (changes.description !== undefined) sets.push(sql`description = ${changes.description}`);
  if (changes.filter !== undefined) {
    sets.push(sql`light_filter = ${changes.filter.lightFilter === null ? null : JSON.stringify(changes.filter.lightFilter)}::jsonb`);
    sets.push(sql`filter_entity = ${changes.filter.filterEntity}`);
  }
  if (changes.secret !== undefined) sets.push(sql`secret = ${changes.secret}`);
  if (changes.previousSecret !== undefined) sets.push(sql`previous_secret = ${changes.previousSecret}`);
  if (changes.previousSecretUntil !== undefined) sets.push(sql`previous_secret_until = ${changes.previousSecretUntil}`);
  if (changes.enabled === true) sets.push(sql`enabled = true, disabled_at = null, disabled_reason = null, failing_since = null`);
  if (changes.enabled === false) sets.push(sql`enabled = false, disabled_at = ${now}, disabled_reason = ${changes.disabledReason ?? null}`);
  const { rows } = await sql<SubscriptionRow>`
    update webhook_subscriptions set ${sql.join(sets)} where community_id = ${communityId} and id = ${id}
    returning ${subscriptionColumns}`.execute(db);
  return toSubscription(rows[0]!);
}

export async function deleteSubscription(db: Executor, communityId: number, id: number): Promise<void> {
  await sql`delete from webhook_subscriptions where community_id = ${communityId} and id = ${id}`.execute(db);
}

/** A subscription enabled again: what waits for it is tried now, with a new retry window. */
export async function wakeDeliveries(db: Executor, communityId: number, subscriptionId: number, now: Date, expiresAt: Date): Promise<void> {
  await sql`
    update webhook_deliveries set next_attempt_at = ${now}, expires_at = greatest(expires_at, ${expiresAt})
    where community_id = ${communityId} and subscription_id = ${subscriptionId} and status = 'pending'`.execute(db);
}

const eventColumns = sql`
  community_id as "communityId", id, kind, entity_type as "entityType", entity_id as "entityId", detail, occurred_at as "occurredAt"`;

const toEvent = (row: EventRow): EventRow => ({
  ...row,
  communityId: Number(row.communityId),
  id: Number(row.id),
  entityId: row.entityId === null ? null : Number(row.entityId),
});

/** The oldest events not fanned out yet (of any community), not locked. */
export async function waitingEvents(db: Executor, limit: number): Promise<EventRow[]> {
  const { rows } = await sql<EventRow>`
    select ${eventColumns} from webhook_events where fanned_out_at is null order by id limit ${limit}`.execute(db);
  return rows.map(toEvent);
}

/**
 * Of these events, those still waiting, locked for this transaction (another fan-out skips them): one
 * community at a time, since a cluster locks rows of one community's node only (core/community-turns.ts).
 */
export async function lockWaitingEvents(db: Executor, events: readonly EventRow[]): Promise<EventRow[]> {
  const locked: EventRow[] = [];
  for (const communityId of new Set(events.map((e) => e.communityId))) {
    const ids = events.filter((e) => e.communityId === communityId).map((e) => e.id);
    const { rows } = await sql<EventRow>`
      select ${eventColumns} from webhook_events
      where community_id = ${communityId} and id = any(${ids}::bigint[]) and fanned_out_at is null
      order by id
      for update skip locked`.execute(db);
    locked.push(...rows.map(toEvent));
  }
  return locked;
}

/** The condition a subscription's filter puts on an event `we`: its record is of the filter's kind and matches. */
function filterCondition(filter: { entity: FilterEntity; where: RawBuilder<SqlBool> } | null): RawBuilder<unknown> {
  if (!filter) return sql`true`;
  const { table, alias } = FILTER_TABLES[filter.entity];
  return sql`we.entity_type = ${filter.entity} and exists (
    select 1 from ${sql.table(table)} as ${sql.ref(alias)}
    where ${sql.ref(`${alias}.community_id`)} = we.community_id and ${sql.ref(`${alias}.id`)} = we.entity_id and (${filter.where}))`;
}

/**
 * Deliveries of `events` (or of the subscription's kinds since `since`, a replay) to one subscription,
 * for the events its kinds and filter select. Returns how many were made.
 */
export async function insertDeliveries(
  db: Executor,
  subscription: { communityId: number; id: number; eventKinds: string[] },
  which: { eventIds: number[] } | { since: Date; until: Date | null },
  filter: { entity: FilterEntity; where: RawBuilder<SqlBool> } | null,
  now: Date,
  expiresAt: Date,
): Promise<number> {
  const events =
    'eventIds' in which
      ? sql`we.id = any (${which.eventIds}::bigint[])`
      : sql`we.occurred_at >= ${which.since} and (${which.until}::timestamptz is null or we.occurred_at <= ${which.until}) and we.payload is not null`;
  const result = await sql`
    insert into webhook_deliveries (community_id, subscription_id, event_id, order_key, next_attempt_at, expires_at, created_at)
    select we.community_id, ${subscription.id}, we.id,
           case when we.kind in ('activity.created', 'organization.created') or we.entity_id is null then null else we.entity_type || ':' || we.entity_id end,
           ${now}, ${expiresAt}, ${now}
    from webhook_events we
    where we.community_id = ${subscription.communityId} and we.kind = any (${subscription.eventKinds}::text[]) and ${events} and ${filterCondition(filter)}
    order by we.id`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** The rendered bodies of events, fanned out. */
export function eventsFannedOut(events: readonly { communityId: number; id: number; payload: string }[], now: Date): Write {
  if (events.length === 0) return null;
  return sql`
    update webhook_events we set payload = v.payload, fanned_out_at = ${now}
    from unnest(${events.map((e) => e.communityId)}::bigint[], ${events.map((e) => e.id)}::bigint[], ${events.map((e) => e.payload)}::text[]) as v(community_id, id, payload)
    where we.community_id = v.community_id and we.id = v.id`;
}

export interface ClaimedDelivery {
  communityId: number;
  id: number;
  subscriptionId: number;
  eventId: number;
  attempts: number;
  expiresAt: Date;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
  payload: string;
}

/**
 * Claims up to `limit` due deliveries of enabled subscriptions, the communities with due deliveries taking
 * turns (core/community-turns.ts), skipping those other workers hold and those that must wait for an
 * earlier one with their order key: each gets its attempt counted and is held until `leaseUntil` (its next
 * attempt time, should this process die while sending).
 */
export async function claimDeliveries(db: Executor, now: Date, leaseUntil: Date, limit: number, turns: CommunityTurns): Promise<ClaimedDelivery[]> {
  const candidates = async () => {
    const { rows } = await sql<{ communityId: number }>`
      select distinct d.community_id as "communityId" from webhook_deliveries d
      join webhook_subscriptions s on s.community_id = d.community_id and s.id = d.subscription_id and s.enabled
      where d.status = 'pending' and d.next_attempt_at <= ${now}
      limit ${MAX_CANDIDATES}`.execute(db);
    return rows.map((row) => Number(row.communityId));
  };
  return turns.claim(candidates, limit, (communityId, wanted) => claimDeliveriesOf(db, communityId, now, leaseUntil, wanted));
}

/**
 * The due deliveries are found first, then locked: a cluster cannot lock rows in a query with a subquery.
 * What is found stays claimable in between: a delivery waits only for earlier ones with its order key, and
 * no earlier one appears later (new deliveries are of new events).
 */
async function claimDeliveriesOf(db: Executor, communityId: number, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
  const { rows: ready } = await sql<{ id: number }>`
    select d.id from webhook_deliveries d
    join webhook_subscriptions s on s.community_id = d.community_id and s.id = d.subscription_id and s.enabled
    where d.community_id = ${communityId} and d.status = 'pending' and d.next_attempt_at <= ${now}
      and (d.order_key is null or not exists (
        select 1 from webhook_deliveries p
        where p.community_id = d.community_id and p.subscription_id = d.subscription_id and p.order_key = d.order_key
          and p.status = 'pending' and p.id < d.id))
    order by d.next_attempt_at, d.id
    limit ${limit}`.execute(db);
  if (ready.length === 0) return [];
  const { rows } = await sql<ClaimedDelivery>`
    with due as (
      select community_id, id from webhook_deliveries
      where community_id = ${communityId} and id = any(${ready.map((row) => row.id)}::bigint[])
        and status = 'pending' and next_attempt_at <= ${now}
      order by next_attempt_at, id
      for update skip locked
    )
    update webhook_deliveries d set attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}
    from due, webhook_subscriptions s, webhook_events e
    where d.community_id = ${communityId} and d.community_id = due.community_id and d.id = due.id
      and s.community_id = d.community_id and s.id = d.subscription_id
      and e.community_id = d.community_id and e.id = d.event_id
    returning d.community_id as "communityId", d.id, d.subscription_id as "subscriptionId", d.event_id as "eventId", d.attempts,
      d.expires_at as "expiresAt", s.url, s.secret, s.previous_secret as "previousSecret", s.previous_secret_until as "previousSecretUntil",
      e.payload`.execute(db);
  return rows.map((row) => ({
    ...row,
    communityId: Number(row.communityId),
    id: Number(row.id),
    subscriptionId: Number(row.subscriptionId),
    eventId: Number(row.eventId),
  }));
}

export interface AttemptOutcome {
  communityId: number;
  deliveryId: number;
  subscriptionId: number;
  attempt: number;
  at: Date;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  /** delivered, pending (with its next attempt) or failed for good. */
  status: 'delivered' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
}

/**
 * The outcomes of a round of attempts, as writes that can share one statement: the attempts, the
 * deliveries, and the subscriptions' failure state. A subscription is failing from its first failed attempt
 * after a success; it is disabled when one of its deliveries fails for good (its 3 days are over) while it
 * has been failing for `disableAfterMs` or longer, with no success in between.
 */
export function recordAttempts(outcomes: readonly AttemptOutcome[], now: Date, disableAfterMs: number): Write[] {
  if (outcomes.length === 0) return [];
  const col = <T>(pick: (o: AttemptOutcome) => T) => outcomes.map(pick);
  const bySubscription = new Map<string, { communityId: number; id: number; succeeded: boolean; exhausted: boolean }>();
  for (const o of outcomes) {
    const key = `${o.communityId}:${o.subscriptionId}`;
    const entry = bySubscription.get(key) ?? { communityId: o.communityId, id: o.subscriptionId, succeeded: false, exhausted: false };
    if (o.status === 'delivered') entry.succeeded = true;
    if (o.status === 'failed') entry.exhausted = true;
    bySubscription.set(key, entry);
  }
  const succeeded = [...bySubscription.values()].filter((s) => s.succeeded);
  const failing = [...bySubscription.values()].filter((s) => !s.succeeded);
  const disableBefore = new Date(now.getTime() - disableAfterMs);
  const disable = sql`(v.exhausted and s.enabled and s.failing_since <= ${disableBefore})`;
  return [
    sql`insert into webhook_attempts (community_id, delivery_id, attempt, attempted_at, response_status, error, duration_ms)
        select * from unnest(${col((o) => o.communityId)}::bigint[], ${col((o) => o.deliveryId)}::bigint[], ${col((o) => o.attempt)}::int[],
          ${col((o) => o.at)}::timestamptz[], ${col((o) => o.responseStatus)}::int[], ${col((o) => o.error)}::text[], ${col((o) => o.durationMs)}::int[])
        on conflict do nothing`,
    sql`update webhook_deliveries d set status = v.status, last_status = v.response_status, last_error = v.error,
          next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at),
          delivered_at = case when v.status = 'delivered' then v.at else d.delivered_at end
        from unnest(${col((o) => o.communityId)}::bigint[], ${col((o) => o.deliveryId)}::bigint[], ${col((o) => o.status)}::text[],
          ${col((o) => o.responseStatus)}::int[], ${col((o) => o.error)}::text[], ${col((o) => o.nextAttemptAt)}::timestamptz[], ${col((o) => o.at)}::timestamptz[])
          as v(community_id, id, status, response_status, error, next_attempt_at, at)
        where d.community_id = v.community_id and d.id = v.id`,
    succeeded.length
      ? sql`update webhook_subscriptions s set failing_since = null
            from unnest(${succeeded.map((o) => o.communityId)}::bigint[], ${succeeded.map((o) => o.id)}::bigint[]) as v(community_id, id)
            where s.community_id = v.community_id and s.id = v.id and s.failing_since is not null`
      : null,
    failing.length
      ? sql`update webhook_subscriptions s set
              failing_since = coalesce(s.failing_since, ${now}),
              enabled = case when ${disable} then false else s.enabled end,
              disabled_at = case when ${disable} then ${now} else s.disabled_at end,
              disabled_reason = case when ${disable}
                then 'every attempt failed since ' || utc_timestamp_text(s.failing_since) || ' and a delivery ran out of retries'
                else s.disabled_reason end
            from unnest(${failing.map((o) => o.communityId)}::bigint[], ${failing.map((o) => o.id)}::bigint[], ${failing.map((o) => o.exhausted)}::boolean[])
              as v(community_id, id, exhausted)
            where s.community_id = v.community_id and s.id = v.id`
      : null,
  ];
}

export interface DeliveryRow {
  id: number;
  subscriptionId: number;
  eventId: number;
  kind: EventKind;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: Date;
  expiresAt: Date;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  occurredAt: Date;
}

const deliveryColumns = sql`
  d.id, d.subscription_id as "subscriptionId", d.event_id as "eventId", e.kind, d.status, d.attempts, d.next_attempt_at as "nextAttemptAt",
  d.expires_at as "expiresAt", d.last_status as "lastStatus", d.last_error as "lastError", d.delivered_at as "deliveredAt",
  d.created_at as "createdAt", e.occurred_at as "occurredAt"`;

const toDelivery = (row: DeliveryRow): DeliveryRow => ({
  ...row,
  id: Number(row.id),
  subscriptionId: Number(row.subscriptionId),
  eventId: Number(row.eventId),
});

/** A subscription's deliveries, newest first, after `before` (a delivery ID) when given. */
export async function listDeliveries(
  db: Executor,
  communityId: number,
  subscriptionId: number,
  options: { status?: string; limit: number; before?: number },
): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`
    select ${deliveryColumns} from webhook_deliveries d join webhook_events e on e.community_id = d.community_id and e.id = d.event_id
    where d.community_id = ${communityId} and d.subscription_id = ${subscriptionId}
      ${options.status ? sql`and d.status = ${options.status}` : sql``}
      ${options.before !== undefined ? sql`and d.id < ${options.before}` : sql``}
    order by d.id desc limit ${options.limit}`.execute(db);
  return rows.map(toDelivery);
}

export async function findDelivery(db: Executor, communityId: number, id: number): Promise<(DeliveryRow & { payload: string | null }) | undefined> {
  const { rows } = await sql<DeliveryRow & { payload: string | null }>`
    select ${deliveryColumns}, e.payload from webhook_deliveries d join webhook_events e on e.community_id = d.community_id and e.id = d.event_id
    where d.community_id = ${communityId} and d.id = ${id}`.execute(db);
  return rows[0] ? { ...toDelivery(rows[0]), payload: rows[0].payload } : undefined;
}

export interface AttemptRow {
  attempt: number;
  attemptedAt: Date;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

export async function attemptsOf(db: Executor, communityId: number, deliveryId: number): Promise<AttemptRow[]> {
  const { rows } = await sql<AttemptRow>`
    select attempt, attempted_at as "attemptedAt", response_status as "responseStatus", error, duration_ms as "durationMs"
    from webhook_attempts where community_id = ${communityId} and delivery_id = ${deliveryId} order by attempt`.execute(db);
  return rows;
}

/** A new delivery of the same event to the same subscription, due now. */
export async function redeliver(db: Executor, communityId: number, deliveryId: number, now: Date, expiresAt: Date): Promise<number> {
  const { rows } = await sql<{ id: number }>`
    insert into webhook_deliveries (community_id, subscription_id, event_id, order_key, next_attempt_at, expires_at, created_at)
    select community_id, subscription_id, event_id, order_key, ${now}, ${expiresAt}, ${now}
    from webhook_deliveries where community_id = ${communityId} and id = ${deliveryId}
    returning id`.execute(db);
  return Number(rows[0]!.id);
}

/**
 * Erasure (docs/behaviour.md, Removal; docs/webhooks.md): the events about a contact erased on request, and
 * about its activities, go with their deliveries and attempts. Their payloads are the representations rendered
 * at fan-out, so they hold what the erasure removes (names, addresses, activity content). Events of the IDs
 * merged into the contact go too. An event not rendered yet stays: it is rendered after the erasure commits,
 * from the erased records (so the erasure's own `contact.updated` reaches subscribers), and a merge's quotes
 * no identity. Returns how many events went.
 */
export async function forgetContactEvents(db: Executor, communityId: number, contactId: number): Promise<number> {
  const { rows } = await sql<{ count: number }>`
    with ids as (
      select ${contactId}::bigint as id
      union select merged_id from contact_merges where community_id = ${communityId} and survivor_id = ${contactId} and unmerged_at is null
    ), gone as (
      delete from webhook_events e
      where e.community_id = ${communityId} and e.payload is not null
        and ((e.entity_type = 'contact' and e.entity_id in (select id from ids))
          or (e.entity_type = 'activity' and e.entity_id in (select a.id from activities a where a.community_id = ${communityId} and a.contact_id = ${contactId})))
      returning 1
    )
    select count(*)::int as count from gone`.execute(db);
  // A merge not rendered yet stays, but the reason it carries quotes the identities that tied the two.
  await sql`
    update webhook_events e set detail = jsonb_set(e.detail, '{reason}', to_jsonb(regexp_replace(e.detail ->> 'reason', '"[^"]*"', '"(erased)"', 'g')))
    where e.community_id = ${communityId} and e.payload is null and e.kind = 'contact.merged' and e.entity_type = 'contact'
      and e.entity_id = ${contactId} and e.detail ? 'reason'`.execute(db);
  return rows[0]?.count ?? 0;
}

/**
 * `hearth webhook prune`: the events that occurred before `before` and wait for nothing (fanned out, with no
 * delivery pending), with their deliveries and attempts, of one community or of all. An event whose
 * delivery is still being tried stays until that delivery ends. How many went, by community.
 */
export async function deleteEventsBefore(db: Executor, communityId: number | null, before: Date): Promise<Map<number, number>> {
  const { rows } = await sql<{ communityId: number; count: number }>`
    with gone as (
      delete from webhook_events e
      where e.occurred_at < ${before} and e.fanned_out_at is not null
        ${communityId === null ? sql`` : sql`and e.community_id = ${communityId}`}
        and not exists (
          select 1 from webhook_deliveries d where d.community_id = e.community_id and d.event_id = e.id and d.status = 'pending'
        )
      returning e.community_id
    )
    select community_id as "communityId", count(*)::int as count from gone group by community_id`.execute(db);
  return new Map(rows.map((row) => [Number(row.communityId), row.count]));
}
