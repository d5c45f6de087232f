import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey } from '../../core/ids.ts';
import type { ListQuery } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import type { Writer } from '../../core/writer.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import { auditTx } from '../audit/index.ts';
import { objectTx } from '../objects/index.ts';
import { organizationTx } from '../organizations/index.ts';
import * as updates from './company-update.repository.ts';
import type { Parent } from './company-update.repository.ts';

/** What a list or an import item names as its parent: exactly one of the two (docs/behaviour.md, Record fields). */
export interface ParentIds {
  organizationId?: string;
  objectId?: string;
}

export interface CompanyUpdateListQuery extends ListQuery {
  parent: ParentIds;
  direction?: 'asc' | 'desc';
  lightFilter?: string;
}

export interface JobOpeningImport extends ParentIds {
  key?: string;
  jobTitle: string;
  jobDescription?: string | null;
  location?: string | null;
  url?: string | null;
  firstSeenAt?: string;
  isClosed?: boolean;
}

export interface NewsImport extends ParentIds {
  key?: string;
  title: string;
  category?: string | null;
  articleSentence?: string | null;
  url?: string | null;
  publishedAt: string;
}

const EXACTLY_ONE = 'exactly one of organizationId and objectId is required';

/** The parent a request names, read but not looked up; a message when it names none, both or a bad ID. */
function readParent(ids: ParentIds): Parent | { fault: string; invalidId?: string } {
  if ((ids.organizationId === undefined) === (ids.objectId === undefined)) return { fault: EXACTLY_ONE };
  const [kind, value] = ids.organizationId !== undefined ? (['organization', ids.organizationId] as const) : (['object', ids.objectId!] as const);
  const prefix = ID_PREFIXES[kind];
  const id = value.startsWith(prefix) ? parseKey(value.slice(prefix.length)) : null;
  if (id === null)
    return {
      fault: `${kind === 'organization' ? 'organizationId' : 'objectId'} "${value}" is not a valid ${kind} ID (expected ${prefix}<number>)`,
      invalidId: value,
    };
  return { kind, id };
}

/**
 * The organization or custom object a request names (exactly one of the two), which must be the
 * community's: a 400 for none, both or a malformed ID, a 404 for one it does not have.
 */
export async function findParent(db: Kysely<DB>, communityId: number, ids: ParentIds): Promise<Parent> {
  const parent = readParent(ids);
  if ('fault' in parent) {
    if (parent.invalidId === undefined) throw invalidParameters(parent.fault);
    const code = ids.organizationId !== undefined ? 'invalid_organization_id' : 'invalid_object_id';
    throw new HearthError(code, parent.fault, { invalidIds: [parent.invalidId] });
  }
  if (parent.kind === 'organization' && !(await organizationTx.findOrganization(db, communityId, parent.id))) {
    throw notFound('org_not_found', `organization ${formatId('organization', parent.id)} not found`);
  }
  if (parent.kind === 'object' && !(await objectTx.findObject(db, communityId, parent.id))) {
    throw notFound('object_not_found', `custom object ${formatId('object', parent.id)} not found`);
  }
  return parent;
}

const blankToNull = (value: string | null | undefined) => (value?.trim() ? value.trim() : null);

