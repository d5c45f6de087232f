import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { ListQuery } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import { identityTx } from '../identity/index.ts';
import { organizationTx } from '../organizations/index.ts';
import * as visits from './website-visit.repository.ts';

export interface WebsiteVisitListQuery extends ListQuery {
  contactId?: number;
  organizationId?: number;
  lightFilter?: string;
}

export function createWebsiteVisitService(deps: { db: Kysely<DB>; cursors: CursorCodec; filters: LightFilters }) {
  const { db } = deps;

  /** A merged contact's ID stands for its survivor, whose visits the merge moved. */
  async function contactOf(communityId: number, given: number | undefined): Promise<number | null> {
    if (given === undefined) return null;
    const id = await identityTx.resolveContactId(db, communityId, given);
    if (id === null) throw notFound('contact_not_found', `contact ${formatId('contact', given)} not found`);
    return id;
  }

  async function organizationOf(communityId: number, given: number | undefined): Promise<number | null> {
    if (given === undefined) return null;
    const organization = await organizationTx.findOrganization(db, communityId, given);
    if (!organization) throw notFound('org_not_found', `organization ${formatId('organization', given)} not found`);
    return organization.id;
  }

  return {
    /** GET /api/v2/website-visits: keyset paged in ID order. */
    async list(communityId: number, query: WebsiteVisitListQuery) {
      const { cols } = query;
      const contactId = await contactOf(communityId, query.contactId);
      const organizationId = await organizationOf(communityId, query.organizationId);
      const compiled = await deps.filters.compile(communityId, 'website_visit', query.lightFilter);
      const filter = { contactId, organizationId, where: compiled?.where ?? null };
      const binding = {
        community: communityId,
        list: 'website-visits',
        sort: 'id',
        direction: 'asc' as const,
        filters: { contactId, organizationId, lightFilter: compiled?.expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) =>
        visits.pageWebsiteVisits(db, communityId, filter, { after, limit: query.page.limit }),
      );
      return {
        data: page.rows.map((row) => ({
          id: formatId('website_visit', row.id),
          visitTime: row.visitTime.toISOString(),
          ...(cols.names.has('url') ? { url: row.url } : {}),
          ...(cols.names.has('contactId') ? { contactId: row.contactId === null ? null : formatId('contact', row.contactId) } : {}),
          ...(cols.names.has('organizationId') ? { organizationId: row.organizationId === null ? null : formatId('organization', row.organizationId) } : {}),
        })),
        meta: {
          nextCursor: page.nextCursor,
          ...(cols.recordCount ? { recordCount: await visits.countWebsiteVisits(db, communityId, filter) } : {}),
        },
      };
    },
  };
}

export type WebsiteVisitService = ReturnType<typeof createWebsiteVisitService>;
