import { getQueryOf, sortedListQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  COMPANY_GET_COLS,
  COMPANY_LIST_COLS,
  COMPANY_SORT,
  CompaniesQuery,
  CompanyItem,
  CompanyPage,
  CompanyParams,
  CompanyQuery,
  CONTACT_GET_COLS,
  CONTACT_LIST_COLS,
  CONTACT_SORT,
  ContactItem,
  ContactPage,
  ContactParams,
  ContactQuery,
  ContactsQuery,
} from './prospector.schemas.ts';
import type { ProspectorService } from './prospector.service.ts';

/** The prospector data every community shares (docs/prospector.md); POST /api/v2/admin/prospector/* fills it. */
export function prospectorRoutes(app: HearthApp, services: { prospector: ProspectorService }) {
  const auth = { all: ['prospector:read' as const] };

  app.get(
    '/api/v2/prospector-companies',
    {
      config: { auth, read: { paged: true, cols: COMPANY_LIST_COLS, sort: COMPANY_SORT } },
      schema: {
        operationId: 'listProspectorCompanies',
        tags: ['v2'],
        summary: 'List prospector companies',
        description:
          'The prospector data shared by every community of the server, keyset paged by `id` (default), `name`, `employeeCount`, ' +
          '`capitalRaised` or `score`. `cols` adds the fields beyond `id` and `name`.',
        querystring: CompaniesQuery,
        response: { 200: CompanyPage },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await services.prospector.listCompanies(contextOf(request).communityId, { ...sortedListQueryOf(request), lightFilter: request.query.lightFilter })),
    }),
  );

  app.get(
    '/api/v2/prospector-companies/:id',
    {
      config: { auth, read: { id: 'prospector_company', cols: COMPANY_GET_COLS } },
      schema: {
        operationId: 'getProspectorCompany',
        tags: ['v2'],
        summary: 'Get a prospector company',
        description: '`cols` adds the fields beyond `id` and `name`.',
        params: CompanyParams,
        querystring: CompanyQuery,
        response: { 200: CompanyItem },
      },
    },
    async (request) => ({ success: true as const, data: await services.prospector.getCompany(getQueryOf(request)) }),
  );

  app.get(
    '/api/v2/prospector-contacts',
    {
      config: { auth, read: { paged: true, cols: CONTACT_LIST_COLS, sort: CONTACT_SORT } },
      schema: {
        operationId: 'listProspectorContacts',
        tags: ['v2'],
        summary: 'List prospector contacts',
        description:
          'The prospector data shared by every community of the server, keyset paged by `id` (default), `name`, `title`, ' +
          '`linkedInFollowers`, `lastOrgChange`, `seniority` or `role`. `cols` adds the fields beyond `id` and `name`; ' +
          "`companyName` and `companyWebsite` are those of the contact's prospector company.",
        querystring: ContactsQuery,
        response: { 200: ContactPage },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await services.prospector.listContacts(contextOf(request).communityId, { ...sortedListQueryOf(request), lightFilter: request.query.lightFilter })),
    }),
  );

  app.get(
    '/api/v2/prospector-contacts/:id',
    {
      config: { auth, read: { id: 'prospector_contact', cols: CONTACT_GET_COLS } },
      schema: {
        operationId: 'getProspectorContact',
        tags: ['v2'],
        summary: 'Get a prospector contact',
        description: '`cols` adds the fields beyond `id` and `name`.',
        params: ContactParams,
        querystring: ContactQuery,
        response: { 200: ContactItem },
      },
    },
    async (request) => ({ success: true as const, data: await services.prospector.getContact(getQueryOf(request)) }),
  );
}
