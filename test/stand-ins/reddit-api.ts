import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom as seeded } from '../helpers/seeded-random.ts';

/*
 * A local Reddit for the Reddit connector's tests and the benchmark. Reddit publishes no machine-readable
 * description of its API, so this follows its documentation, page by page:
 * - https://www.reddit.com/dev/api: listings (`after`, `before`, `limit` up to 100, default 25; the answer a
 *   Listing `{kind: "Listing", data: {after, before, dist, children: [{kind, data}]}}`), GET /r/{subreddit}/new,
 *   GET /r/{subreddit}/comments (the subreddit's newest comments), GET /search (`q`, `sort`, `type`),
 *   GET /r/{subreddit}/about; and its note on response bodies: `<`, `>` and `&` are escaped in JSON answers
 *   unless the request has `raw_json=1`.
 * - https://github.com/reddit-archive/reddit/wiki/JSON: the Thing shapes and field names: Link (kind t3: id,
 *   name, author, author_fullname, subreddit, title, selftext, permalink, url, created_utc, num_comments, ...),
 *   Comment (t1: body, parent_id, link_id, link_title, ...), Subreddit (t5: display_name, subscribers,
 *   subreddit_type, ...). A fullname is `<kind>_<base-36 id>`.
 * - https://github.com/reddit-archive/reddit/wiki/OAuth2, "Application Only OAuth": POST
 *   /api/v1/access_token with `grant_type=client_credentials` and the client ID and secret as HTTP basic
 *   auth answers `{access_token, token_type: "bearer", expires_in, scope}`; wrong credentials a 401; a
 *   request without the grant type `{"error": "unsupported_grant_type"}`. API requests carry
 *   `Authorization: bearer <token>`.
 * - https://github.com/reddit-archive/reddit/wiki/API, Rules: a unique, descriptive User-Agent (generic ones,
 *   "Python/urllib" or "Java", are drastically limited: answered 429 here), and X-Ratelimit-Used,
 *   X-Ratelimit-Remaining and X-Ratelimit-Reset (seconds to the end of the period) on every answer.
 * - https://support.reddithelp.com/hc/en-us/articles/16160319875092-Reddit-Data-API-Wiki: 100 queries a
 *   minute per OAuth client ID, averaged over 10 minutes (the default period here: 1,000 per 600 s).
 * Errors for a subreddit are as Reddit gives them: a private one 403 `{"reason": "private", "message":
 * "Forbidden", "error": 403}`, a banned one 404 `{"reason": "banned", ...}`, an unknown one 404.
 * A listing reaches back `listingDepth` things (Reddit: about 1,000), then its `after` is null.
 */

type Json = Record<string, unknown>;

export interface StandInSubreddit {
  name: string;
  subscribers?: number;
  /** `public` (default), `restricted` (readable), `private` (403 to everyone here). */
  type?: 'public' | 'restricted' | 'private';
  banned?: boolean;
  title?: string;
}

/** A post as stored (the Link's own fields; the others are made when it is answered). */
export interface StandInPost {
  kind: 't3';
  id: string;
  name: string;
  subreddit: string;
  author: string;
  title: string;
  selftext: string;
  /** A link post's address; a self post's is its permalink. */
  url: string | null;
  created_utc: number;
  seq: number;
}

export interface StandInComment {
  kind: 't1';
  id: string;
  name: string;
  subreddit: string;
  author: string;
  body: string;
  parent_id: string;
  link_id: string;
  created_utc: number;
  seq: number;
}

export interface HistoryOptions {
  subreddit: string;
  posts: number;
  comments: number;
  /** Distinct authors, `person_0` ... */
  people: number;
  seed?: number;
  /** Every n-th thing is by `[deleted]` (0: none). */
  deletedEvery?: number;
  /** Every n-th comment is by AutoModerator (0: none). */
  automoderatorEvery?: number;
}

/** What a generated history holds: the things a connector should make activities of, and their authors. */
export interface HistorySummary {
  posts: number;
  comments: number;
  /** Things by `[deleted]` or AutoModerator: never activities. */
  skipped: number;
  /** Distinct authors of the other things. */
  people: number;
}

