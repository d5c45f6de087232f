import type { Kysely } from 'kysely';
import { parseDateBound } from '../../filters/date-values.ts';
import { SENTIMENTS } from './activity.filters.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import { pageWithCursor } from '../../core/paging.ts';
import type { GetQuery, SortedListQuery } from '../../core/list-query.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import { identityTx } from '../identity/index.ts';
import { organizationTx } from '../organizations/index.ts';
import * as reads from './activity-read.repository.ts';
import type { ActivityFilters, ActivityRow, ActivitySort } from './activity-read.repository.ts';
import { ACTIVITY_COLUMNS, type Activity, type ActivityColumn, type FullActivity } from './activity.schemas.ts';

export interface ActivityListQuery extends SortedListQuery {
  contactId?: number;
  organizationId?: number;
  /** As given (`YYYY-MM-DD` or a timestamp); read as a bound of the activity's time. */
  startDate?: string;
  endDate?: string;
  lightFilter?: string;
}

type Sentiment = (typeof SENTIMENTS)[number];

const SENTIMENT_NAMES: Record<Sentiment, string> = { positive: 'Positive', negative: 'Negative', neutral: 'Neutral' };

/** Ingestion writes only the three values; anything else read back is shown as none rather than break the response. */
function sentimentOf(row: ActivityRow): Sentiment | null {
  return (SENTIMENTS as readonly (string | null)[]).includes(row.sentiment) ? (row.sentiment as Sentiment) : null;
}

const EVERY_COLUMN: ReadonlySet<string> = new Set<ActivityColumn>(ACTIVITY_COLUMNS);

/** A date-time bound as PostgreSQL reads it; the schema has checked the format, this the range. */
function dateBound(name: 'startDate' | 'endDate', value: string | undefined): string | null {
  if (value === undefined) return null;
  const bound = parseDateBound(value);
  if (!bound) {
    throw invalidParameters(
      `${name} ${JSON.stringify(value)} is not a date-time the service can read: use ISO 8601 with an offset, ` +
        'e.g. 2026-03-01T09:30:00Z (year 0001 or later, seconds 00 to 59, at most 6 decimals)',
    );
  }
  return bound.timestamp;
}

