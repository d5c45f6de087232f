import { contextOf, type HearthApp } from '../../http/types.ts';
import type { Services } from '../../services.ts';
import { ActivitiesQuery, ActivitiesResponse, ActivityParams, ActivityQuery, ActivityResponse, SentimentsResponse } from './activity.schemas.ts';

export function activityRoutes(app: HearthApp, services: Services) {
  app.get(
    '/api/v2/activities',
    {
      config: { auth: { all: ['activities:read'] } },
      schema: {
        operationId: 'listActivities',
        tags: ['v2'],
        summary: 'List activities',
        description:
          'Keyset pages by `activityTime` (default; ties by ID) or by `id`. `contactId` (a merged contact\'s ID gives ' +
          "the survivor's activities), `organizationId` (its contacts' activities), `startDate` and `endDate` (both " +
          'inclusive) and `lightFilter` narrow the list; a cursor is tied to the sort, direction and filters that made it.',
        querystring: ActivitiesQuery,
        response: { 200: ActivitiesResponse },
      },
    },
    async (request) => ({ success: true as const, ...(await services.activities.list(contextOf(request).communityId, request.query)) }),
  );

  app.get(
    '/api/v2/activities/:id',
    {
      config: { auth: { all: ['activities:read'] } },
      schema: {
        operationId: 'getActivity',
        tags: ['v2'],
        summary: 'Get an activity',
        description: 'The opt-in columns named in `cols` are added to `id`, `type` and `activityTime`.',
        params: ActivityParams,
        querystring: ActivityQuery,
        response: { 200: ActivityResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.activities.get(contextOf(request).communityId, request.params.id, request.query),
    }),
  );

  app.get(
    '/api/v2/activity-sentiment',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'listActivitySentiments',
        tags: ['v2'],
        summary: 'List activity sentiments',
        description: 'The values an activity\'s `sentiment` takes: positive, negative, neutral.',
        response: { 200: SentimentsResponse },
      },
    },
    async () => ({ success: true as const, data: services.activities.sentiments() }),
  );
}
