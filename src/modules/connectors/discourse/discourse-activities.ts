import type { ActivityPush, Translation, UserPush } from '../connector-kind.ts';
import { isSystemUser, personOf } from './discourse-people.ts';
import { forumBase } from './discourse-client.ts';
import type { DiscoursePost, DiscourseSettings, DiscourseUserRef } from './discourse.schemas.ts';

/**
 * Activity IDs, the same whether a record comes from a webhook or from the API lists, so a record seen
 * both ways is one activity: a topic by its topic ID, a reply by its post ID, a like by post and liker.
 */
export const ids = {
  topic: (topicId: number) => `topic:${topicId}`,
  post: (postId: number) => `post:${postId}`,
  like: (postId: number, userId: number) => `like:${postId}:${userId}`,
  accepted: (postId: number) => `accepted:${postId}`,
};

/** Post types (the site's `post_types`): regular and moderator posts are people's words; the rest are not. */
const POST_TYPES: Record<number, string | null> = { 1: null, 2: null, 3: 'a small action (closed, pinned, moved...)', 4: 'a whisper (staff only)' };

export function emptyTranslation(): Translation {
  return { users: [], activities: [], skipped: [] };
}

/** The post's author (a post's `id` is the post's; the author is `user_id`). */
function authorOf(post: DiscoursePost, settings: DiscourseSettings): UserPush {
  return personOf({ id: post.user_id, username: post.username, name: post.name, avatar_template: post.avatar_template }, settings);
}

/** The post's address on the forum: /t/<slug>/<topic id>/<post number>. */
export function postUrl(post: Pick<DiscoursePost, 'topic_id' | 'topic_slug' | 'post_number'>, settings: DiscourseSettings): string {
  return `${forumBase(settings)}/t/${post.topic_slug || 'topic'}/${post.topic_id}/${post.post_number}`;
}

/** A post's words: `raw` is Markdown (lists and webhooks give it); `cooked`, the HTML, only when it is missing. */
function contentOf(post: DiscoursePost): ActivityPush['content'] {
  if (post.raw) return { type: 'markdown', value: post.raw };
  if (!post.cooked) return null;
  const text = post.cooked
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  return text ? { type: 'text', value: text } : null;
}

/** The activity a post is: its topic's first post is the topic itself (the topic's body), any other a reply. */
function postActivity(post: DiscoursePost, settings: DiscourseSettings, category: string | null): ActivityPush {
  const first = post.post_number === 1;
  return {
    id: first ? ids.topic(post.topic_id) : ids.post(post.id),
    activityType: first ? 'forum_topic' : 'forum_reply',
    user: authorOf(post, settings),
    activityTitle: post.topic_title ?? null,
    content: contentOf(post),
    timestamp: post.created_at,
    url: postUrl(post, settings),
    parentActivity: first ? null : { id: ids.topic(post.topic_id), activityType: 'forum_topic' },
    subSource: category,
  };
}

/** Whether the category is one the connector follows (all when the setting is empty). */
export function followsCategory(settings: DiscourseSettings, categoryId: number | null | undefined, slug: string | null): boolean {
  const followed = settings.categories ?? [];
  if (followed.length === 0) return true;
  return followed.some((entry) => {
    const text = String(entry).toLowerCase();
    return (categoryId !== null && categoryId !== undefined && text === String(categoryId)) || (slug !== null && text === slug.toLowerCase());
  });
}

/** Why a post is left out, or null when it is taken. */
export function postSkipReason(post: DiscoursePost, settings: DiscourseSettings, category: string | null): string | null {
  const what = `post ${post.id}`;
  if (post.topic_archetype === 'private_message') return `${what}: a private message`;
  if (post.deleted_at) return `${what}: deleted`;
  const typeReason = POST_TYPES[post.post_type ?? 1];
  if (typeReason) return `${what}: ${typeReason}`;
  if (!followsCategory(settings, post.category_id, category)) return `${what}: category ${category ?? post.category_id ?? 'none'} is not followed`;
  if (isSystemUser({ id: post.user_id, username: post.username })) return `${what}: by ${post.username}, a Discourse system account`;
  return null;
}

/**
 * The activities of one post: its topic or reply, plus the accepted answer when the post is one (the
 * discourse-solved plugin marks it). A post skipped says why in `skipped`.
 */
export function translatePost(post: DiscoursePost, settings: DiscourseSettings, category: string | null, into: Translation, withAccepted = true): void {
  const reason = postSkipReason(post, settings, category);
  if (reason) {
    into.skipped.push(reason);
    return;
  }
  into.activities.push(postActivity(post, settings, category));
  if (withAccepted && post.accepted_answer === true && post.post_number > 1) into.activities.push(acceptedActivity(post, settings, category));
}

/**
 * An accepted answer is the answer's author's activity. Discourse records when the answer was accepted
 * nowhere the API shows (neither the webhook's post nor the topic's `accepted_answer`), so its time is the
 * answer's: the moment the person gave it.
 */
export function acceptedActivity(post: DiscoursePost, settings: DiscourseSettings, category: string | null): ActivityPush {
  return {
    id: ids.accepted(post.id),
    activityType: 'forum_accepted_answer',
    user: authorOf(post, settings),
    activityTitle: post.topic_title ?? null,
    timestamp: post.created_at,
    url: postUrl(post, settings),
    parentActivity: { id: ids.topic(post.topic_id), activityType: 'forum_topic' },
    subSource: category,
  };
}

/**
 * A like: the liker's activity on the liked post (the topic itself when it is the first post). The webhook
 * says nothing of when the like was given: the time is left out, and the push's arrival stands for it.
 */
export function likeActivity(post: DiscoursePost, liker: DiscourseUserRef, settings: DiscourseSettings, category: string | null): ActivityPush {
  const liked = post.post_number === 1 ? { id: ids.topic(post.topic_id), activityType: 'forum_topic' } : { id: ids.post(post.id), activityType: 'forum_reply' };
  return {
    id: ids.like(post.id, liker.id),
    activityType: 'forum_like',
    user: personOf(liker, settings),
    activityTitle: post.topic_title ?? null,
    url: postUrl(post, settings),
    parentActivity: liked,
    subSource: category,
  };
}
