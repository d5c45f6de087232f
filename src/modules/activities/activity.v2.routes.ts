import { parseOptionalId } from '../../core/ids.ts';
import { getQueryOf, sortedListQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  ACTIVITY_SORT,
  ActivitiesQuery,
  GET_COLS,
  LIST_COLS,
  ActivitiesResponse,
  ActivityParams,
  ActivityQuery,
  ActivityResponse,
  SentimentsResponse,
} from './activity.schemas.ts';
import type { ActivityService } from './activity.service.ts';

export function activityRoutes(app: HearthApp, services: { activities: ActivityService }) {
  app.get(
    '/api/v2/activities',
    {
      config: { auth: { all: ['activities:read'] }, read: { paged: true, cols: LIST_COLS, sort: ACTIVITY_SORT } },
      schema: {
        operationId: 'listActivities',
        tags: ['v2'],
        summary: 'List activities',
        description:
          "Keyset pages by `activityTime` (default; ties by ID) or by `id`. `contactId` (a merged contact's ID gives " +
          "the survivor's activities), `organizationId` (its contacts' activities), `startDate` and `endDate` (both " +
          'inclusive) and `lightFilter` narrow the list; a cursor is tied to the sort, direction and filters that made it.',
        querystring: ActivitiesQuery,
        response: { 200: ActivitiesResponse },
      },
    },
    async (request) => {
      const { contactId, organizationId, startDate, endDate, lightFilter } = request.query;
      const query = {
        ...sortedListQueryOf(request),
        contactId: parseOptionalId('contact', contactId),
        organizationId: parseOptionalId('organization', organizationId),
        startDate,
        endDate,
        lightFilter,
      };
      return { success: true as const, ...(await services.activities.list(contextOf(request).communityId, query)) };
    },
  );

  app.get(
    '/api/v2/activities/:id',
    {
      config: { auth: { all: ['activities:read'] }, read: { id: 'activity', cols: GET_COLS } },
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
      data: await services.activities.get(contextOf(request).communityId, getQueryOf(request)),
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
        description: "The values an activity's `sentiment` takes: positive, negative, neutral.",
        response: { 200: SentimentsResponse },
      },
    },
    async () => ({ success: true as const, data: services.activities.sentiments() }),
  );
}
