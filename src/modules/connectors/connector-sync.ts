import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB, JsonValue } from '../../db/schema.ts';
import { CommunityTurns } from '../../core/community-turns.ts';
import { formatId } from '../../core/ids.ts';
import type { Writer } from '../../core/writer.ts';
import type { JobContext, JobOf, JobPayloads, JobQueue } from '../../jobs/job-queue.ts';
import type { IngestionService } from '../ingestion/index.ts';
import {
  CredentialRejected,
  RateLimitWait,
  type ConnectorKind,
  type Headers,
  type PlatformAccess,
  type StreamPage,
  type Translation,
} from './connector-kind.ts';
import { openSecrets, redactSecrets, SecretsUnreadable, type SecretsKey } from './connector-secrets.ts';
import * as connectors from './connector.repository.ts';
import type { ConnectorRow, DeliveryRow } from './connector.repository.ts';

export const CONNECTOR_SYNC_JOB = 'connector.sync';

export type SyncPayload = JobPayloads['connector.sync'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKind = ConnectorKind<any, any>;

/** Pushes stored per call of the batch ingestion path (its batch limit). */
const PUSH_BATCH = 1_000;
/** People whose profiles are asked for at a time. */
const PROFILE_BATCH = 50;
/** Deliveries claimed at a time, and how long a claim holds. */
const DELIVERY_BATCH = 50;
const DELIVERY_LEASE_MS = 5 * 60_000;
/** Attempts at a delivery whose processing fails (the database, a bug) before it is set aside with its error. */
const MAX_DELIVERY_ATTEMPTS = 5;
const RETRY_STEP_MS = 30_000;
/** How long a processed delivery is kept (its outcome, for an admin to look at), then deleted with its payload. */
export const DELIVERY_RETENTION_MS = 14 * 24 * 3_600_000;
/** The shortest wait for a platform that asked to wait (see waitUntil). */
const MIN_WAIT_MS = 30_000;
/** Item errors kept in a delivery's outcome (all are counted). */
const MAX_LISTED_ERRORS = 20;

/** The sync stopped at a page boundary because the worker is stopping: the job is given back, to go on from the checkpoint. */
class SyncStopped extends Error {
  constructor() {
    super('the sync stopped at a page boundary because the worker is stopping; it goes on from its checkpoints on the next start');
  }
}

interface Stored {
  users: number;
  activities: number;
  rejected: { kind: 'user' | 'activity'; index: number; errors: string[] }[];
  rejectedCount: number;
  /** Pushes about people erased on request: accepted, nothing stored. */
  suppressed: number;
  /** Their platform user IDs: not recorded as people the connector saw (a profile would be asked for them). */
  suppressedPeople: Set<string>;
}

/** The writer of a connector's pushes: the connector, as the audit log shows it. */
const connectorWriter = (communityId: number, sourceId: number): Writer => ({
  communityId,
  actor: `connector:${formatId('provider', sourceId)}`,
  tokenId: null,
});

const userIdOf = (user: { id?: unknown } | undefined): string | null => (user?.id === undefined || user.id === null ? null : String(user.id));

/** The platform user IDs a translation names: activities' people and users. */
export function peopleOf(translation: Translation): string[] {
  const ids: string[] = [];
  for (const user of translation.users) {
    const id = userIdOf(user);
    if (id !== null) ids.push(id);
  }
  for (const activity of translation.activities) {
    const id = userIdOf((activity as { user?: { id?: unknown } }).user);
    if (id !== null) ids.push(id);
  }
  return [...new Set(ids)];
}

/**
 * A platform's text can hold NUL characters (a comment pasted from a binary file), which the database keeps in
 * no text column and the ingestion path therefore refuses: a record is stored without them rather than lost.
 */
function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [withoutNul(key), withoutNul(item)])) as T;
  }
  return value;
}

