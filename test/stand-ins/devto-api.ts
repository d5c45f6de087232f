import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom as random } from '../helpers/seeded-random.ts';

/*
 * A local Forem API (v1), as DEV (dev.to) and every Forem community serve it, for the DEV connector's tests
 * and benchmarks. Written by hand from Forem's published material (nothing of it is copied here):
 *
 * - Forem's OpenAPI description of API v1, forem/forem swagger/v1/api_v1.json, read at commit
 *   70f580a2bca167be79f78b653b9111a0f86b0006 (as kept by the fork ce7in/forem; forem/forem's own copy at
 *   4722b8487c9fb223aaca687df93b466c5a6e1c25 predates the comments and organizations paths). Its field names
 *   and example values give each answer's shape, named at each answer below. Documentation:
 *   https://developers.forem.com/api/v1
 * - Forem's API v0 documentation, forem/forem docs/api_v0.yml at commit
 *   01358ece4f5a5fc73bfbc5fbcbbb5fc4ce2354e9: GET /users/by_username?url=<username> ("the string `by_username`
 *   (needs to be used in conjuction with the param `url`)"), and the 429 answer (ErrorTooManyRequests, with
 *   Retry-After in seconds).
 * - Where the description says nothing, Forem's source (forem/forem, each file at the commit given): an
 *   organization's articles newest first by `published_at` (app/controllers/concerns/api/
 *   organizations_controller.rb, 233baa1f); a tag's by `hotness_score` (app/services/
 *   article_api_index_service.rb, c8e5af79), simplified here from app/black_box/black_box.rb (23c9e360) to
 *   the publication time in thousands of seconds plus twice the reactions (at most 650); an article's comments
 *   all at once, threaded and ordered by ID, 404 for an unknown article (app/controllers/concerns/api/
 *   comments_controller.rb, 319872ed); a deleted comment, or one hidden by the article's author, with its
 *   words replaced and an empty `user` (app/views/api/v0/comments/_comment.json.jbuilder, 8062738b);
 *   `id_code` is the comment's ID in base 26 (Comment#id_code_generated); an unknown `api-key` is no key
 *   (app/controllers/api/v1/api_controller.rb, b2a14f37: public reads are answered, GET /users/me and every
 *   path of a private community answer 401).
 */

type Json = Record<string, unknown>;

export interface StandInDevUser {
  username: string;
  name: string;
  github?: string;
  twitter?: string;
  website?: string;
  summary?: string;
  location?: string;
}

export interface StandInOrganization {
  username: string;
  name: string;
}

export interface StandInArticle {
  id: number;
  title: string;
  description: string;
  /** The author's username. */
  username: string;
  organization?: string;
  tags: string[];
  publishedAt: string;
  reactions: number;
}

export interface StandInComment {
  /** Forem's comment ID; `idCode` is it in base 26. */
  id: number;
  idCode: string;
  articleId: number;
  username: string;
  body: string;
  createdAt: string;
  /** The `idCode` of the comment it answers. */
  parent?: string;
  deleted?: boolean;
  /** Hidden by the article's author. */
  hidden?: boolean;
}

export interface DevtoStandInOptions {
  users?: StandInDevUser[];
  organizations?: StandInOrganization[];
  /** API keys the community takes, each acting as one of its users. */
  apiKeys?: { key: string; username: string }[];
  /** A private community: every request without a key it takes is answered 401. */
  private?: boolean;
  /** When the first article is published, when `publish` is not told (2026-01-01T00:00:00Z by default); each next one an hour later. */
  start?: string;
}

/** A seeded history: `articles` articles and `comments` comments (some answering others) by `people` people. */
export interface GeneratedHistory {
  seed?: number;
  articles: number;
  comments: number;
  people: number;
  /** The tag every article has (default `hearth`). */
  tag?: string;
  /** An organization every article is published in. */
  organization?: string;
  /** The first article's time; the others follow `spacingMinutes` apart (default 10). */
  start?: string;
  spacingMinutes?: number;
}