export interface RedditStandInOptions {
  clientId: string;
  clientSecret: string;
  subreddits: StandInSubreddit[];
  /** The clock for token lifetimes and rate-limit periods, in milliseconds (a test's ManualClock); default Date.now. */
  now?: () => number;
  /** How long a token lasts (Reddit's: an hour). */
  tokenLifetimeSeconds?: number;
  /** Requests a client ID may make per period. */
  rateLimit?: { requests: number; periodSeconds: number };
  /** How far back a listing reaches (Reddit: about 1,000 things). */
  listingDepth?: number;
  /** Histories generated at the start, in order. */
  histories?: HistoryOptions[];
}

export interface StandInRequest {
  method: string;
  /** Path and query, as asked. */
  path: string;
  userAgent: string | null;
}

export interface RedditStandIn {
  /** The API's root (the connector's `apiUrl`). */
  url: string;
  /** The token endpoint (the connector's `authUrl`). */
  authUrl: string;
  /** Every request, token requests included. */
  requests: StandInRequest[];
  /** The bearer tokens made so far, oldest first. */
  tokensIssued(): string[];
  /** A post; its time is the stand-in's next minute unless given. */
  post(subreddit: string, post: { author: string; title: string; selftext?: string; url?: string; createdUtc?: number }): StandInPost;
  /** A comment answering a post (`t3_…`) or a comment (`t1_…`). */
  comment(parent: string, comment: { author: string; body: string; createdUtc?: number }): StandInComment;
  /** A seeded history of posts and comments, made quickly (thousands of things). */
  generate(options: HistoryOptions): HistorySummary;
  /** The next API answer is served and says no request remains; until `resetSeconds` later, every request is answered 429. */
  spendRateLimit(resetSeconds: number): void;
  /** The period is spent from now: every request is answered 429 until `resetSeconds` later. */
  rateLimitNow(resetSeconds: number): void;
  /** The next `times` API requests whose path matches and that carry `after` (a later page) are answered after `ms`. */
  slowPages(match: RegExp, ms: number, times: number): void;
  /** Every token made so far is refused (401) from now on. */
  revokeTokens(): void;
  stop(): Promise<void>;
}

const DEFAULT_RATE = { requests: 1_000, periodSeconds: 600 };
const DEFAULT_LISTING_LIMIT = 25;
const MAX_LISTING_LIMIT = 100;
const GENERIC_AGENTS = /^(python-urllib|python-requests|java|node|undici|curl|go-http-client|okhttp|axios)\b/i;

const base36 = (value: number) => value.toString(36);

const WORDS = ['release', 'plugin', 'question', 'typescript', 'deploy', 'hearth', 'community', 'bug', 'docs', 'database', 'help', 'idea'];

function slugOf(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 50) || 'post'
  );
}

