import type { ActivityPush, Translation } from '../connector-kind.ts';
import type { SearchHit } from './hackernews.schemas.ts';

/**
 * Activity IDs: a story and a comment are both Hacker News items, numbered in one sequence (`objectID`,
 * a comment's `parent_id` and `story_id` are item IDs), so an item is one activity whichever stream found
 * it, and a comment's parent is named without knowing whether it was read.
 */
export const ids = {
  item: (id: string | number) => `item:${id}`,
};

/** An item's page on Hacker News. */
export function itemUrl(id: string | number): string {
  return `https://news.ycombinator.com/item?id=${id}`;
}

export function emptyTranslation(): Translation {
  return { users: [], activities: [], skipped: [] };
}

/** The item's kind from its `_tags` (then from its fields, for an answer without them). */
function kindOf(hit: SearchHit): string | null {
  const tags = hit._tags ?? [];
  if (tags.includes('comment')) return 'comment';
  if (tags.includes('story')) return 'story';
  const other = tags.find((tag) => !tag.startsWith('author_') && !tag.startsWith('story_'));
  if (other) return other;
  if (typeof hit.comment_text === 'string') return 'comment';
  if (typeof hit.title === 'string') return 'story';
  return null;
}

/** An item's time: `created_at` (ISO 8601), else `created_at_i` (seconds). */
function timeOf(hit: SearchHit): string | null {
  if (hit.created_at && !Number.isNaN(Date.parse(hit.created_at))) return new Date(hit.created_at).toISOString();
  return typeof hit.created_at_i === 'number' ? new Date(hit.created_at_i * 1000).toISOString() : null;
}

/** The host of a story's link, lower case, or null when it has none (a text post) or it is not a URL. */
export function hostOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '') || null;
  } catch {
    return null;
  }
}

/** The host is the domain or one of its subdomains (`blog.example.com` for `example.com`, not `notexample.com`). */
export function onDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The activity of one hit: a story, or a comment under its parent (the story, when `parent_id` is the
 * `story_id`, else another comment). The text is HTML, as Hacker News keeps it; a link without a text is the
 * story's content. Anything else is skipped into `into.skipped`, saying why.
 */
export function translateHit(hit: SearchHit, into: Translation): void {
  const what = `item ${hit.objectID}`;
  if (!/^\d+$/.test(hit.objectID ?? '')) return void into.skipped.push(`a hit without an item ID (${String(hit.objectID)})`);
  const kind = kindOf(hit);
  if (kind !== 'story' && kind !== 'comment') return void into.skipped.push(`${what}: a ${kind ?? 'hit of no known kind'}, not a story or a comment`);
  // Hacker News has no bot accounts to tell apart; an item without an author is a deleted one.
  if (!hit.author) return void into.skipped.push(`${what}: no author (a deleted item)`);
  const user = { id: hit.author, username: hit.author };
  if (kind === 'story') {
    const text = hit.story_text?.trim() ? hit.story_text : null;
    into.activities.push({
      id: ids.item(hit.objectID),
      activityType: 'hackernews_story',
      user,
      activityTitle: hit.title ?? null,
      content: text ? { type: 'html', value: text } : hit.url ? { type: 'text', value: hit.url } : null,
      timestamp: timeOf(hit),
      url: itemUrl(hit.objectID),
      parentActivity: null,
    } satisfies ActivityPush);
    return;
  }
  const text = hit.comment_text?.trim() ? hit.comment_text : null;
  const parent = typeof hit.parent_id === 'number' ? hit.parent_id : null;
  const story = typeof hit.story_id === 'number' ? hit.story_id : null;
  into.activities.push({
    id: ids.item(hit.objectID),
    activityType: 'hackernews_comment',
    user,
    // A comment has no title of its own: its story's, as a forum reply shows its topic's.
    activityTitle: hit.story_title ?? null,
    content: text ? { type: 'html', value: text } : null,
    timestamp: timeOf(hit),
    url: itemUrl(hit.objectID),
    parentActivity: parent === null ? null : { id: ids.item(parent), activityType: parent === story ? 'hackernews_story' : 'hackernews_comment' },
  } satisfies ActivityPush);
}
