import { parseOptionalId } from '../../core/ids.ts';
import { getQueryOf, sortedListQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { CONTACT_GET_COLS, CONTACT_LIST_COLS, CONTACT_SORT, ContactParams, ContactQuery, ContactResponse, ContactsQuery, ContactsResponse } from './contact.schemas.ts';
import type { ContactService } from './contact.service.ts';

export function contactRoutes(app: HearthApp, services: { contacts: ContactService }) {
  const auth = { all: ['contacts:read' as const] };

  app.get(
    '/api/v2/contacts',
    {
      config: { auth, read: { paged: true, cols: CONTACT_LIST_COLS, sort: CONTACT_SORT } },
      schema: {
        operationId: 'listContacts',
        tags: ['v2'],
        summary: 'List contacts',
        description:
          'Keyset pages in the asked sort (`id`, `latest_activity`, `name`, `ls_<id>`, `cf_<id>`), narrowed by ' +
          '`organizationId`, `segmentId` and `lightFilter`. Only `id` and `name` come without `cols`.',
        querystring: ContactsQuery,
        response: { 200: ContactsResponse },
      },
    },
    async (request) => {
      const { organizationId, segmentId, lightFilter } = request.query;
      const query = {
        ...sortedListQueryOf(request),
        organizationId: parseOptionalId('organization', organizationId),
        segmentId: parseOptionalId('segment', segmentId),
        lightFilter,
      };
      return { success: true as const, ...(await services.contacts.list(contextOf(request).communityId, query)) };
    },
  );

  app.get(
    '/api/v2/contacts/:id',
    {
      config: { auth, read: { id: 'contact', cols: CONTACT_GET_COLS } },
      schema: {
        operationId: 'getContact',
        tags: ['v2'],
        summary: 'Get a contact',
        description: 'The ID of a contact merged into another answers with the surviving contact.',
        params: ContactParams,
        querystring: ContactQuery,
        response: { 200: ContactResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.contacts.get(contextOf(request).communityId, getQueryOf(request)),
    }),
  );
}
