import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { seededRandom as random } from '../helpers/seeded-random.ts';

/*
 * A local Stack Exchange API (version 2.3) for the Stack Overflow connector's tests and benchmark. The API
 * publishes no machine-readable description; this follows its documentation pages, named where used:
 * - https://api.stackexchange.com/docs: methods under /2.3, the `site` every method takes (its API name), an
 *   optional app `key`, `filter` (the built-in `default` and `withbody`, which adds the posts' `body`);
 * - https://api.stackexchange.com/docs/wrapper: every answer is the common wrapper `{ items, has_more,
 *   quota_max, quota_remaining }`, with `backoff` (seconds) when the method is to be left alone, and
 *   `error_id`, `error_name`, `error_message` for an error;
 * - https://api.stackexchange.com/docs/error-handling: errors come with HTTP 400 (bad_parameter 400, naming
 *   the parameter, "even high level parameters like key or site"; no_method 404; throttle_violation 502;
 *   temporarily_unavailable 503; ...);
 * - https://api.stackexchange.com/docs/throttle: a daily quota of 300 requests without a key, 10,000 with
 *   one; `backoff` must be obeyed per method ("Violation of backoff parameter" otherwise);
 * - https://api.stackexchange.com/docs/paging: `page` from 1, `pagesize` 0 to 100 (default 30), `has_more`;
 * - https://api.stackexchange.com/docs/dates: every date is Unix seconds; `fromdate`/`todate` bound the
 *   creation date, `min`/`max` the sort's field (inclusive here);
 * - https://api.stackexchange.com/docs/compression: answers are GZIP-compressed (DEFLATE when only that is
 *   accepted), whatever the request's Accept-Encoding; an error raised early comes uncompressed;
 * - the methods: /docs/questions (`tagged`: up to 5 tags, all required; sorts activity, creation, votes),
 *   /docs/answers-on-questions, /docs/comments-on-questions, /docs/comments-on-answers, /docs/users-by-ids
 *   (`{ids}`: up to 100, separated by `;`);
 * - the types, with the documented field names: /docs/types/question, /docs/types/answer,
 *   /docs/types/comment, /docs/types/user and the shallow_user of posts (/docs/types/shallow-user). Strings
 *   are HTML-escaped, as the default filters are "safe".
 * Records are kept in memory and made by the test (`ask`, `answer`, `comment`) or by a seeded generator, so
 * a history of thousands of posts is ready at once.
 */

type Json = Record<string, unknown>;

export interface StandInPerson {
  user_id: number;
  display_name: string;
  user_type?: 'registered' | 'unregistered' | 'moderator';
  location?: string;
  website_url?: string;
  reputation?: number;
}

/** A post's author: a user ID (-1 is the Community user), or null for a deleted or anonymous user. */
export type Owner = number | null;

export interface GeneratedHistory {
  questions: number;
  /** Question i is tagged tags[i % tags.length]; every third also has `unfollowed-tag`. */
  tags: string[];
  /** People posting (default 40), user IDs 1001, 1008, 1015, ... */
  people?: number;
  seed?: number;
  /** The first question's time (default 2025-06-01T00:00:00Z); the next ones `spacingSeconds` apart (default 3,600). */
  start?: Date;
  spacingSeconds?: number;
  /** Up to this many answers a question (default 3), and comments a post (default 2), by the seed. */
  maxAnswers?: number;
  maxComments?: number;
}

export interface StackExchangeStandInOptions {
  /** The site's API name it answers for (default `stackoverflow`); another site is a bad_parameter. */
  site?: string;
  /** The app key it takes (10,000 requests a day); any other key is refused (bad_parameter: key). */
  key?: string;
  /** People besides the generated ones. */
  people?: StandInPerson[];
  history?: GeneratedHistory;
  /** The platform's clock: the time of records made without one, and the quota's day (default: the real time). */
  now?: () => Date;
}

export type Fault =
  /** Answered `ms` late (as it stood when asked). */
  | { kind: 'slow'; ms: number }
  /** Answered, with `backoff: seconds`: a request to the same method within them is a throttle_violation. */
  | { kind: 'backoff'; seconds: number }
  /** throttle_violation (502): "too many requests from this IP", with "more requests available in N seconds" when given. */
  | { kind: 'throttle-violation'; seconds?: number }
  | { kind: 'temporarily-unavailable' }
  /** An HTTP 5xx raised before the API answers: uncompressed, not JSON. */
  | { kind: 'server-error'; status?: number };

