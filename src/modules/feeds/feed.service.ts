import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { conflict, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, parseId } from '../../core/ids.ts';
import { OutboundError, outboundGet, readOutboundUrl } from '../../core/outbound.ts';
import type { Writer } from '../../core/writer.ts';
import type { JobOf, JobQueue } from '../../jobs/job-queue.ts';
import { auditTx } from '../audit/index.ts';
import { type Parent, companyUpdateTx } from '../company-updates/index.ts';
import { FEED_KINDS, FeedFormatError, isBoard, parseBoard, parseNewsFeed, type FeedKind } from './feed-formats.ts';
import * as feeds from './feed.repository.ts';
import type { FeedRow } from './feed.repository.ts';

export const DEFAULT_INTERVAL_MINUTES = 360;

/** The longest a feed waits after failures in a row before it is tried again (then its own interval). */
const BACKOFF_BASE_MS = 60_000;

export interface NewFeed {
  organizationId?: string;
  objectId?: string;
  kind: FeedKind;
  url: string;
  intervalMinutes?: number;
}

/** A feed as admins see it. */
export function presentFeed(feed: FeedRow) {
  return {
    id: formatId('feed', feed.id),
    organizationId: feed.organizationId === null ? null : formatId('organization', feed.organizationId),
    objectId: feed.objectId === null ? null : formatId('object', feed.objectId),
    kind: feed.kind,
    url: feed.url,
    intervalMinutes: feed.intervalMinutes,
    lastFetchedAt: feed.lastFetchedAt?.toISOString() ?? null,
    lastStatus: feed.lastStatus,
    failures: feed.failures,
    nextFetchAt: feed.nextFetchAt.toISOString(),
    createdAt: feed.createdAt.toISOString(),
  };
}

/** `feed_N` as admins name a feed; a 400 for anything else. */
export function parseFeedId(value: string): number {
  return parseId('feed', value);
}

