import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { invalidParameters } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import type { ActivityTypeService } from '../activity-types/index.ts';
import * as stats from './stats.repository.ts';
import type { DayCount, Span } from './stats.repository.ts';
import {
  DEFAULT_SPAN_DAYS,
  HIGHLIGHT_LIMIT,
  MAX_SPAN_DAYS,
  type ActivityStatsData,
  type ActivityStatsQuery,
  type ContactStatsData,
  type ContactStatsQuery,
  type HighlightsData,
  type HighlightsQuery,
} from './stats.schemas.ts';

const DAY_MS = 86_400_000;
/** How often the worker folds waiting changes into the rollups; reads are exact without it, only cheaper after. */
export const FOLD_INTERVAL_MS = 10_000;
const COMMUNITIES_PER_FOLD = 100;
/** "sts" in ASCII: the lock that lets one worker at a time fold (two folds upserting the same keys could deadlock). */
const FOLD_LOCK = 0x737473;
/** Lead-score distributions have this many buckets between the lowest and highest value. */
const SCORE_BUCKETS = 10;
/** A topic surges when its share of the period's activities is at least this many times its earlier share, on at least MIN_SURGE activities. */
const SURGE_FACTOR = 2;
const MIN_SURGE = 3;

type Interval = 'day' | 'week';

interface Period extends Span {
  days: number;
}

interface Bucket {
  start: string;
  end: string;
}

const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function parseDay(name: string, value: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(ms) || dayText(ms) !== value) {
    throw invalidParameters(`${name} ${JSON.stringify(value)} is not a calendar date: use YYYY-MM-DD`);
  }
  return ms;
}

function periodOf(firstMs: number, days: number): Period {
  const lastMs = firstMs + (days - 1) * DAY_MS;
  return { first: dayText(firstMs), last: dayText(lastMs), from: new Date(firstMs), to: new Date(lastMs + DAY_MS), days };
}

/** The period asked for and the one before it (as many days, just before its first day). */
function periods(query: { startDate?: string; endDate?: string }, now: Date): { span: Period; previous: Period } {
  const endMs = query.endDate === undefined ? Date.parse(`${dayText(now.getTime())}T00:00:00Z`) : parseDay('endDate', query.endDate);
  const startMs = query.startDate === undefined ? endMs - (DEFAULT_SPAN_DAYS - 1) * DAY_MS : parseDay('startDate', query.startDate);
  if (startMs > endMs) throw invalidParameters(`startDate ${dayText(startMs)} is after endDate ${dayText(endMs)}`);
  const days = Math.round((endMs - startMs) / DAY_MS) + 1;
  if (days > MAX_SPAN_DAYS) throw invalidParameters(`the period from ${dayText(startMs)} to ${dayText(endMs)} is ${days} days; at most ${MAX_SPAN_DAYS}`);
  return { span: periodOf(startMs, days), previous: periodOf(startMs - days * DAY_MS, days) };
}

/** Every bucket of a period: its days, or its weeks from Monday (the first and last cut to the period). */
function bucketsOf(period: Period, interval: Interval): Bucket[] {
  const firstMs = period.from.getTime();
  const lastMs = period.to.getTime() - DAY_MS;
  const buckets: Bucket[] = [];
  let start = firstMs;
  while (start <= lastMs) {
    // getUTCDay: 0 Sunday .. 6 Saturday; a week ends on Sunday.
    const end = interval === 'day' ? start : Math.min(lastMs, start + ((7 - new Date(start).getUTCDay()) % 7) * DAY_MS);
    buckets.push({ start: dayText(start), end: dayText(end) });
    start = end + DAY_MS;
  }
  return buckets;
}

/** The bucket a day falls in (buckets in order, days as YYYY-MM-DD compare as text). */
function bucketFinder(buckets: Bucket[]): (day: string) => Bucket | undefined {
  return (day) => {
    let low = 0;
    let high = buckets.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const bucket = buckets[mid]!;
      if (day < bucket.start) high = mid - 1;
      else if (day > bucket.end) low = mid + 1;
      else return bucket;
    }
    return undefined;
  };
}

const change = (count: number, previous: number) => (previous === 0 ? null : (count - previous) / previous);

const and = (clauses: unknown[]) => JSON.stringify({ type: 'and', clauses });

/**
 * The statistics behind the console's home page (docs/stats.md). Activity counts come from the daily rollups
 * the database keeps (migration 0044) plus the changes not folded yet; per-contact figures from the index on
 * activities' time, which holds each activity's contact.
 */
