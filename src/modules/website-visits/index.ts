// The face of the website-visits module: what the rest of the code uses of it. Its other files are private.
export { websiteVisitRoutes } from './website-visit.routes.ts';
export { createWebsiteVisitService } from './website-visit.service.ts';
