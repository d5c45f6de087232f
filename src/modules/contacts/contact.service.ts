import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { ListOrder } from '../../db/keyset.ts';
import type { DB } from '../../db/schema.ts';
import { ACTIVITY_WINDOWS } from './contact.filters.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import { pageWithCursor } from '../../core/paging.ts';
import type { Cols, GetQuery, SortChoice, SortedListQuery } from '../../core/list-query.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import type { ActivityService } from '../activities/index.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import { identityTx } from '../identity/index.ts';
import { presentKeyFactors, presentLeadScores } from '../lead-scores/index.ts';
import { type StoredScore, leadScoreTx } from '../lead-scores/index.ts';
import { organizationTx } from '../organizations/index.ts';
import { segmentTx } from '../segments/index.ts';
import { tagTx } from '../tags/index.ts';
import { activityTypeTx } from '../activity-types/index.ts';
import * as contacts from './contact-read.repository.ts';
import { activityDigestsOf, type ActivityDigest } from './contact-spark.repository.ts';
import { activateMessageOf, recentSparkSummariesOf, SPARK_DAYS, SPARK_PERIODS, sparkSummaryOf } from './contact-spark.ts';
import type { ContactView } from './contact.schemas.ts';

export interface ContactListQuery extends SortedListQuery {
  organizationId?: number;
  segmentId?: number;
  lightFilter?: string;
}

const RECENT_ACTIVITIES = 5;
const RECENT_WEB_DAYS = 30;
const RECENT_WEB_PAGES = 10;

