import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage } from '../connector-kind.ts';
import { emptyTranslation, translatePost } from './discourse-activities.ts';
import { discourseGet, forumBase } from './discourse-client.ts';
import type { DiscourseCategory, DiscoursePost, DiscourseSecrets, DiscourseSettings } from './discourse.schemas.ts';

/*
 * The streams a sync walks:
 * - `posts`: GET /posts.json, every post of the forum newest first, paged with `before=<lowest id seen>`
 *   (the API description's listPosts: "posts with an id lower than this value"). Discourse 3.x answered
 *   `before` with the posts up to and including that ID, so the post seen last comes again at the top of
 *   the next page: only the posts below `before` are taken, and a page with none below it is the end (else
 *   the last page, that one post alone, would lead back to itself). A topic's first post is the topic, any
 *   other a reply; a post the discourse-solved plugin marks `accepted_answer` is also an accepted answer.
 *   The checkpoint keeps the highest post ID of the last complete walk: the next sync walks down from the
 *   newest post to it, so it brings only what is new.
 * Likes cannot be listed cheaply: the API lists them per user (GET /user_actions.json?filter=1), or as a
 * count on each post; they come from the post_liked webhook only. An answer accepted after its post was
 * read also comes from the accepted_solution webhook.
 */
export const STREAMS = ['posts'] as const;

interface PostsCheckpoint {
  /** The walk's next page: posts below this ID (null: from the newest). */
  before: number | null;
  /** The highest post ID seen by the walk under way. */
  top: number | null;
  /** The highest post ID of the last complete walk: the walk stops there. */
  highWater: number | null;
}

function readCheckpoint(value: JsonValue | null): PostsCheckpoint {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const number = (key: string) => (typeof object[key] === 'number' ? (object[key] as number) : null);
  return { before: number('before'), top: number('top'), highWater: number('highWater') };
}

/** The forum's categories by ID (slug for subSource), read once per forum and again when an unknown one appears. */
type CachedCategories = { at: number; byId: Map<number, DiscourseCategory> };
const CATEGORY_CACHE_MS = 10 * 60_000;

async function categoryFor(
  id: number | null | undefined,
  settings: DiscourseSettings,
  secrets: DiscourseSecrets,
  access: PlatformAccess,
): Promise<string | null> {
  if (id === null || id === undefined) return null;
  const key = `discourse categories ${forumBase(settings)}`;
  let cached = access.cache.get(key) as CachedCategories | undefined;
  const stale = !cached || access.now().getTime() - cached.at > CATEGORY_CACHE_MS;
  if (stale || (!cached!.byId.has(id) && access.now().getTime() - cached!.at > 5_000)) {
    const site = await discourseGet<{ categories?: DiscourseCategory[] }>('/site.json', settings, secrets, access);
    cached = { at: access.now().getTime(), byId: new Map((site.categories ?? []).map((category) => [category.id, category])) };
    access.cache.set(key, cached);
  }
  const category = cached!.byId.get(id);
  // As the webhooks name it (Discourse's Category#slug_for_url): a category whose name makes no slug is "<id>-category".
  return category ? category.slug || `${category.id}-category` : null;
}

export async function postsPage(
  checkpoint: JsonValue | null,
  settings: DiscourseSettings,
  secrets: DiscourseSecrets,
  access: PlatformAccess,
): Promise<StreamPage> {
  const at = readCheckpoint(checkpoint);
  const answer = await discourseGet<{ latest_posts?: DiscoursePost[] }>(
    at.before === null ? '/posts.json' : `/posts.json?before=${at.before}`,
    settings,
    secrets,
    access,
  );
  const posts = (answer.latest_posts ?? []).filter((post) => at.before === null || post.id < at.before).sort((a, b) => b.id - a.id);
  const fresh = posts.filter((post) => at.highWater === null || post.id > at.highWater);
  const top = Math.max(at.top ?? 0, ...posts.map((post) => post.id)) || null;
  const translation = emptyTranslation();
  for (const post of fresh) translatePost(post, settings, await categoryFor(post.category_id, settings, secrets, access), translation);
  const reachedEnd = posts.length === 0 || fresh.length < posts.length;
  if (reachedEnd) {
    const done: JsonValue = { before: null, top: null, highWater: top ?? at.highWater };
    return { translation, checkpoint: done, done: true, total: null, records: fresh.length };
  }
  const next: JsonValue = { before: posts[posts.length - 1]!.id, top, highWater: at.highWater };
  return { translation, checkpoint: next, done: false, total: null, records: fresh.length };
}
