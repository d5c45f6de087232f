// The face of the search module: what the rest of the code uses of it. Its other files are private.
export { searchRoutes } from './search.v2.routes.ts';
export { createSearchService, type SearchService } from './search.service.ts';
