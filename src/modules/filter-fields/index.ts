// The face of the filter-fields module: what the rest of the code uses of it. Its other files are private.
export { filterFieldRoutes } from './filter-fields.routes.ts';
export { createFilterService, type FilterService } from './filter.service.ts';
export { lightFilterParam } from './light-filter.param.ts';
