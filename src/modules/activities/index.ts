// The face of the activities module: what the rest of the code uses of it. Its other files are private.
export { extractTopics, plainText, sentimentOf } from './activity-text.ts';
export { parseActivityTimestamp } from './activity-time.ts';
export { ACTIVITY_FILTERS } from './activity.filters.ts';
export { findOrCreateSubSource, upsertActivity } from './activity.repository.ts';
export { activityRoutes } from './activity.routes.ts';
export { FullActivity } from './activity.schemas.ts';
export { type ActivityService, createActivityService } from './activity.service.ts';