export interface StandInRequest {
  /** The path under /api with its query, e.g. `/articles?tag=hearth&page=1&per_page=100`. */
  path: string;
  accept: string | undefined;
  /** Whether the request carried an `api-key` header. */
  withKey: boolean;
}

export interface DevtoStandIn {
  /** The API's address, e.g. http://127.0.0.1:4321/api: the connector's `apiUrl`. */
  url: string;
  /** The community's address (the API's without /api). */
  site: string;
  requests: StandInRequest[];
  user(user: StandInDevUser): void;
  organization(organization: StandInOrganization): void;
  /** Publishes an article (its ID and time made when absent). */
  publish(article: Omit<StandInArticle, 'id' | 'publishedAt' | 'reactions' | 'description'> & Partial<StandInArticle>): StandInArticle;
  /** A comment on an article, or a reply to one of its comments (`parent`: its idCode). Its time is made when absent. */
  comment(articleId: number, comment: { username: string; body: string; parent?: string; createdAt?: string }): StandInComment;
  deleteComment(idCode: string): void;
  hideComment(idCode: string): void;
  unpublish(articleId: number): void;
  /** What was made: counts, every person, and those who wrote an article or a comment. */
  generate(history: GeneratedHistory): { articles: number; comments: number; people: string[]; authors: string[] };
  /** The next request (whose path matches, if given) is answered 429 with Retry-After. */
  rateLimitOnce(retryAfterSeconds: number, path?: RegExp): void;
  /** The next `times` requests whose path matches are answered `status` (a 5xx). */
  failNext(status: number, times: number, path?: RegExp): void;
  /** The next `times` list requests past the first page (`page` > 1) whose path matches are answered after `ms`. */
  slowPages(ms: number, times: number, path?: RegExp): void;
  stop(): Promise<void>;
}

/** Forem's default page size for these lists, and the most it gives (perPageParam30to1000). */
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 1000;
/** Forem's epoch for hotness (BlackBox::OUR_EPOCH_NUMBER). */
const HOTNESS_EPOCH = Date.parse('2010-01-01T00:00:01Z') / 1000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const slugOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const isoSeconds = (time: string) => new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');

