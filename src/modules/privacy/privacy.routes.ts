import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Nullable, v2Definitions } from '../../http/schemas.ts';
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

const RemovalRequest = component(
  'RemovalRequest',
  Type.Object({
    id: Type.Integer(),
    email: Nullable(Type.String({ description: 'Kept only until the erasure has run; null afterwards.' })),
    status: Type.Enum(['queued', 'running', 'completed', 'failed']),
    requestedBy: Nullable(Type.String({ description: 'The token (jti) or session that asked; null from the CLI.' })),
    requestedAt: Type.String({ format: 'date-time' }),
    deadline: Type.String({ format: 'date-time' }),
    completedAt: Nullable(Type.String({ format: 'date-time' })),
    erased: Type.Record(Type.String(), Type.Integer(), { description: 'What the erasure touched, by kind (contacts, identities, ...).' }),
  }),
);

/**
 * Removal of personal information (docs/behaviour.md, Routes and Removal): DELETE /user/{email}, and
 * DELETE /user?email=.
 */
export function privacyRoutes(app: HearthApp, services: { privacy: PrivacyService }) {
  const config = { auth: { all: ['privacy:write' as const] } };

  app.get(
    '/api/v2/admin/removal-requests',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'listRemovalRequests',
        tags: ['admin'],
        summary: 'List removal requests and their status (what `hearth privacy list` shows), newest first',
        response: { 200: v2Definitions(RemovalRequest) },
      },
    },
    async (request) => ({
      success: true as const,
      data: (await services.privacy.list(contextOf(request).communityId)).reverse().map((row) => ({
        id: row.id,
        email: row.email,
        status: row.status,
        requestedBy: row.requestedBy,
        requestedAt: row.requestedAt.toISOString(),
        deadline: row.deadlineAt.toISOString(),
        completedAt: row.completedAt?.toISOString() ?? null,
        erased: Object.fromEntries(Object.entries(row.erased).filter((entry): entry is [string, number] => typeof entry[1] === 'number')),
      })),
    }),
  );

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
