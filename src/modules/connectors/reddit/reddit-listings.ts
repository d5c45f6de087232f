import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage } from '../connector-kind.ts';
import { emptyTranslation, translateThing } from './reddit-activities.ts';
import { newSession, redditGet } from './reddit-client.ts';
import type { RedditListing, RedditSecrets, RedditSettings } from './reddit.schemas.ts';

/*
 * The streams a sync walks, each a Listing (https://www.reddit.com/dev/api, "listings") read newest first,
 * 100 things a page (the most Reddit gives), paged by `after` (the fullname of the last thing of the page):
 * - `subreddit:<name>:posts`: GET /r/{name}/new, the subreddit's posts;
 * - `subreddit:<name>:comments`: GET /r/{name}/comments, the subreddit's newest comments, of every post;
 * - `search:<keyword>`: GET /search?q=<keyword>&sort=new&type=link, posts across Reddit.
 * A listing reaches back about 1,000 things, then ends (`after` null): a backfill has no more than that, and
 * a subreddit busier than 1,000 comments between two syncs loses the oldest of them.
 * The checkpoint keeps the mark of the last complete walk (the newest `created_utc`, and the fullnames at that
 * second): the next walk stops when it gets below it, so an incremental sync reads only what is new.
 */
export const PAGE_SIZE = 100;

export type RedditStream = { kind: 'posts' | 'comments'; subreddit: string } | { kind: 'search'; keyword: string };

export function streamNames(settings: RedditSettings): string[] {
  return [
    ...(settings.subreddits ?? []).flatMap((name) => [`subreddit:${name}:posts`, `subreddit:${name}:comments`]),
    ...(settings.keywords ?? []).map((keyword) => `search:${keyword}`),
  ];
}

export function parseStream(stream: string): RedditStream | null {
  const subreddit = /^subreddit:([A-Za-z0-9_]+):(posts|comments)$/.exec(stream);
  if (subreddit) return { kind: subreddit[2] as 'posts' | 'comments', subreddit: subreddit[1]! };
  if (stream.startsWith('search:') && stream.length > 'search:'.length) return { kind: 'search', keyword: stream.slice('search:'.length) };
  return null;
}

function requestOf(stream: RedditStream): { path: string; query: Record<string, string> } {
  if (stream.kind === 'search') return { path: '/search', query: { q: stream.keyword, sort: 'new', type: 'link' } };
  return { path: `/r/${stream.subreddit}/${stream.kind === 'posts' ? 'new' : 'comments'}`, query: {} };
}

/** The newest second seen, and the fullnames of that second (several things can share one). */
interface Mark {
  created: number;
  names: string[];
}

interface ListingCheckpoint {
  /** The walk's next page (null: from the newest thing). */
  after: string | null;
  /** The newest thing the walk under way has read. */
  top: Mark | null;
  /** The newest thing of the last complete walk: the walk stops below it. */
  mark: Mark | null;
}

function readMark(value: unknown): Mark | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { created, names } = value as { created?: unknown; names?: unknown };
  if (typeof created !== 'number' || !Array.isArray(names)) return null;
  return { created, names: names.filter((name): name is string => typeof name === 'string') };
}

function readCheckpoint(value: JsonValue | null): ListingCheckpoint {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  return { after: typeof object.after === 'string' && object.after ? object.after : null, top: readMark(object.top), mark: readMark(object.mark) };
}

/** The later of two marks; at the same second, both marks' fullnames. */
function later(a: Mark | null, b: Mark | null): Mark | null {
  if (!a) return b;
  if (!b) return a;
  if (a.created !== b.created) return a.created > b.created ? a : b;
  return { created: a.created, names: [...new Set([...a.names, ...b.names])] };
}

const markJson = (mark: Mark | null): JsonValue => (mark ? { created: mark.created, names: mark.names } : null);

export async function listingPage(
  stream: RedditStream,
  checkpoint: JsonValue | null,
  settings: RedditSettings,
  secrets: RedditSecrets,
  access: PlatformAccess,
): Promise<StreamPage> {
  const at = readCheckpoint(checkpoint);
  const session = newSession();
  const { path, query } = requestOf(stream);
  const listing = await redditGet<RedditListing>(
    path,
    { ...query, limit: String(PAGE_SIZE), after: at.after ?? undefined },
    settings,
    secrets,
    access,
    session,
  );
  const children = listing?.data?.children ?? [];
  const translation = emptyTranslation();
  let top = at.top;
  let records = 0;
  let reachedMark = false;
  for (const thing of children) {
    const created = Number(thing.data?.created_utc);
    const name = String(thing.data?.name ?? '');
    if (at.mark && created < at.mark.created) {
      reachedMark = true;
      break;
    }
    // Read by the last walk: same second as its mark, and one of its fullnames.
    if (at.mark && created === at.mark.created && at.mark.names.includes(name)) continue;
    records += 1;
    if (Number.isFinite(created) && name) top = later(top, { created, names: [name] });
    translateThing(thing, translation);
  }
  const after = listing?.data?.after || null;
  const pauseUntil = session.pauseUntil;
  if (reachedMark || !after || children.length === 0) {
    const done: JsonValue = { after: null, top: null, mark: markJson(later(at.mark, top)) };
    return { translation, checkpoint: done, done: true, total: null, records, pauseUntil };
  }
  return { translation, checkpoint: { after, top: markJson(top), mark: markJson(at.mark) }, done: false, total: null, records, pauseUntil };
}
