import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom as random } from '../helpers/seeded-random.ts';

/*
 * A local Hacker News Search API (https://hn.algolia.com/api/v1) for the connector's tests and benchmarks.
 * Hacker News Search publishes no machine-readable description: this follows its documentation page,
 * https://hn.algolia.com/api ("HN Search API": Items, Users, Search, Rate limits), and, for the search
 * parameters that page sends to "Algolia Search API documentation", Algolia's parameter pages:
 * - https://www.algolia.com/doc/api-reference/api-parameters/numericFilters/ (`attribute operator value`,
 *   comma-separated conditions all apply);
 * - https://www.algolia.com/doc/api-reference/api-parameters/restrictSearchableAttributes/ (the query is
 *   matched in the listed attributes only);
 * - https://www.algolia.com/doc/api-reference/api-parameters/hitsPerPage/ (default 20, 1 to 1,000) and
 *   https://www.algolia.com/doc/api-reference/api-parameters/page/ (from 0);
 * - https://www.algolia.com/doc/api-reference/api-parameters/paginationLimitedTo/ (at most the first 1,000
 *   hits of a search can be reached by paging);
 * - https://www.algolia.com/doc/api-reference/api-parameters/queryType/ (every word of the query must match
 *   a word: prefixLast, the default, takes the last one as a prefix, prefixAll every one, prefixNone none) and
 *   https://www.algolia.com/doc/api-reference/api-parameters/typoTolerance/ with
 *   https://www.algolia.com/doc/api-reference/api-parameters/minWordSizefor1Typo/ (on by default: a word of 4
 *   letters or more matches with one typo, of 8 or more with two; `typoTolerance=false`, none);
 * - the search answer's `nbHits` (hits matched), `nbPages` (pages that can be reached), `hitsPerPage`, `page`,
 *   as https://www.algolia.com/doc/guides/building-search-ui/ui-and-ux-patterns/pagination/js/ shows them.
 * Answers:
 * - GET /search_by_date ("Sorted by date, more recent first"): `{hits, nbHits, page, nbPages, hitsPerPage,
 *   exhaustiveNbHits, query, params, processingTimeMS}`, as the page's search answer example. A hit has the
 *   fields of that example (title, url, author, points, story_text, comment_text, _tags, num_comments,
 *   objectID) and of the Items example (created_at, parent_id), with `created_at_i` (the page's numerical
 *   field) and a comment's `story_id` (the `story_:ID` tag), `story_title` and `story_url`. `_tags` holds the
 *   type, `author_<username>` and `story_<id>`, the tags the page lists. `tags` is read as the page says:
 *   ANDed by commas, ORed between parentheses. `_highlightResult` is left out (nothing here reads it).
 * - GET /users/:username: `{username, about, karma}`, as the Users example.
 * - Errors, which the page does not show: Algolia's REST error answer, `{message, status}`, with the status.
 * - Rate limits: the page says 10,000 requests per hour per address; past it, Algolia answers 429 (the API
 *   key's maxQueriesPerIPPerHour, https://www.algolia.com/doc/api-reference/api-methods/add-api-key/). A 403
 *   stands for an address the page says can be "blacklisted". Both are faults a test turns on.
 */

type Json = Record<string, unknown>;

export interface StandInItem {
  /** The item ID (`objectID`), from one sequence for stories and comments, as Hacker News numbers them. */
  id: number;
  kind: 'story' | 'comment';
  author: string;
  /** Seconds since the epoch (`created_at_i`). */
  createdAt: number;
  title?: string | null;
  url?: string | null;
  /** HTML: `story_text` of a story, `comment_text` of a comment. */
  text?: string | null;
  /** A comment's story and parent (the story or another comment). */
  storyId?: number;
  parentId?: number;
  points?: number;
  numComments?: number;
}

export interface StandInUser {
  username: string;
  about?: string;
  karma?: number;
}

