import type { PresentedCursor } from './cursor.ts';

/** The opt-in columns a read asked for (docs/behaviour.md, cols). */
export interface Cols {
  /** Opt-in record columns named. */
  names: ReadonlySet<string>;
  /** `meta.recordCount` was asked for. */
  recordCount: boolean;
  /** Custom fields: `all` for `cf_*`, the IDs named by `cf_<id>`, or null when none was named. */
  customFields: 'all' | number[] | null;
}

/** A list's sort as asked for: one of its fixed sorts, or a custom field's or a lead score's value. */
export type SortChoice =
  { kind: 'fixed'; name: string } | { kind: 'custom_field'; id: number; name: string } | { kind: 'lead_score'; id: number; name: string };

/** Which page of a keyset list: its size, its direction, and where the previous page ended. */
export interface PageRequest {
  limit: number;
  direction: 'asc' | 'desc';
  /** Null for the first page. Its binding is checked by the list (paging.ts). */
  cursor: PresentedCursor | null;
}

/** What a list takes besides its own filters: columns and page, already checked. */
export interface ListQuery {
  cols: Cols;
  page: PageRequest;
}

/** A list the client may sort. */
export interface SortedListQuery extends ListQuery {
  sort: SortChoice;
}

/** One record by its ID, with the opt-in columns asked for. */
export interface GetQuery {
  id: number;
  cols: Cols;
}

/** A read that asked for no opt-in columns. */
export const NO_COLS: Cols = { names: new Set(), recordCount: false, customFields: null };
