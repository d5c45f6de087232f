import Type from 'typebox';
import { v2Definitions } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import type { Services } from '../../services.ts';

const ActivityType = Type.Object({
  id: Type.String({ description: 'The value pushed as activityType and shown as an activity\'s type' }),
  displayName: Type.String(),
});

const ActivityCategory = Type.Object({
  id: Type.String({ description: 'A category of activity types' }),
  displayName: Type.String(),
});

export function activityTypeRoutes(app: HearthApp, services: Services) {
  app.get(
    '/community/v1/activityTypes',
    {
      // Ingestion clients read the accepted types with their push token.
      config: { auth: { any: ['contacts:read', 'sources:write'] } },
      schema: { tags: ['core'], summary: 'Accepted activity types', response: { 200: Type.Array(ActivityType) } },
    },
    async (request) => services.activityTypes.list(contextOf(request).communityId),
  );

  app.get(
    '/api/v2/activity-types',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: { tags: ['v2'], summary: 'List activity types', response: { 200: v2Definitions(ActivityType) } },
    },
    async (request) => ({ success: true as const, data: await services.activityTypes.list(contextOf(request).communityId) }),
  );

  app.get(
    '/api/v2/activity-categories',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        tags: ['v2'],
        summary: 'List activity categories',
        description: "Every category that a built-in activity type or one of the community's own types belongs to, by ID.",
        response: { 200: v2Definitions(ActivityCategory) },
      },
    },
    async (request) => ({ success: true as const, data: await services.activityTypes.categories(contextOf(request).communityId) }),
  );
}
