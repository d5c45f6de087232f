import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

export interface PageBody<R> {
  data: R[];
  meta: { nextCursor: string | null } & Record<string, unknown>;
}

/** A URL with the given query parameters; null and undefined ones are left out. */
export function withQuery(path: string, params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(name, String(value));
  return `${path}?${search}`;
}

/**
 * Follows a keyset list from its first page to its last (`meta.nextCursor` null) and returns every record.
 * Every page answers 200 and every page but the last is full; `inspect` sees each page's body.
 */
export async function walkPages<R>(
  fetchPage: (cursor: string | null) => Promise<LightMyRequestResponse>,
  limit: number,
  inspect?: (body: PageBody<R>) => void,
): Promise<R[]> {
  const seen: R[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10_000; page++) {
    const response = await fetchPage(cursor);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as PageBody<R>;
    inspect?.(body);
    seen.push(...body.data);
    cursor = body.meta.nextCursor;
    if (cursor === null) return seen;
    expect(body.data.length).toBe(limit);
  }
  throw new Error('walk did not end');
}