export interface StandInCounts {
  questions: number;
  answers: number;
  comments: number;
  accepted: number;
  /** People who posted any of them. */
  people: number;
}

export interface StackExchangeStandIn {
  /** The API root for `settings.apiUrl`. */
  url: string;
  /** Every request: its path and query (the key left out) and whether it carried a key. */
  requests: { path: string; keyed: boolean }[];
  /** A new question (its ID): at `at`, or the stand-in's clock. */
  ask(question: { owner: Owner; tags: string[]; title?: string; body?: string; at?: Date }): number;
  /** A new answer (its ID); it moves its question's last activity. */
  answer(questionId: number, answer: { owner: Owner; body?: string; at?: Date; accepted?: boolean }): number;
  /** A new comment on a question or an answer (its ID); as on the sites, it does not move the question's last activity. */
  comment(postId: number, comment: { owner: Owner; body?: string; at?: Date }): number;
  person(person: StandInPerson): void;
  /** The next `times` requests (whose path matches `path`, when given) meet `fault`. */
  fault(fault: Fault, where?: { times?: number; path?: RegExp }): void;
  /** The requests left today: the answer that spends the last says `quota_remaining: 0`, the next are refused. */
  setQuota(remaining: number): void;
  /** The IDs of the questions tagged `tag`, oldest first. */
  questionIds(tag: string): number[];
  /** What the connector should make of the questions tagged with any of `tags`: the posts by people (not deleted users, not Community). */
  counts(tags: string[]): StandInCounts;
  stop(): Promise<void>;
}

interface QuestionRecord {
  question_id: number;
  title: string;
  body: string;
  tags: string[];
  owner: Owner;
  creation_date: number;
  last_activity_date: number;
  accepted_answer_id?: number;
}

interface AnswerRecord {
  answer_id: number;
  question_id: number;
  body: string;
  owner: Owner;
  creation_date: number;
  last_activity_date: number;
}

interface CommentRecord {
  comment_id: number;
  post_id: number;
  body: string;
  owner: Owner;
  creation_date: number;
}

interface PendingFault {
  fault: Fault;
  times: number;
  path?: RegExp;
}

/** The documented quotas (https://api.stackexchange.com/docs/throttle). */
const QUOTA_WITHOUT_KEY = 300;
const QUOTA_WITH_KEY = 10_000;
const COMMUNITY = -1;

const FIRST_NAMES = ['Ada', 'Grace', 'Linus', 'Zoë', 'Ken', 'Barbara', 'Dennis', 'Margaret', 'Guido', 'Frances', 'Edsger', 'Radia', 'Bjarne', 'Anita'];
const LAST_NAMES = ['Lovelace', 'Hopper', "O'Brien", 'Thompson', 'Liskov', 'Ritchie', 'Hamilton', 'van Rossum', 'Allen', 'Dijkstra', 'Perlman', 'Borg'];
const PLACES = ['Berlin, Germany', 'Austin, TX', 'Lyon, France', 'Bangalore, India', 'São Paulo, Brazil', '', 'Remote'];
const WORDS = ['parse', 'async', 'iterator', 'memory', 'config', 'deploy', 'cache', 'thread', 'plugin', 'schema', 'query', 'index', 'build', 'token'];

/** As the API's safe filters escape every string. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80) || 'post';

/** The site's host from its API name, as the network names them. */
function hostOf(site: string): string {
  if (['stackoverflow', 'serverfault', 'superuser', 'askubuntu', 'stackapps', 'mathoverflow.net'].includes(site))
    return site.includes('.') ? site : `${site}.com`;
  return `${site}.stackexchange.com`;
}

