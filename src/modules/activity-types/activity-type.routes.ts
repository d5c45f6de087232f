import Type from 'typebox';
import { v2Definitions } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { component } from '../../http/components.ts';
import type { ActivityTypeService } from './activity-type.service.ts';

const ActivityType = component(
  'ActivityType',
  Type.Object({
    id: Type.String({ description: "The value pushed as activityType and shown as an activity's type" }),
    displayName: Type.String(),
  }),
);

const ActivityCategory = component(
  'ActivityCategory',
  Type.Object({
    id: Type.String({ description: 'cat_<value>' }),
    name: Type.String({ description: 'For display' }),
    value: Type.String({ description: 'The category as activity types name it (e.g. `social`)' }),
  }),
);

export function activityTypeRoutes(app: HearthApp, services: { activityTypes: ActivityTypeService }) {
  app.get(
    '/community/v1/activityTypes',
    {
      // Ingestion clients read the accepted types with their push token.
      config: { auth: { any: ['contacts:read', 'sources:write'] } },
      schema: {
        operationId: 'listCoreActivityTypes',
        tags: ['core'],
        summary: 'Accepted activity types',
        description: 'Scope: `contacts:read`, or `sources:write` so that a push token can read the types it may push.',
        response: { 200: Type.Array(ActivityType) },
      },
    },
    async (request) => services.activityTypes.list(contextOf(request).communityId),
  );

  app.get(
    '/api/v2/activity-types',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: { operationId: 'listActivityTypes', tags: ['v2'], summary: 'List activity types', response: { 200: v2Definitions(ActivityType) } },
    },
    async (request) => ({ success: true as const, data: await services.activityTypes.list(contextOf(request).communityId) }),
  );

  app.get(
    '/api/v2/activity-categories',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'listActivityCategories',
        tags: ['v2'],
        summary: 'List activity categories',
        description: "Every category that a built-in activity type or one of the community's own types belongs to, by ID.",
        response: { 200: v2Definitions(ActivityCategory) },
      },
    },
    async (request) => ({ success: true as const, data: await services.activityTypes.categories(contextOf(request).communityId) }),
  );
}
