import Type from 'typebox';
import { v2Item } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import type { Services } from '../../services.ts';

const Contact = Type.Object({ id: Type.String({ description: 'c_N' }), name: Type.String() });

export function contactRoutes(app: HearthApp, services: Services) {
  app.get(
    '/api/v2/contacts/:id',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        tags: ['v2'],
        summary: 'Get a contact',
        description: 'The ID of a contact merged into another answers with the surviving contact.',
        params: Type.Object({ id: Type.String({ description: 'c_N' }) }),
        response: { 200: v2Item(Contact) },
      },
    },
    async (request) => ({ success: true as const, data: await services.contacts.get(contextOf(request).communityId, request.params.id) }),
  );
}
