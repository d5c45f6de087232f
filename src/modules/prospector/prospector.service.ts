import type { Kysely } from 'kysely';
import type { CursorCodec } from '../../core/cursor.ts';
import { notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { Cols, GetQuery, SortedListQuery } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import type { DB } from '../../db/schema.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import * as companies from './prospector-company.repository.ts';
import type { CompanyRow, CompanySort } from './prospector-company.repository.ts';
import * as contacts from './prospector-contact.repository.ts';
import type { ContactRow, ContactSort } from './prospector-contact.repository.ts';
import type { CompanyCol, ContactCol } from './prospector.schemas.ts';

export interface ProspectorListQuery extends SortedListQuery {
  lightFilter?: string;
}

/** The opt-in columns `cols` names, in the record's order: `opt(col, value)` adds a column only when named. */
function optIn<C extends string>(cols: Cols) {
  return <K extends C, T>(col: K, value: () => T) => (cols.names.has(col) ? { [col]: value() } : {}) as { [P in K]?: T };
}

function presentCompany(row: CompanyRow, cols: Cols) {
  const opt = optIn<CompanyCol>(cols);
  const hasPlace = row.address !== null || row.city !== null || row.state !== null || row.country !== null || row.countryCode !== null;
  return {
    id: formatId('prospector_company', row.id),
    name: row.name,
    ...opt('description', () => row.description),
    ...opt('primaryWebsite', () => row.primaryWebsite),
    ...opt('logoUrl', () => row.logoUrl),
    ...opt('subIndustry', () => row.subIndustry),
    ...opt('employees', () => row.employees),
    ...opt('raised', () => row.raised),
    ...opt('linkedInHandles', () => row.linkedInHandles),
    ...opt('technologies', () => row.technologies),
    ...opt('location', () =>
      hasPlace ? { address: row.address, city: row.city, state: row.state, country: row.country, countryCode: row.countryCode } : null,
    ),
    ...opt('revenueRange', () => (row.revenueMin === null && row.revenueMax === null ? null : { min: row.revenueMin, max: row.revenueMax })),
  };
}

type CompanyOfContact = { name: string; website: string | null };

function presentContact(row: ContactRow, cols: Cols, company: CompanyOfContact | undefined) {
  const opt = optIn<ContactCol>(cols);
  const hasPlace = row.city !== null || row.region !== null || row.country !== null;
  return {
    id: formatId('prospector_contact', row.id),
    name: row.name,
    ...opt('fullName', () => row.fullName),
    ...opt('avatarUrl', () => row.avatarUrl),
    ...opt('companyName', () => company?.name ?? null),
    ...opt('companyWebsite', () => company?.website ?? null),
    ...opt('title', () => row.title),
    ...opt('role', () => row.role),
    ...opt('seniority', () => row.seniority),
    ...opt('linkedInHandle', () => row.linkedInHandle),
    ...opt('linkedInFollowerCount', () => row.linkedInFollowerCount),
    ...opt('location', () => (hasPlace ? { city: row.city, region: row.region, country: row.country } : null)),
    ...opt('skills', () => row.skills),
  };
}

/**
 * GET /api/v2/prospector-companies and /prospector-contacts, and their gets: the prospector data every
 * community shares, keyset paged in the sorts docs/reading.md gives (Prospector data), filtered by lightFilter.
 */
export function createProspectorService(deps: { db: Kysely<DB>; cursors: CursorCodec; filters: LightFilters }) {
  const { db } = deps;

  /** The companies of a page's contacts, read once per page and only when a column shows them. */
  async function companiesOf(rows: ContactRow[], cols: Cols): Promise<Map<number, CompanyOfContact>> {
    if (!cols.names.has('companyName') && !cols.names.has('companyWebsite')) return new Map();
    const ids = [...new Set(rows.flatMap((row) => (row.companyId === null ? [] : [row.companyId])))];
    return companies.companiesByIds(db, ids);
  }

  return {
    async listCompanies(communityId: number, query: ProspectorListQuery) {
      const { cols, page: request } = query;
      const sort = query.sort.name as CompanySort;
      const compiled = await deps.filters.compile(communityId, 'prospector_company', query.lightFilter);
      const where = compiled?.where ?? null;
      const binding = {
        community: communityId,
        list: 'prospector-companies',
        sort,
        direction: request.direction,
        filters: { lightFilter: compiled?.expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, request, (after) =>
        companies.pageCompanies(db, where, sort, { after, limit: request.limit, direction: request.direction }),
      );
      return {
        data: page.rows.map((row) => presentCompany(row, cols)),
        meta: { nextCursor: page.nextCursor, ...(cols.recordCount ? { recordCount: await companies.countCompanies(db, where) } : {}) },
      };
    },

    async getCompany({ id, cols }: GetQuery) {
      const row = await companies.findCompany(db, id);
      if (!row) throw notFound('prospector_company_not_found', `prospector company ${formatId('prospector_company', id)} not found`);
      return presentCompany(row, cols);
    },

    async listContacts(communityId: number, query: ProspectorListQuery) {
      const { cols, page: request } = query;
      const sort = query.sort.name as ContactSort;
      const compiled = await deps.filters.compile(communityId, 'prospector_contact', query.lightFilter);
      const where = compiled?.where ?? null;
      const binding = {
        community: communityId,
        list: 'prospector-contacts',
        sort,
        direction: request.direction,
        filters: { lightFilter: compiled?.expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, request, (after) =>
        contacts.pageContacts(db, where, sort, { after, limit: request.limit, direction: request.direction }),
      );
      const companyOf = await companiesOf(page.rows, cols);
      return {
        data: page.rows.map((row) => presentContact(row, cols, row.companyId === null ? undefined : companyOf.get(row.companyId))),
        meta: { nextCursor: page.nextCursor, ...(cols.recordCount ? { recordCount: await contacts.countContacts(db, where) } : {}) },
      };
    },

    async getContact({ id, cols }: GetQuery) {
      const row = await contacts.findContact(db, id);
      if (!row) throw notFound('prospector_contact_not_found', `prospector contact ${formatId('prospector_contact', id)} not found`);
      const companyOf = await companiesOf([row], cols);
      return presentContact(row, cols, row.companyId === null ? undefined : companyOf.get(row.companyId));
    },
  };
}

export type ProspectorService = ReturnType<typeof createProspectorService>;
