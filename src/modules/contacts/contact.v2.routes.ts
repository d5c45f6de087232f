import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Nullable, v2Definitions } from '../../http/schemas.ts';
import { parseId, parseOptionalId } from '../../core/ids.ts';
import { getQueryOf, sortedListQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  CONTACT_GET_COLS,
  CONTACT_LIST_COLS,
  CONTACT_SORT,
  ContactParams,
  ContactQuery,
  ContactResponse,
  ContactsQuery,
  ContactsResponse,
} from './contact.schemas.ts';
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

  app.get(
    '/api/v2/contacts/:id/merges',
    {
      config: { auth },
      schema: {
        operationId: 'listContactMerges',
        tags: ['v2'],
        summary: "A contact's merge history",
        description:
          'The contacts merged into this one (a merged ID answers for its survivor), newest first, with the reason and the type of the identity they shared.',
        params: ContactParams,
        response: { 200: v2Definitions(ContactMerge) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.contacts.merges(contextOf(request).communityId, parseId('contact', request.params.id)),
    }),
  );
}

const ContactMerge = component(
  'ContactMerge',
  Type.Object({
    mergedId: Type.String({ description: 'c_N: the contact merged in; its ID keeps resolving to this one' }),
    reason: Type.String(),
    identityType: Nullable(Type.String({ description: 'The type of the identity the two shared (email, github, ...)' })),
    providerId: Nullable(Type.String({ description: 'sig_N: the source of the push that merged them' })),
    mergedAt: Type.String({ format: 'date-time' }),
  }),
);
