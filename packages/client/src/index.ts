// @hearth/client: a typed client for Hearth's HTTP API, generated from its OpenAPI document.
export { createHearthClient, type HearthClient, type HearthClientOptions, type Page, type PageItem, type PagedPath, type ResponseData } from './client.ts';
export { HearthApiError, isHearthApiError } from './errors.ts';
export type { RetryOptions } from './retry.ts';
export { retryingFetch } from './retry.ts';
export {
  encodeLightFilter,
  lightFilter,
  lightFilterFor,
  type BooleanFilterClause,
  type ClauseKind,
  type DateRange,
  type DateRangeFilterClause,
  type EntityOfList,
  type FieldFor,
  type FilterBuilder,
  type FilterClause,
  type FilterEntity,
  type FilterGroup,
  type FilteredListPath,
  type LeafClause,
  type LightFilterGroup,
  type NumberFilterClause,
  type OpFor,
  type StringFilterClause,
  type StringListFilterClause,
} from './filters.ts';
export { FILTER_FIELDS, FILTERED_LISTS, PAGED_PATHS } from './generated/lists.ts';
export type { components, operations, paths } from './generated/openapi.ts';
import type { components } from './generated/openapi.ts';

/** The named schemas of Hearth's document (`Schemas['Contact']`, `Schemas['V2Error']`, …). */
export type Schemas = components['schemas'];
