import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { platformFile } from '../helpers/platforms.ts';

/*
 * A local Discourse forum for the connector's tests, answering as Discourse's published API description
 * (shared/platforms/discourse/openapi.json) says: each answer starts from the documented response schema
 * (every documented field, with its type's empty value), and the generated forum's values are laid over it.
 * Records are made on demand from their IDs, so a forum of a million posts costs nothing until read.
 *
 * The forum: `topics` topics of `postsPerTopic` posts each (post ID = (topic - 1) * postsPerTopic + number),
 * written by `users` people (IDs 1..users) and, for topic 1 (the welcome topic), by the system user (-1);
 * categories round-robin; every third topic's second post is its accepted answer (discourse-solved).
 */

type Json = Record<string, unknown>;
type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; example?: unknown };

let spec: { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> } | null = null;

function responseSchema(route: string): Schema {
  spec ??= JSON.parse(readFileSync(platformFile('discourse/openapi.json'), 'utf8'));
  const schema = spec!.paths[route]?.get?.responses['200']?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`the Discourse API description has no GET ${route}`);
  return schema;
}

/** Every documented field with its type's empty value (or the documented example). */
function skeleton(schema: Schema | undefined): unknown {
  if (!schema) return null;
  if (schema.example !== undefined) return schema.example;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? (schema.properties ? 'object' : 'null')];
  if (types.includes('null')) return null;
  switch (types[0]) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, skeleton(value)]));
    case 'array':
      return [];
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

const shapes = new Map<string, Json>();
/** The documented shape of one record, found by walking `path` (property names; `[]` for an array's items). */
function shape(route: string, ...path: string[]): Json {
  const key = `${route} ${path.join('.')}`;
  let found = shapes.get(key);
  if (!found) {
    let schema: Schema | undefined = responseSchema(route);
    for (const step of path) schema = step === '[]' ? schema?.items : schema?.properties?.[step];
    found = skeleton(schema) as Json;
    shapes.set(key, found);
  }
  return structuredClone(found);
}

export interface Category {
  id: number;
  name: string;
  slug: string;
}

export interface DiscourseStandInOptions {
  topics?: number;
  postsPerTopic?: number;
  users?: number;
  categories?: Category[];
  title?: string;
  /** Keys the forum knows: a single user's key names its user; an all-users key acts as any Api-Username. */
  keys?: Record<string, { username?: string }>;
  /**
   * Answer GET /posts.json?before=N with the posts up to and including N, as Discourse 3.x did
   * (PostsController#latest: `posts.where("posts.id <= ?", last_post_id)`); the API description, and
   * Discourse since, take the posts below N only.
   */
  beforeInclusive?: boolean;
}

export interface Fault {
  status: number;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  /** How many requests it answers (1 by default). */
  times?: number;
  /** Only requests whose path starts with this. */
  path?: string;
}

const BASE_TIME = Date.parse('2025-03-01T10:00:00.000Z');
const SYSTEM = { id: -1, username: 'system', name: 'system', avatar_template: '/images/discourse-logo-sketch-small.png' };

