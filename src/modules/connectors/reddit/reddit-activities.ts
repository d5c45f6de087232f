import type { ActivityPush, Translation, UserPush } from '../connector-kind.ts';
import type { RedditComment, RedditLink, RedditThing } from './reddit.schemas.ts';

/** Where a permalink (`/r/{sub}/comments/{id}/{slug}/`) is read. */
const REDDIT_WEB = 'https://www.reddit.com';

/** Reddit's own moderation bot: it posts rules and removal notices, never a community member's words. */
export const AUTOMODERATOR = 'AutoModerator';
/** What Reddit shows as the author of a post or comment whose account was deleted. */
export const DELETED_AUTHOR = '[deleted]';
/** The text Reddit leaves in place of a post or comment deleted by its author or removed by moderators. */
const GONE_TEXT = new Set(['[deleted]', '[removed]']);

export function emptyTranslation(): Translation {
  return { users: [], activities: [], skipped: [] };
}

/** Reddit's `created_utc` (seconds since the epoch, sometimes with a fraction) as an ISO time. */
export function timeOf(createdUtc: number): string | null {
  return Number.isFinite(createdUtc) && createdUtc > 0 ? new Date(Math.round(createdUtc * 1000)).toISOString() : null;
}

/** Why an author is not a person here, or null. */
export function notAPerson(author: string | undefined): string | null {
  if (!author || author === DELETED_AUTHOR) return 'the author is [deleted] (the account, or the record, was deleted)';
  if (author === AUTOMODERATOR) return "by AutoModerator, Reddit's moderation bot";
  return null;
}

/**
 * The person of a record: the account's fullname (`t2_…`, Reddit's own ID of it) when the record gives it,
 * else the username (a Reddit username cannot be changed, so it names one account too); `username` is the
 * username. A listing says nothing else of the author (no name, no email, no other account), so nothing
 * else is pushed.
 */
export function personOf(record: { author: string; author_fullname?: string }): UserPush {
  return { id: record.author_fullname || record.author, username: record.author };
}

function text(value: string | undefined): { type: 'markdown'; value: string } | null {
  const trimmed = value?.trim();
  return trimmed && !GONE_TEXT.has(trimmed) ? { type: 'markdown', value: trimmed } : null;
}

function urlOf(permalink: string | undefined): string | null {
  return permalink ? `${REDDIT_WEB}${permalink.startsWith('/') ? '' : '/'}${permalink}` : null;
}

export function postActivity(post: RedditLink): ActivityPush {
  return {
    id: post.name,
    activityType: 'reddit_post',
    user: personOf(post),
    activityTitle: post.title || null,
    content: text(post.selftext),
    url: urlOf(post.permalink),
    timestamp: timeOf(post.created_utc),
    parentActivity: null,
    subSource: post.subreddit,
  };
}

/** A comment under its parent: the post (`t3_…`) for a top-level comment, else the comment (`t1_…`) it answers. */
export function commentActivity(comment: RedditComment): ActivityPush {
  const parent = comment.parent_id || comment.link_id;
  return {
    id: comment.name,
    activityType: 'reddit_comment',
    user: personOf(comment),
    activityTitle: comment.link_title || null,
    content: text(comment.body),
    url: urlOf(comment.permalink),
    timestamp: timeOf(comment.created_utc),
    parentActivity: parent ? { id: parent, activityType: parent.startsWith('t1_') ? 'reddit_comment' : 'reddit_post' } : null,
    subSource: comment.subreddit,
  };
}

/** One thing of a listing into `into`: a post or a comment, or skipped saying why. */
export function translateThing(thing: RedditThing, into: Translation): void {
  const data = thing.data as Partial<RedditLink & RedditComment>;
  const what = `${thing.kind} ${typeof data.name === 'string' ? data.name : '(no name)'}`;
  if (thing.kind !== 't3' && thing.kind !== 't1') return void into.skipped.push(`${what}: not a post or a comment`);
  if (typeof data.name !== 'string' || !data.name.startsWith(`${thing.kind}_`)) return void into.skipped.push(`${what}: no fullname`);
  const notPerson = notAPerson(data.author);
  if (notPerson) return void into.skipped.push(`${what}: ${notPerson}`);
  into.activities.push(thing.kind === 't3' ? postActivity(thing.data as RedditLink) : commentActivity(thing.data as RedditComment));
}
