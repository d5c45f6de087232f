import createClient, { type Client, type ClientOptions, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { HearthApiError } from './errors.ts';
import type { paths } from './generated/openapi.ts';
import { PAGED_PATHS } from './generated/lists.ts';
import { retryingFetch, type RetryOptions } from './retry.ts';

export interface HearthClientOptions {
  /** Where Hearth serves, e.g. `http://127.0.0.1:3000` (HEARTH_PUBLIC_URL). */
  baseUrl: string;
  /** An API token (`hearth token create`), sent as `Authorization: Bearer …`. */
  token?: string;
  /** Retries on 429 (see RetryOptions); `false`: none. */
  retry?: RetryOptions | false;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

type Media = MediaType;
type Init<P, M extends HttpMethod> = M extends keyof P ? MaybeOptionalInit<P, M> : never;
/** The init argument, optional when nothing in it is required (as openapi-fetch's methods take it). */
type InitArgs<P, M extends HttpMethod> = RequiredKeysOf<Init<P, M>> extends never ? [init?: Init<P, M>] : [init: Init<P, M>];
type Paths<M extends HttpMethod> = PathsWithMethod<paths, M>;
/** What a successful call answers. */
export type ResponseData<M extends HttpMethod, P extends Paths<M>> = NonNullable<
  FetchResponse<paths[P][M & keyof paths[P]] & Record<string | number, unknown>, object, Media>['data']
>;

/** The paged lists: GETs that answer `meta.nextCursor`. */
export type PagedPath = (typeof PAGED_PATHS)[number];
/** One page of a paged list: `{success, data, meta: {nextCursor}}`. */
export type Page<P extends PagedPath> = ResponseData<'get', P>;
/** One record of a paged list. */
export type PageItem<P extends PagedPath> = Page<P> extends { data: readonly (infer T)[] } ? T : never;

type Throwing<M extends HttpMethod> = <P extends Paths<M>>(path: P, ...init: InitArgs<paths[P], M>) => Promise<ResponseData<M, P>>;

export interface HearthClient extends Client<paths, Media> {
  /**
   * The typed methods below answer the data of a 2xx and throw a HearthApiError otherwise (openapi-fetch's
   * GET, POST, … stay available and answer `{data, error, response}`).
   */
  get: Throwing<'get'>;
  post: Throwing<'post'>;
  put: Throwing<'put'>;
  patch: Throwing<'patch'>;
  delete: Throwing<'delete'>;
  /**
   * The pages of a list, following `meta.nextCursor` until it is null. A `cursor` in the query starts from
   * that page (a walk can be resumed from the last cursor it saw).
   */
  pages<P extends PagedPath>(path: P, ...init: InitArgs<paths[P], 'get'>): AsyncGenerator<Page<P>, void, undefined>;
  /** The records of a list, page after page (see `pages`). */
  paginate<P extends PagedPath>(path: P, ...init: InitArgs<paths[P], 'get'>): AsyncGenerator<PageItem<P>, void, undefined>;
}

type Outcome = { data?: unknown; error?: unknown; response: Response };
type Call = (method: string, path: string, init?: object) => Promise<Outcome>;

function unwrap(outcome: Outcome, method: string): unknown {
  if (outcome.response.ok) return outcome.data;
  const { response } = outcome;
  throw new HearthApiError({ status: response.status, method: method.toUpperCase(), url: response.url, body: outcome.error, headers: response.headers });
}

const PAGED = new Set<string>(PAGED_PATHS);

/** A typed client for Hearth's HTTP API. */
export function createHearthClient(options: HearthClientOptions): HearthClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const fetch = options.retry === false ? baseFetch : retryingFetch(baseFetch, options.retry);
  const clientOptions: ClientOptions = {
    baseUrl: options.baseUrl,
    fetch,
    headers: { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
  };
  const client = createClient<paths, Media>(clientOptions);
  const call: Call = (method, path, init) => (client.request as unknown as Call)(method, path, init);
  const throwing = (method: string) => async (path: string, init?: object) => unwrap(await call(method, path, init), method);

  async function* pages(path: string, init?: { params?: { query?: Record<string, unknown> } } & object) {
    if (!PAGED.has(path)) throw new TypeError(`${path} is not a paged list (one of ${PAGED_PATHS.join(', ')})`);
    let cursor = init?.params?.query?.cursor as string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const query = { ...init?.params?.query, ...(cursor ? { cursor } : {}) };
      const page = unwrap(await call('get', path, { ...init, params: { ...init?.params, query } }), 'get') as {
        data: unknown[];
        meta: { nextCursor: string | null };
      };
      yield page;
      const next = page.meta.nextCursor;
      if (!next) return;
      // A server that handed the same cursor back would loop for ever; Hearth's cursors always move on.
      if (seen.has(next)) throw new Error(`${path}: the server returned a cursor it had already given`);
      seen.add(next);
      cursor = next;
    }
  }

  async function* paginate(path: string, init?: object) {
    for await (const page of pages(path, init)) yield* page.data;
  }

  return Object.assign(client, {
    get: throwing('get'),
    post: throwing('post'),
    put: throwing('put'),
    patch: throwing('patch'),
    delete: throwing('delete'),
    pages,
    paginate,
  }) as unknown as HearthClient;
}
