import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Nullable, v2Definitions, v2Item } from '../../http/schemas.ts';
import { formatId, parseId, parseOptionalId } from '../../core/ids.ts';
import { getQueryOf, sortedListQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  Contact,
  CONTACT_GET_COLS,
  CONTACT_LIST_COLS,
  CONTACT_SORT,
  ContactParams,
  ContactQuery,
  ContactResponse,
  ContactsQuery,
  ContactsResponse,
} from './contact.schemas.ts';
import type { ContactMergeService } from './contact-merge.service.ts';
import type { ContactService } from './contact.service.ts';
import { NO_COLS } from '../../core/list-query.ts';

export function contactRoutes(app: HearthApp, services: { contacts: ContactService; contactMerges: ContactMergeService }) {
  const auth = { all: ['contacts:read' as const] };
  const write = { all: ['contacts:write' as const] };
  const show = (communityId: number, id: number) => services.contacts.get(communityId, { id, cols: NO_COLS });

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
          'The contacts merged into this one (a merged ID answers for its survivor), newest first, with the reason and the type of the ' +
          'identity they shared, who merged them by hand, and the merges undone since (which no longer lead their ID here).',
        params: ContactParams,
        response: { 200: v2Definitions(ContactMerge) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.contacts.merges(contextOf(request).communityId, parseId('contact', request.params.id)),
    }),
  );

  app.post(
    '/api/v2/contacts/:id/merge',
    {
      config: { auth: write },
      schema: {
        operationId: 'mergeContacts',
        tags: ['v2'],
        summary: 'Merge two contacts',
        description:
          "Makes this contact and `contactId` one, as a push naming both would: the older contact survives and takes the other's " +
          'identities, source profiles, activities, segment memberships, tags, custom-field values and object links (its own win), and ' +
          "its empty fields take the other's values. Recorded in the merge history with who did it, and undoable " +
          '(`POST /api/v2/contacts/{id}/unmerge`). A never-merge mark between the two is lifted. Either ID may be one merged earlier: ' +
          'it stands for its survivor. A merge suggestion (`GET /api/v2/contacts/merge-suggestions`) is accepted this way.',
        params: ContactParams,
        body: MergeBody,
        response: { 200: MergeResponse },
      },
    },
    async (request) => {
      const context = contextOf(request);
      const { survivorId, mergedId } = await services.contactMerges.merge(
        context,
        parseId('contact', request.params.id),
        parseId('contact', request.body.contactId),
      );
      return {
        success: true as const,
        data: { survivorId: formatId('contact', survivorId), mergedId: formatId('contact', mergedId), contact: await show(context.communityId, survivorId) },
      };
    },
  );

  app.post(
    '/api/v2/contacts/:id/unmerge',
    {
      config: { auth: write },
      schema: {
        operationId: 'unmergeContact',
        tags: ['v2'],
        summary: 'Undo a merge',
        description:
          "Undoes one merge of this contact's history (automatic or by hand): `mergedId` comes back under its ID with the identities, " +
          'source profiles, activities, segment memberships, tags, custom-field values and object links it brought, as they were; what ' +
          'arrived after the merge from one of its source profiles goes with it; fields this contact took from it and nothing changed ' +
          'since are empty again. The two are then marked never to merge: a push naming identities of both is stored on the contact its ' +
          "sender's ID leads to, with a warning. 404 `merge_not_found` when `mergedId` is not merged into this contact; 409 when the " +
          'merge kept no record of what it brought.',
        params: ContactParams,
        body: UnmergeBody,
        response: { 200: UnmergeResponse },
      },
    },
    async (request) => {
      const context = contextOf(request);
      const { survivorId, restoredId } = await services.contactMerges.unmerge(
        context,
        parseId('contact', request.params.id),
        parseId('contact', request.body.mergedId),
      );
      return {
        success: true as const,
        data: { contact: await show(context.communityId, survivorId), restored: await show(context.communityId, restoredId) },
      };
    },
  );
}

const MergeBody = Type.Object({ contactId: Type.String({ description: 'c_N: the other contact' }) }, { additionalProperties: false });

const UnmergeBody = Type.Object(
  { mergedId: Type.String({ description: 'c_N: the contact to bring back, as the merge history names it' }) },
  { additionalProperties: false },
);

const MergeResponse = v2Item(
  component(
    'ContactMergeResult',
    Type.Object({
      survivorId: Type.String({ description: 'c_N: the contact that survived (the older one)' }),
      mergedId: Type.String({ description: 'c_N: the contact merged into it; its ID now resolves to the survivor' }),
      contact: Contact,
    }),
  ),
);

const UnmergeResponse = v2Item(
  component(
    'ContactUnmergeResult',
    Type.Object({
      contact: Contact,
      restored: Contact,
    }),
  ),
);

const ContactMerge = component(
  'ContactMerge',
  Type.Object({
    mergedId: Type.String({ description: 'c_N: the contact merged in; its ID keeps resolving to this one' }),
    reason: Type.String(),
    identityType: Nullable(Type.String({ description: 'The type of the identity the two shared (email, github, ...)' })),
    providerId: Nullable(Type.String({ description: 'sig_N: the source of the push that merged them; null for a merge by hand' })),
    mergedAt: Type.String({ format: 'date-time' }),
    mergedBy: Nullable(Type.String({ description: 'Who merged them by hand (`user:<email>`, `token:<name>`, `cli:...`); null for ingestion' })),
    unmergedAt: Nullable(Type.String({ format: 'date-time', description: 'When the merge was undone; null while it stands' })),
    unmergedBy: Nullable(Type.String({ description: 'Who undid it' })),
    undoable: Type.Boolean({ description: 'Whether `POST /api/v2/contacts/{id}/unmerge` can undo it now' }),
  }),
);
