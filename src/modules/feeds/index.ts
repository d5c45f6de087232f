// The face of the feeds module: what the rest of the code uses of it. Its other files are private.
export { feedRoutes } from './feed.v2.routes.ts';
export { createFeedService, type FeedService } from './feed.service.ts';