export function createStatsService(deps: { db: Kysely<DB>; clock: Clock; jobs: JobQueue; filters: LightFilters; activityTypes: ActivityTypeService }) {
  const { db } = deps;

  /** The worker's step: folds the waiting changes of up to COMMUNITIES_PER_FOLD communities, under one lock. */
  async function fold(): Promise<number> {
    return db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${FOLD_LOCK}) as locked`.execute(trx);
      if (!rows[0]?.locked) return 0;
      let folded = 0;
      for (const communityId of await stats.communitiesWithChanges(trx, COMMUNITIES_PER_FOLD)) folded += await stats.foldChanges(trx, communityId);
      return folded;
    });
  }

  deps.jobs.every({ name: 'stats.fold', intervalMs: FOLD_INTERVAL_MS, run: async () => void (await fold()) });

  return {
    fold,

    /** GET /api/v2/stats/activity. */
    async activity(communityId: number, query: ActivityStatsQuery): Promise<ActivityStatsData> {
      const interval = (query.interval ?? 'day') as Interval;
      const groupBy = query.groupBy ?? 'source';
      const { span, previous } = periods(query, deps.clock.now());
      const compiled = await deps.filters.compile(communityId, 'activity', query.lightFilter);
      const [rows, types, categories] = await Promise.all([
        compiled ? stats.filteredDays(db, communityId, previous.from, span.to, compiled.where) : stats.rolledUpDays(db, communityId, previous.first, span.last),
        groupBy === 'source' ? null : deps.activityTypes.list(communityId),
        groupBy === 'category' ? deps.activityTypes.categories(communityId) : null,
      ]);
      const categoryName = (value: string) => categories?.find((category) => category.value === value)?.name ?? value;
      const typeOf = new Map((types ?? []).map((entry) => [entry.id, entry]));
      const categoryOf = (type: string) => typeOf.get(type)?.category ?? 'other';
      const keyOf = (row: DayCount) => (groupBy === 'source' ? formatId('provider', row.sourceId) : groupBy === 'type' ? row.type : categoryOf(row.type));

      const buckets = bucketsOf(span, interval);
      const previousBuckets = bucketsOf(previous, interval);
      const inSpan = bucketFinder(buckets);
      const inPrevious = bucketFinder(previousBuckets);
      const counts = new Map(buckets.map((bucket) => [bucket.start, { total: 0, counts: {} as Record<string, number> }]));
      const previousTotals = new Map(previousBuckets.map((bucket) => [bucket.start, 0]));
      const groups = new Map<string, { count: number; sourceId: number; types: Set<string> }>();
      let total = 0;
      let previousTotal = 0;
      for (const row of rows) {
        const bucket = inSpan(row.day);
        if (bucket) {
          const key = keyOf(row);
          const entry = counts.get(bucket.start)!;
          entry.total += row.count;
          entry.counts[key] = (entry.counts[key] ?? 0) + row.count;
          const group = groups.get(key) ?? { count: 0, sourceId: row.sourceId, types: new Set<string>() };
          group.count += row.count;
          group.types.add(row.type);
          groups.set(key, group);
          total += row.count;
          continue;
        }
        const earlier = inPrevious(row.day);
        if (earlier) {
          previousTotals.set(earlier.start, previousTotals.get(earlier.start)! + row.count);
          previousTotal += row.count;
        }
      }

      const names = groupBy === 'source' ? await stats.sourceNames(db, communityId, [...new Set([...groups.values()].map((group) => group.sourceId))]) : null;
      const given = query.lightFilter === undefined ? [] : [JSON.parse(query.lightFilter) as unknown];
      const clauseOf = (key: string, group: { sourceId: number; types: Set<string> }): unknown => {
        if (groupBy === 'source') return { type: 'stringFilter', field: 'providerId', params: { op: 'eq', value: key } };
        if (groupBy === 'type') return { type: 'stringFilter', field: 'type', params: { op: 'eq', value: key } };
        // Every type of the category: the community's and the catalog's, and those seen in the period.
        const members = new Set([...(types ?? []).filter((entry) => entry.category === key).map((entry) => entry.id), ...group.types]);
        return { type: 'stringListFilter', field: 'type', params: { op: 'any', value: [...members].sort() } };
      };
      const nameOf = (key: string, group: { sourceId: number }) =>
        groupBy === 'source' ? (names!.get(group.sourceId) ?? key) : groupBy === 'type' ? (typeOf.get(key)?.displayName ?? key) : categoryName(key);

      return {
        startDate: span.first,
        endDate: span.last,
        interval,
        groupBy,
        total,
        previousTotal,
        groups: [...groups.entries()]
          .sort(([a, x], [b, y]) => y.count - x.count || (a < b ? -1 : a > b ? 1 : 0))
          .map(([key, group]) => ({ key, name: nameOf(key, group), count: group.count, lightFilter: and([...given, clauseOf(key, group)]) })),
        buckets: buckets.map((bucket) => ({ ...bucket, ...counts.get(bucket.start)! })),
        previous: {
          startDate: previous.first,
          endDate: previous.last,
          buckets: previousBuckets.map((bucket) => ({ ...bucket, total: previousTotals.get(bucket.start)! })),
        },
      };
    },

    /** GET /api/v2/stats/contacts. */
    async contacts(communityId: number, query: ContactStatsQuery): Promise<ContactStatsData> {
      const interval = (query.interval ?? 'day') as Interval;
      const week = interval === 'week';
      const { span, previous } = periods(query, deps.clock.now());
      const [active, totals, fresh, later] = await Promise.all([
        stats.activeByBucket(db, communityId, span, week),
        stats.activeTotals(db, communityId, span, previous),
        stats.newByBucket(db, communityId, span, previous, week),
        stats.activityFrom(db, communityId, span.to),
      ]);
      const newCount = [...fresh.buckets.values()].reduce((sum, n) => sum + n, 0);
      const range = { type: 'dateRangeFilter', params: { op: 'in', min: span.first, max: span.last } };
      return {
        startDate: span.first,
        endDate: span.last,
        interval,
        active: {
          count: totals.count,
          previous: totals.previous,
          change: change(totals.count, totals.previous),
          // A contact's latest activity is in the period exactly when it was active in it and not after it:
          // so the filter says it only while no activity is later than the period.
          lightFilter: later ? null : and([{ ...range, field: 'latestActivityTime' }]),
        },
        new: {
          count: newCount,
          previous: fresh.previous,
          change: change(newCount, fresh.previous),
          lightFilter: and([{ ...range, field: 'firstActivityTime' }]),
        },
        buckets: bucketsOf(span, interval).map((bucket) => ({ ...bucket, active: active.get(bucket.start) ?? 0, new: fresh.buckets.get(bucket.start) ?? 0 })),
      };
    },

    /** GET /api/v2/stats/highlights. */
    async highlights(communityId: number, query: HighlightsQuery): Promise<HighlightsData> {
      const limit = query.limit ?? HIGHLIGHT_LIMIT.default;
      const { span, previous } = periods(query, deps.clock.now());
      const [people, topics, days, scores] = await Promise.all([
        stats.contributors(db, communityId, span, previous, limit),
        stats.topicCounts(db, communityId, span, previous),
        stats.rolledUpDays(db, communityId, previous.first, span.last),
        stats.scoreDistribution(db, communityId),
      ]);
      let total = 0;
      let previousTotal = 0;
      for (const row of days) {
        if (row.day >= span.first) total += row.count;
        else previousTotal += row.count;
      }
      // A topic's share of the period's activities against its share before, the earlier one smoothed by one
      // activity so that a topic new in the period can surge against a history (as organizations' surgingTopics).
      const rise = (topic: { count: number; previous: number }) => topic.count / Math.max(total, 1) / ((topic.previous + 1) / (previousTotal + 1));
      const surging = topics
        .filter((topic) => topic.count >= MIN_SURGE && previousTotal > 0 && rise(topic) >= SURGE_FACTOR)
        .sort((a, b) => rise(b) - rise(a) || b.count - a.count || a.name.localeCompare(b.name))
        .slice(0, limit);

      const leadScores = new Map<number, { score: { id: string; name: string }; buckets: { from: number; to: number; count: number }[] }>();
      for (const row of scores) {
        let entry = leadScores.get(row.scoreId);
        if (!entry) {
          entry = { score: { id: formatId('lead_score', row.scoreId), name: row.name }, buckets: [] };
          leadScores.set(row.scoreId, entry);
          if (row.low !== null && row.high !== null) {
            const width = (row.high - row.low) / SCORE_BUCKETS;
            // Every value equal: one bucket holds them all.
            const n = row.high > row.low ? SCORE_BUCKETS : 1;
            for (let i = 0; i < n; i += 1) entry.buckets.push({ from: row.low + i * width, to: i === n - 1 ? row.high : row.low + (i + 1) * width, count: 0 });
          }
        }
        if (row.bucket !== null && entry.buckets.length > 0) entry.buckets[row.bucket - 1]!.count += row.count;
      }

      return {
        startDate: span.first,
        endDate: span.last,
        topContributors: people.contacts.map((row) => ({
          contact: { id: formatId('contact', row.id), name: row.name, avatarUrl: row.avatarUrl },
          count: row.count,
          previous: row.previous,
        })),
        risingOrganizations: people.organizations.map((row) => ({
          organization: { id: formatId('organization', row.id), name: row.name },
          count: row.count,
          previous: row.previous,
          change: change(row.count, row.previous),
        })),
        surgingTopics: surging.map((row) => ({
          topic: { id: formatId('topic', row.id), name: row.name },
          count: row.count,
          previous: row.previous,
          change: change(row.count, row.previous),
        })),
        leadScores: [...leadScores.values()],
      };
    },
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
