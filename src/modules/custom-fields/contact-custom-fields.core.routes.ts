import Type from 'typebox';
import { contextOf, type HearthApp } from '../../http/types.ts';
import type { ContactCustomFieldService } from './contact-custom-fields.service.ts';

const ContactCustomField = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String({ description: 'string, url, int, number, date, boolean or enum' }),
  multivalue: Type.Boolean(),
  values: Type.Array(Type.String(), { description: 'The allowed values of an enum field; [] for other types' }),
});

const ContactCustomFieldsQuery = Type.Object(
  {
    destinationSourceId: Type.Optional(Type.String({ description: 'A source ID (integer, or sig_N): list only the fields that source may write' })),
  },
  { additionalProperties: false },
);

export function contactCustomFieldRoutes(app: HearthApp, services: { contactCustomFields: ContactCustomFieldService }) {
  app.get(
    '/community/v1/members/customFields',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'listCoreContactCustomFields',
        tags: ['core'],
        summary: 'List contact custom fields',
        querystring: ContactCustomFieldsQuery,
        response: { 200: Type.Array(ContactCustomField) },
      },
    },
    async (request) => services.contactCustomFields.listCore(contextOf(request).communityId, request.query),
  );
}