export function createCompanyUpdateService(deps: { db: Kysely<DB>; clock: Clock; cursors: CursorCodec; filters: LightFilters }) {
  const { db } = deps;

  /** Import items' parents, checked together: every fault is named by the item's place. */
  async function importParents(communityId: number, items: ParentIds[], path: (index: number) => string) {
    const faults: string[] = [];
    const parents = items.map((item, index) => {
      const parent = readParent(item);
      if ('fault' in parent) faults.push(`${path(index)}: ${parent.fault}`);
      return 'fault' in parent ? null : parent;
    });
    const ids = (kind: Parent['kind']) => [...new Set(parents.flatMap((parent) => (parent?.kind === kind ? [parent.id] : [])))];
    const found = await updates.existingParents(db, communityId, ids('organization'), ids('object'));
    parents.forEach((parent, index) => {
      if (parent?.kind === 'organization' && !found.organizations.has(parent.id))
        faults.push(`${path(index)}: organization ${formatId('organization', parent.id)} not found`);
      if (parent?.kind === 'object' && !found.objects.has(parent.id)) faults.push(`${path(index)}: custom object ${formatId('object', parent.id)} not found`);
    });
    return { parents: parents as Parent[], faults };
  }

  /** Names every item whose parent and key another item of the request has already. */
  function repeatedKeys(items: { parent: Parent; key: string }[], path: (index: number) => string): string[] {
    const seen = new Map<string, number>();
    const faults: string[] = [];
    items.forEach(({ parent, key }, index) => {
      const id = `${parent.kind}:${parent.id}:${key}`;
      const first = seen.get(id);
      if (first === undefined) seen.set(id, index);
      else faults.push(`${path(index)}: the same item as ${path(first)} (key "${key}")`);
    });
    return faults;
  }

  const parentBinding = (parent: Parent) => ({ [parent.kind === 'organization' ? 'organizationId' : 'objectId']: parent.id });

  return {
    /** GET /api/v2/job-openings: one parent's openings by firstSeenAt, newest first unless told. */
    async listJobOpenings(communityId: number, query: CompanyUpdateListQuery) {
      const parent = await findParent(db, communityId, query.parent);
      const direction = query.direction ?? 'desc';
      const compiled = await deps.filters.compile(communityId, 'job_opening', query.lightFilter);
      const filter = { parent, where: compiled?.where ?? null };
      const binding = {
        community: communityId,
        list: 'job-openings',
        sort: 'firstSeenAt',
        direction,
        filters: { ...parentBinding(parent), lightFilter: compiled?.expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) =>
        updates.pageJobOpenings(db, communityId, filter, { direction, limit: query.page.limit, after }),
      );
      return {
        data: page.rows.map((row) => ({
          id: formatId('job_opening', Number(row.id)),
          jobTitle: row.jobTitle,
          location: row.location,
          jobDescription: row.jobDescription,
          firstSeenAt: row.firstSeenAt.toISOString(),
          isClosed: row.isClosed,
          ...(query.cols.names.has('url') ? { url: row.url } : {}),
        })),
        meta: {
          nextCursor: page.nextCursor,
          ...(query.cols.recordCount ? { recordCount: await updates.countJobOpenings(db, communityId, filter) } : {}),
        },
      };
    },

    /** GET /api/v2/news: one parent's news items by publishedAt, newest first unless told. */
    async listNews(communityId: number, query: CompanyUpdateListQuery) {
      const parent = await findParent(db, communityId, query.parent);
      const direction = query.direction ?? 'desc';
      const compiled = await deps.filters.compile(communityId, 'news', query.lightFilter);
      const filter = { parent, where: compiled?.where ?? null };
      const binding = {
        community: communityId,
        list: 'news',
        sort: 'publishedAt',
        direction,
        filters: { ...parentBinding(parent), lightFilter: compiled?.expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) =>
        updates.pageNews(db, communityId, filter, { direction, limit: query.page.limit, after }),
      );
      return {
        data: page.rows.map((row) => ({
          id: formatId('news', Number(row.id)),
          title: row.title,
          category: row.category,
          articleSentence: row.articleSentence,
          publishedAt: row.publishedAt.toISOString(),
        })),
        meta: {
          nextCursor: page.nextCursor,
          ...(query.cols.recordCount ? { recordCount: await updates.countNews(db, communityId, filter) } : {}),
        },
      };
    },

    /**
     * POST /api/v2/admin/job-openings: adds openings to organizations and custom objects, or updates those
     * with the same key. All or nothing: a 400 names every fault.
     */
    async importJobOpenings(writer: Writer, given: JobOpeningImport[]) {
      const path = (index: number) => `jobOpenings[${index}]`;
      const { parents, faults } = await importParents(writer.communityId, given, path);
      const items = given.map((item, index) => {
        const jobTitle = item.jobTitle.trim();
        if (!jobTitle) faults.push(`${path(index)}.jobTitle must not be empty`);
        const location = blankToNull(item.location);
        const url = blankToNull(item.url);
        return {
          parent: parents[index]!,
          key: item.key?.trim() || url || `${jobTitle} @ ${location ?? ''}`,
          jobTitle,
          jobDescription: blankToNull(item.jobDescription),
          location,
          url,
          firstSeenAt: item.firstSeenAt ? new Date(item.firstSeenAt) : null,
          isClosed: item.isClosed ?? false,
        };
      });
      if (faults.length === 0) faults.push(...repeatedKeys(items, path));
      if (faults.length) throw invalidParameters(faults.join('; '));
      return db.transaction().execute(async (trx) => {
        const written = await updates.upsertJobOpenings(trx, writer.communityId, items, deps.clock.now());
        const counts = { ...written, unchanged: items.length - written.added - written.changed };
        await auditTx.recordWrite(trx, writer, { operation: 'job_openings.import', entityIds: parentIdsOf(items), detail: { items: items.length, ...counts } });
        return counts;
      });
    },

    /** POST /api/v2/admin/news: as importJobOpenings, for news items. */
    async importNews(writer: Writer, given: NewsImport[]) {
      const path = (index: number) => `news[${index}]`;
      const { parents, faults } = await importParents(writer.communityId, given, path);
      const items = given.map((item, index) => {
        const title = item.title.trim();
        if (!title) faults.push(`${path(index)}.title must not be empty`);
        const url = blankToNull(item.url);
        const publishedAt = new Date(item.publishedAt);
        return {
          parent: parents[index]!,
          key: item.key?.trim() || url || `${publishedAt.toISOString()} ${title}`,
          title,
          category: blankToNull(item.category),
          articleSentence: blankToNull(item.articleSentence),
          url,
          publishedAt,
        };
      });
      if (faults.length === 0) faults.push(...repeatedKeys(items, path));
      if (faults.length) throw invalidParameters(faults.join('; '));
      return db.transaction().execute(async (trx) => {
        const written = await updates.upsertNews(trx, writer.communityId, items);
        const counts = { ...written, unchanged: items.length - written.added - written.changed };
        await auditTx.recordWrite(trx, writer, { operation: 'news.import', entityIds: parentIdsOf(items), detail: { items: items.length, ...counts } });
        return counts;
      });
    },
  };
}

/** The organizations and objects an import wrote to, as the API names them, once each. */
function parentIdsOf(items: { parent: Parent }[]): string[] {
  return [...new Set(items.map(({ parent }) => formatId(parent.kind, parent.id)))];
}

export type CompanyUpdateService = ReturnType<typeof createCompanyUpdateService>;
