import { performance } from 'node:perf_hooks';
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Clock } from '../../clock.ts';
import { CommunityTurns } from '../../core/community-turns.ts';
import type { DB } from '../../db/schema.ts';
import { pointInTime } from '../../core/durations.ts';
import { invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, parseId } from '../../core/ids.ts';
import { writeTogether } from '../../core/lookups.ts';
import { OutboundError, outboundPost, readOutboundUrl } from '../../core/outbound.ts';
import type { Writer } from '../../core/writer.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import { auditTx } from '../audit/index.ts';
import { signedHeaders, newSecret } from './webhook-signing.ts';
import { EVENT_KINDS, KIND_NAMES, renderEvent, type EventKind, type FilterEntity, type Representations } from './webhook-events.ts';
import * as repo from './webhook.repository.ts';

/** A delivery is tried for 3 days after it was made. */
export const RETRY_WINDOW_MS = 3 * 86_400_000;
/** A subscription whose delivery ran out of retries, and that has not succeeded for this long, is disabled. */
export const DISABLE_AFTER_MS = 86_400_000;
/** How long the previous secret keeps signing after a rotation, unless the admin says otherwise. */
const PREVIOUS_SECRET_HOURS = 24;
const FAN_OUT_BATCH = 500;
const DELIVERY_BATCH = 250;
/**
 * Requests in flight per lane. Two lanes claim and send at once (SKIP LOCKED gives them different
 * deliveries), so one lane's statements overlap the other's requests: 32 requests in flight in all.
 */
const CONCURRENCY = 16;
const LANES = 2;
const RENDER_CONCURRENCY = 8;
/** A step run delivers until nothing is due, or for this long (it shares the worker with jobs). */
const STEP_BUDGET_MS = 2_000;
const STEP_INTERVAL_MS = 250;

/** The wait after failed attempt number `attempt`: 5 s, doubling, at most 12 h. */
export const deliveryBackoff = (attempt: number) => Math.min(5_000 * 2 ** Math.min(attempt - 1, 30), 12 * 3_600_000);

export interface NewSubscription {
  url: string;
  events: string[];
  description?: string | null;
  lightFilter?: unknown;
  filterEntity?: string;
}

export interface SubscriptionChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  /** null removes the filter. */
  lightFilter?: unknown;
  filterEntity?: string;
}

export function formatSubscriptionId(id: number): string {
  return formatId('webhook', id);
}

/** `wh_N`; a 400 for anything else. */
export function parseSubscriptionId(value: string): number {
  return parseId('webhook', value);
}

/** `whd_N`; a 400 for anything else. */
export function parseDeliveryId(value: string): number {
  return parseId('delivery', value);
}