export async function startRedditStandIn(options: RedditStandInOptions): Promise<RedditStandIn> {
  const now = options.now ?? Date.now;
  const rate = options.rateLimit ?? DEFAULT_RATE;
  const depth = options.listingDepth ?? 1_000;
  const lifetime = options.tokenLifetimeSeconds ?? 3_600;
  const requests: StandInRequest[] = [];
  const subreddits = new Map(
    options.subreddits.map((subreddit, index) => [
      subreddit.name.toLowerCase(),
      { ...subreddit, id: base36(1_000_000 + index * 7), posts: [] as StandInPost[], comments: [] as StandInComment[] },
    ]),
  );
  const things = new Map<string, StandInPost | StandInComment>();
  const commentCounts = new Map<string, number>();
  // The subreddits' lists sorted newest first, with each fullname's place, made again after a change.
  let version = 0;
  const sorted = new Map<string, { version: number; items: (StandInPost | StandInComment)[]; places: Map<string, number> }>();
  const accounts = new Map<string, string>();
  const tokens = new Map<string, { expiresAt: number; revoked: boolean }>();
  let issued = 0;
  let period = { end: 0, used: 0 };
  let spendNext: number | null = null;
  let slow: { match: RegExp; ms: number; times: number } | null = null;
  // Seconds; each new thing a minute after the last, unless its time is given.
  let clock = 1_764_547_200; // 2025-12-01T00:00:00Z
  let sequence = 0;
  let postIds = 36 ** 5;
  let commentIds = 36 ** 6;

  function subredditOf(name: string) {
    const subreddit = subreddits.get(name.toLowerCase());
    if (!subreddit) throw new Error(`no subreddit ${name} in the stand-in`);
    return subreddit;
  }

  /** An account's fullname, made on first sight; `[deleted]` has none (Reddit leaves author_fullname out). */
  function accountOf(author: string): string | null {
    if (author === '[deleted]') return null;
    let fullname = accounts.get(author);
    if (!fullname) {
      fullname = `t2_${base36(0x1a2b3c + accounts.size * 7919)}`;
      accounts.set(author, fullname);
    }
    return fullname;
  }

  function timeOf(given: number | undefined): number {
    if (given !== undefined) return given;
    clock += 60;
    return clock;
  }

  function post(subredditName: string, given: { author: string; title: string; selftext?: string; url?: string; createdUtc?: number }): StandInPost {
    const subreddit = subredditOf(subredditName);
    const id = base36(postIds++);
    const made: StandInPost = {
      kind: 't3',
      id,
      name: `t3_${id}`,
      subreddit: subreddit.name,
      author: given.author,
      title: given.title,
      selftext: given.selftext ?? '',
      url: given.url ?? null,
      created_utc: timeOf(given.createdUtc),
      seq: sequence++,
    };
    subreddit.posts.push(made);
    things.set(made.name, made);
    version += 1;
    accountOf(made.author);
    return made;
  }

  function comment(parent: string, given: { author: string; body: string; createdUtc?: number }): StandInComment {
    const answered = things.get(parent);
    if (!answered) throw new Error(`no thing ${parent} in the stand-in`);
    const id = base36(commentIds++);
    const made: StandInComment = {
      kind: 't1',
      id,
      name: `t1_${id}`,
      subreddit: answered.subreddit,
      author: given.author,
      body: given.body,
      parent_id: parent,
      link_id: answered.kind === 't3' ? answered.name : answered.link_id,
      created_utc: timeOf(given.createdUtc),
      seq: sequence++,
    };
    subredditOf(made.subreddit).comments.push(made);
    things.set(made.name, made);
    commentCounts.set(made.link_id, (commentCounts.get(made.link_id) ?? 0) + 1);
    version += 1;
    accountOf(made.author);
    return made;
  }

  function generate(history: HistoryOptions): HistorySummary {
    const random = seeded(history.seed ?? 1);
    const subreddit = subredditOf(history.subreddit);
    const summary: HistorySummary = { posts: 0, comments: 0, skipped: 0, people: 0 };
    const people = new Set<string>();
    const posts: string[] = [];
    const comments: string[] = [];
    let postsLeft = history.posts;
    let commentsLeft = history.comments;
    for (let index = 1; postsLeft + commentsLeft > 0; index++) {
      const makePost = posts.length === 0 || commentsLeft === 0 || (postsLeft > 0 && random() < postsLeft / (postsLeft + commentsLeft));
      const word = () => WORDS[Math.floor(random() * WORDS.length)]!;
      let author = `person_${Math.floor(random() * history.people)}`;
      if (history.deletedEvery && index % history.deletedEvery === 0) author = '[deleted]';
      else if (!makePost && history.automoderatorEvery && (history.comments - commentsLeft + 1) % history.automoderatorEvery === 0) author = 'AutoModerator';
      if (author === '[deleted]' || author === 'AutoModerator') summary.skipped += 1;
      else people.add(author);
      if (makePost) {
        const made = post(subreddit.name, {
          author,
          title: `${word()} ${word()} ${index}`,
          selftext: author === '[deleted]' ? '[deleted]' : `About ${word()} & ${word()} <${index}>`,
        });
        posts.push(made.name);
        postsLeft -= 1;
        if (author !== '[deleted]' && author !== 'AutoModerator') summary.posts += 1;
      } else {
        const onPost = comments.length === 0 || random() < 0.6;
        const pool = onPost ? posts : comments;
        const parent = pool[Math.floor(random() * pool.length)]!;
        const made = comment(parent, { author, body: author === '[deleted]' ? '[deleted]' : `Reply ${index} on ${word()}` });
        comments.push(made.name);
        commentsLeft -= 1;
        if (author !== '[deleted]' && author !== 'AutoModerator') summary.comments += 1;
      }
    }
    summary.people = people.size;
    return summary;
  }

  // Answers -------------------------------------------------------------------------------------------

  function permalinkOf(thing: StandInPost | StandInComment): string {
    if (thing.kind === 't3') return `/r/${thing.subreddit}/comments/${thing.id}/${slugOf(thing.title)}/`;
    const link = things.get(thing.link_id) as StandInPost;
    return `/r/${thing.subreddit}/comments/${link.id}/${slugOf(link.title)}/${thing.id}/`;
  }

  /** A Link's `data`: its documented fields, the record's values. */
  function linkOut(link: StandInPost): Json {
    const subreddit = subredditOf(link.subreddit);
    const permalink = permalinkOf(link);
    const fullname = accountOf(link.author);
    return {
      subreddit: link.subreddit,
      selftext: link.selftext,
      ...(fullname ? { author_fullname: fullname } : {}),
      title: link.title,
      subreddit_name_prefixed: `r/${link.subreddit}`,
      name: link.name,
      subreddit_type: subreddit.type ?? 'public',
      ups: 1,
      score: 1,
      downs: 0,
      num_comments: commentCounts.get(link.name) ?? 0,
      is_self: link.url === null,
      domain: link.url === null ? `self.${link.subreddit}` : new URL(link.url).hostname,
      over_18: false,
      stickied: false,
      locked: false,
      distinguished: null,
      id: link.id,
      subreddit_id: `t5_${subreddit.id}`,
      author: link.author,
      permalink,
      url: link.url ?? `https://www.reddit.com${permalink}`,
      created_utc: link.created_utc,
    };
  }

  function commentOut(comment: StandInComment): Json {
    const subreddit = subredditOf(comment.subreddit);
    const link = things.get(comment.link_id) as StandInPost;
    const fullname = accountOf(comment.author);
    return {
      subreddit_id: `t5_${subreddit.id}`,
      link_title: link.title,
      link_id: link.name,
      link_author: link.author,
      link_permalink: `https://www.reddit.com${permalinkOf(link)}`,
      author: comment.author,
      ...(fullname ? { author_fullname: fullname } : {}),
      body: comment.body,
      parent_id: comment.parent_id,
      subreddit: comment.subreddit,
      subreddit_name_prefixed: `r/${comment.subreddit}`,
      subreddit_type: subreddit.type ?? 'public',
      name: comment.name,
      id: comment.id,
      score: 1,
      ups: 1,
      downs: 0,
      is_submitter: comment.author === link.author && comment.author !== '[deleted]',
      stickied: false,
      distinguished: null,
      permalink: permalinkOf(comment),
      created_utc: comment.created_utc,
    };
  }

  const thingOut = (thing: StandInPost | StandInComment): Json =>
    thing.kind === 't3' ? { kind: 't3', data: linkOut(thing) } : { kind: 't1', data: commentOut(thing) };

  /** Things newest first, with each fullname's place. */
  function newestFirst(items: (StandInPost | StandInComment)[]) {
    const ordered = [...items].sort((a, b) => b.created_utc - a.created_utc || b.seq - a.seq);
    return { version, items: ordered, places: new Map(ordered.map((thing, index) => [thing.name, index])) };
  }

  /** A subreddit's posts or comments newest first, sorted once per change (a large history is paged quickly). */
  function listOf(subreddit: ReturnType<typeof subredditOf>, which: 'posts' | 'comments') {
    const key = `${subreddit.name.toLowerCase()}/${which}`;
    let list = sorted.get(key);
    if (!list || list.version !== version) sorted.set(key, (list = newestFirst(subreddit[which])));
    return list;
  }

  /** A page of a list (newest first), by `after` / `before` and `limit`, as a Listing. */
  function listing(list: { items: (StandInPost | StandInComment)[]; places: Map<string, number> }, query: URLSearchParams): Json {
    const reachable = list.items.length > depth ? list.items.slice(0, depth) : list.items;
    const placeOf = (name: string) => {
      const at = list.places.get(name);
      return at === undefined || at >= reachable.length ? -1 : at;
    };
    const limit = Math.min(Math.max(Number(query.get('limit')) || DEFAULT_LISTING_LIMIT, 1), MAX_LISTING_LIMIT);
    const after = query.get('after');
    const before = query.get('before');
    let start = 0;
    let end: number;
    if (after) {
      const at = placeOf(after);
      // An anchor the listing no longer holds (removed, or past its depth): Reddit answers an empty page.
      start = at < 0 ? reachable.length : at + 1;
      end = Math.min(start + limit, reachable.length);
    } else if (before) {
      const at = placeOf(before);
      end = at < 0 ? 0 : at;
      start = Math.max(end - limit, 0);
    } else {
      end = Math.min(limit, reachable.length);
    }
    const page = reachable.slice(start, end);
    return {
      kind: 'Listing',
      data: {
        after: end < reachable.length && page.length > 0 ? page[page.length - 1]!.name : null,
        dist: page.length,
        modhash: '',
        geo_filter: '',
        children: page.map(thingOut),
        before: (after || before) && start > 0 && page.length > 0 ? page[0]!.name : null,
      },
    };
  }

  type Answer = { status: number; body: Json; headers?: Record<string, string> };
  const forbidden = (reason?: string): Answer => ({ status: 403, body: { ...(reason ? { reason } : {}), message: 'Forbidden', error: 403 } });
  const notFound = (reason?: string): Answer => ({ status: 404, body: { ...(reason ? { reason } : {}), message: 'Not Found', error: 404 } });

  /** A subreddit a listing or `about` may read, or the answer Reddit gives instead. */
  function readable(name: string): { subreddit: ReturnType<typeof subredditOf> } | { refused: Answer } {
    const subreddit = subreddits.get(name.toLowerCase());
    if (!subreddit) return { refused: notFound() };
    if (subreddit.banned) return { refused: notFound('banned') };
    if (subreddit.type === 'private') return { refused: forbidden('private') };
    return { subreddit };
  }

  function apiAnswer(pathname: string, query: URLSearchParams): Answer {
    const route = /^\/r\/([A-Za-z0-9_]+)\/(new|comments|about)\/?$/.exec(pathname);
    if (route) {
      const found = readable(route[1]!);
      if ('refused' in found) return found.refused;
      const { subreddit } = found;
      if (route[2] === 'new') return { status: 200, body: listing(listOf(subreddit, 'posts'), query) };
      if (route[2] === 'comments') return { status: 200, body: listing(listOf(subreddit, 'comments'), query) };
      return {
        status: 200,
        body: {
          kind: 't5',
          data: {
            display_name: subreddit.name,
            display_name_prefixed: `r/${subreddit.name}`,
            title: subreddit.title ?? subreddit.name,
            public_description: '',
            subscribers: subreddit.subscribers ?? 0,
            subreddit_type: subreddit.type ?? 'public',
            over18: false,
            quarantine: false,
            url: `/r/${subreddit.name}/`,
            name: `t5_${subreddit.id}`,
            id: subreddit.id,
            created_utc: 1_200_000_000,
          },
        },
      };
    }
    if (pathname === '/search' || pathname === '/search/') {
      const q = (query.get('q') ?? '').trim().toLowerCase();
      if (!q) return { status: 400, body: { message: 'Bad Request', error: 400, reason: 'the stand-in needs q' } };
      // Only what the connector asks: the newest posts first.
      if ((query.get('sort') ?? 'relevance') !== 'new' || (query.get('type') ?? 'link') !== 'link') {
        return { status: 400, body: { message: 'Bad Request', error: 400, reason: 'the stand-in serves sort=new&type=link only' } };
      }
      const terms = q.split(/\s+/);
      const found: StandInPost[] = [];
      for (const subreddit of subreddits.values()) {
        if (subreddit.banned || subreddit.type === 'private') continue;
        for (const one of subreddit.posts) {
          const text = `${one.title}\n${one.selftext}`.toLowerCase();
          if (terms.every((term) => text.includes(term))) found.push(one);
        }
      }
      return { status: 200, body: listing(newestFirst(found), query) };
    }
    return notFound();
  }

  /** The period's headers, after counting this request (`count`), and whether the request is refused for it. */
  function ratePeriod(count: boolean): { refused: boolean; headers: Record<string, string> } {
    const at = now();
    if (at >= period.end) period = { end: at + rate.periodSeconds * 1000, used: 0 };
    const refused = period.used >= rate.requests;
    if (!refused && count) period.used += 1;
    if (spendNext !== null && !refused) {
      period = { end: at + spendNext * 1000, used: rate.requests };
      spendNext = null;
    }
    const headers = {
      'x-ratelimit-used': String(period.used),
      'x-ratelimit-remaining': Math.max(rate.requests - period.used, 0).toFixed(1),
      'x-ratelimit-reset': String(Math.max(Math.ceil((period.end - at) / 1000), 0)),
    };
    return { refused, headers };
  }

  function tokenAnswer(request: http.IncomingMessage, body: string): Answer {
    const auth = request.headers.authorization ?? '';
    const basic = /^Basic\s+(.+)$/i.exec(auth);
    const pair = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
    if (pair !== `${options.clientId}:${options.clientSecret}`) return { status: 401, body: { message: 'Unauthorized', error: 401 } };
    const form = /^application\/x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '') ? new URLSearchParams(body) : null;
    if (form?.get('grant_type') !== 'client_credentials') return { status: 200, body: { error: 'unsupported_grant_type' } };
    issued += 1;
    const token = `standin-${issued}-${randomBytes(12).toString('hex')}`;
    tokens.set(token, { expiresAt: now() + lifetime * 1000, revoked: false });
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: lifetime, scope: '*' } };
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const userAgent = request.headers['user-agent'] ?? null;
    requests.push({ method: request.method ?? 'GET', path: `${url.pathname}${url.search}`, userAgent });
    const send = ({ status, body, headers }: Answer) => {
      let text = JSON.stringify(body);
      if (url.searchParams.get('raw_json') !== '1') text = text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
      response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
      response.end(text);
    };
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (!userAgent || GENERIC_AGENTS.test(userAgent)) return send({ status: 429, body: { message: 'Too Many Requests', error: 429 } });
      if (url.pathname === '/api/v1/access_token') {
        if (request.method !== 'POST') return send({ status: 405, body: { message: 'Method Not Allowed', error: 405 } });
        return send(tokenAnswer(request, Buffer.concat(chunks).toString('utf8')));
      }
      const bearer = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      const token = bearer ? tokens.get(bearer) : undefined;
      if (!token || token.revoked || token.expiresAt <= now()) {
        return send({
          status: 401,
          body: { message: 'Unauthorized', error: 401 },
          headers: { 'www-authenticate': 'Bearer realm="reddit", error="invalid_token"' },
        });
      }
      const limit = ratePeriod(true);
      if (limit.refused) return send({ status: 429, body: { message: 'Too Many Requests', error: 429 }, headers: limit.headers });
      const answer = apiAnswer(url.pathname, url.searchParams);
      const withHeaders = { ...answer, headers: { ...answer.headers, ...limit.headers } };
      if (slow && slow.times > 0 && url.searchParams.get('after') && slow.match.test(url.pathname)) {
        slow.times -= 1;
        // Answered as it stood when the request came, as a slow Reddit would.
        setTimeout(() => send(withHeaders), slow.ms);
        return;
      }
      send(withHeaders);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const root = `http://127.0.0.1:${port}`;

  for (const history of options.histories ?? []) generate(history);

  return {
    url: root,
    authUrl: `${root}/api/v1/access_token`,
    requests,
    tokensIssued: () => [...tokens.keys()],
    post,
    comment,
    generate,
    spendRateLimit(resetSeconds) {
      spendNext = resetSeconds;
    },
    rateLimitNow(resetSeconds) {
      period = { end: now() + resetSeconds * 1000, used: rate.requests };
    },
    slowPages(match, ms, times) {
      slow = { match, ms, times };
    },
    revokeTokens() {
      for (const token of tokens.values()) token.revoked = true;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
