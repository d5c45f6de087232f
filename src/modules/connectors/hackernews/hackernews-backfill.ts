import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage } from '../connector-kind.ts';
import { emptyTranslation, hostOf, onDomain, translateHit } from './hackernews-activities.ts';
import { hackerNewsGet } from './hackernews-client.ts';
import { DEFAULT_BACKFILL_DAYS, type HackerNewsSettings, type SearchAnswer, type SearchHit } from './hackernews.schemas.ts';

/*
 * The streams a sync walks: one per followed keyword (`keyword:<words>`) and one per followed domain
 * (`domain:<host>`), each with its own checkpoint.
 * - A keyword: GET /search_by_date?query=<words>&tags=(story,comment): stories and comments that mention it.
 * - A domain: GET /search_by_date?query=<host>&tags=story&restrictSearchableAttributes=url: stories whose
 *   link matches the host's words; only those whose link's host is the domain or a subdomain of it are kept
 *   (the search matches words, so other.org/about-example.com matches too).
 * Every search asks for whole words, without typos (`queryType=prefixNone`, `typoTolerance=false`: Algolia's
 * defaults would find "health" and "hearthstone" for "hearth"), and a keyword's hit is kept only when its
 * title, text or link has every word of the keyword, which also leaves out a match on the author's name.
 * Algolia lets a search reach at most its first 1,000 hits however it is paged (paginationLimitedTo,
 * https://www.algolia.com/doc/api-reference/api-parameters/paginationLimitedTo/), so a walk never asks for a
 * deep `page`: it always reads page 0, newest first, of a time window (`numericFilters=created_at_i>=from`,
 * and `created_at_i<=before`), and narrows the window to the oldest second the page reached. The items of
 * that second already read are kept in the checkpoint and left out when the next page shows them again
 * (and a second with more items than a page holds is read by pages of that second alone).
 * The first walk goes `backfillDays` back; a complete walk leaves where the next starts: a little before
 * the newest item it read, since Algolia indexes an item some time after it is posted, and an item read
 * twice is one activity.
 */

/** Hits a page asks for: Algolia's maximum is 1,000; half keeps a page's answer and its storing small. */
export const PAGE_SIZE = 500;
/** How far before the newest item read the next walk starts again, for items indexed after that walk. */
export const INDEXING_OVERLAP_SECONDS = 10 * 60;
const DAY_SECONDS = 24 * 60 * 60;
/** Algolia's paginationLimitedTo: the hits of one search that paging can reach. */
const PAGINATION_LIMIT = 1000;

export const KEYWORD_PREFIX = 'keyword:';
export const DOMAIN_PREFIX = 'domain:';

/** A keyword as searched: Algolia ignores case and spacing, so `Hearth  CRM` and `hearth crm` are one stream. */
export function normalKeyword(keyword: string): string {
  return keyword.trim().replace(/\s+/g, ' ').toLowerCase();
}

export function streamsOf(settings: HackerNewsSettings): string[] {
  const keywords = (settings.keywords ?? []).map((keyword) => `${KEYWORD_PREFIX}${normalKeyword(keyword)}`);
  const domains = (settings.domains ?? []).map((domain) => `${DOMAIN_PREFIX}${domain.toLowerCase()}`);
  return [...new Set([...keywords, ...domains])];
}

/** What a stream searches for. */
export interface StreamSearch {
  query: string;
  tags: string;
  restrictSearchableAttributes?: string;
  /** For a domain's stream: the hits kept are those whose link is on it. */
  domain?: string;
}

/** The search's query parameters; the time window and paging are the caller's. */
export function searchParameters(search: StreamSearch): Record<string, string | undefined> {
  return {
    query: search.query,
    tags: search.tags,
    restrictSearchableAttributes: search.restrictSearchableAttributes,
    queryType: 'prefixNone',
    typoTolerance: 'false',
  };
}

/** The words of a text as a search matches them: lower case, without accents, HTML tags or entities. */
export function wordsOf(text: string | null | undefined): string[] {
  if (!text) return [];
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, ' ')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The hit's title, text or link has every word of `keyword`. */
export function mentions(hit: SearchHit, keyword: string): boolean {
  const words = new Set([hit.title, hit.story_text, hit.comment_text, hit.url].flatMap(wordsOf));
  return wordsOf(keyword).every((word) => words.has(word));
}