export function createActivityService(deps: { db: Kysely<DB>; cursors: CursorCodec; filters: LightFilters; publicUrl: string }) {
  const { db } = deps;

  /** The page's rows with the columns `names` asks for; each opt-in column costs at most one query per page. */
  async function present(communityId: number, rows: ActivityRow[], names: ReadonlySet<string>): Promise<Activity[]> {
    const has = (name: ActivityColumn) => names.has(name);
    const unique = (values: (number | null)[]) => [...new Set(values.filter((value): value is number => value !== null))];
    const [threads, providers, subSources] = await Promise.all([
      has('replyCount') || has('participantCount')
        ? reads.threadCounts(
            db,
            communityId,
            rows.map((row) => row.id),
          )
        : null,
      has('providerName') ? reads.sourceNames(db, communityId, unique(rows.map((row) => row.sourceId))) : null,
      has('subSourceNames') ? reads.subSourceNames(db, communityId, unique(rows.map((row) => row.subSourceId))) : null,
    ]);
    return rows.map((row) => {
      const thread = threads?.get(row.id);
      const subSource = row.subSourceId === null ? undefined : subSources?.get(row.subSourceId);
      return {
        id: formatId('activity', row.id),
        type: row.type,
        activityTime: row.activityTime.toISOString(),
        ...(has('contactId') ? { contactId: formatId('contact', row.contactId) } : {}),
        ...(has('content') ? { content: row.content ?? null } : {}),
        ...(has('isUserInitiated') ? { isUserInitiated: row.isUserInitiated } : {}),
        // The activity itself is in its thread, so a found one has at least one participant.
        ...(has('participantCount') ? { participantCount: thread?.participantCount ?? 1 } : {}),
        ...(has('providerId') ? { providerId: formatId('provider', row.sourceId) } : {}),
        // A source cannot go while its activities stay (they are deleted with it).
        ...(has('providerName') ? { providerName: providers?.get(row.sourceId) ?? '' } : {}),
        ...(has('replyCount') ? { replyCount: thread?.replyCount ?? 0 } : {}),
        ...(has('sentiment') ? { sentiment: sentimentOf(row) } : {}),
        ...(has('subSourceNames') ? { subSourceNames: subSource === undefined ? [] : [subSource] } : {}),
        ...(has('url') ? { url: `${deps.publicUrl}/activities/${formatId('activity', row.id)}` } : {}),
      };
    });
  }

  /** The query's filters resolved to keys: a merged contact's ID to its survivor; unknown ones are 404s. */
  async function resolveFilters(communityId: number, query: ActivityListQuery): Promise<Omit<ActivityFilters, 'where'>> {
    let contactId: number | null = null;
    if (query.contactId !== undefined) {
      contactId = await identityTx.resolveContactId(db, communityId, query.contactId);
      if (contactId === null) throw notFound('contact_not_found', `contact ${formatId('contact', query.contactId)} not found`);
    }
    const organizationId = query.organizationId ?? null;
    if (organizationId !== null && !(await organizationTx.findOrganization(db, communityId, organizationId))) {
      throw notFound('org_not_found', `organization ${formatId('organization', organizationId)} not found`);
    }
    return { contactId, organizationId, startDate: dateBound('startDate', query.startDate), endDate: dateBound('endDate', query.endDate) };
  }

  return {
    /** GET /api/v2/activities: keyset pages by activityTime (default) or id, filtered. */
    async list(communityId: number, query: ActivityListQuery) {
      const { cols, sort, page: pageRequest } = query;
      const resolved = await resolveFilters(communityId, query);
      const compiled = await deps.filters.compile(communityId, 'activity', query.lightFilter);
      const filters: ActivityFilters = { ...resolved, where: compiled?.where ?? null };
      const binding = {
        community: communityId,
        list: 'activities',
        sort: sort.name,
        direction: pageRequest.direction,
        filters: { ...resolved, lightFilter: compiled?.expression },
      };
      const [page, recordCount] = await Promise.all([
        pageWithCursor(deps.cursors, binding, pageRequest, (after) =>
          reads.pageActivities(db, communityId, filters, {
            sort: sort.name as ActivitySort,
            direction: pageRequest.direction,
            limit: pageRequest.limit,
            after,
            withContent: cols.names.has('content'),
          }),
        ),
        cols.recordCount ? reads.countActivities(db, communityId, filters) : undefined,
      ]);
      return {
        data: await present(communityId, page.rows, cols.names),
        meta: { nextCursor: page.nextCursor, ...(recordCount === undefined ? {} : { recordCount }) },
      };
    },

    /** GET /api/v2/activities/{id}. */
    async get(communityId: number, { id, cols }: GetQuery): Promise<Activity> {
      const [row] = await reads.findActivities(db, communityId, [id], cols.names.has('content'));
      if (!row) throw notFound('activity_not_found', `activity ${formatId('activity', id)} not found`);
      return (await present(communityId, [row], cols.names))[0]!;
    },

    /**
     * The activities with these keys, every column present, in the order of `ids` (for a contact's
     * `recentActivities`). Keys not found in the community are left out; a repeated key appears once.
     */
    async byIds(communityId: number, ids: readonly number[]): Promise<FullActivity[]> {
      const unique = [...new Set(ids)];
      const rows = await reads.findActivities(db, communityId, unique, true);
      const byKey = new Map(rows.map((row) => [row.id, row]));
      const ordered = unique.map((key) => byKey.get(key)).filter((row): row is ActivityRow => row !== undefined);
      return (await present(communityId, ordered, EVERY_COLUMN)) as FullActivity[];
    },

    /** GET /api/v2/activity-sentiment: the values activities carry as `sentiment`. */
    sentiments() {
      return SENTIMENTS.map((id) => ({ id, name: SENTIMENT_NAMES[id] }));
    },
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;
