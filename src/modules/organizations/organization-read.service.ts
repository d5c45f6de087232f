import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { ListOrder } from '../../db/keyset.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import { pageWithCursor } from '../../core/paging.ts';
import type { Cols, GetQuery, SortChoice, SortedListQuery } from '../../core/list-query.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import { leadScoreTx } from '../lead-scores/index.ts';
import { tagTx } from '../tags/index.ts';
import * as organizations from './organization-read.repository.ts';
import { presentOrganization, type PageValues } from './organization.presenters.ts';
import { RECENT_LIMIT } from './organization.schemas.ts';

export interface OrganizationsQuery extends SortedListQuery {
  name?: string;
  primaryDomain?: string;
  lightFilter?: string;
}

export function createOrganizationReadService(deps: { db: Kysely<DB>; cursors: CursorCodec; filters: LightFilters; clock: Clock; publicUrl: string }) {
  const { db } = deps;

  /** The sort's order; a lead score or custom field that is not one of the community's for organizations is a 400. */
  async function sortOrder(communityId: number, sort: SortChoice): Promise<ListOrder> {
    if (sort.kind === 'lead_score') {
      const definition = await leadScoreTx.findDefinition(db, communityId, sort.id);
      if (definition?.entityType !== 'organization') throw invalidParameters(`sort "${sort.name}" is not a lead score of organizations`);
      return { side: leadScoreTx.leadScoreSort(communityId, 'organization', 'o', sort.id) };
    }
    if (sort.kind === 'custom_field') {
      if (!(await customFieldTx.existingFieldIds(db, communityId, 'organization', [sort.id])).has(sort.id)) {
        throw invalidParameters(`sort "${sort.name}" is not a custom field of organizations`);
      }
      return { side: customFieldTx.customFieldSort(communityId, 'organization', 'o', sort.id) };
    }
    return sort.name === 'member_count' ? { name: sort.name, keys: [organizations.memberCountKey] } : { name: 'id', keys: [] };
  }

  /** Every `cf_<id>` of `cols` must be a live organization field of the community; one 400 names the others. */
  async function checkFieldCols(communityId: number, cols: Cols): Promise<void> {
    if (!Array.isArray(cols.customFields)) return;
    const live = await customFieldTx.existingFieldIds(db, communityId, 'organization', cols.customFields);
    const unknown = cols.customFields.filter((id) => !live.has(id));
    if (unknown.length) {
      throw invalidParameters(`cols ${unknown.map((id) => `"cf_${id}"`).join(', ')}: no custom field of organizations with that ID`);
    }
  }

  /** The opt-in columns of a page's organizations: one query per column (both lead score columns share one). */
  async function loadValues(communityId: number, ids: number[], cols: Cols): Promise<PageValues> {
    const named = (name: string) => cols.names.has(name);
    const [customFields, scores, jobOpenings, news, topContacts, surgingTopics, tags, researchResults] = await Promise.all([
      cols.customFields ? customFieldTx.customFieldValuesOf(db, communityId, 'organization', ids, cols.customFields) : undefined,
      named('leadScores') || named('leadScoreKeyFactors') ? leadScoreTx.scoresOf(db, communityId, 'organization', ids) : undefined,
      named('recentJobOpenings') ? organizations.recentJobOpeningsOf(db, communityId, ids, RECENT_LIMIT) : undefined,
      named('recentNews') ? organizations.recentNewsOf(db, communityId, ids, RECENT_LIMIT) : undefined,
      named('topContacts') ? organizations.topContactsOf(db, communityId, ids, RECENT_LIMIT) : undefined,
      named('surgingTopics') ? organizations.surgingTopicsOf(db, communityId, ids, deps.clock.now(), RECENT_LIMIT) : undefined,
      named('tags') ? tagTx.tagIdsOf(db, communityId, 'organization', ids) : undefined,
      named('researchResults') ? organizations.researchResultsOf(db, communityId, ids) : undefined,
    ]);
    return { customFields, scores, jobOpenings, news, topContacts, surgingTopics, tags, researchResults };
  }

  async function present(communityId: number, rows: organizations.OrganizationRow[], cols: Cols) {
    const values = await loadValues(
      communityId,
      rows.map((row) => row.id),
      cols,
    );
    return rows.map((row) => presentOrganization(row, cols, values, deps.publicUrl));
  }

  return {
    /** GET /api/v2/organizations: keyset pages by `sort` (default `id`), narrowed by name, primaryDomain and lightFilter. */
    async list(communityId: number, query: OrganizationsQuery) {
      const { cols, sort, page: pageRequest } = query;
      const [order, compiled] = await Promise.all([
        sortOrder(communityId, sort),
        deps.filters.compile(communityId, 'organization', query.lightFilter, deps.clock.now()),
        checkFieldCols(communityId, cols),
      ]);
      const filters: organizations.OrganizationFilters = {
        name: query.name ?? null,
        // Domains are stored lowercase.
        primaryDomain: query.primaryDomain?.toLowerCase() ?? null,
        where: compiled?.where ?? null,
      };
      const binding = {
        community: communityId,
        list: 'organizations',
        sort: sort.name,
        direction: pageRequest.direction,
        filters: { name: filters.name, primaryDomain: filters.primaryDomain, lightFilter: compiled?.expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, pageRequest, (after) =>
        organizations.pageOrganizations(db, communityId, filters, order, {
          direction: pageRequest.direction,
          limit: pageRequest.limit,
          after,
        }),
      );
      const [data, recordCount] = await Promise.all([
        present(communityId, page.rows, cols),
        cols.recordCount ? organizations.countOrganizations(db, communityId, filters) : undefined,
      ]);
      return { data, meta: { nextCursor: page.nextCursor, ...(recordCount === undefined ? {} : { recordCount }) } };
    },

    /** GET /api/v2/organizations/{id}: another community's organization is not found, like a missing one. */
    async get(communityId: number, { id, cols }: GetQuery) {
      await checkFieldCols(communityId, cols);
      const row = await organizations.findOrganizationRow(db, communityId, id);
      if (!row) throw notFound('org_not_found', `no organization ${formatId('organization', id)}`);
      const [organization] = await present(communityId, [row], cols);
      return organization!;
    },
  };
}

export type OrganizationReadService = ReturnType<typeof createOrganizationReadService>;
