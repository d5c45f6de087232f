import Type from 'typebox';
import { parseCoreId } from '../../core/ids.ts';
import { Nullable } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import type { WebsiteVisitPushService } from './website-visit-push.service.ts';

const MAX_VISITS = 1000;

const VisitsBody = Type.Array(Type.Unknown(), {
  minItems: 1,
  maxItems: MAX_VISITS,
  description:
    `Up to ${MAX_VISITS} visits \`{url, visitTime?, email | contactId | anonymousId, organizationDomain?}\`: the page (http or https), when ` +
    "(ISO 8601; default now), who (exactly one: an email address of a contact, a contact ID `c_N` or N, or the visitor's anonymous ID), " +
    "and the organization's domain when known. Each item is checked by itself: a bad one is answered in `results` with its errors.",
});

const VisitAccepted = Type.Object({
  index: Type.Integer({ description: 'Position of the item in the request, from 0' }),
  status: Type.Literal('accepted'),
  id: Type.String({ description: 'w_N (the same for a visit pushed again: same visitor, page and time)' }),
  contactId: Nullable(Type.String({ description: 'c_N; null for an anonymous visitor or an unknown address' })),
  organizationId: Nullable(Type.String({ description: "o_N: by organizationDomain, else the contact's organization" })),
  warnings: Type.Array(Type.String()),
});
const VisitRejected = Type.Object({
  index: Type.Integer(),
  status: Type.Literal('rejected'),
  errors: Type.Array(Type.String(), { description: 'What is wrong with the item; it was not stored' }),
});
const VisitsAccepted = Type.Object({
  status: Type.Literal('accepted'),
  accepted: Type.Integer(),
  rejected: Type.Integer(),
  results: Type.Array(Type.Union([VisitAccepted, VisitRejected]), { description: 'One per item, in the order of the request' }),
});

export function websiteVisitPushRoutes(app: HearthApp, services: { websiteVisitPushes: WebsiteVisitPushService }) {
  app.post(
    '/community/v1/source/:destinationSourceId/website-visits',
    {
      config: { auth: { all: ['sources:write'] }, itemsCheckedAlone: true },
      schema: {
        operationId: 'pushWebsiteVisits',
        tags: ['core'],
        summary: 'Add website visits to a source (Hearth)',
        description:
          "Visitors are found among the community's contacts (a merged ID finds the survivor) and organizations by domain; nothing is " +
          'created. A visit of an unknown address is kept without a contact, with a warning; an unknown contact ID is an error of its item. ' +
          'They fill `recentWebPages` and `recentWebVisitsNumber` and the website visits list.',
        params: Type.Object({ destinationSourceId: Type.String({ description: 'The source ID (integer)' }) }),
        body: VisitsBody,
        response: { 202: VisitsAccepted },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await services.websiteVisitPushes.push(contextOf(request), parseCoreId('provider', request.params.destinationSourceId), request.body)),
  );
}
