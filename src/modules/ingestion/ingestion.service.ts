import { randomUUID } from 'node:crypto';
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { Static } from 'typebox';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { HearthError, notFound } from '../../core/errors.ts';
import { checkRepeatedSource } from '../../core/core-bodies.ts';
import { formatId } from '../../core/ids.ts';
import { compileBodyValidator, describeValidation, findInvalidText } from '../../core/validation.ts';
import type { ActivityTypeService } from '../activity-types/index.ts';
import type { Writer } from '../../core/writer.ts';
import type { PushOrigin } from '../identity/index.ts';
import { sourceTx } from '../sources/index.ts';
import type { PushOutcome } from './ingest-one.ts';
import { replaceReport, reportsOfOthers, type ReportedBacklog } from './backlog.repository.ts';
import { createIngestionQueue } from './ingestion-queue.ts';
import { ActivityPushBody, UserPushBody } from './ingestion.schemas.ts';
import { readActivityPush, readUserPush, textRead, type PushItem, type ReadPush } from './push-item.ts';

export interface Accepted {
  status: 'accepted';
  contactId: string | null;
  activityId?: string | null;
  warnings: string[];
}

/** How often a serving process reports its backlog, and how old a report may be to count. */
export const REPORT_EVERY_MS = 5_000;
const REPORT_STALE_MS = 3 * REPORT_EVERY_MS;

/** A community's ingestion backlog over the processes that report one. */
export interface Backlog {
  queuedPushes: number;
  oldestQueuedMs: number | null;
  storedLastMinute: number;
  batchesLastMinute: number;
  processes: number;
}

/** Sums the processes' reports of one community; a process with nothing waiting and nothing stored counts for nothing. */
function combineBacklogs(own: ReportedBacklog, others: ReportedBacklog[], now: Date): Backlog {
  const busy = [own, ...others].filter((row) => row.queuedPushes > 0 || row.storedLastMinute > 0);
  const oldest = busy.flatMap((row) => (row.oldestQueuedAt ? [row.oldestQueuedAt.getTime()] : []));
  return {
    queuedPushes: busy.reduce((sum, row) => sum + row.queuedPushes, 0),
    oldestQueuedMs: oldest.length ? Math.max(0, now.getTime() - Math.min(...oldest)) : null,
    storedLastMinute: busy.reduce((sum, row) => sum + row.storedLastMinute, 0),
    batchesLastMinute: busy.reduce((sum, row) => sum + row.batchesLastMinute, 0),
    processes: busy.length,
  };
}

/** One item of a batch push: stored, or refused with what is wrong with it. */
export type BatchItemAnswer = ({ index: number } & Accepted) | { index: number; status: 'rejected'; errors: string[] };

/** How long reading a batch's items may hold the event loop at a time. */
const YIELD_AFTER_MS = 5;

const SUPPRESSED_WARNING = 'this person asked for their personal information to be removed; nothing of this push was stored';

const checkUserItem = compileBodyValidator(UserPushBody);
const checkActivityItem = compileBodyValidator(ActivityPushBody);

