// The face of the filter-fields module: what the rest of the code uses of it. Its other files are private.
export { filterFieldRoutes } from './filter-fields.v2.routes.ts';
export { createFilterService } from './filter.service.ts';