export function createContactService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  cursors: CursorCodec;
  filters: LightFilters;
  activities: Pick<ActivityService, 'byIds'>;
  publicUrl: string;
}) {
  const { db } = deps;

  /** A `cf_<id>` in cols must be a live contact field of the community; the unknown ones are named in one 400. */
  async function checkFieldCols(communityId: number, cols: Cols) {
    if (!Array.isArray(cols.customFields)) return;
    const known = await customFieldTx.existingFieldIds(db, communityId, 'contact', cols.customFields);
    const unknown = cols.customFields.filter((id) => !known.has(id)).map((id) => `cf_${id}`);
    if (unknown.length) throw invalidParameters(`cols ${unknown.join(', ')}: no such contact custom field`);
  }

  async function sortOrder(communityId: number, sort: SortChoice): Promise<ListOrder> {
    if (sort.kind === 'fixed') return { name: sort.name, keys: contacts.CONTACT_SORT_KEYS[sort.name]! };
    if (sort.kind === 'custom_field') {
      if (!(await customFieldTx.existingFieldIds(db, communityId, 'contact', [sort.id])).has(sort.id)) {
        throw invalidParameters(`sort ${sort.name}: no such contact custom field`);
      }
      return { side: customFieldTx.customFieldSort(communityId, 'contact', 'c', sort.id) };
    }
    if (!(await leadScoreTx.definitionIds(db, communityId, 'contact')).includes(sort.id))
      throw invalidParameters(`sort ${sort.name}: no such contact lead score`);
    return { side: leadScoreTx.leadScoreSort(communityId, 'contact', 'c', sort.id) };
  }

  async function filtersOf(communityId: number, query: ContactListQuery, now: Date) {
    const filters: contacts.ContactFilters = {};
    if (query.organizationId !== undefined) {
      filters.organizationId = query.organizationId;
      if (!(await organizationTx.findOrganization(db, communityId, filters.organizationId))) {
        throw notFound('org_not_found', `no organization ${formatId('organization', query.organizationId)}`);
      }
    }
    if (query.segmentId !== undefined) {
      filters.segmentId = query.segmentId;
      const segmentId = formatId('segment', query.segmentId);
      const segment = await segmentTx.findSegment(db, communityId, filters.segmentId);
      if (!segment) throw notFound('segment_not_found', `no segment ${segmentId}`);
      if (segment.entityType !== 'contact') {
        throw new HearthError('invalid_segment_id', `segment ${segmentId} holds ${segment.entityType}s, not contacts`, {
          invalidIds: [segmentId],
        });
      }
    }
    const compiled = await deps.filters.compile(communityId, 'contact', query.lightFilter, now);
    if (compiled) filters.where = compiled.where;
    return { filters, expression: compiled?.expression };
  }

  /** The page's contacts with the columns `cols` asked for, each opt-in column loaded once for the page. */
  async function present(communityId: number, rows: contacts.ContactRow[], cols: Cols, now: Date) {
    const ids = rows.map((row) => row.id);
    const asked = (name: string) => cols.names.has(name);
    const windows = Object.fromEntries(
      Object.entries(ACTIVITY_WINDOWS)
        .map(([window, days]) => [`activityCount${window}`, days] as const)
        .filter(([name]) => asked(name)),
    );
    const none = async <T>() => new Map<number, T>();
    const [tags, segments, profiles, scores, fields, counts, objects, visits, latest] = await Promise.all([
      asked('tags') ? tagTx.tagIdsOf(db, communityId, 'contact', ids) : none<number[]>(),
      asked('segments') ? segmentTx.segmentsOf(db, communityId, 'contact', ids) : none<{ id: number; name: string }[]>(),
      asked('profiles') ? contacts.profilesOf(db, communityId, ids) : none<{ type: string; value: string }[]>(),
      asked('leadScores') || asked('leadScoreKeyFactors') ? leadScoreTx.scoresOf(db, communityId, 'contact', ids) : none<StoredScore[]>(),
      cols.customFields
        ? customFieldTx.customFieldValuesOf(db, communityId, 'contact', ids, cols.customFields)
        : none<Record<string, { type: string; value: unknown }>>(),
      contacts.activityWindows(db, communityId, ids, now, windows),
      asked('connectedCustomObjects') ? contacts.connectedObjectsOf(db, communityId, ids) : none<{ id: number; name: string; objectType: string }[]>(),
      asked('recentWebPages') || asked('recentWebVisitsNumber')
        ? contacts.recentVisitsOf(db, communityId, ids, new Date(now.getTime() - RECENT_WEB_DAYS * 86_400_000), RECENT_WEB_PAGES)
        : none<{ visits: number; pages: { url: string; numVisits: number }[] }>(),
      asked('recentActivities') ? contacts.latestActivityIdsOf(db, communityId, ids, RECENT_ACTIVITIES) : none<number[]>(),
    ]);
    const sparks = asked('sparkSummary') || asked('recentSparkSummaries') || asked('activateMessage');
    const digests = sparks
      ? await activityDigestsOf(db, communityId, ids, now, { days: SPARK_DAYS, periods: SPARK_PERIODS })
      : new Map<number, ActivityDigest>();
    const typeKeys = [
      ...new Set(
        [...digests.values()].flatMap((digest) => [
          ...digest.periods.flatMap((period) => period.types.map((type) => type.key)),
          ...(digest.latest ? [digest.latest.type] : []),
        ]),
      ),
    ];
    const typeNames = await activityTypeTx.activityTypeNames(db, communityId, typeKeys);
    const activityIds = [...latest.values()].flat();
    const activities = new Map((activityIds.length ? await deps.activities.byIds(communityId, activityIds) : []).map((activity) => [activity.id, activity]));

    // Each asked column's value, in the wire order (the interface's, with `url` last); built once per page.
    const value: [string, (row: contacts.ContactRow, id: number) => unknown][] = [
      ['fullName', (row) => row.fullName],
      ['avatarUrl', (row) => row.avatarUrl],
      ['location', (row) => (row.city || row.region || row.country ? { city: row.city, region: row.region, country: row.country } : null)],
      ['primaryEmail', (row) => row.primaryEmail],
      ['phoneNumbers', (row) => row.phoneNumbers ?? []],
      ['title', (row) => row.title],
      ['companyName', (row) => row.companyName],
      ['companyWebsite', (row) => row.companyWebsite],
      [
        'connectedCustomObjects',
        (_, id) => (objects.get(id) ?? []).map((object) => ({ id: formatId('object', object.id), name: object.name, objectType: object.objectType })),
      ],
      ['customFields', (_, id) => fields.get(id) ?? {}],
      ['profiles', (_, id) => profiles.get(id) ?? []],
      ['jobHistory', (row) => row.jobHistory ?? []],
      ['leadScores', (_, id) => presentLeadScores(scores.get(id))],
      ['leadScoreKeyFactors', (_, id) => presentKeyFactors(scores.get(id))],
      ['segments', (_, id) => (segments.get(id) ?? []).map((segment) => ({ id: formatId('segment', segment.id), name: segment.name }))],
      ['recentWebPages', (_, id) => visits.get(id)?.pages ?? []],
      ['recentWebVisitsNumber', (_, id) => visits.get(id)?.visits ?? 0],
      ['recentActivities', (_, id) => (latest.get(id) ?? []).flatMap((activityId) => activities.get(formatId('activity', activityId)) ?? [])],
      ...Object.keys(windows).map((name): [string, (row: contacts.ContactRow, id: number) => unknown] => [name, (_, id) => counts.get(id)?.[name] ?? 0]),
      ['activityCountAll', (row) => row.activityCountAll],
      // Text a model wrote for the contact (stored) wins; the deterministic text from the activities is the fallback.
      ['activateMessage', (row, id) => row.activateMessage ?? activateMessageOf(digests.get(id), typeNames, row)],
      ['sparkSummary', (row, id) => row.sparkSummary ?? sparkSummaryOf(digests.get(id), typeNames)],
      [
        'recentSparkSummaries',
        (row, id) =>
          Array.isArray(row.recentSparkSummaries) && row.recentSparkSummaries.length
            ? row.recentSparkSummaries
            : recentSparkSummariesOf(digests.get(id), typeNames, now),
      ],
      ['tags', (_, id) => (tags.get(id) ?? []).map((tagId) => formatId('tag', tagId))],
      ['url', (_, id) => `${deps.publicUrl}/contacts/${formatId('contact', id)}`],
    ];
    const wanted = value.filter(([name]) => asked(name) || (name === 'customFields' && cols.customFields !== null));
    return rows.map((row) => {
      const contact: Record<string, unknown> = { id: formatId('contact', row.id), name: row.name };
      for (const [name, read] of wanted) contact[name] = read(row, row.id);
      return contact as ContactView;
    });
  }

  return {
    /** GET /api/v2/contacts: keyset pages in the asked sort, narrowed by the query filters and the lightFilter. */
    async list(communityId: number, query: ContactListQuery) {
      const now = deps.clock.now();
      const { cols, sort, page: pageRequest } = query;
      const [{ filters, expression }, order] = await Promise.all([
        filtersOf(communityId, query, now),
        sortOrder(communityId, sort),
        checkFieldCols(communityId, cols),
      ]);
      const binding = {
        community: communityId,
        list: 'contacts',
        sort: sort.name,
        direction: pageRequest.direction,
        filters: { organizationId: filters.organizationId, segmentId: filters.segmentId, lightFilter: expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, pageRequest, (after) =>
        contacts.pageContacts(db, communityId, filters, order, { direction: pageRequest.direction, limit: pageRequest.limit, after }),
      );
      const [data, recordCount] = await Promise.all([
        present(communityId, page.rows, cols, now),
        cols.recordCount ? contacts.countContacts(db, communityId, filters) : undefined,
      ]);
      return { data, meta: { nextCursor: page.nextCursor, ...(recordCount === undefined ? {} : { recordCount }) } };
    },

    /** GET /api/v2/contacts/{id}. A merged contact's ID answers with its survivor. */
    async get(communityId: number, { id, cols }: GetQuery) {
      const [live] = await Promise.all([identityTx.resolveContactId(db, communityId, id), checkFieldCols(communityId, cols)]);
      const row = live === null ? undefined : await contacts.findContact(db, communityId, live);
      if (!row) throw notFound('contact_not_found', `no contact ${formatId('contact', id)}`);
      const [contact] = await present(communityId, [row], cols, deps.clock.now());
      return contact!;
    },

    /** GET /api/v2/contacts/{id}/merges: the contacts merged into this one, and why (the identity's type, not its value), undone merges too. */
    async merges(communityId: number, id: number) {
      const live = await identityTx.resolveContactId(db, communityId, id);
      if (live === null) throw notFound('contact_not_found', `no contact ${formatId('contact', id)}`);
      const rows = await identityTx.mergesInto(db, communityId, live);
      return rows.map((row) => ({
        mergedId: formatId('contact', row.mergedId),
        reason: row.reason,
        identityType: row.identityType,
        providerId: row.sourceId === null ? null : formatId('provider', row.sourceId),
        mergedAt: row.mergedAt.toISOString(),
        mergedBy: row.mergedBy,
        unmergedAt: row.unmergedAt === null ? null : row.unmergedAt.toISOString(),
        unmergedBy: row.unmergedBy,
        undoable: row.undoable,
      }));
    },
  };
}

export type ContactService = ReturnType<typeof createContactService>;