export function createIngestionService(deps: { db: Kysely<DB>; clock: Clock; activityTypes: ActivityTypeService; citus: boolean }) {
  // One clock for the queue's times and the reports' (src/clock.ts).
  const queue = createIngestionQueue({
    db: deps.db,
    citus: deps.citus,
    now: () => deps.clock.now().getTime(),
    onIdle: reportIfWaitingShown,
  });
  const processId = randomUUID();
  // Reports are written one after another: two at once would both insert this process's rows.
  let reports: Promise<void> = Promise.resolve();
  let reporting: { timer: NodeJS.Timeout; onError(error: unknown): void } | null = null;
  // The communities whose last report counted pushes waiting.
  let waitingShown = new Set<number>();

  function report(): Promise<void> {
    const next = reports.then(async () => {
      const rows = queue.active().map(ownReport);
      waitingShown = new Set(rows.filter((row) => row.queuedPushes > 0).map((row) => row.communityId));
      await replaceReport(deps.db, processId, rows, deps.clock.now());
    });
    reports = next.catch(() => undefined);
    return next;
  }

  function withdraw(): Promise<void> {
    const next = reports.then(() => replaceReport(deps.db, processId, [], deps.clock.now()));
    reports = next.catch(() => undefined);
    return next;
  }

  /**
   * When a community's queue empties after a report showed pushes waiting, reports again at once: otherwise
   * readers would see answered pushes as waiting until the next report.
   */
  function reportIfWaitingShown(communityId: number): void {
    if (reporting && waitingShown.has(communityId)) report().catch(reporting.onError);
  }

  function ownReport(communityId: number): ReportedBacklog {
    const own = queue.backlog(communityId);
    const at = deps.clock.now().getTime();
    return {
      communityId,
      queuedPushes: own.queuedPushes,
      oldestQueuedAt: own.oldestQueuedMs === null ? null : new Date(at - own.oldestQueuedMs),
      storedLastMinute: own.storedLastMinute,
      batchesLastMinute: own.batchesLastMinute,
    };
  }

  // Sources are never deleted, so one found once is known from then on: a push needs no statement to
  // check its source (on the embedded database, every statement waits for the one connection).
  const knownSources = new Set<string>();

  /** Where pushes of this route go: the caller's community's source, which must exist. */
  async function originOf(writer: Writer, sourceId: number): Promise<PushOrigin> {
    const key = `${writer.communityId}:${sourceId}`;
    if (!knownSources.has(key)) {
      if (!(await sourceTx.findSource(deps.db, writer.communityId, sourceId))) throw notFound('source_not_found', `no source ${sourceId}`);
      if (knownSources.size >= 10_000) knownSources.clear();
      knownSources.add(key);
    }
    return { communityId: writer.communityId, sourceId, now: deps.clock.now() };
  }

  /** Activity types seen in this request, looked up once each. */
  function typeChecker(communityId: number) {
    const known = new Map<string, Promise<boolean>>();
    return (activityType: string) => {
      let accepted = known.get(activityType);
      if (!accepted) known.set(activityType, (accepted = deps.activityTypes.accepts(communityId, activityType)));
      return accepted;
    };
  }

  async function storeOne(push: ReadPush, withActivity: boolean): Promise<Accepted> {
    const item = await textRead(push);
    const [outcome] = await queue.submit(item.origin.communityId, [item]);
    return answerOf(item, outcome!, withActivity);
  }

  /** Reads each item (a bad one is refused by itself), then stores the good ones together, in order. */
  async function storeBatch(writer: Writer, bodies: unknown[], read: (body: unknown, index: number) => Promise<ReadPush>): Promise<BatchItemAnswer[]> {
    const answers: BatchItemAnswer[] = [];
    const pushes: { index: number; push: ReadPush }[] = [];
    let since = performance.now();
    for (const [index, body] of bodies.entries()) {
      // Reading a push is CPU work (names, identities, places; its text goes to the text reader's thread): a
      // long batch gives the event loop back every few milliseconds, so that the transactions of other
      // requests go on meanwhile instead of waiting.
      if (performance.now() - since > YIELD_AFTER_MS) {
        await afterPendingIo();
        since = performance.now();
      }
      try {
        pushes.push({ index, push: await read(body, index) });
      } catch (error) {
        if (!(error instanceof HearthError) || error.kind !== 'invalid') throw error;
        answers[index] = { index, status: 'rejected', errors: error.message.split('; ') };
      }
    }
    const items = await Promise.all(pushes.map(async ({ index, push }) => ({ index, item: await textRead(push) })));
    const outcomes = await queue.submit(
      writer.communityId,
      items.map(({ item }) => item),
    );
    items.forEach(({ index, item }, at) => (answers[index] = { index, ...answerOf(item, outcomes[at]!, item.activity !== null) }));
    return answers;
  }

  return {
    async pushUser(writer: Writer, sourceId: number, body: Static<typeof UserPushBody>): Promise<Accepted> {
      checkRepeatedSource(sourceId, body.destinationSourceId, 'destinationSourceId');
      const origin = await originOf(writer, sourceId);
      return storeOne(await readUserPush(deps.db, writer, origin, body), false);
    },

    async pushActivity(writer: Writer, sourceId: number, body: Static<typeof ActivityPushBody>): Promise<Accepted> {
      checkRepeatedSource(sourceId, body.destinationSourceId, 'destinationSourceId');
      const origin = await originOf(writer, sourceId);
      return storeOne(await readActivityPush(deps.db, writer, origin, body, typeChecker(origin.communityId)), true);
    },

    /** Up to MAX_BATCH user pushes into one source: one answer per item, a bad item refused by itself. */
    async pushUsers(writer: Writer, sourceId: number, bodies: unknown[]): Promise<BatchItemAnswer[]> {
      const origin = await originOf(writer, sourceId);
      return storeBatch(writer, bodies, async (body) => {
        const checked = checkItem(checkUserItem, body) as Static<typeof UserPushBody>;
        checkRepeatedSource(sourceId, checked.destinationSourceId, 'destinationSourceId');
        return readUserPush(deps.db, writer, origin, checked);
      });
    },

    /** Up to MAX_BATCH activity pushes into one source, as pushUsers. */
    async pushActivities(writer: Writer, sourceId: number, bodies: unknown[]): Promise<BatchItemAnswer[]> {
      const origin = await originOf(writer, sourceId);
      const accepts = typeChecker(origin.communityId);
      return storeBatch(writer, bodies, async (body) => {
        const checked = checkItem(checkActivityItem, body) as Static<typeof ActivityPushBody>;
        checkRepeatedSource(sourceId, checked.destinationSourceId, 'destinationSourceId');
        return readActivityPush(deps.db, writer, origin, checked, accepts);
      });
    },

    /**
     * The community's backlog over every serving process: this one's as it is, the others' as they last
     * reported it (within REPORT_STALE_MS).
     */
    async backlog(communityId: number): Promise<Backlog> {
      const others = await reportsOfOthers(deps.db, processId, new Date(deps.clock.now().getTime() - REPORT_STALE_MS), communityId);
      return combineBacklogs(ownReport(communityId), others, deps.clock.now());
    },

    /** Every community's backlog as the serving processes last reported it (`hearth ingestion`). */
    async backlogs(): Promise<({ communityId: number } & Backlog)[]> {
      const others = await reportsOfOthers(deps.db, processId, new Date(deps.clock.now().getTime() - REPORT_STALE_MS));
      const ids = [...new Set([...queue.active(), ...others.map((row) => row.communityId)])].sort((a, b) => a - b);
      return ids.map((communityId) => ({
        communityId,
        ...combineBacklogs(
          ownReport(communityId),
          others.filter((row) => row.communityId === communityId),
          deps.clock.now(),
        ),
      }));
    },

    /** Writes this process's backlog where other processes and `hearth` read it. */
    report,

    /** Reports every REPORT_EVERY_MS, and when a queue empties that a report showed waiting, until stopReporting. */
    startReporting(onError: (error: unknown) => void): void {
      if (reporting) return;
      const timer = setInterval(() => report().catch(onError), REPORT_EVERY_MS).unref();
      reporting = { timer, onError };
    },

    /** Stops reporting and removes this process's report, when it stops serving. */
    async stopReporting(): Promise<void> {
      if (reporting) clearInterval(reporting.timer);
      reporting = null;
      await withdraw();
    },

    /** Removes this process's report. */
    withdraw,
  };
}

export type IngestionService = ReturnType<typeof createIngestionService>;

/** An item of a batch checked as the single push's body is by its route: a 400's message when it is not. */
function checkItem(validate: ReturnType<typeof compileBodyValidator>, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidItem('an item must be a JSON object');
  if (!validate(body)) throw invalidItem(describeValidation(validate.errors ?? [], 'body'));
  const text = findInvalidText(body);
  if (text) throw invalidItem(`${text.path} ${text.problem}`);
  return body;
}

function invalidItem(message: string): HearthError {
  return new HearthError('invalid_parameters', message, { coreReason: 'invalid-request-body' });
}

function answerOf(item: PushItem, outcome: PushOutcome, withActivity: boolean): Accepted {
  if (outcome.contactId === null) {
    return { status: 'accepted', contactId: null, ...(withActivity ? { activityId: null } : {}), warnings: unique([...item.warnings, SUPPRESSED_WARNING]) };
  }
  return {
    status: 'accepted',
    contactId: formatId('contact', outcome.contactId),
    ...(withActivity ? { activityId: formatId('activity', outcome.activityId!) } : {}),
    warnings: unique([...item.warnings, ...outcome.warnings]),
  };
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
