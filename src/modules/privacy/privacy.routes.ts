import Type from 'typebox';
import { contextOf, type HearthApp } from '../../http/types.ts';
import type { PrivacyService } from './privacy.service.ts';

const Email = Type.String({ description: 'The address whose owner asks to be erased' });

const Accepted = Type.Object({ status: Type.Literal('success') });

const description =
  'Stores the request durably and answers at once; a background job erases every contact of the community ' +
  'holding the address within 15 days (in practice, minutes): personal fields, identities, custom field ' +
  'values and activity content. The contact stays as a shell ("Anonymized contact") with its ID and ' +
  'activities, and one-way hashes of its identities go on a suppression list so later pushes do not bring ' +
  'the person back.';

/** Removal of personal information (decisions.md §2, §11): DELETE /user/{email}, and DELETE /user?email=. */
export function privacyRoutes(app: HearthApp, services: { privacy: PrivacyService }) {
  const config = { auth: { all: ['privacy:write' as const] } };

  app.delete(
    '/community/v1/user/:email',
    {
      config,
      schema: {
        operationId: 'requestCoreRemoval',
        tags: ['core'],
        summary: 'Request removal of personal information',
        description,
        params: Type.Object({ email: Email }),
        response: { 200: Accepted },
      },
    },
    async (request) => {
      await services.privacy.requestRemoval(contextOf(request), request.params.email);
      return { status: 'success' as const };
    },
  );

  app.delete(
    '/community/v1/user',
    {
      config,
      schema: {
        operationId: 'requestCoreRemovalByQuery',
        tags: ['core'],
        summary: 'Request removal of personal information (address in the query)',
        description: `${description} An unencoded \`+\` in the address reads as a space in a query string; a space inside the address is read back as \`+\`.`,
        querystring: Type.Object({ email: Email }, { additionalProperties: false }),
        response: { 200: Accepted },
      },
    },
    async (request) => {
      await services.privacy.requestRemoval(contextOf(request), request.query.email.trim().replace(/ /g, '+'));
      return { status: 'success' as const };
    },
  );
}
