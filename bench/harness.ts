import type { CapturedQuery, ServerChild } from './ipc.ts';
import { getJson, type Client } from './load.ts';

/** The pieces of a bench run between the seeded database and the figures (also used by the bench's test). */

interface Page {
  data: unknown[];
  meta?: { nextCursor?: string | null };
}

/** A list URL: the path, the bench's fixed query parameters, then these. */
export function listUrl(base: string, path: string, fixed: string, params: Record<string, string | undefined>): string {
  const url = new URL(path, base);
  for (const [key, value] of new URLSearchParams(fixed)) url.searchParams.set(key, value);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

/**
 * The cursor of page `page` (1-based) of a list, found the way a client finds it: by reading every page
 * before it. Throws when the list ends first.
 */
export async function cursorOfPage(client: Client, pageUrl: (cursor: string | undefined) => string, page: number): Promise<string> {
  let cursor: string | undefined;
  for (let n = 1; n < page; n++) {
    const body = await getJson<Page>(client, pageUrl(cursor));
    const next = body.meta?.nextCursor;
    if (!next) throw new Error(`the list ends at page ${n}, before page ${page}: seed more, or pass a smaller --page or --limit`);
    cursor = next;
  }
  if (cursor === undefined) throw new Error('page must be at least 2');
  return cursor;
}

/**
 * The statements Hearth's Kysely ran while serving one request, recorded by the child's log hook. Requests
 * are answered one at a time here, so nothing else is in the record but this request's own statements.
 */
export async function captureQueries(hearth: ServerChild, client: Client, url: string): Promise<{ queries: CapturedQuery[]; body: Page }> {
  await hearth.request({ type: 'capture-start' }, 'capture-started');
  const body = await getJson<Page>(client, url);
  const { queries } = await hearth.request({ type: 'capture-stop' }, 'captured');
  return { queries, body };
}

/**
 * The statement of a list request that reads the page: the one that selects from `table` with a LIMIT,
 * preferring one whose parameters hold the page size (or page size + 1, the probe for a next page).
 * Authentication and the rate-limit counter are statements of their own and are not it.
 */
export function pickListStatement(queries: CapturedQuery[], table: string, limit: number): CapturedQuery {
  const from = new RegExp(`\\bfrom\\s+"?${table}"?(\\s|$)`, 'i');
  const candidates = queries.filter((query) => /^\s*(with|select)\b/i.test(query.sql) && from.test(query.sql) && /\blimit\b/i.test(query.sql));
  const withLimit = candidates.find((query) => query.parameters.some((value) => value === limit || value === limit + 1));
  const picked = withLimit ?? candidates[0];
  if (!picked) {
    const seen = queries.map((query) => `  ${query.sql.slice(0, 160)}`).join('\n');
    throw new Error(`no statement reading "${table}" with a LIMIT among the ${queries.length} Hearth ran:\n${seen}`);
  }
  return picked;
}