export async function startDevtoStandIn(options: DevtoStandInOptions = {}): Promise<DevtoStandIn> {
  const requests: StandInRequest[] = [];
  const users = new Map<string, StandInDevUser & { id: number; joinedAt: string }>();
  const organizations = new Map<string, StandInOrganization & { id: number }>();
  const articles = new Map<number, StandInArticle>();
  const comments = new Map<number, StandInComment[]>();
  const commentsByCode = new Map<string, StandInComment>();
  const keys = new Map((options.apiKeys ?? []).map((entry) => [entry.key, entry.username]));
  let clock = Date.parse(options.start ?? '2026-01-01T00:00:00Z');
  let commentClock = clock;
  let nextArticle = 1;
  let nextComment = 1;
  let nextUser = 1;
  let rateLimit: { seconds: number; path?: RegExp } | null = null;
  let failures: { status: number; times: number; path?: RegExp } | null = null;
  let slow: { ms: number; times: number; path?: RegExp } | null = null;
  // Sorted lists, kept until the articles change (a generated history is large).
  let version = 0;
  const sorted = new Map<string, { version: number; list: StandInArticle[] }>();
  let origin = '';

  function user(entry: StandInDevUser) {
    users.set(entry.username, { ...entry, id: users.get(entry.username)?.id ?? nextUser++, joinedAt: '2024-03-05T00:00:00Z' });
  }
  function organization(entry: StandInOrganization) {
    organizations.set(entry.username, { ...entry, id: organizations.get(entry.username)?.id ?? nextUser++ });
  }
  for (const entry of options.users ?? []) user(entry);
  for (const entry of options.organizations ?? []) organization(entry);

  function publish(given: Omit<StandInArticle, 'id' | 'publishedAt' | 'reactions' | 'description'> & Partial<StandInArticle>): StandInArticle {
    if (!users.has(given.username)) throw new Error(`no user ${given.username} in the stand-in`);
    if (given.organization && !organizations.has(given.organization)) throw new Error(`no organization ${given.organization} in the stand-in`);
    const publishedAt = given.publishedAt ?? new Date(clock).toISOString();
    clock = Math.max(clock, Date.parse(publishedAt)) + 3_600_000;
    const made: StandInArticle = { description: `${given.title}: a summary`, reactions: 0, ...given, id: given.id ?? nextArticle, publishedAt };
    nextArticle = Math.max(nextArticle, made.id) + 1;
    articles.set(made.id, made);
    comments.set(made.id, comments.get(made.id) ?? []);
    version += 1;
    return made;
  }

  function comment(articleId: number, given: { username: string; body: string; parent?: string; createdAt?: string }): StandInComment {
    const article = articles.get(articleId);
    if (!article) throw new Error(`no article ${articleId} in the stand-in`);
    if (!users.has(given.username)) throw new Error(`no user ${given.username} in the stand-in`);
    if (given.parent && commentsByCode.get(given.parent)?.articleId !== articleId) throw new Error(`no comment ${given.parent} on article ${articleId}`);
    const id = nextComment++;
    commentClock = Math.max(commentClock, Date.parse(article.publishedAt)) + 60_000;
    const createdAt = given.createdAt ?? new Date(commentClock).toISOString();
    const made: StandInComment = { id, idCode: id.toString(26), articleId, username: given.username, body: given.body, createdAt, parent: given.parent };
    comments.get(articleId)!.push(made);
    commentsByCode.set(made.idCode, made);
    version += 1;
    return made;
  }

  function generate(history: GeneratedHistory) {
    const next = random(history.seed ?? 1);
    const tag = history.tag ?? 'hearth';
    const people = Array.from({ length: history.people }, (_, i) => `person${i}`);
    people.forEach((username, i) =>
      user({
        username,
        name: `Person ${i}`,
        github: i % 2 === 0 ? `gh-person${i}` : undefined,
        twitter: i % 3 === 0 ? `tw_person${i}` : undefined,
        summary: i % 4 === 0 ? `Writes about ${tag}` : undefined,
      }),
    );
    if (history.organization && !organizations.has(history.organization)) organization({ username: history.organization, name: history.organization });
    const start = Date.parse(history.start ?? new Date(clock).toISOString());
    const spacing = (history.spacingMinutes ?? 10) * 60_000;
    const made: StandInArticle[] = [];
    for (let i = 0; i < history.articles; i += 1) {
      made.push(
        publish({
          title: `Article ${i} about ${tag}`,
          username: people[Math.floor(next() * people.length)]!,
          organization: history.organization,
          tags: [tag],
          publishedAt: new Date(start + i * spacing).toISOString(),
          reactions: Math.floor(next() * 40),
        }),
      );
    }
    const authors = new Set(made.map((article) => article.username));
    for (let i = 0; i < history.comments && made.length > 0; i += 1) {
      const article = made[Math.floor(next() * made.length)]!;
      const earlier = comments.get(article.id)!;
      const parent = earlier.length > 0 && next() < 0.3 ? earlier[Math.floor(next() * earlier.length)]!.idCode : undefined;
      const username = people[Math.floor(next() * people.length)]!;
      authors.add(username);
      comment(article.id, {
        username,
        body: `Comment ${i}`,
        parent,
        createdAt: new Date(Date.parse(article.publishedAt) + (earlier.length + 1) * 60_000).toISOString(),
      });
    }
    return { articles: made.length, comments: made.length > 0 ? history.comments : 0, people, authors: [...authors].sort() };
  }

  const hotness = (article: StandInArticle) => (Date.parse(article.publishedAt) / 1000 - HOTNESS_EPOCH) / 1000 + 2 * Math.min(article.reactions, 650);

  function listed(key: string, pick: (article: StandInArticle) => boolean, order: (a: StandInArticle, b: StandInArticle) => number): StandInArticle[] {
    const kept = sorted.get(key);
    if (kept && kept.version === version) return kept.list;
    const list = [...articles.values()].filter(pick).sort((a, b) => order(a, b) || b.id - a.id);
    sorted.set(key, { version, list });
    return list;
  }

  function pageOf<T>(items: T[], query: URLSearchParams): T[] {
    const page = Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1);
    const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Number.parseInt(query.get('per_page') ?? '', 10) || DEFAULT_PER_PAGE));
    return items.slice((page - 1) * perPage, page * perPage);
  }

  /** A path Forem gives for uploads (the description's examples are such paths). */
  const imageOf = (kind: 'user' | 'organization', id: number) => `/uploads/${kind}/profile_image/${id}/avatar.jpeg`;

  /** SharedUser, as the description's ArticleIndex `user` (with its `user_id`) and Comment `user`. */
  function sharedUser(username: string): Json {
    const known = users.get(username)!;
    return {
      name: known.name,
      username: known.username,
      twitter_username: known.twitter ?? null,
      github_username: known.github ?? null,
      user_id: known.id,
      website_url: known.website ?? null,
      profile_image: imageOf('user', known.id),
      profile_image_90: imageOf('user', known.id),
    };
  }

  /** ArticleIndex, field for field as the description's GET /api/articles example. */
  function articleOut(article: StandInArticle): Json {
    const path = `/${article.organization ?? article.username}/${slugOf(article.title)}-${article.id.toString(36)}`;
    const date = new Date(article.publishedAt);
    const published = isoSeconds(article.publishedAt);
    const list = comments.get(article.id) ?? [];
    const out: Json = {
      type_of: 'article',
      id: article.id,
      title: article.title,
      description: article.description,
      readable_publish_date: `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`,
      slug: path.split('/')[2],
      path,
      url: `${origin}${path}`,
      comments_count: list.filter((one) => !one.deleted).length,
      public_reactions_count: article.reactions,
      collection_id: null,
      published_timestamp: published,
      positive_reactions_count: article.reactions,
      cover_image: null,
      social_image: `${origin}/assets/social.png`,
      canonical_url: `${origin}${path}`,
      created_at: published,
      edited_at: null,
      crossposted_at: null,
      published_at: published,
      last_comment_at: list.length > 0 ? isoSeconds(list[list.length - 1]!.createdAt) : published,
      reading_time_minutes: 1,
      tag_list: article.tags,
      tags: article.tags.join(', '),
      user: sharedUser(article.username),
    };
    if (article.organization) {
      const org = organizations.get(article.organization)!;
      out.organization = {
        name: org.name,
        username: org.username,
        slug: org.username,
        profile_image: imageOf('organization', org.id),
        profile_image_90: imageOf('organization', org.id),
      };
    }
    return out;
  }

  /** Comment, as the description's GET /api/comments example: threaded in `children`, by ID. */
  function commentTree(articleId: number): Json[] {
    const list = [...(comments.get(articleId) ?? [])].sort((a, b) => a.id - b.id);
    const out = (one: StandInComment): Json => ({
      type_of: 'comment',
      id_code: one.idCode,
      created_at: isoSeconds(one.createdAt),
      ...(one.deleted
        ? { body_html: '<p>[deleted]</p>', user: {} }
        : one.hidden
          ? { body_html: '<p>[hidden by post author]</p>', user: {} }
          : { body_html: `<p>${escapeHtml(one.body)}</p>\n\n`, user: sharedUser(one.username) }),
      children: list.filter((child) => child.parent === one.idCode).map(out),
    });
    return list.filter((one) => !one.parent).map(out);
  }

  /** User, as the description's GET /api/users/me example (`joined_at` as Forem formats it, "%b %e, %Y"). */
  function userOut(username: string): Json {
    const known = users.get(username)!;
    const joined = new Date(known.joinedAt);
    return {
      type_of: 'user',
      id: known.id,
      username: known.username,
      name: known.name,
      twitter_username: known.twitter ?? null,
      github_username: known.github ?? null,
      summary: known.summary ?? null,
      location: known.location ?? null,
      website_url: known.website ?? null,
      joined_at: `${MONTHS[joined.getUTCMonth()]} ${String(joined.getUTCDate()).padStart(2, ' ')}, ${joined.getUTCFullYear()}`,
      profile_image: imageOf('user', known.id),
    };
  }

  const notFound = { status: 404, body: { error: 'not found', status: 404 } };
  const unauthorized = { status: 401, body: { error: 'unauthorized', status: 401 } };

  function answer(path: string, query: URLSearchParams, actingAs: string | null): { status: number; body: unknown } {
    if (options.private && !actingAs) return unauthorized;
    if (path === '/articles') {
      const tag = query.get('tag');
      if (!tag) return notFound;
      const list = listed(
        `tag:${tag}`,
        (article) => article.tags.includes(tag),
        (a, b) => hotness(b) - hotness(a),
      );
      return { status: 200, body: pageOf(list, query).map(articleOut) };
    }
    const orgArticles = /^\/organizations\/([^/]+)\/articles$/.exec(path);
    if (orgArticles) {
      const username = decodeURIComponent(orgArticles[1]!);
      if (!organizations.has(username)) return notFound;
      const list = listed(
        `organization:${username}`,
        (article) => article.organization === username,
        (a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt),
      );
      return { status: 200, body: pageOf(list, query).map(articleOut) };
    }
    if (path === '/comments') {
      const id = Number(query.get('a_id'));
      if (!articles.has(id)) return notFound;
      return { status: 200, body: commentTree(id) };
    }
    if (path === '/users/me') return actingAs ? { status: 200, body: userOut(actingAs) } : unauthorized;
    if (path === '/users/by_username') {
      const username = query.get('url') ?? '';
      return users.has(username) ? { status: 200, body: userOut(username) } : notFound;
    }
    return notFound;
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const path = url.pathname.replace(/^\/api(?=\/)/, '');
    const key = request.headers['api-key'];
    const given = typeof key === 'string' ? key : undefined;
    requests.push({ path: `${path}${url.search}`, accept: request.headers.accept, withKey: given !== undefined });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(JSON.stringify(body));
    };
    const target = `${path}${url.search}`;
    if (rateLimit && (!rateLimit.path || rateLimit.path.test(target))) {
      const { seconds } = rateLimit;
      rateLimit = null;
      return send(429, { error: `Rate limit reached, try again in ${seconds} seconds`, status: 429 }, { 'retry-after': String(seconds) });
    }
    if (failures && failures.times > 0 && (!failures.path || failures.path.test(target))) {
      failures.times -= 1;
      return send(failures.status, { error: 'Internal Server Error', status: failures.status });
    }
    const actingAs = given !== undefined ? (keys.get(given) ?? null) : null;
    const answered = answer(path, url.searchParams, actingAs);
    const later = Number(url.searchParams.get('page') ?? '1') > 1;
    if (slow && slow.times > 0 && later && (!slow.path || slow.path.test(target))) {
      slow.times -= 1;
      // Answered as it stood when the request came, as a slow server would.
      setTimeout(() => send(answered.status, answered.body), slow.ms);
      return;
    }
    send(answered.status, answered.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/api`,
    site: origin,
    requests,
    user,
    organization,
    publish,
    comment,
    deleteComment(idCode) {
      const found = commentsByCode.get(idCode);
      if (!found) throw new Error(`no comment ${idCode}`);
      found.deleted = true;
      version += 1;
    },
    hideComment(idCode) {
      const found = commentsByCode.get(idCode);
      if (!found) throw new Error(`no comment ${idCode}`);
      found.hidden = true;
      version += 1;
    },
    unpublish(articleId) {
      articles.delete(articleId);
      version += 1;
    },
    generate,
    rateLimitOnce(seconds, path) {
      rateLimit = { seconds, path };
    },
    failNext(status, times, path) {
      failures = { status, times, path };
    },
    slowPages(ms, times, path) {
      slow = { ms, times, path };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
