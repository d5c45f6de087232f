// The face of the website-visits module: what the rest of the code uses of it. Its other files are private.
export { WEBSITE_VISIT_FILTERS } from './website-visit.filters.ts';
export { websiteVisitRoutes } from './website-visit.v2.routes.ts';
export { createWebsiteVisitService } from './website-visit.service.ts';
export { websiteVisitPushRoutes } from './website-visit-push.core.routes.ts';
export { createWebsiteVisitPushService } from './website-visit-push.service.ts';
export { trackerRoutes } from './tracker.routes.ts';
export { createTrackerService } from './tracker.service.ts';
