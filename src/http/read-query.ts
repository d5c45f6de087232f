import type { FastifyRequest } from 'fastify';
import type { CursorCodec } from '../core/cursor.ts';
import { parseId, type IdEntity } from '../core/ids.ts';
import { NO_COLS, type Cols, type GetQuery, type ListQuery, type PageRequest, type SortChoice, type SortedListQuery } from '../core/list-query.ts';
import { parseCols, type ColsOptions } from './cols.ts';
import { parseSort, type SortOptions } from './sort.ts';

/** What a read route takes from its path and query string besides its own filters. */
export interface ReadQueryConfig {
  /** The entity whose v2 ID the path's `:id` is (a get). */
  id?: IdEntity;
  /** The opt-in columns it accepts. */
  cols?: ColsOptions;
  /** The sorts it accepts (a sortable list). */
  sort?: SortOptions;
  /** Whether it is a keyset list (`limit`, `direction`, `cursor`). */
  paged?: boolean;
}

interface ReadQuery {
  id: number | null;
  cols: Cols;
  sort: SortChoice | null;
  page: PageRequest | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    read?: ReadQueryConfig;
  }
  interface FastifyRequest {
    /** Set before the handler of a route that declares `read`. */
    readQuery: ReadQuery | null;
  }
}

/**
 * The one pre-handler of reads: turns the path's ID, `cols`, `sort` and `cursor` (its signature checked;
 * which list it belongs to is for the list to check) into the typed query a service takes, so no service
 * parses text.
 */
export function createReadQueryHandler(cursors: CursorCodec) {
  function pageOf(query: { cursor?: string; limit?: number; direction?: 'asc' | 'desc' }): PageRequest {
    // The list's query schema gives `limit` a default; without one the route is declared wrong.
    if (query.limit === undefined) throw new Error('a paged route needs a `limit` with a default in its query schema');
    return { limit: query.limit, direction: query.direction ?? 'asc', cursor: query.cursor ? cursors.open(query.cursor) : null };
  }

  return async function readQuery(request: FastifyRequest) {
    const config = request.routeOptions.config.read;
    if (!config) return;
    const query = request.query as { cols?: string; sort?: string; cursor?: string; limit?: number; direction?: 'asc' | 'desc' };
    // The path's ID is checked first: a request with a bad ID and bad cols hears about the ID.
    request.readQuery = {
      id: config.id ? parseId(config.id, (request.params as { id: string }).id) : null,
      cols: config.cols ? parseCols(query.cols, config.cols) : NO_COLS,
      sort: config.sort ? parseSort(query.sort, config.sort) : null,
      page: config.paged ? pageOf(query) : null,
    };
  };
}

function readQueryOf(request: FastifyRequest): ReadQuery {
  if (!request.readQuery) throw new Error(`route ${request.routeOptions.url} reads its query but declares no \`read\``);
  return request.readQuery;
}

/** The ID and opt-in columns of a get route (`read: {id, cols}`). */
export function getQueryOf(request: FastifyRequest): GetQuery {
  const { id, cols } = readQueryOf(request);
  if (id === null) throw new Error(`route ${request.routeOptions.url} declares no \`read.id\``);
  return { id, cols };
}

/** The opt-in columns of a read route. */
export function colsOf(request: FastifyRequest): Cols {
  return readQueryOf(request).cols;
}

/** The columns and page of a list route (`read: {paged: true}`). */
export function listQueryOf(request: FastifyRequest): ListQuery {
  const { cols, page } = readQueryOf(request);
  if (!page) throw new Error(`route ${request.routeOptions.url} is not declared paged`);
  return { cols, page };
}

/** The columns, sort and page of a sortable list route (`read: {paged: true, sort}`). */
export function sortedListQueryOf(request: FastifyRequest): SortedListQuery {
  const { sort } = readQueryOf(request);
  if (!sort) throw new Error(`route ${request.routeOptions.url} declares no sort`);
  return { ...listQueryOf(request), sort };
}
