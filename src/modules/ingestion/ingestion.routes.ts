import { parseCoreId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  Accepted,
  ActivityBatchBody,
  ActivityPushBody,
  BatchAccepted,
  IngestionBacklog,
  SourcePathParams,
  UserBatchBody,
  UserPushBody,
} from './ingestion.schemas.ts';
import type { BatchItemAnswer, IngestionService } from './ingestion.service.ts';

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
          "Matches the person by the sender's ID in this source, then by email, GitHub, X, LinkedIn and Discord; " +
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
      const accepted = await services.ingestion.pushActivity(contextOf(request), parseCoreId('provider', request.params.destinationSourceId), request.body);
      return reply.code(202).send(accepted);
    },
  );

  app.post(
    '/community/v1/source/:destinationSourceId/users',
    {
      config: { auth: { all: ['sources:write'] }, itemsCheckedAlone: true },
      schema: {
        operationId: 'pushCoreUsers',
        tags: ['core'],
        summary: 'Add or update many users in a destination source (Hearth)',
        description:
          'The user push for up to 1,000 users in one request, stored together in order, as if pushed one after another. ' +
          'Answered once every accepted item is stored.',
        params: SourcePathParams,
        body: UserBatchBody,
        response: { 202: BatchAccepted },
      },
    },
    async (request, reply) => {
      const results = await services.ingestion.pushUsers(contextOf(request), parseCoreId('provider', request.params.destinationSourceId), request.body);
      return reply.code(202).send(batchAnswer(results));
    },
  );

  app.post(
    '/community/v1/source/:destinationSourceId/activities',
    {
      config: { auth: { all: ['sources:write'] }, itemsCheckedAlone: true },
      schema: {
        operationId: 'pushCoreActivities',
        tags: ['core'],
        summary: 'Add or update many activities in a destination source (Hearth)',
        description:
          'The activity push for up to 1,000 activities in one request, stored together in order, as if pushed one after ' +
          'another (a reply may come before its parent). Answered once every accepted item is stored.',
        params: SourcePathParams,
        body: ActivityBatchBody,
        response: { 202: BatchAccepted },
      },
    },
    async (request, reply) => {
      const results = await services.ingestion.pushActivities(contextOf(request), parseCoreId('provider', request.params.destinationSourceId), request.body);
      return reply.code(202).send(batchAnswer(results));
    },
  );

  app.get(
    '/api/v2/admin/ingestion',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'getIngestionBacklog',
        tags: ['admin'],
        summary: 'The ingestion backlog',
        description:
          "Pushes of the caller's community that the serving processes have taken in and not answered yet, how long the " +
          'oldest has waited, and what they stored in the last minute. A push is answered once stored, so the backlog is ' +
          'the pushes waiting for the transaction before theirs. The answering process counts its own as they are; the ' +
          'others as they last reported them (every 5 s; a report older than 15 s is left out).',
        response: { 200: IngestionBacklog },
      },
    },
    async (request) => ({ success: true as const, data: await services.ingestion.backlog(contextOf(request).communityId) }),
  );
}

function batchAnswer(results: BatchItemAnswer[]) {
  const rejected = results.filter((result) => result.status === 'rejected').length;
  return { status: 'accepted' as const, accepted: results.length - rejected, rejected, results };
}