type ItemAnswer = Awaited<ReturnType<IngestionService['pushUsers']>>[number];
type Answers = { users: ItemAnswer[]; activities: ItemAnswer[] };

/** What the items of a translation in the given ranges (start inclusive, end exclusive) came to. */
function tally(translation: Translation, answers: Answers, ranges: { users: [number, number]; activities: [number, number] }): Stored {
  const stored: Stored = { users: 0, activities: 0, rejected: [], rejectedCount: 0, suppressed: 0, suppressedPeople: new Set() };
  for (const kind of ['user', 'activity'] as const) {
    const [from, to] = kind === 'user' ? ranges.users : ranges.activities;
    for (let at = from; at < to; at += 1) {
      const answer = (kind === 'user' ? answers.users : answers.activities)[at]!;
      if (answer.status === 'accepted' && answer.contactId === null) {
        // The person was erased on request: the ingestion path stored nothing, and says so this way.
        stored.suppressed += 1;
        const id = userIdOf(kind === 'user' ? translation.users[at] : (translation.activities[at] as { user?: { id?: unknown } } | undefined)?.user);
        if (id !== null) stored.suppressedPeople.add(id);
      } else if (answer.status === 'accepted') {
        if (kind === 'user') stored.users += 1;
        else stored.activities += 1;
      } else {
        stored.rejectedCount += 1;
        if (stored.rejected.length < MAX_LISTED_ERRORS) stored.rejected.push({ kind, index: at - from, errors: answer.errors });
      }
    }
  }
  return stored;
}

