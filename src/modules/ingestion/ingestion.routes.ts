import { parseCoreId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { Accepted, ActivityPushBody, SourcePathParams, UserPushBody } from './ingestion.schemas.ts';
import type { IngestionService } from './ingestion.service.ts';

export function ingestionRoutes(app: HearthApp, services: { ingestion: IngestionService }) {
  app.post(
    '/community/v1/source/:destinationSourceId/user',
    {
      config: { auth: { all: ['sources:write'] } },
      schema: {
        operationId: 'pushCoreUser',
        tags: ['core'],
        summary: 'Add or update a user in a destination source',
        description:
          'Matches the person by the sender\'s ID in this source, then by email, GitHub, X, LinkedIn and Discord; ' +
          'merges contacts that the push shows to be one person. Junk identifiers are dropped and listed in `warnings`.',
        params: SourcePathParams,
        body: UserPushBody,
        response: { 202: Accepted },
      },
    },
    async (request, reply) => {
      const accepted = await services.ingestion.pushUser(contextOf(request), parseCoreId('provider', request.params.destinationSourceId), request.body);
      return reply.code(202).send(accepted);
    },
  );

  app.post(
    '/community/v1/source/:destinationSourceId/activity',
    {
      config: { auth: { all: ['sources:write'] } },
      schema: {
        operationId: 'pushCoreActivity',
        tags: ['core'],
        summary: 'Add or update an activity in a destination source',
        description: '(source, activityType, id) identifies the activity: a repeat updates it in place. The user is matched as in a user push.',
        params: SourcePathParams,
        body: ActivityPushBody,
        response: { 202: Accepted },
      },
    },
    async (request, reply) => {
      const accepted = await services.ingestion.pushActivity(
        contextOf(request),
        parseCoreId('provider', request.params.destinationSourceId),
        request.body,
      );
      return reply.code(202).send(accepted);
    },
  );
}