/** A seeded history: the same options make the same items, whatever the machine. */
export interface GeneratedHistory {
  count: number;
  seed?: number;
  /** The newest item's time; the others go back from it, `spacingSeconds` apart (default 60). */
  newest: Date;
  spacingSeconds?: number;
  /** Words every item mentions (in a story's title, a comment's text): the keywords a connector follows. */
  mentions?: string[];
  /** Stories link to these hosts in turn (or `www.` and `blog.` under them); absent: to example.org. */
  domains?: string[];
  /** The share of items that are stories (default 0.3); the others comment on an earlier story or comment. */
  storyShare?: number;
  /** How many people post, `member0` ... (default 50); each has a profile. */
  authors?: number;
}

export interface HackerNewsStandInOptions {
  users?: StandInUser[];
  history?: GeneratedHistory;
  /** Below Algolia's 1,000: the largest page answered, so that paging shows with a few items. */
  maxHitsPerPage?: number;
  /** The first item ID made (default 40,000,000). */
  firstId?: number;
  /** The time of the first item made without one (default 2026-01-01T00:00:00Z); each next one is a minute later. */
  start?: Date;
}

export interface HackerNewsStandIn {
  url: string;
  /** Every request, as `<path>?<query>`, decoded (`search_by_date?query=x&tags=(story,comment)&...`). */
  requests: string[];
  items(): readonly StandInItem[];
  story(fields: { author: string; title: string; url?: string | null; text?: string | null; createdAt?: Date | number; points?: number }): StandInItem;
  comment(fields: { author: string; text: string; parent: StandInItem; createdAt?: Date | number }): StandInItem;
  user(user: StandInUser): void;
  /** The next request (whose path matches, if given) is answered 429, with Retry-After when `retryAfterSeconds` is a number. */
  rateLimitOnce(retryAfterSeconds: number | null, path?: RegExp): void;
  /** The next `times` searches that carry an upper time bound (a walk's later pages) are answered after `ms`. */
  slowPages(ms: number, times: number): void;
  /** Every request answered 403, as for an address that is blocked, until turned off. */
  block(blocked: boolean): void;
  /** The next `times` requests answered with `status` (a 5xx). */
  failNext(times: number, status?: number): void;
  stop(): Promise<void>;
}

/** Algolia's own bounds. */
const MAX_HITS_PER_PAGE = 1000;
const PAGINATION_LIMITED_TO = 1000;
const DEFAULT_HITS_PER_PAGE = 20;
const NUMERIC_FIELDS = new Set(['created_at_i', 'points', 'num_comments']);
const SEARCHABLE = ['title', 'url', 'author', 'story_text', 'comment_text'] as const;
type Searchable = (typeof SEARCHABLE)[number];