export function createFeedService(deps: { db: Kysely<DB>; clock: Clock; jobs: JobQueue; allowPrivateFetch: boolean }) {
  const { db, clock, jobs } = deps;

  async function feedOf(communityId: number, id: number): Promise<FeedRow> {
    const feed = await feeds.findFeed(db, communityId, id);
    if (!feed) throw notFound('feed_not_found', `no feed ${formatId('feed', id)}`);
    return feed;
  }

  /** The fetch job: fetches the feed and stores what it holds, in one transaction with the feed's new state. */
  async function runFetch(job: JobOf<'feeds.fetch'>) {
    const { communityId, payload } = job;
    const feed = await feeds.findFeed(db, communityId, payload.feedId);
    // Removed since the job was made.
    if (!feed) return { skipped: 'the feed was removed' };
    const now = clock.now();
    // A scheduled fetch whose round was already done: the same job again after a crash that followed its
    // commit. The next round's job exists.
    if (payload.scheduled && feed.nextFetchAt.getTime() > now.getTime() + 1_000) return { skipped: 'already fetched' };

    const headers: Record<string, string> = {
      accept: isBoard(feed.kind) ? 'application/json' : 'application/rss+xml, application/atom+xml, application/xml, text/xml',
    };
    if (feed.etag) headers['if-none-match'] = feed.etag;
    if (feed.lastModified) headers['if-modified-since'] = feed.lastModified;
    const parent: Parent = feed.organizationId !== null ? { kind: 'organization', id: feed.organizationId } : { kind: 'object', id: feed.objectId! };

    let outcome: { status: string; failed: boolean; etag?: string | null; lastModified?: string | null };
    let write: ((trx: Transaction<DB>) => Promise<void>) | null = null;
    let stored: { added: number; changed: number; closed: number } | null = null;
    try {
      const response = await outboundGet(feed.url, headers, { allowPrivateAddresses: deps.allowPrivateFetch });
      if (response.status === 304) {
        outcome = { status: 'not modified', failed: false };
      } else if (response.status < 200 || response.status >= 300) {
        outcome = { status: `the server answered ${response.status}`, failed: true };
      } else {
        const validators = { etag: header(response.headers.etag), lastModified: header(response.headers['last-modified']) };
        if (isBoard(feed.kind)) {
          const openings = parseBoard(feed.kind as Exclude<FeedKind, 'rss'>, response.body);
          outcome = { status: `ok: ${openings.length} openings listed`, failed: false, ...validators };
          write = async (trx) => {
            const written = await companyUpdateTx.upsertJobOpenings(
              trx,
              communityId,
              dedupe(openings).map((opening) => ({ ...opening, parent, isClosed: false, feedId: feed.id })),
              now,
            );
            const closed = await companyUpdateTx.closeOpeningsNotListed(
              trx,
              communityId,
              feed.id,
              openings.map((opening) => opening.key),
            );
            stored = { ...written, closed };
          };
        } else {
          const items = parseNewsFeed(response.body);
          outcome = { status: `ok: ${items.length} news items`, failed: false, ...validators };
          write = async (trx) => {
            stored = {
              ...(await companyUpdateTx.upsertNews(
                trx,
                communityId,
                dedupe(items).map((item) => ({ ...item, parent, feedId: feed.id })),
              )),
              closed: 0,
            };
          };
        }
      }
    } catch (error) {
      if (!(error instanceof OutboundError || error instanceof FeedFormatError)) throw error;
      outcome = { status: error.message, failed: true };
    }

    const failures = outcome.failed ? feed.failures + 1 : 0;
    const intervalMs = feed.intervalMinutes * 60_000;
    const waitMs = outcome.failed ? Math.min(intervalMs, BACKOFF_BASE_MS * 2 ** Math.min(failures - 1, 20)) : intervalMs;
    const nextFetchAt = payload.scheduled ? new Date(now.getTime() + waitMs) : undefined;
    await db.transaction().execute(async (trx) => {
      // The feed may have gone while it was fetched: then nothing is stored.
      if (!(await feeds.findFeed(trx, communityId, feed.id, true))) return;
      await write?.(trx);
      await feeds.recordFetch(trx, communityId, feed.id, { ...outcome, at: now, nextFetchAt });
      if (nextFetchAt) await jobs.enqueue(trx, { communityId, kind: 'feeds.fetch', payload: { feedId: feed.id, scheduled: true }, runAt: nextFetchAt });
    });
    return { status: outcome.status, ...(stored ?? {}) };
  }

  return {
    /** Runs the jobs of kind `feeds.fetch` (the root hands it to the queue). */
    runFetch,

    /** POST /api/v2/admin/feeds: a feed of an organization or custom object, fetched at once and then on schedule. */
    async add(writer: Writer, given: NewFeed) {
      if (!FEED_KINDS.includes(given.kind)) throw invalidParameters(`kind must be one of ${FEED_KINDS.join(', ')}`);
      const url = readOutboundUrl(given.url, deps.allowPrivateFetch);
      const parent = await companyUpdateTx.findParent(db, writer.communityId, given);
      try {
        return await db.transaction().execute(async (trx) => {
          const now = clock.now();
          const feed = await feeds.insertFeed(trx, {
            communityId: writer.communityId,
            parent,
            kind: given.kind,
            url,
            intervalMinutes: given.intervalMinutes ?? DEFAULT_INTERVAL_MINUTES,
            now,
          });
          await jobs.enqueue(trx, { communityId: writer.communityId, kind: 'feeds.fetch', payload: { feedId: feed.id, scheduled: true }, runAt: now });
          await auditTx.recordWrite(trx, writer, {
            operation: 'feed.create',
            entityIds: [formatId('feed', feed.id), formatId(parent.kind, parent.id)],
            detail: { kind: feed.kind, url: feed.url },
          });
          return presentFeed(feed);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`${formatId(parent.kind, parent.id)} already has a feed at ${url}`);
        throw error;
      }
    },

    async list(communityId: number) {
      return (await feeds.listFeeds(db, communityId)).map(presentFeed);
    },

    async get(communityId: number, id: number) {
      return presentFeed(await feedOf(communityId, id));
    },

    /** DELETE /api/v2/admin/feeds/{id}: what the feed brought stays. */
    async remove(writer: Writer, id: number) {
      await feedOf(writer.communityId, id);
      await db.transaction().execute(async (trx) => {
        await feeds.deleteFeed(trx, writer.communityId, id);
        await auditTx.recordWrite(trx, writer, { operation: 'feed.delete', entityIds: [formatId('feed', id)] });
      });
    },

    /** POST /api/v2/admin/feeds/{id}/fetch: a fetch now, as a job; the schedule is left as it is. */
    async fetchNow(writer: Writer, id: number) {
      await feedOf(writer.communityId, id);
      return db.transaction().execute(async (trx) => {
        const job = await jobs.enqueueOnce(trx, { communityId: writer.communityId, kind: 'feeds.fetch', payload: { feedId: id, scheduled: false } });
        await auditTx.recordWrite(trx, writer, { operation: 'feed.fetch', entityIds: [formatId('feed', id)], detail: { jobId: job.id } });
        return { jobId: job.id };
      });
    },
  };
}

export type FeedService = ReturnType<typeof createFeedService>;

function header(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** One item per key: a feed that lists an item twice gives its last listing. */
function dedupe<T extends { key: string }>(items: T[]): T[] {
  return [...new Map(items.map((item) => [item.key, item])).values()];
}
