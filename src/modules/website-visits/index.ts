// The face of the website-visits module: what the rest of the code may use. Everything else here is private.
export { websiteVisitRoutes } from './website-visit.routes.ts';
export { createWebsiteVisitService } from './website-visit.service.ts';