export async function startStackExchangeStandIn(options: StackExchangeStandInOptions = {}): Promise<StackExchangeStandIn> {
  const site = options.site ?? 'stackoverflow';
  const host = hostOf(site);
  const now = options.now ?? (() => new Date());
  const requests: { path: string; keyed: boolean }[] = [];
  const faults: PendingFault[] = [];
  const people = new Map<number, StandInPerson>();
  const questions = new Map<number, QuestionRecord>();
  const answersOf = new Map<number, AnswerRecord[]>();
  const answers = new Map<number, AnswerRecord>();
  const commentsOf = new Map<number, CommentRecord[]>();
  /** Questions and answers share a site's post IDs; comments have their own. */
  let nextPost = 70_000_001;
  let nextComment = 130_000_001;
  const quota = { keyed: QUOTA_WITH_KEY, anonymous: QUOTA_WITHOUT_KEY };
  /**
   * When each method may be asked again after a `backoff`: once that many seconds have passed, by the real
   * time or by the stand-in's clock (a test's manual clock moves on without the real time).
   */
  const backoffUntil = new Map<string, { real: number; clock: number }>();

  people.set(COMMUNITY, { user_id: COMMUNITY, display_name: 'Community', user_type: 'moderator', reputation: 1 });
  for (const person of options.people ?? []) people.set(person.user_id, person);

  const seconds = (at: Date | undefined) => Math.floor((at ?? now()).getTime() / 1000);

  function ask(question: { owner: Owner; tags: string[]; title?: string; body?: string; at?: Date }): number {
    const id = nextPost++;
    const created = seconds(question.at);
    const title = question.title ?? `How do I ${WORDS[id % WORDS.length]} with ${question.tags[0] ?? 'this'}?`;
    questions.set(id, {
      question_id: id,
      title,
      body:
        question.body ??
        `<p>I am trying to ${WORDS[(id + 3) % WORDS.length]} &amp; it fails:</p>\n<pre><code>run --all &lt;input&gt;\n</code></pre>\n<p>What am I missing?</p>\n`,
      tags: question.tags,
      owner: question.owner,
      creation_date: created,
      last_activity_date: created,
    });
    return id;
  }

  function answer(questionId: number, given: { owner: Owner; body?: string; at?: Date; accepted?: boolean }): number {
    const question = questions.get(questionId);
    if (!question) throw new Error(`no question ${questionId} in the stand-in`);
    const id = nextPost++;
    const created = seconds(given.at);
    const record: AnswerRecord = {
      answer_id: id,
      question_id: questionId,
      body: given.body ?? `<p>Use <code>--${WORDS[id % WORDS.length]}</code>; see the <a href="https://example.org/docs">docs</a>.</p>\n`,
      owner: given.owner,
      creation_date: created,
      last_activity_date: created,
    };
    answers.set(id, record);
    answersOf.set(questionId, [...(answersOf.get(questionId) ?? []), record]);
    question.last_activity_date = Math.max(question.last_activity_date, created);
    if (given.accepted) question.accepted_answer_id = id;
    return id;
  }

  function comment(postId: number, given: { owner: Owner; body?: string; at?: Date }): number {
    if (!questions.has(postId) && !answers.has(postId)) throw new Error(`no post ${postId} in the stand-in`);
    const id = nextComment++;
    commentsOf.set(postId, [
      ...(commentsOf.get(postId) ?? []),
      {
        comment_id: id,
        post_id: postId,
        body: given.body ?? `Did you try the ${WORDS[id % WORDS.length]} option?`,
        owner: given.owner,
        creation_date: seconds(given.at),
      },
    ]);
    return id;
  }

  if (options.history) generate(options.history);

  function generate(history: GeneratedHistory): void {
    const next = random(history.seed ?? 1);
    const count = history.people ?? 40;
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const id = 1001 + i * 7;
      ids.push(id);
      people.set(id, {
        user_id: id,
        display_name: `${FIRST_NAMES[i % FIRST_NAMES.length]} ${LAST_NAMES[(i * 5) % LAST_NAMES.length]}${i >= FIRST_NAMES.length ? ` ${i}` : ''}`,
        user_type: i % 11 === 10 ? 'unregistered' : 'registered',
        location: PLACES[i % PLACES.length] || undefined,
        // Some profiles' website is a GitHub page: not an identity for Hearth.
        website_url: i % 4 === 0 ? `https://person${i}.example.org` : i % 4 === 1 ? `https://github.com/person${i}` : undefined,
        reputation: 1 + Math.floor(next() * 50_000),
      });
    }
    const pick = () => ids[Math.floor(next() * ids.length)]!;
    const start = Math.floor((history.start ?? new Date('2025-06-01T00:00:00Z')).getTime() / 1000);
    const spacing = history.spacingSeconds ?? 3_600;
    const maxAnswers = history.maxAnswers ?? 3;
    const maxComments = history.maxComments ?? 2;
    // Answers and comments come within the question's slot, so the history ends with its last question's slot.
    const step = Math.max(1, Math.floor(spacing / ((maxAnswers + 1) * (maxComments + 2) + 2)));
    for (let i = 0; i < history.questions; i++) {
      const at = start + i * spacing;
      let clock = at;
      const tick = () => new Date((clock += step) * 1000);
      const tags = [history.tags[i % history.tags.length]!, ...(i % 3 === 0 ? ['unfollowed-tag'] : [])];
      const questionId = ask({ owner: pick(), tags, at: new Date(at * 1000) });
      for (let c = Math.floor(next() * (maxComments + 1)); c > 0; c--) comment(questionId, { owner: pick(), at: tick() });
      const answered = Math.floor(next() * (maxAnswers + 1));
      const accepted = answered > 0 && next() < 0.4 ? Math.floor(next() * answered) : -1;
      for (let a = 0; a < answered; a++) {
        const answerId = answer(questionId, { owner: pick(), at: tick(), accepted: a === accepted });
        for (let c = Math.floor(next() * (maxComments + 1)); c > 0; c--) comment(answerId, { owner: pick(), at: tick() });
      }
    }
  }

  // ---- The answers' shapes ----

  /** The shallow_user of a post (/docs/types/shallow-user); a deleted or anonymous author has no user_id. */
  function shallowUser(owner: Owner, postId: number): Json {
    const person = owner === null ? undefined : people.get(owner);
    if (!person) return { user_type: 'does_not_exist', display_name: `user${postId % 1_000_000}` };
    return {
      account_id: person.user_id === COMMUNITY ? -1 : person.user_id * 3 + 11,
      reputation: person.reputation ?? 1,
      user_id: person.user_id,
      user_type: person.user_type ?? 'registered',
      profile_image: `https://www.gravatar.com/avatar/${(person.user_id >>> 0).toString(16).padStart(32, '0')}?s=256&d=identicon&r=PG`,
      display_name: escapeHtml(person.display_name),
      link: `https://${host}/users/${person.user_id}/${slug(person.display_name)}`,
    };
  }

  const CONTENT_LICENSE = 'CC BY-SA 4.0';

  /** /docs/types/question: the default filter's fields, and `body` with `withbody`. */
  function questionOut(question: QuestionRecord, withBody: boolean): Json {
    const listed = answersOf.get(question.question_id) ?? [];
    const out: Json = {
      tags: question.tags,
      owner: shallowUser(question.owner, question.question_id),
      is_answered: listed.length > 0,
      view_count: 10 + (question.question_id % 997),
      ...(question.accepted_answer_id !== undefined ? { accepted_answer_id: question.accepted_answer_id } : {}),
      answer_count: listed.length,
      score: question.question_id % 7,
      last_activity_date: question.last_activity_date,
      creation_date: question.creation_date,
      question_id: question.question_id,
      content_license: CONTENT_LICENSE,
      link: `https://${host}/questions/${question.question_id}/${slug(question.title)}`,
      title: escapeHtml(question.title),
    };
    if (withBody) out.body = question.body;
    return out;
  }

  /** /docs/types/answer. */
  function answerOut(record: AnswerRecord, withBody: boolean): Json {
    const out: Json = {
      owner: shallowUser(record.owner, record.answer_id),
      is_accepted: questions.get(record.question_id)?.accepted_answer_id === record.answer_id,
      score: record.answer_id % 5,
      last_activity_date: record.last_activity_date,
      creation_date: record.creation_date,
      answer_id: record.answer_id,
      question_id: record.question_id,
      content_license: CONTENT_LICENSE,
    };
    if (withBody) out.body = record.body;
    return out;
  }

  /** /docs/types/comment (its body, HTML as a post's, is in the default filter). */
  function commentOut(record: CommentRecord): Json {
    return {
      owner: shallowUser(record.owner, record.comment_id),
      edited: false,
      score: record.comment_id % 3,
      creation_date: record.creation_date,
      post_id: record.post_id,
      comment_id: record.comment_id,
      content_license: CONTENT_LICENSE,
      body: record.body,
    };
  }

  /** /docs/types/user, the default filter's fields. */
  function userOut(person: StandInPerson): Json {
    const shallow = shallowUser(person.user_id, 0);
    const out: Json = {
      badge_counts: { bronze: person.user_id % 40, silver: person.user_id % 9, gold: person.user_id % 2 },
      account_id: shallow.account_id,
      is_employee: false,
      last_modified_date: 1_735_689_600,
      last_access_date: 1_767_139_200,
      reputation_change_year: 0,
      reputation_change_quarter: 0,
      reputation_change_month: 0,
      reputation_change_week: 0,
      reputation_change_day: 0,
      reputation: shallow.reputation,
      creation_date: 1_262_304_000 + person.user_id,
      user_type: shallow.user_type,
      user_id: person.user_id,
      link: shallow.link,
      profile_image: shallow.profile_image,
      display_name: shallow.display_name,
    };
    if (person.location) out.location = escapeHtml(person.location);
    if (person.website_url) out.website_url = person.website_url;
    return out;
  }

  // ---- Answering ----

  class ApiError extends Error {
    constructor(
      readonly id: number,
      readonly name: string,
      message: string,
    ) {
      super(message);
    }
  }
  const badParameter = (message: string) => new ApiError(400, 'bad_parameter', message);

  function idsOf(text: string): number[] {
    const parts = text.split(';');
    // "calling methods that expect numeric ids (like /users/{ids}) with non-numeric ids can also result in" no_method
    if (parts.some((part) => !/^\d+$/.test(part))) throw new ApiError(404, 'no_method', 'no method found with this name');
    if (parts.length > 100) throw badParameter('ids');
    return parts.map(Number);
  }

  function number(query: URLSearchParams, name: string): number | undefined {
    const value = query.get(name);
    if (value === null || value === '') return undefined;
    if (!/^-?\d+$/.test(value)) throw badParameter(name);
    return Number(value);
  }

  /** Sorted by `sort` (one of `sorts`, each a field), bounded by min/max on it and fromdate/todate on the creation date, then paged. */
  function list<T extends { creation_date: number }>(
    items: T[],
    query: URLSearchParams,
    sorts: Record<string, (item: T) => number | string>,
    defaultSort: string,
    idOf: (item: T) => number,
  ): { items: T[]; hasMore: boolean } {
    const sort = query.get('sort') ?? defaultSort;
    const field = sorts[sort];
    if (!field) throw badParameter('sort');
    const order = query.get('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') throw badParameter('order');
    const [min, max, fromdate, todate] = ['min', 'max', 'fromdate', 'todate'].map((name) => number(query, name));
    const page = number(query, 'page') ?? 1;
    const pagesize = number(query, 'pagesize') ?? 30;
    if (page < 1) throw badParameter('page');
    if (pagesize < 0 || pagesize > 100) throw badParameter('pagesize');
    const kept = items.filter((item) => {
      const value = field(item);
      if (typeof value === 'number' && ((min !== undefined && value < min) || (max !== undefined && value > max))) return false;
      return (fromdate === undefined || item.creation_date >= fromdate) && (todate === undefined || item.creation_date <= todate);
    });
    const direction = order === 'asc' ? 1 : -1;
    kept.sort((a, b) => {
      const x = field(a);
      const y = field(b);
      return (x < y ? -1 : x > y ? 1 : idOf(a) - idOf(b)) * direction;
    });
    const slice = kept.slice((page - 1) * pagesize, page * pagesize);
    return { items: slice, hasMore: page * pagesize < kept.length };
  }

  const questionSorts: Record<string, (question: QuestionRecord) => number> = {
    activity: (question) => question.last_activity_date,
    creation: (question) => question.creation_date,
    votes: (question) => question.question_id % 7,
  };

  /** The items of a method and whether there are more, or an ApiError. */
  function route(path: string, query: URLSearchParams): { method: string; items: Json[]; hasMore: boolean } {
    const filter = query.get('filter') ?? 'default';
    if (filter !== 'default' && filter !== 'withbody') throw badParameter('filter');
    const withBody = filter === 'withbody';
    const parts = path.split('/').filter(Boolean);
    if (parts.length === 1 && parts[0] === 'questions') {
      const tagged = (query.get('tagged') ?? '').split(';').filter(Boolean);
      if (tagged.length > 5) throw badParameter('tagged');
      const matching = [...questions.values()].filter((question) => tagged.every((tag) => question.tags.includes(tag)));
      const { items, hasMore } = list(matching, query, questionSorts, 'activity', (question) => question.question_id);
      return { method: 'questions', items: items.map((question) => questionOut(question, withBody)), hasMore };
    }
    if (parts.length === 3 && parts[0] === 'questions' && parts[2] === 'answers') {
      const listed = idsOf(parts[1]!).flatMap((id) => answersOf.get(id) ?? []);
      const { items, hasMore } = list(
        listed,
        query,
        { activity: (one) => one.last_activity_date, creation: (one) => one.creation_date, votes: (one) => one.answer_id % 5 },
        'activity',
        (one) => one.answer_id,
      );
      return { method: 'questions/{ids}/answers', items: items.map((one) => answerOut(one, withBody)), hasMore };
    }
    if (parts.length === 3 && (parts[0] === 'questions' || parts[0] === 'answers') && parts[2] === 'comments') {
      const posts = idsOf(parts[1]!).filter((id) => (parts[0] === 'questions' ? questions.has(id) : answers.has(id)));
      const listed = posts.flatMap((id) => commentsOf.get(id) ?? []);
      const { items, hasMore } = list(
        listed,
        query,
        { creation: (one) => one.creation_date, votes: (one) => one.comment_id % 3 },
        'creation',
        (one) => one.comment_id,
      );
      return { method: `${parts[0]}/{ids}/comments`, items: items.map(commentOut), hasMore };
    }
    if (parts.length === 2 && parts[0] === 'users') {
      const listed = idsOf(parts[1]!)
        .map((id) => people.get(id))
        .filter((person): person is StandInPerson => person !== undefined)
        .map((person) => ({ ...person, creation_date: 1_262_304_000 + person.user_id }));
      const { items, hasMore } = list(
        listed,
        query,
        {
          reputation: (one) => one.reputation ?? 1,
          creation: (one) => one.creation_date,
          name: (one) => one.display_name,
          modified: () => 1_735_689_600,
        },
        'reputation',
        (one) => one.user_id,
      );
      return { method: 'users/{ids}', items: items.map(userOut), hasMore };
    }
    throw new ApiError(404, 'no_method', 'no method found with this name');
  }

  function methodOf(path: string): string {
    const parts = path.split('/').filter(Boolean);
    return parts.map((part, index) => (index === 1 && parts.length > 1 ? '{ids}' : part)).join('/');
  }

  /** Seconds to the next UTC day by the stand-in's clock, when the quota comes back. */
  function untilTomorrow(): number {
    const at = now();
    return Math.max(1, Math.ceil((Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1) - at.getTime()) / 1000));
  }

  function send(request: http.IncomingMessage, response: http.ServerResponse, body: Json): void {
    const json = Buffer.from(JSON.stringify(body));
    const accepted = String(request.headers['accept-encoding'] ?? '');
    const deflate = /\bdeflate\b/.test(accepted) && !/\bgzip\b/.test(accepted);
    const compressed = deflate ? zlib.deflateSync(json) : zlib.gzipSync(json);
    response.writeHead(body.error_id !== undefined ? 400 : 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': deflate ? 'deflate' : 'gzip',
      'content-length': String(compressed.length),
    });
    response.end(compressed);
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const path = url.pathname.replace(/^\/2\.3/, '') || '/';
    const query = url.searchParams;
    const key = query.get('key');
    const shown = new URLSearchParams(query);
    shown.delete('key');
    const recorded = `${path}${shown.size > 0 ? `?${shown}` : ''}`;
    requests.push({ path: recorded, keyed: key !== null });
    const keyed = key !== null && options.key !== undefined && key === options.key;
    const wrapper = (): Json => ({ quota_max: keyed ? QUOTA_WITH_KEY : QUOTA_WITHOUT_KEY, quota_remaining: keyed ? quota.keyed : quota.anonymous });
    const error = (id: number, name: string, message: string) =>
      send(request, response, { error_id: id, error_message: message, error_name: name, ...wrapper() });

    if (key !== null && !keyed) return error(400, 'bad_parameter', 'key');
    const left = keyed ? quota.keyed : quota.anonymous;
    if (left <= 0) return error(502, 'throttle_violation', `too many requests from this IP, more requests available in ${untilTomorrow()} seconds`);

    let backoff: number | null = null;
    const index = faults.findIndex((pending) => !pending.path || pending.path.test(recorded));
    if (index >= 0) {
      const pending = faults[index]!;
      if (--pending.times <= 0) faults.splice(index, 1);
      const fault = pending.fault;
      switch (fault.kind) {
        case 'slow':
          await new Promise((resolve) => setTimeout(resolve, fault.ms));
          break;
        case 'backoff':
          backoff = fault.seconds;
          break;
        case 'throttle-violation':
          return error(
            502,
            'throttle_violation',
            fault.seconds !== undefined
              ? `too many requests from this IP, more requests available in ${fault.seconds} seconds`
              : 'too many requests from this IP',
          );
        case 'temporarily-unavailable':
          return error(503, 'temporarily_unavailable', 'The service is temporarily unavailable');
        case 'server-error':
          response.writeHead(fault.status ?? 503, { 'content-type': 'text/html' });
          response.end('<html><body><h1>Service Unavailable</h1></body></html>');
          return;
      }
    }

    const method = methodOf(path);
    const until = backoffUntil.get(method);
    if (until !== undefined) {
      if (Date.now() < until.real && now().getTime() < until.clock) return error(502, 'throttle_violation', 'Violation of backoff parameter');
      backoffUntil.delete(method);
    }
    const givenSite = query.get('site');
    if (!givenSite) return error(400, 'bad_parameter', 'site is required');
    if (givenSite !== site) return error(400, 'bad_parameter', `No site found for name \`${givenSite}\``);
    let answered: { items: Json[]; hasMore: boolean };
    try {
      answered = route(path, query);
    } catch (caught) {
      if (caught instanceof ApiError) return error(caught.id, caught.name, caught.message);
      throw caught;
    }
    if (keyed) quota.keyed -= 1;
    else quota.anonymous -= 1;
    const body: Json = { items: answered.items, has_more: answered.hasMore, ...wrapper() };
    if (backoff !== null) {
      body.backoff = backoff;
      backoffUntil.set(method, { real: Date.now() + backoff * 1000, clock: now().getTime() + backoff * 1000 });
    }
    send(request, response, body);
  }

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  // Longer than a client's idle keep-alive (Node's agent: 5 s), so that the client closes an idle connection
  // first, rather than the server at the moment the client reuses it (a reset request).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/2.3`,
    requests,
    ask,
    answer,
    comment,
    person(person) {
      people.set(person.user_id, person);
    },
    fault(fault, where = {}) {
      faults.push({ fault, times: where.times ?? 1, path: where.path });
    },
    setQuota(remaining) {
      quota.keyed = remaining;
      quota.anonymous = remaining;
    },
    questionIds(tag) {
      return [...questions.values()].filter((question) => question.tags.includes(tag)).map((question) => question.question_id);
    },
    counts(tags) {
      const isPerson = (owner: Owner) => owner !== null && owner > 0 && people.has(owner);
      const counts: StandInCounts = { questions: 0, answers: 0, comments: 0, accepted: 0, people: 0 };
      const posters = new Set<number>();
      const count = (owner: Owner, kind: 'questions' | 'answers' | 'comments') => {
        if (!isPerson(owner)) return;
        counts[kind] += 1;
        posters.add(owner!);
      };
      for (const question of questions.values()) {
        if (!question.tags.some((tag) => tags.includes(tag))) continue;
        count(question.owner, 'questions');
        for (const one of commentsOf.get(question.question_id) ?? []) count(one.owner, 'comments');
        for (const one of answersOf.get(question.question_id) ?? []) {
          count(one.owner, 'answers');
          if (question.accepted_answer_id === one.answer_id && isPerson(one.owner)) counts.accepted += 1;
          for (const reply of commentsOf.get(one.answer_id) ?? []) count(reply.owner, 'comments');
        }
      }
      counts.people = posters.size;
      return counts;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