export function createConnectorSync(deps: {
  db: Kysely<DB>;
  clock: Clock;
  jobs: JobQueue;
  ingestion: IngestionService;
  kinds: Map<string, AnyKind>;
  key: SecretsKey;
  /** How a run reaches the platform (the service's outbound rules and its kinds' cache). */
  access(signal: AbortSignal): PlatformAccess;
  syncIntervalMs: number;
  log?: { warn(details: object, message: string): void };
}) {
  const { db, clock, jobs, ingestion } = deps;
  /** The communities with deliveries waiting take turns (core/community-turns.ts). */
  const turns = new CommunityTurns();

  /** Pushes a translation through the batch ingestion path, users first, then activities: one answer per item, in order. */
  async function push(writer: Writer, sourceId: number, translation: Translation): Promise<Answers> {
    const answers: Answers = { users: [], activities: [] };
    for (let at = 0; at < translation.users.length; at += PUSH_BATCH) {
      answers.users.push(...(await ingestion.pushUsers(writer, sourceId, translation.users.slice(at, at + PUSH_BATCH))));
    }
    for (let at = 0; at < translation.activities.length; at += PUSH_BATCH) {
      answers.activities.push(...(await ingestion.pushActivities(writer, sourceId, translation.activities.slice(at, at + PUSH_BATCH))));
    }
    return answers;
  }

  /** Stores a translation through the batch ingestion path; refused items are returned, not thrown. */
  async function store(writer: Writer, sourceId: number, given: Translation): Promise<Stored> {
    const translation = withoutNul(given);
    const answers = await push(writer, sourceId, translation);
    return tally(translation, answers, { users: [0, translation.users.length], activities: [0, translation.activities.length] });
  }

  /**
   * The connector waits until `until` (a rate limit): its state says so, and the sync runs again then. A time
   * already past (a reset GitHub gave by a clock behind ours, a Retry-After of 0) is a short wait, not a
   * sync started again at once, and again, while the platform keeps refusing.
   */
  async function waitUntil(connector: ConnectorRow, asked: Date, reason: string): Promise<JsonValue> {
    const until = new Date(Math.max(asked.getTime(), clock.now().getTime() + MIN_WAIT_MS));
    await db.transaction().execute(async (trx) => {
      await connectors.updateConnector(trx, connector.communityId, connector.sourceId, { state: 'waiting', waitingUntil: until, reason }, clock.now());
      // A new job, not enqueueOnce: this job is still running, and would be found instead.
      await jobs.enqueue(trx, {
        communityId: connector.communityId,
        kind: CONNECTOR_SYNC_JOB,
        payload: { sourceId: connector.sourceId },
        runAt: until,
        maxAttempts: 8,
      });
    });
    return { sourceId: connector.sourceId, waitingUntil: until.toISOString(), reason };
  }

  async function runSync(job: JobOf<'connector.sync'>, context: JobContext): Promise<JsonValue> {
    const { sourceId } = job.payload;
    const { communityId } = job;
    let connector = await connectors.findConnector(db, communityId, sourceId);
    if (!connector) return { sourceId, skipped: 'the connector was removed' };
    if (connector.state === 'paused') return { sourceId, skipped: 'the connector is paused' };
    if (connector.state === 'failed') return { sourceId, skipped: `the connector failed: ${connector.reason ?? ''}` };
    const kind = deps.kinds.get(connector.kind);
    if (!kind) return { sourceId, skipped: `this server has no connector of kind ${connector.kind}` };
    const now = clock.now();
    if (connector.state === 'waiting' && connector.waitingUntil && connector.waitingUntil > now) {
      // Brought forward (a "sync now" woke the job that waits): the platform's time still stands.
      return waitUntil(connector, connector.waitingUntil, connector.reason ?? 'waiting for the platform');
    }

    let secrets: Record<string, unknown>;
    try {
      secrets = connector.secrets ? openSecrets(deps.key, communityId, sourceId, connector.secrets) : {};
    } catch (error) {
      if (!(error instanceof SecretsUnreadable)) throw error;
      await connectors.updateConnector(db, communityId, sourceId, { state: 'failed', reason: error.message, waitingUntil: null }, clock.now());
      return { sourceId, failed: error.message };
    }

    const writer = connectorWriter(communityId, sourceId);
    const access = deps.access(context.signal);
    const settings = connector.settings;
    const totals = { pages: 0, users: 0, activities: 0, rejected: 0, profiles: 0 };
    try {
      const names = await kind.streams(settings, secrets, access);
      await connectors.ensureStreams(db, communityId, sourceId, names, clock.now());
      const rows = new Map((await connectors.listStreams(db, communityId, sourceId)).map((row) => [row.stream, row]));
      const backfilling = names.some((name) => !rows.get(name)?.done);
      await connectors.updateConnector(db, communityId, sourceId, { state: backfilling ? 'backfilling' : 'active', waitingUntil: null }, clock.now());

      for (const name of names) {
        let checkpoint = rows.get(name)?.checkpoint ?? null;
        // The next page, read while this one is stored: the platform's answer and its translation (this
        // process's work) overlap the database's. A sync that stops early leaves it unstored, and the next
        // sync reads it again (docs/connectors.md, "Sync and checkpoints").
        let ahead: Promise<StreamPage> | null = null;
        for (;;) {
          if (context.signal.aborted) throw new SyncStopped();
          // Paused meanwhile: stop at this page boundary; resuming enqueues a sync that goes on from here.
          connector = await connectors.findConnector(db, communityId, sourceId);
          if (!connector) return { sourceId, skipped: 'the connector was removed', ...totals };
          if (connector.state === 'paused') return { sourceId, paused: true, ...totals };
          const previous = checkpoint;
          const page = await (ahead ?? kind.page(name, checkpoint, settings, secrets, access));
          ahead = null;
          // A platform that answers the same page again and again (a `next` link to itself) would keep the sync
          // here for ever. The page was stored when it was first read: read again, it is not counted again.
          if (!page.done && JSON.stringify(page.checkpoint) === JSON.stringify(previous)) {
            throw new Error(`stream ${name}: the platform gave a page that leads back to itself; the sync stops there and is tried again later`);
          }
          // Not past the end of the stream, nor past a wait the platform asked for.
          if (!page.done && !(page.pauseUntil && page.pauseUntil > clock.now())) {
            ahead = kind.page(name, page.checkpoint, settings, secrets, access);
            // Its failure (a limit, a refused credential) is met when it is awaited, as the page's own would be.
            ahead.catch(() => undefined);
          }
          const stored = await store(writer, sourceId, page.translation);
          const at = clock.now();
          // The stream's progress counts the platform's records read, not the pushes they made (a star is a
          // user and an activity), so that it compares with the platform's total. It is saved with the
          // checkpoint, in one transaction: a page read again after a crash was not counted the first time.
          const read = page.records ?? page.translation.activities.length;
          await db.transaction().execute(async (trx) => {
            await connectors.recordPeople(
              trx,
              communityId,
              sourceId,
              peopleOf(page.translation).filter((id) => !stored.suppressedPeople.has(id)),
              at,
            );
            await connectors.saveCheckpoint(
              trx,
              communityId,
              sourceId,
              name,
              { checkpoint: page.checkpoint, done: page.done, records: read, total: page.total },
              at,
            );
            await connectors.countHourly(trx, communityId, sourceId, at, { records: stored.users + stored.activities });
          });
          checkpoint = page.checkpoint;
          totals.pages += 1;
          totals.users += stored.users;
          totals.activities += stored.activities;
          totals.rejected += stored.rejectedCount;
          await context.progress({
            stream: name,
            pages: totals.pages,
            users: totals.users,
            activities: totals.activities,
            rejected: totals.rejected,
            total: page.total ?? null,
          });
          if (page.pauseUntil && page.pauseUntil > clock.now()) {
            return waitUntil(connector, page.pauseUntil, 'the platform asked for no more requests until then');
          }
          if (page.done) break;
        }
      }

      if (kind.profiles) {
        for (;;) {
          if (context.signal.aborted) throw new SyncStopped();
          const ids = await connectors.unprofiledPeople(db, communityId, sourceId, PROFILE_BATCH);
          if (ids.length === 0) break;
          const users = await kind.profiles(ids, settings, secrets, access);
          const stored = await store(writer, sourceId, { users, activities: [], skipped: [] });
          // Every ID asked for is done, found or not: a profile the platform does not give is not asked for again and again.
          await connectors.markProfiled(db, communityId, sourceId, ids, clock.now());
          await connectors.countHourly(db, communityId, sourceId, clock.now(), { records: stored.users });
          totals.profiles += stored.users;
          totals.rejected += stored.rejectedCount;
          await context.progress({
            stream: 'profiles',
            pages: totals.pages,
            users: totals.users,
            activities: totals.activities,
            profiles: totals.profiles,
            rejected: totals.rejected,
          });
        }
      }

      const done = clock.now();
      const latest = await connectors.findConnector(db, communityId, sourceId);
      if (latest && latest.state !== 'paused') {
        await connectors.updateConnector(
          db,
          communityId,
          sourceId,
          { state: 'active', reason: null, waitingUntil: null, lastSyncAt: done, nextSyncAt: new Date(done.getTime() + intervalOf(latest.kind)) },
          done,
        );
      }
      return { sourceId, ...totals };
    } catch (error) {
      // What the platform answered may echo the credential: never shown, stored or logged.
      const message = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
      if (error instanceof RateLimitWait) return waitUntil(connector!, error.until, message);
      if (error instanceof CredentialRejected) {
        await connectors.updateConnector(db, communityId, sourceId, { state: 'failed', reason: message, waitingUntil: null }, clock.now());
        return { sourceId, failed: message, ...totals };
      }
      if (error instanceof SyncStopped || context.signal.aborted) throw error;
      // Retried with the job's backoff; the reason is shown meanwhile.
      const next = context.attempt < context.maxAttempts ? 'it is retried' : 'the next periodic sync tries again';
      await connectors.updateConnector(db, communityId, sourceId, { reason: `the last sync attempt failed (${next}): ${message}` }, clock.now());
      // The job keeps its error too (`hearth jobs`), and the worker logs it: a plain error with the redacted
      // message and stack, without what a client library hangs on its errors (the request, the response).
      const redacted = new Error(message);
      if (error instanceof Error && error.stack) redacted.stack = redactSecrets(error.stack, secrets);
      throw redacted;
    }
  }

  let processing: Promise<void> | null = null;
  let again = false;

  /** Turns stored deliveries into pushes, oldest first, until none is waiting. */
  async function processDeliveries(): Promise<void> {
    for (;;) {
      const claimed = await connectors.claimDeliveries(db, clock.now(), DELIVERY_LEASE_MS, DELIVERY_BATCH, turns);
      if (claimed.length === 0) return;
      // A connector's deliveries of one claim are stored with one call of the batch path, as a sync's page is.
      const byConnector = new Map<string, DeliveryRow[]>();
      for (const delivery of claimed) {
        const key = `${delivery.communityId}:${delivery.sourceId}`;
        byConnector.set(key, [...(byConnector.get(key) ?? []), delivery]);
      }
      for (const deliveries of byConnector.values()) await processConnectorDeliveries(deliveries);
    }
  }

  /** Deliveries of one connector, in order of arrival. */
  async function processConnectorDeliveries(deliveries: DeliveryRow[]): Promise<void> {
    const { communityId, sourceId } = deliveries[0]!;
    const connector = await connectors.findConnector(db, communityId, sourceId);
    const kind = connector ? deps.kinds.get(connector.kind) : undefined;
    const translated: { delivery: DeliveryRow; translation: Translation }[] = [];
    for (const delivery of deliveries) {
      if (delivery.attempts > MAX_DELIVERY_ATTEMPTS) {
        // Tried and failed each time: set aside with its last error, so that later deliveries are not held up behind it.
        const last = await connectors.deliveryError(db, communityId, delivery.id);
        await connectors.finishDelivery(db, communityId, delivery.id, {
          outcome: { setAside: true },
          error: `set aside after ${MAX_DELIVERY_ATTEMPTS} failed attempts${last ? `: ${last}` : ''}`,
          now: clock.now(),
        });
        continue;
      }
      if (!connector || !kind?.receiver) {
        await connectors.finishDelivery(db, communityId, delivery.id, { outcome: {}, error: 'no connector of this kind on this server', now: clock.now() });
        continue;
      }
      try {
        const translation = kind.receiver.translate(
          { headers: delivery.headers as Headers, event: delivery.event, body: JSON.parse(delivery.payload) as unknown },
          connector.settings,
        );
        translated.push({ delivery, translation: withoutNul(translation) });
      } catch (error) {
        // A payload the connector cannot read is kept with why; it is not retried (it would fail the same way).
        const message = error instanceof Error ? error.message : String(error);
        await connectors.finishDelivery(db, communityId, delivery.id, {
          outcome: { translated: false },
          error: `not translated: ${message}`,
          now: clock.now(),
        });
      }
    }
    if (translated.length === 0) return;

    const combined: Translation = {
      users: translated.flatMap(({ translation }) => translation.users),
      activities: translated.flatMap(({ translation }) => translation.activities),
      skipped: [],
    };
    let answers: Answers;
    try {
      answers = await push(connectorWriter(communityId, sourceId), sourceId, combined);
    } catch (error) {
      // The database failed, not the deliveries: they are processed again later, a little later each time
      // (30 s, 2 min, 4.5 min, 8 min), and meanwhile the deliveries of other connectors are.
      for (const { delivery } of translated) {
        const retryAt = new Date(clock.now().getTime() + RETRY_STEP_MS * delivery.attempts ** 2);
        await connectors.releaseDelivery(db, communityId, delivery.id, error instanceof Error ? error.message : String(error), retryAt);
      }
      throw error;
    }

    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      let users = 0;
      let activities = 0;
      let records = 0;
      const seen: string[] = [];
      for (const { delivery, translation } of translated) {
        const stored = tally(combined, answers, {
          users: [users, users + translation.users.length],
          activities: [activities, activities + translation.activities.length],
        });
        users += translation.users.length;
        activities += translation.activities.length;
        records += stored.users + stored.activities;
        const people = peopleOf(translation);
        seen.push(...people.filter((id) => !stored.suppressedPeople.has(id)));
        await connectors.finishDelivery(trx, communityId, delivery.id, {
          outcome: {
            users: stored.users,
            activities: stored.activities,
            rejected: stored.rejectedCount,
            ...(stored.suppressed ? { suppressed: stored.suppressed, payloadErased: true } : {}),
            ...(stored.rejected.length && !stored.suppressed ? { errors: stored.rejected } : {}),
            ...(translation.skipped.length && !stored.suppressed ? { skipped: translation.skipped.slice(0, MAX_LISTED_ERRORS) } : {}),
          },
          error: stored.rejectedCount > 0 ? `${stored.rejectedCount} pushes were refused` : null,
          people,
          // It names a person erased on request: nothing of them was stored, and their words are not kept either.
          erasePayload: stored.suppressed > 0,
          now,
        });
      }
      await connectors.recordPeople(trx, communityId, sourceId, [...new Set(seen)], now);
      await connectors.countHourly(trx, communityId, sourceId, now, { records });
    });
  }

  /**
   * An erasure: the connectors' traces of people erased on request (platform user IDs by source), in the
   * erasure's transaction. The people they saw and the payloads of processed deliveries that named them are
   * forgotten; a delivery still waiting whose pushes are all about them is set down as processed without
   * its payload (the ingestion path would store nothing of it). One that names others too waits: processing
   * stores nothing of the erased person and then removes its payload.
   */
  async function forgetPeople(trx: Kysely<DB>, communityId: number, people: { sourceId: number; externalId: string }[]): Promise<number> {
    let emptied = 0;
    const sources = await connectors.connectorSources(trx, communityId, [...new Set(people.map((person) => person.sourceId))]);
    for (const source of sources) {
      const ids = new Set(people.filter((person) => person.sourceId === source.sourceId).map((person) => person.externalId));
      emptied += await connectors.forgetPlatformUsers(trx, communityId, source.sourceId, [...ids]);
      const receiver = deps.kinds.get(source.kind)?.receiver;
      if (!receiver) continue;
      for (let after = 0; ;) {
        const unread = await connectors.unreadDeliveries(trx, communityId, source.sourceId, after, DELIVERY_BATCH);
        if (unread.length === 0) break;
        for (const delivery of unread) {
          after = delivery.id;
          let named: string[];
          try {
            named =
              delivery.payload === ''
                ? []
                : peopleOf(
                    receiver.translate(
                      { headers: delivery.headers as Headers, event: delivery.event, body: JSON.parse(delivery.payload) as unknown },
                      source.settings,
                    ),
                  );
          } catch {
            continue;
          }
          if (delivery.processedAt !== null) {
            // Processed before its people were kept: emptied like the others that named them.
            if (named.some((id) => ids.has(id))) {
              await connectors.erasePayload(trx, communityId, delivery.id, named);
              emptied += 1;
            }
            continue;
          }
          if (named.length === 0 || !named.every((id) => ids.has(id))) continue;
          await connectors.finishDelivery(trx, communityId, delivery.id, {
            outcome: { users: 0, activities: 0, rejected: 0, suppressed: named.length, payloadErased: true },
            error: null,
            people: named,
            erasePayload: true,
            now: clock.now(),
          });
          emptied += 1;
        }
      }
    }
    return emptied;
  }

  /** Runs processDeliveries once at a time in this process; a call while it runs makes it go round once more. */
  function nudge(): void {
    if (processing) {
      again = true;
      return;
    }
    processing = (async () => {
      do {
        again = false;
        await processDeliveries();
      } while (again);
    })()
      .catch((error: unknown) => deps.log?.warn({ err: error }, 'connector deliveries could not be processed; the background step tries again'))
      .finally(() => (processing = null));
  }

  /** The time between a connector's syncs: the operator's interval, or its kind's when that is shorter. */
  function intervalOf(kindName: string): number {
    const own = deps.kinds.get(kindName)?.syncIntervalMs;
    return own === undefined ? deps.syncIntervalMs : Math.min(own, deps.syncIntervalMs);
  }

  /** Enqueues the periodic sync of every connector whose time has come. */
  async function enqueueDueSyncs(): Promise<number> {
    const now = clock.now();
    const due = await connectors.dueConnectors(db, now, 100);
    for (const { communityId, sourceId, kind } of due) {
      await db.transaction().execute(async (trx) => {
        await jobs.enqueueOnce(trx, { communityId, kind: CONNECTOR_SYNC_JOB, payload: { sourceId }, maxAttempts: 8 });
        // Pushed on now, so the step does not enqueue it again every round; a completed sync sets it from its end.
        await connectors.updateConnector(trx, communityId, sourceId, { nextSyncAt: new Date(now.getTime() + intervalOf(kind)) }, now);
      });
    }
    return due.length;
  }

  // Deliveries stored and not yet counted, by connector. One flush at a time writes them: deliveries arriving
  // together cost one count and one last-event write between them, instead of a transaction each queued on
  // the same two rows (its hour's count and the connector), holding database connections the receiver needs.
  const receipts = new Map<string, { communityId: number; sourceId: number; deliveries: number; last: Date }>();
  let flushing: Promise<void> | null = null;

  async function flushReceipts(): Promise<void> {
    while (receipts.size > 0) {
      const batch = [...receipts.values()];
      receipts.clear();
      for (const { communityId, sourceId, deliveries, last } of batch) {
        try {
          await db.transaction().execute(async (trx) => {
            await connectors.countHourly(trx, communityId, sourceId, last, { deliveries });
            await connectors.updateConnector(trx, communityId, sourceId, { lastEventAt: last }, last);
          });
        } catch (error) {
          deps.log?.warn({ err: error, sourceId, communityId }, 'the count of received deliveries could not be written');
        }
      }
    }
  }

  /**
   * A delivery was stored: its count and the connector's last event are written after the receiver answered
   * (a platform's answer does not wait for them), then it is processed.
   */
  function received(communityId: number, sourceId: number, at: Date): void {
    const key = `${communityId}:${sourceId}`;
    const receipt = receipts.get(key);
    if (receipt) {
      receipt.deliveries += 1;
      if (at > receipt.last) receipt.last = at;
    } else {
      receipts.set(key, { communityId, sourceId, deliveries: 1, last: at });
    }
    flushing ??= flushReceipts().finally(() => (flushing = null));
    nudge();
  }

  async function settled(): Promise<void> {
    while (processing || flushing) await Promise.all([processing, flushing]);
  }

  // One run at a time in a process, whether a receive or the step started it (deliveries stay in order).
  jobs.every({
    name: 'connectors.deliveries',
    intervalMs: 2_000,
    run: async () => {
      nudge();
      await settled();
    },
  });
  jobs.every({
    name: 'connectors.periodic-sync',
    intervalMs: 60_000,
    run: async () => {
      await enqueueDueSyncs();
      await connectors.pruneDeliveries(db, new Date(clock.now().getTime() - DELIVERY_RETENTION_MS), 1_000);
    },
  });

  return {
    runSync,
    processDeliveries,
    forgetPeople,
    received,
    nudge,
    enqueueDueSyncs,
    /** Resolves when the processing a receive started in this process is done. */
    settled,
  };
}