export async function startDiscourseStandIn(options: DiscourseStandInOptions = {}) {
  const topicCount = options.topics ?? 30;
  const perTopic = options.postsPerTopic ?? 4;
  const userCount = options.users ?? 12;
  const categories = options.categories ?? [
    { id: 1, name: 'General', slug: 'general' },
    { id: 2, name: 'Support', slug: 'support' },
    { id: 3, name: 'Ideas', slug: 'ideas' },
  ];
  const keys: Record<string, { username?: string }> = { ...(options.keys ?? { 'admin-key': {}, 'member-key': { username: 'member2' } }) };
  const title = options.title ?? 'Stand-in Forum';
  const faults: Fault[] = [];
  const requests: string[] = [];
  let delayMs = 0;
  let host = '127.0.0.1';

  /** Posts added after the start (replies), by ID; IDs continue after the generated ones. */
  const added = new Map<number, { topicId: number; number: number; userId: number; at: number }>();
  const addedPerTopic = new Map<number, number>();
  let nextId = topicCount * perTopic + 1;

  const userRef = (id: number) =>
    id === SYSTEM.id
      ? { ...SYSTEM }
      : { id, username: `member${id}`, name: `Member ${id}`, avatar_template: `/user_avatar/${host}/member${id}/{size}/${id}_2.png` };
  const userIdByName = (username: string): number | null => {
    if (username.toLowerCase() === 'system') return SYSTEM.id;
    const match = /^member(\d+)$/i.exec(username);
    const id = match ? Number(match[1]) : NaN;
    return id >= 1 && id <= userCount ? id : null;
  };
  /** The system user and member 1 are the forum's admins. */
  const isAdmin = (id: number) => id === SYSTEM.id || id === 1;
  const topicAuthor = (topicId: number) => (topicId === 1 ? SYSTEM.id : ((topicId - 1) % userCount) + 1);
  const category = (topicId: number) => categories[(topicId - 1) % categories.length]!;
  const topicSlug = (topicId: number) => `topic-number-${topicId}`;
  const acceptedNumber = (topicId: number) => (topicId % 3 === 0 && perTopic >= 2 ? 2 : null);

  interface PostFacts {
    id: number;
    topicId: number;
    number: number;
    userId: number;
    at: number;
  }
  const facts = (id: number): PostFacts | null => {
    if (id >= 1 && id <= topicCount * perTopic) {
      const topicId = Math.ceil(id / perTopic);
      const number = id - (topicId - 1) * perTopic;
      const userId = number === 1 ? topicAuthor(topicId) : ((topicId + number) % userCount) + 1;
      return { id, topicId, number, userId, at: BASE_TIME + id * 60_000 };
    }
    const extra = added.get(id);
    return extra ? { id, ...extra } : null;
  };
  const postsInTopic = (topicId: number) => perTopic + (addedPerTopic.get(topicId) ?? 0);

  /** A post as /posts.json lists it (listPosts' latest_posts items). */
  function listedPost(f: PostFacts): Json {
    const user = userRef(f.userId);
    const c = category(f.topicId);
    return Object.assign(shape('/posts.json', 'latest_posts', '[]'), {
      id: f.id,
      name: user.name,
      username: user.username,
      avatar_template: user.avatar_template,
      created_at: new Date(f.at).toISOString(),
      updated_at: new Date(f.at).toISOString(),
      cooked: `<p>Words of post ${f.id}</p>`,
      raw: `Words of post ${f.id}`,
      post_number: f.number,
      post_type: 1,
      posts_count: postsInTopic(f.topicId),
      reply_to_post_number: null,
      topic_id: f.topicId,
      topic_slug: topicSlug(f.topicId),
      topic_title: `Topic number ${f.topicId}`,
      topic_html_title: `Topic number ${f.topicId}`,
      category_id: c.id,
      display_username: user.name,
      user_id: user.id,
      post_url: `/t/${topicSlug(f.topicId)}/${f.topicId}/${f.number}`,
      excerpt: `Words of post ${f.id}`,
      accepted_answer: acceptedNumber(f.topicId) === f.number,
    });
  }

  /** The same post as the webhooks send it (WebHookPostSerializer: adds the category's slug and the topic's archetype). */
  function webhookPost(id: number): Json {
    const f = facts(id);
    if (!f) throw new Error(`the stand-in forum has no post ${id}`);
    const post = listedPost(f);
    for (const hidden of [
      'can_edit',
      'can_delete',
      'can_recover',
      'can_see_hidden_post',
      'can_wiki',
      'actions_summary',
      'can_view_edit_history',
      'yours',
      'badges_granted',
      'flair_url',
      'flair_bg_color',
      'flair_color',
      'readers_count',
    ]) {
      delete post[hidden];
    }
    return Object.assign(post, {
      topic_posts_count: postsInTopic(f.topicId),
      topic_filtered_posts_count: postsInTopic(f.topicId),
      topic_archetype: 'regular',
      // Category#slug_for_url: a category whose name makes no slug is named by its ID.
      category_slug: category(f.topicId).slug || `${category(f.topicId).id}-category`,
    });
  }

  function topicListItem(topicId: number): Json {
    const c = category(topicId);
    const at = new Date(BASE_TIME + ((topicId - 1) * perTopic + 1) * 60_000).toISOString();
    return Object.assign(shape('/latest.json', 'topic_list', 'topics', '[]'), {
      id: topicId,
      title: `Topic number ${topicId}`,
      fancy_title: `Topic number ${topicId}`,
      slug: topicSlug(topicId),
      posts_count: postsInTopic(topicId),
      reply_count: postsInTopic(topicId) - 1,
      highest_post_number: postsInTopic(topicId),
      created_at: at,
      last_posted_at: at,
      bumped_at: at,
      archetype: 'regular',
      visible: true,
      category_id: c.id,
      posters: [{ extras: 'latest', description: 'Original Poster', user_id: topicAuthor(topicId), primary_group_id: null }],
      has_accepted_answer: acceptedNumber(topicId) !== null,
    });
  }

  function topicView(topicId: number): Json {
    const posts: Json[] = [];
    const numbers = Math.min(postsInTopic(topicId), 20);
    for (let id = (topicId - 1) * perTopic + 1; id <= (topicId - 1) * perTopic + Math.min(perTopic, numbers); id++) posts.push(listedPost(facts(id)!));
    const accepted = acceptedNumber(topicId);
    const answerer = accepted ? userRef(facts((topicId - 1) * perTopic + accepted)!.userId) : null;
    return Object.assign(shape('/t/{id}.json'), {
      ...topicListItem(topicId),
      post_stream: { posts, stream: posts.map((post) => post.id) },
      user_id: topicAuthor(topicId),
      accepted_answer: answerer ? { post_number: accepted, username: answerer.username, name: answerer.name, excerpt: 'An answer' } : undefined,
    });
  }

  function publicUser(id: number): Json {
    const ref = userRef(id);
    const user = Object.assign(shape('/u/{username}.json', 'user'), ref, {
      created_at: new Date(BASE_TIME).toISOString(),
      trust_level: 1,
      admin: isAdmin(id),
      // Discourse's UserSerializer has these (profile fields) though the API description leaves them out.
      location: id === SYSTEM.id ? null : `City ${id}`,
      website: id === SYSTEM.id ? null : `https://member${id}.example.org`,
      website_name: id === SYSTEM.id ? null : `member${id}.example.org`,
      bio_raw: id === SYSTEM.id ? null : `I am member ${id}.`,
    });
    return { ...shape('/u/{username}.json'), user };
  }

  function adminUser(id: number): Json {
    return Object.assign(shape('/admin/users/{id}.json'), userRef(id), { active: true, admin: isAdmin(id), created_at: new Date(BASE_TIME).toISOString() });
  }

  const email = (id: number) => `member${id}@example.com`;

  function send(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(body);
    const write = () => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(text);
    };
    if (delayMs > 0) setTimeout(write, delayMs);
    else write();
  }

  const invalidAccess = {
    errors: ['You are not permitted to view the requested resource. The API username or key is invalid.'],
    error_type: 'invalid_access',
  };
  const notAllowed = { errors: ['You are not permitted to view the requested resource.'], error_type: 'invalid_access' };
  const notFound = { errors: ['The requested URL or resource could not be found.'], error_type: 'not_found' };

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const fault = faults.find((candidate) => !candidate.path || url.pathname.startsWith(candidate.path));
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) faults.splice(faults.indexOf(fault), 1);
      const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
      const body =
        fault.status === 429
          ? {
              errors: ['You’ve performed this action too many times. Please wait a few seconds before trying again.'],
              error_type: 'rate_limit',
              extras: { wait_seconds: fault.retryAfter ?? 10 },
            }
          : { errors: ['Internal Server Error'] };
      return send(response, fault.status, body, headers);
    }

    // Api-Key and Api-Username, as the API description's "Authentication" says.
    const key = request.headers['api-key'];
    const asUser = request.headers['api-username'];
    let admin = false;
    let signedIn = false;
    if (key !== undefined) {
      const known = typeof key === 'string' ? keys[key] : undefined;
      const actingId = typeof asUser === 'string' ? userIdByName(asUser) : null;
      const mayActAs = !known?.username || known.username.toLowerCase() === String(asUser).toLowerCase();
      if (!known || actingId === null || !mayActAs) return send(response, 403, invalidAccess);
      signedIn = true;
      admin = isAdmin(actingId);
    }
    const path = url.pathname;
    let match: RegExpExecArray | null;

    if (path === '/site/basic-info.json') {
      return send(response, 200, Object.assign(shape('/site/basic-info.json'), { title, description: 'A forum the tests start', locale: 'en' }));
    }
    if (path === '/site.json') {
      const categoryShape = (c: Category) => Object.assign(shape('/site.json', 'categories', '[]'), c, { topic_url: `/t/about-the-${c.slug}-category` });
      return send(response, 200, Object.assign(shape('/site.json'), { categories: categories.map(categoryShape) }));
    }
    if (path === '/posts.json') {
      const before = url.searchParams.has('before') ? Number(url.searchParams.get('before')) : Infinity;
      const latest: Json[] = [];
      for (let id = Math.min(options.beforeInclusive ? before : before - 1, nextId - 1); id >= 1 && latest.length < 50; id--) {
        const f = facts(id);
        if (f) latest.push(listedPost(f));
      }
      return send(response, 200, { latest_posts: latest });
    }
    if (path === '/latest.json') {
      const page = Number(url.searchParams.get('page') ?? '0');
      const perPage = 30;
      const topics: Json[] = [];
      for (let id = topicCount - page * perPage; id >= 1 && topics.length < perPage; id--) topics.push(topicListItem(id));
      const more = (page + 1) * perPage < topicCount;
      const users = [...new Set(topics.map((t) => topicAuthor(t.id as number)))].map(userRef);
      return send(
        response,
        200,
        Object.assign(shape('/latest.json'), {
          users,
          topic_list: Object.assign(shape('/latest.json', 'topic_list'), {
            per_page: perPage,
            topics,
            more_topics_url: more ? `/latest?page=${page + 1}` : undefined,
          }),
        }),
      );
    }
    if ((match = /^\/t\/(?:[^/]+\/)?(\d+)\.json$/.exec(path))) {
      const topicId = Number(match[1]);
      if (topicId < 1 || topicId > topicCount) return send(response, 404, notFound);
      return send(response, 200, topicView(topicId));
    }
    if ((match = /^\/u\/([^/]+)\/emails\.json$/.exec(path))) {
      const id = userIdByName(decodeURIComponent(match[1]!));
      if (!signedIn) return send(response, 403, notAllowed);
      if (id === null) return send(response, 404, notFound);
      if (!admin) return send(response, 403, notAllowed);
      return send(response, 200, Object.assign(shape('/u/{username}/emails.json'), { email: email(id) }));
    }
    if ((match = /^\/u\/([^/]+)\.json$/.exec(path))) {
      const id = userIdByName(decodeURIComponent(match[1]!));
      if (id === null) return send(response, 404, notFound);
      return send(response, 200, publicUser(id));
    }
    if ((match = /^\/admin\/users\/(-?\d+)\.json$/.exec(path))) {
      // Admin routes exist only for admins (Discourse's AdminConstraint): to anyone else, 404.
      if (!admin) return send(response, 404, notFound);
      const id = Number(match[1]);
      if (id !== SYSTEM.id && (id < 1 || id > userCount)) return send(response, 404, notFound);
      return send(response, 200, adminUser(id));
    }
    return send(response, 404, notFound);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  host = `127.0.0.1`;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    title,
    categories,
    /** Every request's method, path and query, in order. */
    requests,
    /** The highest post ID. */
    latestPostId: () => nextId - 1,
    /** A post (by ID) in the shape of the webhooks' payloads. */
    webhookPost,
    /** A user as BasicUserSerializer gives one (a like's `user`). */
    user: userRef,
    email,
    /** Adds a reply to a topic, now; returns its ID. */
    addReply(topicId: number, userId = 1): number {
      const id = nextId++;
      const number = postsInTopic(topicId) + 1;
      addedPerTopic.set(topicId, (addedPerTopic.get(topicId) ?? 0) + 1);
      added.set(id, { topicId, number, userId, at: BASE_TIME + id * 60_000 });
      return id;
    },
    /** An admin revokes a key: from now on the forum answers it as an unknown key. */
    revokeKey(key: string) {
      delete keys[key];
    },
    /** An admin makes a new key (acting as any user, or as `username` only). */
    addKey(key: string, username?: string) {
      keys[key] = username ? { username } : {};
    },
    /** The next requests (matching `path`, if given) are answered with this status instead. */
    fail(fault: Fault) {
      faults.push({ ...fault });
    },
    /** Every answer is sent this many milliseconds late. */
    setDelay(ms: number) {
      delayMs = ms;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type DiscourseStandIn = Awaited<ReturnType<typeof startDiscourseStandIn>>;