export function searchOf(stream: string): StreamSearch | null {
  if (stream.startsWith(KEYWORD_PREFIX) && stream.length > KEYWORD_PREFIX.length) {
    return { query: stream.slice(KEYWORD_PREFIX.length), tags: '(story,comment)' };
  }
  if (stream.startsWith(DOMAIN_PREFIX) && stream.length > DOMAIN_PREFIX.length) {
    const domain = stream.slice(DOMAIN_PREFIX.length);
    return { query: domain, tags: 'story', restrictSearchableAttributes: 'url', domain };
  }
  return null;
}

/** The seconds since the epoch the first walk starts from. */
export function backfillStart(settings: HackerNewsSettings, now: Date): number {
  return Math.floor(now.getTime() / 1000) - (settings.backfillDays ?? DEFAULT_BACKFILL_DAYS) * DAY_SECONDS;
}

interface SearchCheckpoint {
  /** The lower bound (inclusive, seconds) of the walk under way; null when none is. */
  from: number | null;
  /** When the walk under way started (seconds): where the next one starts when no walk has found anything. */
  started: number | null;
  /** The upper bound (inclusive) of the walk's next page; null: from the newest item. */
  before: number | null;
  /** Items at the second `before` that the walk has read. */
  seen: string[];
  /** Reading the items of the second `before` page by page (more of them than a page holds): the next page. */
  tiePage: number | null;
  /** The newest second the walk under way has read, and its items. */
  top: number | null;
  topIds: string[];
  /** The newest second of the last complete walk, and its items: an item after them is read for the first time. */
  mark: number | null;
  markIds: string[];
  /** Where the next walk starts (set by a complete walk). */
  next: number | null;
}

function readCheckpoint(value: JsonValue | null): SearchCheckpoint {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const number = (key: string) => (typeof object[key] === 'number' ? (object[key] as number) : null);
  const strings = (key: string) => (Array.isArray(object[key]) ? (object[key] as JsonValue[]).filter((one): one is string => typeof one === 'string') : []);
  return {
    from: number('from'),
    started: number('started'),
    before: number('before'),
    seen: strings('seen'),
    tiePage: number('tiePage'),
    top: number('top'),
    topIds: strings('topIds'),
    mark: number('mark'),
    markIds: strings('markIds'),
    next: number('next'),
  };
}

/** The newest second of `hits` (with `at` and its items), and the items at it. */
function newest(hits: SearchHit[], at: number | null, atIds: string[]): { second: number | null; ids: string[] } {
  let second = at;
  let ids = [...atIds];
  for (const hit of hits) {
    const time = hit.created_at_i!;
    if (second === null || time > second) {
      second = time;
      ids = [hit.objectID];
    } else if (time === second && !ids.includes(hit.objectID)) ids.push(hit.objectID);
  }
  return { second, ids };
}

