import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage, Translation } from '../connector-kind.ts';
import { articleActivity, articleSkipReason, emptyTranslation, publishedAt, translateComments } from './devto-activities.ts';
import { DevtoNotFound, devtoGet } from './devto-client.ts';
import { DEFAULT_COMMENTS_WINDOW_DAYS, type DevtoArticle, type DevtoComment, type DevtoSecrets, type DevtoSettings } from './devto.schemas.ts';

/*
 * The streams a sync walks: one per followed tag (`tag:<name>`) and organization (`organization:<username>`),
 * each a list of published articles read by page number, 100 a page; each article's comments
 * (GET /comments?a_id=) are read with it, before the page is stored.
 *
 * - An organization's articles come newest first by publication (Forem orders them by `published_at`).
 * - A tag's come by popularity (the API description: "ordered by descending popularity"; Forem's ranking
 *   favours recent articles, but a popular older one can come before a newer one).
 *
 * The first walk (the backfill) reads every page, to the end of the list. Later walks read from the top and
 * take what was published after the newest article of the last complete walk (the mark), and re-read the
 * comments of the articles published within the comments window, for comments added to them since. An
 * organization's walk stops at the first article older than both; a tag's after the first page without an
 * article that recent.
 */
const PAGE_SIZE = 100;
const DAY_MS = 86_400_000;
export const TAG_PREFIX = 'tag:';
export const ORGANIZATION_PREFIX = 'organization:';

type Listing = { kind: 'tag' | 'organization'; name: string };

interface StreamCheckpoint {
  /** The walk's next page (1: from the top). */
  page: number;
  /** The newest publication time of the last complete walk; null until the first walk (the backfill) is complete. */
  mark: string | null;
  /** The newest publication time the walk under way has seen. */
  top: string | null;
  /** When the last complete walk started: a comment made after it is one the stream has not counted yet. */
  since: string | null;
  /** When the walk under way started. */
  started: string | null;
}

function readCheckpoint(value: JsonValue | null): StreamCheckpoint {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const time = (key: string) => (typeof object[key] === 'string' && !Number.isNaN(Date.parse(object[key] as string)) ? (object[key] as string) : null);
  const page = typeof object.page === 'number' && Number.isInteger(object.page) && object.page >= 1 ? object.page : 1;
  return { page, mark: time('mark'), top: time('top'), since: time('since'), started: time('started') };
}

function newer(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

export function listingOf(stream: string): Listing | null {
  if (stream.startsWith(TAG_PREFIX) && stream.length > TAG_PREFIX.length) return { kind: 'tag', name: stream.slice(TAG_PREFIX.length) };
  if (stream.startsWith(ORGANIZATION_PREFIX) && stream.length > ORGANIZATION_PREFIX.length)
    return { kind: 'organization', name: stream.slice(ORGANIZATION_PREFIX.length) };
  return null;
}

export function streamsOf(settings: DevtoSettings): string[] {
  return [...(settings.tags ?? []).map((tag) => `${TAG_PREFIX}${tag}`), ...(settings.organizations ?? []).map((org) => `${ORGANIZATION_PREFIX}${org}`)];
}

/** The activities' sub-source: the tag as DEV writes it (#javascript), or the organization's username. */
export function subSourceOf(listing: Listing): string {
  return listing.kind === 'tag' ? `#${listing.name}` : listing.name;
}

/** One page of a tag's or an organization's published articles (the API's ArticleIndex list). */
export async function listArticles(listing: Listing, page: number, perPage: number, settings: DevtoSettings, secrets: DevtoSecrets, access: PlatformAccess) {
  let answer: unknown;
  try {
    answer =
      listing.kind === 'tag'
        ? await devtoGet<unknown>('/articles', { tag: listing.name, page, per_page: perPage }, settings, secrets, access)
        : await devtoGet<unknown>(`/organizations/${encodeURIComponent(listing.name)}/articles`, { page, per_page: perPage }, settings, secrets, access);
  } catch (error) {
    if (error instanceof DevtoNotFound && listing.kind === 'organization') {
      throw new Error(`DEV has no organization "${listing.name}" (404): check its username, as in its page's address`);
    }
    throw error;
  }
  if (!Array.isArray(answer)) throw new Error(`DEV's list of ${listing.kind} ${listing.name}'s articles is not a list`);
  return answer as DevtoArticle[];
}

export async function streamPage(
  stream: string,
  checkpoint: JsonValue | null,
  settings: DevtoSettings,
  secrets: DevtoSecrets,
  access: PlatformAccess,
): Promise<StreamPage> {
  const listing = listingOf(stream);
  if (!listing) throw new Error(`the DEV connector has no stream "${stream}"`);
  const at = readCheckpoint(checkpoint);
  const now = access.now();
  const started = at.started ?? now.toISOString();
  const articles = await listArticles(listing, at.page, PAGE_SIZE, settings, secrets, access);
  const subSource = subSourceOf(listing);
  const backfill = at.mark === null;
  const mark = at.mark === null ? null : Date.parse(at.mark);
  const windowStart = now.getTime() - (settings.commentsWindowDays ?? DEFAULT_COMMENTS_WINDOW_DAYS) * DAY_MS;
  // What a later walk reads: the new articles, and those within the window (for their comments).
  const reads = (time: number) => mark === null || time > mark || time >= windowStart;
  const since = at.since === null ? null : Date.parse(at.since);

  const translation = emptyTranslation();
  let records = 0;
  let top = at.top;
  let olderSeen = false;
  let recentSeen = false;
  for (const article of articles) {
    const reason = articleSkipReason(article);
    if (reason) {
      translation.skipped.push(reason);
      continue;
    }
    const published = publishedAt(article)!;
    top = newer(top, published);
    const time = Date.parse(published);
    if (!reads(time)) {
      olderSeen = true;
      continue;
    }
    recentSeen = true;
    const fresh = mark === null || time > mark;
    if (fresh) records += 1;
    translation.activities.push(articleActivity(article, settings, subSource));
    const comments = await commentsOf(article, settings, secrets, access, translation);
    records += translateComments(article, comments, settings, subSource, translation, (comment) => {
      if (fresh || since === null) return fresh;
      const created = Date.parse(comment.created_at ?? '');
      return !Number.isNaN(created) && created > since;
    });
  }

  const end = articles.length < PAGE_SIZE;
  const done = backfill ? end : end || (listing.kind === 'organization' ? olderSeen : !recentSeen);
  if (done) {
    const next: JsonValue = { page: 1, mark: newer(at.mark, top), top: null, since: started, started: null };
    return { translation, checkpoint: next, done: true, total: null, records };
  }
  return { translation, checkpoint: { page: at.page + 1, mark: at.mark, top, since: at.since, started }, done: false, total: null, records };
}

/**
 * An article's comments, threaded. The list says how many it has: none, and no request is made. An article
 * gone since it was listed (unpublished, deleted) answers 404: its comments are skipped, saying so.
 */
async function commentsOf(
  article: DevtoArticle,
  settings: DevtoSettings,
  secrets: DevtoSecrets,
  access: PlatformAccess,
  translation: Translation,
): Promise<DevtoComment[]> {
  if (article.comments_count === 0) return [];
  try {
    const comments = await devtoGet<unknown>('/comments', { a_id: article.id }, settings, secrets, access);
    return Array.isArray(comments) ? (comments as DevtoComment[]) : [];
  } catch (error) {
    if (!(error instanceof DevtoNotFound)) throw error;
    translation.skipped.push(`the comments of article ${article.id}: the article is gone (404)`);
    return [];
  }
}
