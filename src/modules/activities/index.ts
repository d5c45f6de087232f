// The face of the activities module: what the rest of the code uses of it. Its other files are private.
export { parseActivityTimestamp } from './activity-time.ts';
export { ACTIVITY_FILTERS } from './activity.filters.ts';
export { activityRoutes } from './activity.v2.routes.ts';
export { FullActivity, LIST_COLS as ACTIVITY_LIST_COLS } from './activity.schemas.ts';
export { type ActivityService, createActivityService } from './activity.service.ts';
export { readText } from './text-reader.ts';
export { activityTopics, type ActivityText, type TextReading } from './text-reading.ts';
export { activityTx, type ActivityTxService } from './activity-tx.service.ts';