export function presentSubscription(row: repo.SubscriptionRow) {
  return {
    id: formatSubscriptionId(row.id),
    url: row.url,
    events: row.eventKinds,
    description: row.description,
    lightFilter: row.lightFilter ?? null,
    filterEntity: row.filterEntity,
    enabled: row.enabled,
    disabledAt: row.disabledAt?.toISOString() ?? null,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince?.toISOString() ?? null,
    previousSecretUntil: row.previousSecret && row.previousSecretUntil ? row.previousSecretUntil.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function presentDelivery(row: repo.DeliveryRow) {
  return {
    id: formatId('delivery', row.id),
    webhookId: formatSubscriptionId(row.subscriptionId),
    messageId: messageId(row.eventId),
    event: row.kind,
    occurredAt: row.occurredAt.toISOString(),
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    expiresAt: row.expiresAt.toISOString(),
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The `webhook-id` of an event: the same for every attempt, redelivery and replay of it. */
const messageId = (eventId: number) => `msg_${eventId}`;

export interface WebhookDeps {
  db: Kysely<DB>;
  clock: Clock;
  jobs: JobQueue;
  filters: LightFilters;
  representations: Representations;
  allowPrivateAddresses: boolean;
  /** How long a receiver may take to answer (default 10 s). */
  timeoutMs?: number;
  log?: { warn(details: object, message: string): void };
}

export function createWebhookService(deps: WebhookDeps) {
  const { db, clock } = deps;
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const leaseMs = timeoutMs * 2;
  /** The communities with due deliveries take turns (core/community-turns.ts). */
  const turns = new CommunityTurns();

  async function subscriptionOf(communityId: number, id: number, lock = false, executor: Kysely<DB> = db) {
    const row = await repo.findSubscription(executor, communityId, id, lock);
    if (!row) throw notFound('webhook_not_found', `no webhook ${formatSubscriptionId(id)}`);
    return row;
  }

  function readKinds(given: string[]): EventKind[] {
    const unknown = given.filter((kind) => !(KIND_NAMES as string[]).includes(kind));
    if (unknown.length)
      throw invalidParameters(
        `events: ${unknown.map((kind) => JSON.stringify(kind)).join(', ')} ${unknown.length > 1 ? 'are not event kinds' : 'is not an event kind'} (${KIND_NAMES.join(', ')})`,
      );
    if (given.length === 0) throw invalidParameters('events must name at least one event kind');
    return [...new Set(given)] as EventKind[];
  }

  /** The record kind a filter is about: the kinds' own (they must agree), or the one given. */
  async function readFilter(communityId: number, kinds: EventKind[], lightFilter: unknown, given: string | undefined) {
    if (lightFilter === undefined || lightFilter === null) {
      if (given !== undefined) throw invalidParameters('filterEntity is given without a lightFilter');
      return { lightFilter: null, filterEntity: null };
    }
    const none = kinds.filter((kind) => EVENT_KINDS[kind] === null);
    if (none.length)
      throw invalidParameters(
        `lightFilter: ${none.join(', ')} ${none.length > 1 ? 'are' : 'is'} about no record a filter could select; subscribe to ${none.length > 1 ? 'them' : 'it'} without a filter`,
      );
    const own = [...new Set(kinds.map((kind) => EVENT_KINDS[kind]).filter((entity) => entity !== 'any'))] as FilterEntity[];
    if (own.length > 1)
      throw invalidParameters(
        `lightFilter: one filter selects one kind of record, and these events are about ${own.join(' and ')}s; make one webhook per kind of record`,
      );
    if (given !== undefined && !['contact', 'activity', 'organization'].includes(given))
      throw invalidParameters('filterEntity must be contact, activity or organization');
    if (given !== undefined && own.length === 1 && own[0] !== given)
      throw invalidParameters(`filterEntity ${given} does not match the events, which are about ${own[0]}s`);
    const entity = (given ?? own[0]) as FilterEntity | undefined;
    if (!entity) throw invalidParameters('filterEntity (contact, activity or organization) is required: the events could be about several kinds of record');
    if (typeof lightFilter !== 'object' || Array.isArray(lightFilter))
      throw invalidParameters('lightFilter must be a filter expression object ({type, clauses})');
    // Compiled now so that a bad filter is refused now, with its path (a 400).
    await deps.filters.compile(communityId, entity, JSON.stringify(lightFilter));
    return { lightFilter, filterEntity: entity };
  }

  /** Each subscription's filter compiled for the events' SQL; one that no longer compiles selects nothing. */
  async function compiledFilter(subscription: repo.SubscriptionRow): Promise<{ entity: FilterEntity; where: RawBuilder<SqlBool> } | null> {
    if (!subscription.filterEntity) return null;
    try {
      const compiled = await deps.filters.compile(subscription.communityId, subscription.filterEntity, JSON.stringify(subscription.lightFilter), clock.now());
      return compiled ? { entity: subscription.filterEntity, where: compiled.where } : null;
    } catch (error) {
      deps.log?.warn(
        { err: error, webhook: formatSubscriptionId(subscription.id) },
        'a webhook filter no longer compiles (a field it names is gone); it selects nothing',
      );
      return { entity: subscription.filterEntity, where: sql<SqlBool>`false` };
    }
  }

  /** Events not fanned out yet: rendered, then turned into deliveries to the subscriptions that select them. */
  async function fanOut(): Promise<number> {
    const waiting = await repo.waitingEvents(db, FAN_OUT_BATCH);
    if (waiting.length === 0) return 0;
    const cache = new Map<string, unknown>();
    const bodies = new Map<number, string>();
    // Rendered a few at a time: each reads its record as the v2 routes do, a handful of statements apiece.
    let next = 0;
    await Promise.all(
      Array.from({ length: RENDER_CONCURRENCY }, async () => {
        while (next < waiting.length) {
          const event = waiting[next++]!;
          bodies.set(event.id, await renderEvent(event, deps.representations, cache));
        }
      }),
    );
    const subscriptions = await repo.subscriptionsOf(db, [...new Set(waiting.map((event) => event.communityId))]);
    const filters = new Map(await Promise.all(subscriptions.map(async (s) => [s.id, await compiledFilter(s)] as const)));
    const now = clock.now();
    return db.transaction().execute(async (trx) => {
      const locked = await repo.lockWaitingEvents(trx, waiting);
      for (const subscription of subscriptions) {
        const eventIds = locked.filter((e) => e.communityId === subscription.communityId && subscription.eventKinds.includes(e.kind)).map((e) => e.id);
        if (eventIds.length === 0) continue;
        await repo.insertDeliveries(trx, subscription, { eventIds }, filters.get(subscription.id) ?? null, now, new Date(now.getTime() + RETRY_WINDOW_MS));
      }
      await writeTogether(trx, [
        repo.eventsFannedOut(
          locked.map((e) => ({ communityId: e.communityId, id: e.id, payload: bodies.get(e.id)! })),
          now,
        ),
      ]);
      return locked.length;
    });
  }

  async function attempt(delivery: repo.ClaimedDelivery): Promise<repo.AttemptOutcome> {
    const at = clock.now();
    const secrets = [delivery.secret];
    if (delivery.previousSecret && delivery.previousSecretUntil && delivery.previousSecretUntil.getTime() > at.getTime()) secrets.push(delivery.previousSecret);
    const started = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    try {
      const headers = signedHeaders(secrets, messageId(delivery.eventId), Math.floor(at.getTime() / 1000), delivery.payload);
      const response = await outboundPost(delivery.url, headers, delivery.payload, { allowPrivateAddresses: deps.allowPrivateAddresses, timeoutMs });
      responseStatus = response.status;
      if (response.status < 200 || response.status >= 300) error = `the receiver answered ${response.status}`;
    } catch (failure) {
      if (!(failure instanceof OutboundError)) throw failure;
      error = failure.message;
    }
    const durationMs = Math.round(performance.now() - started);
    const base = {
      communityId: delivery.communityId,
      deliveryId: delivery.id,
      subscriptionId: delivery.subscriptionId,
      attempt: delivery.attempts,
      at,
      responseStatus,
      error,
      durationMs,
    };
    if (error === null) return { ...base, status: 'delivered', nextAttemptAt: null };
    const next = new Date(clock.now().getTime() + deliveryBackoff(delivery.attempts));
    if (next.getTime() > delivery.expiresAt.getTime()) return { ...base, status: 'failed', nextAttemptAt: null };
    return { ...base, status: 'pending', nextAttemptAt: next };
  }

  /** One round: claims the due deliveries, sends them (CONCURRENCY at a time), records the outcomes. */
  async function deliverRound(): Promise<number> {
    const now = clock.now();
    const claimed = await repo.claimDeliveries(db, now, new Date(now.getTime() + leaseMs), DELIVERY_BATCH, turns);
    if (claimed.length === 0) return 0;
    const outcomes: repo.AttemptOutcome[] = new Array(claimed.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, claimed.length) }, async () => {
        while (next < claimed.length) {
          const index = next++;
          outcomes[index] = await attempt(claimed[index]!);
        }
      }),
    );
    await writeTogether(db, repo.recordAttempts(outcomes, clock.now(), DISABLE_AFTER_MS));
    return claimed.length;
  }

  /** The worker's step: fan out and deliver until nothing is due or the budget is spent. */
  async function runStep(): Promise<void> {
    const deadline = Date.now() + STEP_BUDGET_MS;
    for (;;) {
      const fanned = await fanOut();
      const delivered = await Promise.all(
        Array.from({ length: LANES }, async () => {
          let sent = 0;
          for (let round = await deliverRound(); round > 0; round = Date.now() < deadline ? await deliverRound() : 0) sent += round;
          return sent;
        }),
      );
      if ((fanned === 0 && delivered.every((sent) => sent === 0)) || Date.now() >= deadline) return;
    }
  }

  deps.jobs.every({ name: 'webhooks.deliver', intervalMs: STEP_INTERVAL_MS, run: runStep });

  async function audited<T>(
    writer: Writer,
    operation: string,
    entityIds: string[],
    detail: Record<string, unknown> | undefined,
    write: (trx: Kysely<DB>) => Promise<T>,
  ): Promise<T> {
    return db.transaction().execute(async (trx) => {
      const result = await write(trx);
      await auditTx.recordWrite(trx, writer, { operation, entityIds, ...(detail ? { detail } : {}) });
      return result;
    });
  }

  return {
    /** The worker's step, run by hand (tests, the bench). */
    deliverNow: runStep,

    /** POST /api/v2/admin/webhooks. The answer carries the secret. */
    async create(writer: Writer, given: NewSubscription) {
      const url = readOutboundUrl(given.url, deps.allowPrivateAddresses);
      const kinds = readKinds(given.events);
      const filter = await readFilter(writer.communityId, kinds, given.lightFilter, given.filterEntity);
      const secret = newSecret();
      const row = await db.transaction().execute(async (trx) => {
        const created = await repo.insertSubscription(trx, {
          communityId: writer.communityId,
          url,
          eventKinds: kinds,
          description: given.description ?? null,
          ...filter,
          secret,
          now: clock.now(),
        });
        await auditTx.recordWrite(trx, writer, { operation: 'webhook.create', entityIds: [formatSubscriptionId(created.id)], detail: { url, events: kinds } });
        return created;
      });
      return { ...presentSubscription(row), secret };
    },

    async list(communityId: number) {
      return (await repo.listSubscriptions(db, communityId)).map(presentSubscription);
    },

    async get(communityId: number, id: number) {
      return presentSubscription(await subscriptionOf(communityId, id));
    },

    /** PATCH /api/v2/admin/webhooks/{id}: URL, events, description, filter. */
    async update(writer: Writer, id: number, changes: SubscriptionChanges) {
      const current = await subscriptionOf(writer.communityId, id);
      const url = changes.url === undefined ? undefined : readOutboundUrl(changes.url, deps.allowPrivateAddresses);
      const kinds = changes.events === undefined ? current.eventKinds : readKinds(changes.events);
      const filterChanged = changes.lightFilter !== undefined || changes.filterEntity !== undefined || changes.events !== undefined;
      const filter = filterChanged
        ? await readFilter(
            writer.communityId,
            kinds,
            changes.lightFilter === undefined ? current.lightFilter : changes.lightFilter,
            changes.filterEntity ?? (changes.lightFilter === null ? undefined : (current.filterEntity ?? undefined)),
          )
        : undefined;
      const row = await audited(writer, 'webhook.update', [formatSubscriptionId(id)], { fields: Object.keys(changes) }, (trx) =>
        repo.updateSubscription(
          trx,
          writer.communityId,
          id,
          { url, eventKinds: changes.events === undefined ? undefined : kinds, description: changes.description, filter },
          clock.now(),
        ),
      );
      return presentSubscription(row);
    },

    async remove(writer: Writer, id: number) {
      const row = await subscriptionOf(writer.communityId, id);
      await audited(writer, 'webhook.delete', [formatSubscriptionId(id)], undefined, (trx) => repo.deleteSubscription(trx, writer.communityId, id));
      return presentSubscription(row);
    },

    /** Pauses deliveries: events go on being fanned out to it, and wait until it is enabled again. */
    async disable(writer: Writer, id: number) {
      await subscriptionOf(writer.communityId, id);
      const row = await audited(writer, 'webhook.disable', [formatSubscriptionId(id)], undefined, (trx) =>
        repo.updateSubscription(trx, writer.communityId, id, { enabled: false, disabledReason: 'disabled by an admin' }, clock.now()),
      );
      return presentSubscription(row);
    },

    /** Delivers again: what is pending is tried now, with a new 3-day window. */
    async enable(writer: Writer, id: number) {
      await subscriptionOf(writer.communityId, id);
      const row = await audited(writer, 'webhook.enable', [formatSubscriptionId(id)], undefined, async (trx) => {
        const now = clock.now();
        const updated = await repo.updateSubscription(trx, writer.communityId, id, { enabled: true }, now);
        await repo.wakeDeliveries(trx, writer.communityId, id, now, new Date(now.getTime() + RETRY_WINDOW_MS));
        return updated;
      });
      return presentSubscription(row);
    },

    /** A new secret; the one it replaces signs too for `keepPreviousHours` (default 24; 0: not at all). */
    async rotateSecret(writer: Writer, id: number, keepPreviousHours = PREVIOUS_SECRET_HOURS) {
      const secret = newSecret();
      const row = await audited(writer, 'webhook.rotate_secret', [formatSubscriptionId(id)], { keepPreviousHours }, async (trx) => {
        const current = await subscriptionOf(writer.communityId, id, true, trx);
        const now = clock.now();
        return repo.updateSubscription(
          trx,
          writer.communityId,
          id,
          keepPreviousHours > 0
            ? { secret, previousSecret: current.secret, previousSecretUntil: new Date(now.getTime() + keepPreviousHours * 3_600_000) }
            : { secret, previousSecret: null, previousSecretUntil: null },
          now,
        );
      });
      return { ...presentSubscription(row), secret };
    },

    async deliveries(communityId: number, id: number, options: { status?: string; limit: number; before?: string }) {
      await subscriptionOf(communityId, id);
      const rows = await repo.listDeliveries(db, communityId, id, {
        status: options.status,
        limit: options.limit,
        before: options.before === undefined ? undefined : parseDeliveryId(options.before),
      });
      return rows.map(presentDelivery);
    },

    /** One delivery, with its attempts and the body it sends. */
    async delivery(communityId: number, deliveryId: number) {
      const row = await repo.findDelivery(db, communityId, deliveryId);
      if (!row) throw notFound('delivery_not_found', `no delivery ${formatId('delivery', deliveryId)}`);
      const attempts = await repo.attemptsOf(db, communityId, deliveryId);
      return {
        ...presentDelivery(row),
        payload: row.payload,
        attemptLog: attempts.map((a) => ({
          attempt: a.attempt,
          attemptedAt: a.attemptedAt.toISOString(),
          responseStatus: a.responseStatus,
          error: a.error,
          durationMs: a.durationMs,
        })),
      };
    },

    /** A new delivery of the same event, due now. */
    async redeliver(writer: Writer, deliveryId: number) {
      const row = await repo.findDelivery(db, writer.communityId, deliveryId);
      if (!row) throw notFound('delivery_not_found', `no delivery ${formatId('delivery', deliveryId)}`);
      const id = await audited(writer, 'webhook.redeliver', [formatId('delivery', deliveryId), formatSubscriptionId(row.subscriptionId)], undefined, (trx) => {
        const now = clock.now();
        return repo.redeliver(trx, writer.communityId, deliveryId, now, new Date(now.getTime() + RETRY_WINDOW_MS));
      });
      return presentDelivery((await repo.findDelivery(db, writer.communityId, id))!);
    },

    /**
     * `hearth webhook prune --before WHEN`: deletes the events older than WHEN that wait for nothing (every
     * community by default), in one transaction with a `webhook.prune` audit entry in each community that
     * lost some. They can no longer be replayed or redelivered.
     */
    async prune(communityId: number | null, before: string, actor: string): Promise<{ before: Date; deleted: number }> {
      const cutoff = pointInTime('before', before, clock.now());
      const deleted = await db.transaction().execute(async (trx) => {
        const counts = await repo.deleteEventsBefore(trx, communityId, cutoff);
        for (const [community, count] of counts) {
          await auditTx.recordWrite(
            trx,
            { communityId: community, actor, tokenId: null },
            { operation: 'webhook.prune', entityIds: [], detail: { before: cutoff.toISOString(), deleted: count } },
          );
        }
        return [...counts.values()].reduce((sum, count) => sum + count, 0);
      });
      return { before: cutoff, deleted };
    },

    /** Every event of the subscription's kinds since `since` (that its filter selects now), delivered again. */
    async replay(writer: Writer, id: number, since: Date, until?: Date) {
      const subscription = await subscriptionOf(writer.communityId, id);
      const now = clock.now();
      if (Number.isNaN(since.getTime())) throw invalidParameters('since must be a date-time');
      if (until && until.getTime() < since.getTime()) throw invalidParameters('until is before since');
      const filter = await compiledFilter(subscription);
      const count = await audited(writer, 'webhook.replay', [formatSubscriptionId(id)], { since: since.toISOString() }, (trx) =>
        repo.insertDeliveries(trx, subscription, { since, until: until ?? null }, filter, now, new Date(now.getTime() + RETRY_WINDOW_MS)),
      );
      return { webhookId: formatSubscriptionId(id), since: since.toISOString(), deliveries: count };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
