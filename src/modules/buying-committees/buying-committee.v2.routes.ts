import { colsOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { META_COLS } from '../../http/cols.ts';
import {
  BuyingCommitteeBody,
  BuyingCommitteeCellsQuery,
  BuyingCommitteeCellsResponse,
  BuyingCommitteeResponse,
  BuyingCommitteeSetResponse,
  CANDIDATES_PER_GROUP,
} from './buying-committee.schemas.ts';
import type { BuyingCommitteeService } from './buying-committee.service.ts';

export function buyingCommitteeRoutes(app: HearthApp, services: { buyingCommittees: BuyingCommitteeService }) {
  app.get(
    '/api/v2/buying-committee-cells',
    {
      config: { auth: { all: ['organizations:read', 'contacts:read', 'prospector:read'] }, read: { cols: META_COLS } },
      schema: {
        operationId: 'listBuyingCommitteeCells',
        tags: ['v2'],
        summary: 'List the buying committee cells of an organization',
        description:
          'The whole committee in one answer, no paging (`meta.nextCursor` is always null): every seniority (row) by every department (column), in the committee’s order. ' +
          `Each cell holds up to ${CANDIDATES_PER_GROUP} engagement-ranked candidates and up to ${CANDIDATES_PER_GROUP} recently touched ones: the organization’s contacts, and the people of the prospector companies on its primary domain (emails withheld), whose title the title classifier puts in the cell. ` +
          'Needs `organizations:read`, `contacts:read` and `prospector:read`, or `read`. 404 `org_not_found` for an organization the community does not have, 404 `buying_committee_not_found` when the community has no committee.',
        querystring: BuyingCommitteeCellsQuery,
        response: { 200: BuyingCommitteeCellsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await services.buyingCommittees.cells(contextOf(request).communityId, { organizationId: request.query.organizationId, cols: colsOf(request) })),
    }),
  );

  app.get(
    '/api/v2/admin/buying-committee',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'getBuyingCommittee',
        tags: ['admin'],
        summary: 'Read the community’s buying committee',
        description: '404 `buying_committee_not_found` when the community has none.',
        response: { 200: BuyingCommitteeResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.buyingCommittees.get(contextOf(request).communityId) }),
  );

  app.put(
    '/api/v2/admin/buying-committee',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'setBuyingCommittee',
        tags: ['admin'],
        summary: 'Set (replace) the community’s buying committee',
        description:
          'Seniorities and departments in order, each `{id, key, name}`. Replaces the committee whole, in one transaction. A 400 names every fault; a key the title classifier does not know is accepted with a warning (its cells stay empty).',
        body: BuyingCommitteeBody,
        response: { 200: BuyingCommitteeSetResponse },
      },
    },
    async (request) => {
      const { committee, warnings } = await services.buyingCommittees.set(contextOf(request), request.body);
      return { success: true as const, data: committee, warnings };
    },
  );

  app.delete(
    '/api/v2/admin/buying-committee',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'removeBuyingCommittee',
        tags: ['admin'],
        summary: 'Remove the community’s buying committee',
        description: 'Answers the committee removed; 404 `buying_committee_not_found` when the community has none.',
        response: { 200: BuyingCommitteeResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.buyingCommittees.remove(contextOf(request)) }),
  );
}
