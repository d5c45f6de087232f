// The face of the activity-types module: what the rest of the code uses of it. Its other files are private.
export { activityTypeRoutes } from './activity-type.routes.ts';
export { type ActivityTypeService, createActivityTypeService } from './activity-type.service.ts';
export { activityTypeTx, type ActivityTypeTxService } from './activity-type-tx.service.ts';