/** The words of a text, as a search matches them: lower case, HTML tags and entities out. */
function wordsOf(text: string | null | undefined): string[] {
  if (!text) return [];
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#?[a-z0-9]+;/gi, ' ')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Levenshtein's distance: the typos between two words. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

interface Indexed {
  item: StandInItem;
  words: Record<Searchable, string[]>;
  /** The same, as sets: an exact word is found at once (the connector's searches ask for exact words). */
  sets: Record<Searchable, Set<string>>;
  tags: string[];
}

class BadRequest extends Error {}

export async function startHackerNewsStandIn(options: HackerNewsStandInOptions = {}): Promise<HackerNewsStandIn> {
  const requests: string[] = [];
  const users = new Map((options.users ?? []).map((user) => [user.username, user]));
  const indexed: Indexed[] = [];
  const byId = new Map<number, Indexed>();
  let sorted = true;
  let nextId = options.firstId ?? 40_000_000;
  let clock = Math.floor((options.start ?? new Date('2026-01-01T00:00:00Z')).getTime() / 1000);
  let rateLimit: { seconds: number | null; path?: RegExp } | null = null;
  let slow: { ms: number; times: number } | null = null;
  let blocked = false;
  let failures: { times: number; status: number } | null = null;

  const secondsOf = (at: Date | number | undefined): number => {
    if (at === undefined) return (clock += 60);
    return typeof at === 'number' ? at : Math.floor(at.getTime() / 1000);
  };

  function add(item: StandInItem): StandInItem {
    const story = item.kind === 'story' ? item : byId.get(item.storyId!)?.item;
    const words: Record<Searchable, string[]> = {
      title: wordsOf(item.kind === 'story' ? item.title : null),
      url: wordsOf(item.kind === 'story' ? item.url : null),
      author: wordsOf(item.author),
      story_text: wordsOf(item.kind === 'story' ? item.text : null),
      comment_text: wordsOf(item.kind === 'comment' ? item.text : null),
    };
    const sets = Object.fromEntries(SEARCHABLE.map((attribute) => [attribute, new Set(words[attribute])])) as Record<Searchable, Set<string>>;
    const one: Indexed = {
      item,
      words,
      sets,
      tags: [item.kind, `author_${item.author}`, `story_${story?.id ?? item.id}`],
    };
    indexed.push(one);
    byId.set(item.id, one);
    if (item.kind === 'comment' && story) story.numComments = (story.numComments ?? 0) + 1;
    sorted = false;
    return item;
  }

  function story(fields: Parameters<HackerNewsStandIn['story']>[0]): StandInItem {
    return add({
      id: nextId++,
      kind: 'story',
      author: fields.author,
      createdAt: secondsOf(fields.createdAt),
      title: fields.title,
      url: fields.url ?? null,
      text: fields.text ?? null,
      points: fields.points ?? 1,
      numComments: 0,
    });
  }

  function comment(fields: Parameters<HackerNewsStandIn['comment']>[0]): StandInItem {
    const parent = fields.parent;
    const storyId = parent.kind === 'story' ? parent.id : parent.storyId!;
    return add({
      id: nextId++,
      kind: 'comment',
      author: fields.author,
      createdAt: secondsOf(fields.createdAt),
      text: fields.text,
      storyId,
      parentId: parent.id,
    });
  }

  if (options.history) generate(options.history);

  function generate(history: GeneratedHistory): void {
    const next = random(history.seed ?? 1);
    const spacing = history.spacingSeconds ?? 60;
    const newest = Math.floor(history.newest.getTime() / 1000);
    const authors = Math.max(1, history.authors ?? 50);
    const mentions = (history.mentions ?? []).join(' ');
    const domains = history.domains?.length ? history.domains : ['example.org'];
    const subjects = ['databases', 'compilers', 'a new release', 'self-hosting', 'search engines', 'the job market', 'open source', 'privacy'];
    for (let n = 0; n < authors; n++) {
      const username = `member${n}`;
      if (!users.has(username))
        users.set(username, { username, about: `<p>Member ${n}, writing about ${subjects[n % subjects.length]}</p>`, karma: 1 + n * 7 });
    }
    const stories: StandInItem[] = [];
    const comments = new Map<number, StandInItem[]>();
    for (let i = 0; i < history.count; i++) {
      const author = `member${Math.floor(next() * authors)}`;
      const createdAt = newest - (history.count - 1 - i) * spacing;
      const subject = subjects[Math.floor(next() * subjects.length)]!;
      if (stories.length === 0 || next() < (history.storyShare ?? 0.3)) {
        const domain = domains[stories.length % domains.length]!;
        const host = ['', 'www.', 'blog.'][stories.length % 3] + domain;
        stories.push(
          story({
            author,
            createdAt,
            title: `${mentions ? `${mentions}: ` : ''}thoughts on ${subject} (${i})`,
            url: `https://${host}/posts/${i}`,
            points: 1 + Math.floor(next() * 300),
          }),
        );
        continue;
      }
      const onStory = stories[Math.floor(next() * stories.length)]!;
      const thread = comments.get(onStory.id) ?? [];
      const parent = thread.length > 0 && next() < 0.5 ? thread[Math.floor(next() * thread.length)]! : onStory;
      const made = comment({ author, createdAt, parent, text: `<p>${mentions ? `${mentions} ` : ''}helps with ${subject}; comment ${i}.</p>` });
      thread.push(made);
      comments.set(onStory.id, thread);
    }
  }

  function ordered(): Indexed[] {
    if (!sorted) {
      indexed.sort((a, b) => b.item.createdAt - a.item.createdAt || b.item.id - a.item.id);
      sorted = true;
    }
    return indexed;
  }

  /** `tags` as the page describes it: commas AND, a parenthesized group ORs its tags. */
  function tagFilter(text: string | null): ((tags: string[]) => boolean) | null {
    if (!text) return null;
    const groups: string[][] = [];
    for (const part of text.match(/\([^)]*\)|[^,]+/g) ?? []) {
      const trimmed = part.trim();
      if (!trimmed) continue;
      groups.push(
        trimmed.startsWith('(')
          ? trimmed
              .slice(1, -1)
              .split(',')
              .map((tag) => tag.trim())
              .filter(Boolean)
          : [trimmed],
      );
    }
    return (tags) => groups.every((group) => group.some((tag) => tags.includes(tag)));
  }

  function numericFilter(text: string | null): ((item: StandInItem) => boolean) | null {
    if (!text) return null;
    const conditions = text.split(',').map((condition) => {
      const match = /^\s*([a-z_]+)\s*(<=|>=|=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(condition);
      if (!match || !NUMERIC_FIELDS.has(match[1]!)) throw new BadRequest(`invalid numericFilters: ${condition}`);
      return { field: match[1]!, op: match[2]!, value: Number(match[3]) };
    });
    const valueOf = (item: StandInItem, field: string) =>
      field === 'created_at_i' ? item.createdAt : field === 'points' ? (item.points ?? 0) : (item.numComments ?? 0);
    return (item) =>
      conditions.every(({ field, op, value }) => {
        const given = valueOf(item, field);
        return op === '<' ? given < value : op === '<=' ? given <= value : op === '>' ? given > value : op === '>=' ? given >= value : given === value;
      });
  }

  function queryFilter(query: URLSearchParams): ((one: Indexed) => boolean) | null {
    const words = wordsOf(query.get('query'));
    if (words.length === 0) return null;
    const restrict = query.get('restrictSearchableAttributes');
    const attributes = restrict
      ? (restrict.split(',').map((name) => name.trim()) as Searchable[]).filter((name) => SEARCHABLE.includes(name))
      : [...SEARCHABLE];
    const queryType = query.get('queryType') ?? 'prefixLast';
    if (!['prefixLast', 'prefixAll', 'prefixNone'].includes(queryType)) throw new BadRequest(`invalid queryType: ${queryType}`);
    const typos = query.get('typoTolerance') !== 'false';
    const matches = (word: string, index: number, candidate: string) => {
      if (candidate === word) return true;
      const prefix = queryType === 'prefixAll' || (queryType === 'prefixLast' && index === words.length - 1);
      if (prefix && candidate.startsWith(word)) return true;
      const allowed = !typos ? 0 : word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0;
      return allowed > 0 && Math.abs(candidate.length - word.length) <= allowed && distance(word, candidate) <= allowed;
    };
    if (queryType === 'prefixNone' && !typos) return (one) => words.every((word) => attributes.some((attribute) => one.sets[attribute].has(word)));
    return (one) => {
      const all = attributes.flatMap((attribute) => one.words[attribute]);
      return words.every((word, index) => all.some((candidate) => matches(word, index, candidate)));
    };
  }

  function hitOf(item: StandInItem, tags: string[]): Json {
    const created = { created_at: new Date(item.createdAt * 1000).toISOString(), created_at_i: item.createdAt };
    if (item.kind === 'story') {
      return {
        ...created,
        title: item.title ?? null,
        url: item.url ?? null,
        author: item.author,
        points: item.points ?? 0,
        story_text: item.text ?? null,
        comment_text: null,
        num_comments: item.numComments ?? 0,
        _tags: tags,
        objectID: String(item.id),
      };
    }
    const story = byId.get(item.storyId!)?.item;
    return {
      ...created,
      title: null,
      url: null,
      author: item.author,
      points: null,
      story_text: null,
      comment_text: item.text ?? null,
      num_comments: null,
      story_id: item.storyId,
      story_title: story?.title ?? null,
      story_url: story?.url ?? null,
      parent_id: item.parentId,
      _tags: tags,
      objectID: String(item.id),
    };
  }

  function search(query: URLSearchParams): Json {
    const byTags = tagFilter(query.get('tags'));
    const byNumbers = numericFilter(query.get('numericFilters'));
    const byQuery = queryFilter(query);
    const matched = ordered().filter((one) => (!byNumbers || byNumbers(one.item)) && (!byTags || byTags(one.tags)) && (!byQuery || byQuery(one)));
    const asked = query.get('hitsPerPage');
    const hitsPerPage = Math.min(
      asked === null ? DEFAULT_HITS_PER_PAGE : Math.max(0, Math.floor(Number(asked)) || 0),
      MAX_HITS_PER_PAGE,
      options.maxHitsPerPage ?? MAX_HITS_PER_PAGE,
    );
    const page = Math.max(0, Math.floor(Number(query.get('page') ?? 0)) || 0);
    const reachable = Math.min(matched.length, PAGINATION_LIMITED_TO);
    const start = page * hitsPerPage;
    const hits = hitsPerPage === 0 ? [] : matched.slice(start, Math.min(start + hitsPerPage, reachable));
    return {
      hits: hits.map((one) => hitOf(one.item, one.tags)),
      nbHits: matched.length,
      page,
      nbPages: hitsPerPage === 0 ? 0 : Math.ceil(reachable / hitsPerPage),
      hitsPerPage,
      exhaustiveNbHits: true,
      query: query.get('query') ?? '',
      params: query.toString(),
      processingTimeMS: 1,
    };
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const path = url.pathname.replace(/^\/api\/v1\//, '');
    requests.push(`${path}${url.search ? `?${decodeURIComponent(url.search.slice(1).replace(/\+/g, ' '))}` : ''}`);
    const send = (status: number, body: Json, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(JSON.stringify(body));
    };
    if (blocked) return send(403, { message: 'Your IP has been blocked', status: 403 });
    if (rateLimit && (!rateLimit.path || rateLimit.path.test(path))) {
      const { seconds } = rateLimit;
      rateLimit = null;
      return send(429, { message: 'Too many requests', status: 429 }, seconds === null ? {} : { 'retry-after': String(seconds) });
    }
    if (failures && failures.times > 0) {
      failures.times -= 1;
      return send(failures.status, { message: 'Service unavailable', status: failures.status });
    }
    if (request.method !== 'GET') return send(405, { message: 'Method not allowed', status: 405 });
    try {
      if (path === 'search_by_date') {
        const answer = search(url.searchParams);
        if (slow && slow.times > 0 && /created_at_i\s*<=?/.test(url.searchParams.get('numericFilters') ?? '')) {
          slow.times -= 1;
          // Answered as it stands when the request came, as a slow search would.
          setTimeout(() => send(200, answer), slow.ms);
          return;
        }
        return send(200, answer);
      }
      const user = /^users\/([^/]+)$/.exec(path);
      if (user) {
        const found = users.get(decodeURIComponent(user[1]!));
        if (!found) return send(404, { message: 'User not found', status: 404 });
        return send(200, { username: found.username, about: found.about ?? '', karma: found.karma ?? 1 });
      }
      return send(404, { message: 'Not found', status: 404 });
    } catch (error) {
      if (error instanceof BadRequest) return send(400, { message: error.message, status: 400 });
      throw error;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    requests,
    items: () => indexed.map((one) => one.item),
    story,
    comment,
    user(user) {
      users.set(user.username, user);
    },
    rateLimitOnce(seconds, path) {
      rateLimit = { seconds, path };
    },
    slowPages(ms, times) {
      slow = { ms, times };
    },
    block(value) {
      blocked = value;
    },
    failNext(times, status = 503) {
      failures = { times, status };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
