import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema.ts';
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

export async function countRows(db: Kysely<DB>, communityId: number) {
  const row = await sql<{ contacts: number; activities: number; organizations: number }>`
    select (select count(*) from contacts where community_id = ${communityId})::int as contacts,
           (select count(*) from activities where community_id = ${communityId})::int as activities,
           (select count(*) from organizations where community_id = ${communityId})::int as organizations`.execute(db);
  return row.rows[0]!;
}

/**
 * The filter a community manager writes to find whom to invite to a local event: people in the biggest
 * country, holding the most common tag, active in the last four weeks. Values are read from the seeded data
 * (its most common country and tag), so the filter is selective the way real ones are, neither empty nor
 * everything.
 */
export async function lightFilterOf(db: Kysely<DB>, communityId: number) {
  const country = await sql<{ country: string }>`
    select country from contacts where community_id = ${communityId} and country is not null
    group by country order by count(*) desc, country limit 1`.execute(db);
  const tag = await sql<{ tag_id: number }>`
    select tag_id from tag_assignments where community_id = ${communityId} and entity_type = 'contact'
    group by tag_id order by count(*) desc, tag_id limit 1`.execute(db);
  const countryName = country.rows[0]?.country;
  const tagId = tag.rows[0]?.tag_id;
  if (!countryName || tagId === undefined) return null;
  const expression = {
    type: 'and',
    clauses: [
      { type: 'stringFilter', field: 'location.country', params: { op: 'eq', value: countryName } },
      { type: 'stringListFilter', field: 'tags', params: { op: 'any', value: [`l_${tagId}`] } },
      { type: 'numberFilter', field: 'activityCount28d', params: { op: 'gt', value: 0 } },
    ],
  };
  const matching = await sql<{ n: number }>`
    select count(*)::int as n from contacts c
    where c.community_id = ${communityId} and c.country = ${countryName}
      and exists (select 1 from tag_assignments t where t.community_id = c.community_id and t.entity_type = 'contact'
                  and t.entity_id = c.id and t.tag_id = ${tagId})
      and exists (select 1 from activities a where a.community_id = c.community_id and a.contact_id = c.id
                  and a.activity_time > now() - interval '28 days' and a.activity_time <= now())`.execute(db);
  return { expression, matching: matching.rows[0]!.n };
}

/** What the bare endpoint needs to answer as Hearth does: the records' ID prefix, the page size and the cursor's binding hash. */
export function exactListOf(body: { data: unknown[]; meta?: { nextCursor?: string | null } }, limit: number) {
  const first = body.data[0] as { id?: string } | undefined;
  const prefix = /^[a-z]+_/.exec(first?.id ?? '')?.[0];
  const cursor = body.meta?.nextCursor;
  if (!prefix || !cursor) throw new Error('the list measured must have more than one page of records with IDs');
  const { b: binding } = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8')) as { b: string };
  return { prefix, limit, binding };
}

/** Where two JSON values first differ (a path and both values), or null when they are equal. */
export function firstDifference(a: unknown, b: unknown, at = '$'): string | null {
  if (a === b) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${at}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const key of keys) {
    const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}.${key}`);
    if (found) return found;
  }
  return Object.keys(a).join() === Object.keys(b).join() ? null : `${at}: fields in another order`;
}