export async function searchPage(stream: string, checkpoint: JsonValue | null, settings: HackerNewsSettings, access: PlatformAccess): Promise<StreamPage> {
  const search = searchOf(stream);
  if (!search) throw new Error(`the Hacker News connector has no stream "${stream}"`);
  const at = readCheckpoint(checkpoint);
  const now = Math.floor(access.now().getTime() / 1000);
  const walking = at.from !== null;
  const from = walking ? at.from! : (at.next ?? backfillStart(settings, access.now()));
  const started = walking ? (at.started ?? now) : now;
  const before = walking ? at.before : null;
  const tie = walking && before !== null && at.tiePage !== null ? at.tiePage : null;
  const filters = tie !== null ? [`created_at_i=${before}`] : [`created_at_i>=${from}`, ...(before !== null ? [`created_at_i<=${before}`] : [])];
  const answer = await hackerNewsGet<SearchAnswer>(
    '/search_by_date',
    {
      ...searchParameters(search),
      numericFilters: filters.join(','),
      hitsPerPage: String(PAGE_SIZE),
      page: String(tie ?? 0),
    },
    settings,
    access,
  );

  const translation = emptyTranslation();
  const hits: SearchHit[] = [];
  for (const hit of answer.hits ?? []) {
    if (typeof hit.created_at_i === 'number' && Number.isFinite(hit.created_at_i)) hits.push(hit);
    else translation.skipped.push(`item ${String(hit.objectID)}: no created_at_i, so it cannot be placed in the walk`);
  }
  const seen = new Set(before !== null ? at.seen : []);
  const fresh = hits.filter((hit) => !(hit.created_at_i === before && seen.has(hit.objectID)));
  const markIds = new Set(at.markIds);
  let records = 0;
  for (const hit of fresh) {
    const time = hit.created_at_i!;
    if (at.mark === null || time > at.mark || (time === at.mark && !markIds.has(hit.objectID))) records += 1;
    if (search.domain) {
      const host = hostOf(hit.url);
      if (!host || !onDomain(host, search.domain)) {
        translation.skipped.push(`item ${hit.objectID}: its link's host ${host ?? '(none)'} is not ${search.domain} or a subdomain of it`);
        continue;
      }
    } else if (!mentions(hit, search.query)) {
      translation.skipped.push(`item ${hit.objectID}: its title, text and link do not have every word of "${search.query}"`);
      continue;
    }
    translateHit(hit, translation);
  }
  const top = newest(fresh, walking ? at.top : null, walking ? at.topIds : []);
  // The first page of the first walk: what Algolia counts in the whole window, for the stream's progress.
  const total = !walking && at.mark === null && at.next === null ? (answer.nbHits ?? null) : undefined;
  const counted = { records, ...(total !== undefined ? { total } : {}) };
  const pageSize = answer.hitsPerPage && answer.hitsPerPage > 0 ? answer.hitsPerPage : PAGE_SIZE;
  const full = hits.length > 0 && hits.length >= pageSize;
  const walk = { from, started, top: top.second, topIds: top.ids, mark: at.mark, markIds: at.markIds, next: at.next };

  if (tie !== null) {
    // The second `before`, a page at a time, as far as Algolia lets a search be paged; then the seconds below it.
    const reachable = Math.min(answer.nbHits ?? 0, PAGINATION_LIMIT);
    const ids = [...new Set([...at.seen, ...hits.map((hit) => hit.objectID)])];
    if (full && (tie + 1) * pageSize < reachable) {
      return { translation, checkpoint: { ...walk, before, seen: ids, tiePage: tie + 1 }, done: false, ...counted };
    }
    if ((answer.nbHits ?? 0) > PAGINATION_LIMIT) {
      translation.skipped.push(`more than ${PAGINATION_LIMIT} items at ${new Date(before! * 1000).toISOString()}: the ones past a search's reach are left out`);
    }
    return { translation, checkpoint: { ...walk, before: before! - 1, seen: [], tiePage: null }, done: false, ...counted };
  }

  const more = full && (typeof answer.nbHits !== 'number' || answer.nbHits > hits.length);
  if (!more) {
    const mark = top.second !== null && (at.mark === null || top.second >= at.mark) ? top.second : at.mark;
    const ids = mark === top.second ? (mark === at.mark ? [...new Set([...at.markIds, ...top.ids])] : top.ids) : at.markIds;
    const next = Math.max(from, (mark ?? started) - INDEXING_OVERLAP_SECONDS);
    const done: JsonValue = { from: null, started: null, before: null, seen: [], tiePage: null, top: null, topIds: [], mark, markIds: ids, next };
    return { translation, checkpoint: done, done: true, ...counted };
  }

  const oldest = Math.min(...hits.map((hit) => hit.created_at_i!));
  if (before !== null && oldest === before) {
    // A whole page of the second `before`: more items share it than a page holds. They are read by pages of
    // that second alone (this page was its first), then the walk goes on below it.
    const ids = [...new Set([...at.seen, ...hits.map((hit) => hit.objectID)])];
    return { translation, checkpoint: { ...walk, before, seen: ids, tiePage: 1 }, done: false, ...counted };
  }
  const seenAtOldest = hits.filter((hit) => hit.created_at_i === oldest).map((hit) => hit.objectID);
  return { translation, checkpoint: { ...walk, before: oldest, seen: seenAtOldest, tiePage: null }, done: false, ...counted };
}
