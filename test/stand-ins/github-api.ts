import { randomBytes } from 'node:crypto';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { jwtVerify } from 'jose';

/**
 * A local stand-in for api.github.com: a real HTTP server on 127.0.0.1 answering the REST calls the GitHub
 * connector makes, in the shapes of GitHub's published OpenAPI description (@octokit/openapi: each record is
 * the documented example object with its IDs, logins and dates varied), paged with RFC 5988 `Link` headers,
 * with `x-ratelimit-*` headers, faults on demand, and a GraphQL endpoint for discussions. Records are made
 * when asked for, from their index, so 100,000 stargazers cost nothing until they are read.
 */

// ---- GitHub's documented examples -------------------------------------------------------------------------

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let description: Json | null = null;

function openapi(): Json {
  if (!description) {
    const require = createRequire(import.meta.url);
    description = JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8')) as Json;
  }
  return description;
}

const examples = new Map<string, Json>();

/** The documented example answer of an operation (the first, or the named one), resolved through components. */
function example(path: string, method: 'get' | 'post', status: string, name?: string): Json {
  const key = `${method} ${path} ${status} ${name ?? ''}`;
  let found = examples.get(key);
  if (!found) {
    const content = openapi().paths[path][method].responses[status].content['application/json'];
    const entry = content.examples[name ?? Object.keys(content.examples)[0]!];
    found = (entry.value ?? openapi().components.examples[String(entry.$ref).split('/').pop()!].value) as Json;
    examples.set(key, found);
  }
  return structuredClone(found);
}

const first = (value: Json): Json => (Array.isArray(value) ? (value[0] as Json) : value);

// ---- The data set ------------------------------------------------------------------------------------------

export interface StandInRepository {
  /** owner/name */
  fullName: string;
  stargazers?: number;
  forks?: number;
  /** Issues and pull requests share numbers: number n is a pull request when n is a multiple of `pullEvery`. */
  issues?: number;
  pullEvery?: number;
  issueComments?: number;
  reviewComments?: number;
  reviewsPerPull?: number;
  releases?: number;
  discussions?: number;
  commentsPerDiscussion?: number;
  repliesPerComment?: number;
}

export interface StandInOptions {
  repositories: StandInRepository[];
  /** Tokens the stand-in accepts (default: ['ghp_hearth_test']). */
  tokens?: string[];
  /** A GitHub App the stand-in knows: installation tokens are given for a JWT signed by its key. */
  app?: { appId: number; publicKeyPem: string; installationId: number };
  /** Every nth person is a bot (`name[bot]`, type Bot); 0: none. */
  botEvery?: number;
  /** The date of every kind's first record; the next ones follow a minute apart. */
  start?: string;
  /** Path prefix of the API, as on GitHub Enterprise Server ('/api/v3'); GraphQL then answers at /api/graphql. */
  prefix?: string;
  /** The rate limit a token starts with (default 5000). */
  rateLimit?: number;
  /** Lists answer 422 past this page, as GitHub does for long lists of stargazers (none by default). */
  pageLimit?: number;
  /**
   * The order of a repository's issue events. GitHub's reference does not state it: newest first unless
   * told, and the connector's tests try both.
   */
  issueEventsOrder?: 'newest-first' | 'oldest-first';
  /** Public emails of people by index, instead of the default (`user<i>@example.com` for even i, none for odd). */
  emails?: Record<number, string | null>;
  /** Profiles' `company` by index, instead of the default (`@acme` for i divisible by 3, `Initech` for i = 3k + 1, none else). */
  companies?: Record<number, string | null>;
}

export type Fault =
  | { kind: 'secondary-limit'; retryAfter: number }
  | { kind: 'too-many-requests'; retryAfter: number }
  | { kind: 'primary-limit'; reset: Date }
  | { kind: 'unauthorized' }
  | { kind: 'server-error'; status?: number }
  | { kind: 'slow'; ms: number }
  /**
   * An error answer (400 unless told) whose message quotes the request's Authorization header, as given and
   * URL-encoded, as some servers and proxies in front of an API do. GitHub itself is not known to: this is
   * for checking that what a platform echoes of the credential is never shown or stored.
   */
  | { kind: 'echo-authorization'; status?: number }
  /** The page is answered, but its `Link: rel="next"` points at the page itself: a list that never ends. */
  | { kind: 'next-is-itself' }
  /**
   * GraphQL's spent primary limit: a 200 whose errors say RATE_LIMITED, with `x-ratelimit-remaining: 0` and
   * the reset (https://docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api).
   */
  | { kind: 'graphql-rate-limited'; reset: Date };

interface PendingFault {
  fault: Fault;
  times: number;
  path?: RegExp;
}

/**
 * Record kinds a delivery can be made of. 'discussion' is discussion `index` as a delivery names it, and
 * 'discussion-comment' the first comment of discussion `index`.
 */
export type StandInRecordKind =
  'stargazer' | 'fork' | 'issue' | 'closer' | 'issue-comment' | 'pull' | 'review' | 'review-comment' | 'release' | 'discussion' | 'discussion-comment';

export interface GitHubStandIn {
  /** The API root to put in settings.apiUrl. */
  url: string;
  stop(): Promise<void>;
  /** Every request answered (method and path with query), in order. */
  requests: { method: string; path: string }[];
  /** The next `times` requests (whose path matches `path`, when given) meet `fault`. */
  fault(fault: Fault, options?: { times?: number; path?: RegExp }): void;
  /** Adds records at the end of a list (later than every record so far), as if they happened since. */
  add(fullName: string, counts: Partial<Omit<StandInRepository, 'fullName'>>): void;
  /** Tokens stop working: every request is a 401. */
  revoke(): void;
  /** The rate limit left: the answer that spends the last request says remaining 0, the next are refused until `reset`. */
  setRateLimit(remaining: number, reset: Date): void;
  /** The installation tokens given to the App. */
  installationTokens: string[];
  /** The numeric ID and login of the person with index i (as in stargazers' index). */
  person(index: number): { id: number; login: string };
  repositoryId(fullName: string): number;
  /**
   * A record as the REST API lists it (`index` from 1; for issues and pulls, the number; for 'closer', who closed
   * issue `index`), and the repository: for making the delivery of a record the backfill also reads.
   */
  record(fullName: string, kind: StandInRecordKind, index: number): Json;
  repository(fullName: string): Json;
}

const USER_BASE = 100_000;
const MINUTE = 60_000;
const REPO_ID_BASE = 1_000;

export async function startGitHubStandIn(options: StandInOptions): Promise<GitHubStandIn> {
  const tokens = new Set(options.tokens ?? ['ghp_hearth_test']);
  const installationTokens: string[] = [];
  const start = Date.parse(options.start ?? '2024-01-01T00:00:00Z');
  const prefix = options.prefix ?? '';
  const botEvery = options.botEvery ?? 0;
  const repos = options.repositories.map((repository, index) => ({ ...repository, index, id: REPO_ID_BASE + index }));
  const faults: PendingFault[] = [];
  const requests: { method: string; path: string }[] = [];
  let revoked = false;
  let remaining = options.rateLimit ?? 5000;
  let reset = new Date(Date.now() + 3600_000);
  const appKey: KeyObject | null = options.app ? createPublicKey(options.app.publicKeyPem) : null;
  let origin = '';

  const person = (index: number) => {
    const bot = botEvery > 0 && index % botEvery === 0;
    return { id: USER_BASE + index, login: bot ? `helper${index}[bot]` : `user${index}`, bot };
  };

  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const at = (kindOffsetSeconds: number, index: number) => start + index * MINUTE + kindOffsetSeconds * 1000;

  const appSlug = (login: string) => login.replace(/\[bot\]$/, '');

  function simpleUser(index: number): Json {
    const who = person(index);
    const user = first(example('/repos/{owner}/{repo}/stargazers', 'get', '200', 'default-response'));
    return {
      ...user,
      id: who.id,
      login: who.login,
      node_id: Buffer.from(`04:User${who.id}`).toString('base64'),
      avatar_url: `https://avatars.githubusercontent.com/u/${who.id}?v=4`,
      // A bot's login is not a path segment as it is: its API address escapes it, its page is its app's.
      url: `${origin}${prefix}/users/${encodeURIComponent(who.login)}`,
      html_url: who.bot ? `https://github.com/apps/${appSlug(who.login)}` : `https://github.com/${who.login}`,
      type: who.bot ? 'Bot' : 'User',
    };
  }

  function profile(index: number): Json {
    const who = person(index);
    const user = example('/user/{account_id}', 'get', '200', 'default-response');
    return {
      ...user,
      ...simpleUser(index),
      name: who.bot ? null : `User ${index}`,
      email: options.emails && index in options.emails ? options.emails[index] : index % 2 === 0 ? `user${index}@example.com` : null,
      company: options.companies && index in options.companies ? options.companies[index] : index % 3 === 0 ? '@acme' : index % 3 === 1 ? 'Initech' : null,
      blog: index % 3 === 0 ? 'https://acme.io' : index % 3 === 1 ? `user${index}.dev` : '',
      twitter_username: index % 2 === 0 ? `user${index}_x` : null,
      location: 'Lisbon, Portugal',
      bio: `Person number ${index}`,
    };
  }

  type Repo = (typeof repos)[number];

  function repository(repo: Repo): Json {
    // The documented example is a fork (with its parent and source) and names no language, which the schema
    // requires: the stand-in's repositories are not forks, and are written in TypeScript.
    const { parent: _parent, source: _source, ...data } = example('/repos/{owner}/{repo}', 'get', '200');
    const [owner, name] = repo.fullName.split('/') as [string, string];
    return {
      ...data,
      fork: false,
      language: 'TypeScript',
      id: repo.id,
      name,
      full_name: repo.fullName,
      owner: { ...data.owner, login: owner, html_url: `https://github.com/${owner}` },
      html_url: `https://github.com/${repo.fullName}`,
      url: `${origin}${prefix}/repos/${repo.fullName}`,
      stargazers_count: repo.stargazers ?? 0,
      watchers_count: repo.stargazers ?? 0,
      forks_count: repo.forks ?? 0,
      has_discussions: (repo.discussions ?? 0) > 0,
    };
  }

  // Record ids are unique across repositories: the repository's index in the high digits.
  const recordId = (repo: Repo, n: number) => (repo.index + 1) * 10_000_000 + n;
  const pullEvery = (repo: Repo) => repo.pullEvery ?? 3;
  const isPull = (repo: Repo, number: number) => number % pullEvery(repo) === 0;
  const issueCreated = (number: number) => at(0, number);
  // Even numbers are closed (pull requests: merged) half a minute after they are opened.
  const issueClosed = (number: number) => (number % 2 === 0 ? issueCreated(number) + 30_000 : null);
  const issueUpdated = (number: number) => issueClosed(number) ?? issueCreated(number);

  /** A listed issue: GitHub's list answers leave `closed_by` out (only GET of one issue has it), though the schema names it. */
  function listedIssue(repo: Repo, number: number): Json {
    const { closed_by: _closedBy, ...listed } = issue(repo, number);
    return listed;
  }

  function issue(repo: Repo, number: number): Json {
    const data = first(example('/repos/{owner}/{repo}/issues', 'get', '200'));
    const closed = issueClosed(number);
    const pull = isPull(repo, number);
    const html = `https://github.com/${repo.fullName}/${pull ? 'pull' : 'issues'}/${number}`;
    return {
      ...data,
      id: recordId(repo, number),
      node_id: Buffer.from(`I_${recordId(repo, number)}`).toString('base64'),
      url: `${origin}${prefix}/repos/${repo.fullName}/issues/${number}`,
      html_url: html,
      number,
      state: closed ? 'closed' : 'open',
      title: `${pull ? 'Pull request' : 'Issue'} ${number}`,
      body: `Body of ${number}`,
      user: simpleUser(number),
      closed_by: closed ? simpleUser(number + 1) : null,
      created_at: iso(issueCreated(number)),
      updated_at: iso(issueUpdated(number)),
      closed_at: closed ? iso(closed) : null,
      pull_request: pull ? { ...data.pull_request, html_url: html, merged_at: closed ? iso(closed) : null } : undefined,
    };
  }

  function pull(repo: Repo, number: number): Json {
    const data = first(example('/repos/{owner}/{repo}/pulls', 'get', '200'));
    const closed = issueClosed(number);
    return {
      ...data,
      id: 500_000_000 + recordId(repo, number),
      number,
      html_url: `https://github.com/${repo.fullName}/pull/${number}`,
      url: `${origin}${prefix}/repos/${repo.fullName}/pulls/${number}`,
      state: closed ? 'closed' : 'open',
      title: `Pull request ${number}`,
      body: `Body of ${number}`,
      user: simpleUser(number),
      // The documented example's team lacks the `type` its schema requires: no team is asked to review.
      requested_teams: [],
      created_at: iso(issueCreated(number)),
      updated_at: iso(issueUpdated(number)),
      closed_at: closed ? iso(closed) : null,
      merged_at: closed ? iso(closed) : null,
    };
  }

  function review(repo: Repo, number: number, r: number): Json {
    const data = first(example('/repos/{owner}/{repo}/pulls/{pull_number}/reviews', 'get', '200'));
    const id = recordId(repo, number) * 10 + r;
    return {
      ...data,
      id,
      user: simpleUser(number + 2 + r),
      body: `Review ${r} of ${number}`,
      html_url: `https://github.com/${repo.fullName}/pull/${number}#pullrequestreview-${id}`,
      pull_request_url: `${origin}${prefix}/repos/${repo.fullName}/pulls/${number}`,
      submitted_at: iso(issueCreated(number) + 10_000 + r),
    };
  }

  // Comment c (from 1) answers number ((c - 1) mod issues) + 1; review comment c the ((c - 1) mod pulls + 1)th pull request.
  function issueComment(repo: Repo, c: number): Json {
    const data = first(example('/repos/{owner}/{repo}/issues/comments', 'get', '200'));
    const number = ((c - 1) % Math.max(1, repo.issues ?? 1)) + 1;
    const id = 200_000_000 + recordId(repo, c);
    return {
      ...data,
      id,
      html_url: `https://github.com/${repo.fullName}/${isPull(repo, number) ? 'pull' : 'issues'}/${number}#issuecomment-${id}`,
      issue_url: `${origin}${prefix}/repos/${repo.fullName}/issues/${number}`,
      url: `${origin}${prefix}/repos/${repo.fullName}/issues/comments/${id}`,
      body: `Comment ${c}`,
      user: simpleUser(c + 7),
      created_at: iso(at(5, c)),
      updated_at: iso(at(5, c)),
    };
  }

  function reviewComment(repo: Repo, c: number): Json {
    const data = first(example('/repos/{owner}/{repo}/pulls/comments', 'get', '200'));
    const pulls = Math.max(1, Math.floor((repo.issues ?? 0) / pullEvery(repo)));
    const number = (((c - 1) % pulls) + 1) * pullEvery(repo);
    const id = 300_000_000 + recordId(repo, c);
    return {
      ...data,
      id,
      html_url: `https://github.com/${repo.fullName}/pull/${number}#discussion_r${id}`,
      pull_request_url: `${origin}${prefix}/repos/${repo.fullName}/pulls/${number}`,
      body: `Review comment ${c}`,
      user: simpleUser(c + 11),
      created_at: iso(at(7, c)),
      updated_at: iso(at(7, c)),
    };
  }

  /**
   * The event of closing number 2k (the even numbers are closed), by who closed it, with the issue as listed
   * (https://docs.github.com/en/rest/issues/events#list-issue-events-for-a-repository: the `issue-event` schema).
   */
  function closedEvent(repo: Repo, k: number): Json {
    const data = first(example('/repos/{owner}/{repo}/issues/events', 'get', '200'));
    const number = 2 * k;
    const id = 800_000_000 + recordId(repo, number);
    return {
      ...data,
      id,
      node_id: Buffer.from(`CE_${id}`).toString('base64'),
      url: `${origin}${prefix}/repos/${repo.fullName}/issues/events/${id}`,
      actor: simpleUser(number + 1),
      event: 'closed',
      commit_id: null,
      commit_url: null,
      created_at: iso(issueClosed(number)!),
      issue: listedIssue(repo, number),
    };
  }

  function stargazer(_repo: Repo, i: number): Json {
    const data = first(example('/repos/{owner}/{repo}/stargazers', 'get', '200', 'alternative-response-with-star-creation-timestamps'));
    return { ...data, starred_at: iso(at(1, i)), user: simpleUser(i) };
  }

  function fork(repo: Repo, i: number): Json {
    const data = first(example('/repos/{owner}/{repo}/forks', 'get', '200'));
    const owner = simpleUser(i);
    const name = repo.fullName.split('/')[1]!;
    return {
      ...data,
      id: 400_000_000 + recordId(repo, i),
      name,
      full_name: `${owner.login}/${name}`,
      owner,
      html_url: `https://github.com/${owner.login}/${name}`,
      fork: true,
      created_at: iso(at(2, i)),
      updated_at: iso(at(2, i)),
    };
  }

  function release(repo: Repo, i: number): Json {
    const data = first(example('/repos/{owner}/{repo}/releases', 'get', '200'));
    const id = 600_000_000 + recordId(repo, i);
    return {
      ...data,
      id,
      tag_name: `v1.${i}.0`,
      name: `Release 1.${i}`,
      body: `Notes of 1.${i}`,
      draft: false,
      html_url: `https://github.com/${repo.fullName}/releases/tag/v1.${i}.0`,
      author: simpleUser(i + 3),
      created_at: iso(at(3, i)),
      published_at: iso(at(3, i)),
    };
  }

  // ---- Lists ------------------------------------------------------------------------------------------------

  /** The first index (from `from`) whose date is at or after `since`: dates grow with the index. */
  function firstSince(from: number, to: number, dateOf: (index: number) => number, since: number | null): number {
    if (since === null) return from;
    let low = from;
    let high = to + 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (dateOf(middle) >= since) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** One page of a list of `count` records (given ascending by index), in the asked direction, with its Link header. */
  function pageOf(
    url: URL,
    indexes: { count: number; at: (position: number) => number },
    make: (index: number) => Json,
    descending: boolean,
  ): { items: Json[]; link: string } | null {
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const pages = Math.max(1, Math.min(Math.ceil(indexes.count / perPage), options.pageLimit ?? Infinity));
    if (page > pages && options.pageLimit !== undefined && page > options.pageLimit) return null;
    const items: Json[] = [];
    for (let position = (page - 1) * perPage; position < Math.min(indexes.count, page * perPage); position++) {
      items.push(make(indexes.at(descending ? indexes.count - 1 - position : position)));
    }
    const link = (n: number, rel: string) => {
      const next = new URL(url);
      next.searchParams.set('page', String(n));
      return `<${origin}${next.pathname}${next.search}>; rel="${rel}"`;
    };
    const links = [...(page < pages ? [link(page + 1, 'next'), link(pages, 'last')] : []), ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : [])];
    return { items, link: links.join(', ') };
  }

  const range = (from: number, to: number) => ({ count: Math.max(0, to - from + 1), at: (position: number) => from + position });

  function listFor(repo: Repo, kind: string, url: URL, accept: string): { items: Json[]; link: string } | null {
    const sinceParam = url.searchParams.get('since');
    const since = sinceParam ? Date.parse(sinceParam) : null;
    const descending = url.searchParams.get('direction') !== 'asc';
    switch (kind) {
      case 'stargazers': {
        // starred_at only for the star+json media type, as on GitHub.
        const starJson = /star\+json/.test(accept);
        return pageOf(url, range(1, repo.stargazers ?? 0), (i) => (starJson ? stargazer(repo, i) : simpleUser(i)), false);
      }
      case 'forks':
        return pageOf(url, range(1, repo.forks ?? 0), (i) => fork(repo, i), url.searchParams.get('sort') !== 'oldest');
      case 'issues': {
        const count = repo.issues ?? 0;
        const from = firstSince(1, count, issueUpdated, since);
        return pageOf(url, range(from, count), (n) => listedIssue(repo, n), descending);
      }
      case 'pulls': {
        const every = pullEvery(repo);
        const pulls = Math.floor((repo.issues ?? 0) / every);
        return pageOf(url, range(1, pulls), (j) => pull(repo, j * every), descending);
      }
      case 'issues/events':
        return pageOf(url, range(1, Math.floor((repo.issues ?? 0) / 2)), (k) => closedEvent(repo, k), options.issueEventsOrder !== 'oldest-first');
      case 'issues/comments': {
        const count = repo.issueComments ?? 0;
        return pageOf(
          url,
          range(
            firstSince(1, count, (c) => at(5, c), since),
            count,
          ),
          (c) => issueComment(repo, c),
          descending,
        );
      }
      case 'pulls/comments': {
        const count = repo.reviewComments ?? 0;
        return pageOf(
          url,
          range(
            firstSince(1, count, (c) => at(7, c), since),
            count,
          ),
          (c) => reviewComment(repo, c),
          descending,
        );
      }
      case 'releases':
        return pageOf(url, range(1, repo.releases ?? 0), (i) => release(repo, i), true);
      default: {
        const single = kind.match(/^issues\/(\d+)$/);
        if (single) {
          const number = Number(single[1]);
          return number >= 1 && number <= (repo.issues ?? 0) ? { items: [issue(repo, number)], link: '' } : null;
        }
        const reviews = kind.match(/^pulls\/(\d+)\/reviews$/);
        if (reviews) {
          const number = Number(reviews[1]);
          if (!isPull(repo, number) || number > (repo.issues ?? 0)) return null;
          return pageOf(url, range(1, repo.reviewsPerPull ?? 1), (r) => review(repo, number, r), false);
        }
        return null;
      }
    }
  }

  // ---- GraphQL: discussions ---------------------------------------------------------------------------------

  /**
   * Shapes from GitHub's GraphQL reference: https://docs.github.com/en/graphql/reference/objects#discussion
   * (Discussion, DiscussionConnection, DiscussionComment, DiscussionCommentConnection, PageInfo, and
   * Repository.discussion(number:) and Query.node(id:)) and
   * https://docs.github.com/en/graphql/guides/using-the-graphql-api-for-discussions. Cursors and node IDs are
   * opaque strings. Discussion i has comments 1..commentsPerDiscussion, comment k replies 1..repliesPerComment.
   */
  const cursorOf = (offset: number) => Buffer.from(`cursor:${offset}`).toString('base64');
  const offsetOf = (cursor: unknown) => (cursor ? Number(Buffer.from(String(cursor), 'base64').toString('utf8').replace('cursor:', '')) : 0);
  const pageSize = (first: unknown) => Math.min(100, Math.max(1, Number(first ?? 10)));

  function actor(index: number): Json {
    const who = person(index);
    return who.bot
      ? {
          __typename: 'Bot',
          login: appSlug(who.login),
          avatarUrl: `https://avatars.githubusercontent.com/in/${who.id}`,
          url: `https://github.com/apps/${appSlug(who.login)}`,
          databaseId: who.id,
        }
      : {
          __typename: 'User',
          login: who.login,
          avatarUrl: `https://avatars.githubusercontent.com/u/${who.id}?v=4`,
          url: `https://github.com/${who.login}`,
          databaseId: who.id,
        };
  }

  const discussionId = (repo: Repo, i: number) => 700_000_000 + recordId(repo, i);
  const discussionCreated = (i: number) => at(4, i);
  const commentId = (repo: Repo, i: number, k: number) => discussionId(repo, i) * 1000 + k;

  /** A slice of a connection: `count` nodes made by `make(position from 1)`, from the cursor's offset. */
  function connection(count: number, first: unknown, cursor: unknown, make: (n: number) => Json): Json {
    const offset = offsetOf(cursor);
    const nodes: Json[] = [];
    for (let n = offset + 1; n <= Math.min(count, offset + pageSize(first)); n++) nodes.push(make(n));
    const end = offset + nodes.length;
    return { totalCount: count, pageInfo: { hasNextPage: end < count, endCursor: nodes.length ? cursorOf(end) : null }, nodes };
  }

  function reply(repo: Repo, i: number, k: number, r: number): Json {
    const id = commentId(repo, i, k) * 1000 + r;
    return {
      databaseId: id,
      body: `Reply ${r} to comment ${k} on discussion ${i}`,
      url: `https://github.com/${repo.fullName}/discussions/${i}#discussioncomment-${id}`,
      createdAt: iso(discussionCreated(i) + (k + r) * 1000),
      author: actor(i + k + r),
    };
  }

  function replies(repo: Repo, i: number, k: number, first: unknown, cursor: unknown): Json {
    return connection(repo.repliesPerComment ?? 0, first, cursor, (r) => reply(repo, i, k, r));
  }

  function comment(repo: Repo, i: number, k: number): Json {
    const id = commentId(repo, i, k);
    return {
      id: Buffer.from(`DiscussionComment:${repo.index}:${i}:${k}`).toString('base64'),
      databaseId: id,
      body: `Comment ${k} on discussion ${i}`,
      url: `https://github.com/${repo.fullName}/discussions/${i}#discussioncomment-${id}`,
      createdAt: iso(discussionCreated(i) + k * 1000),
      author: actor(i + k),
      // The queries ask for a comment's first 50 replies.
      replies: replies(repo, i, k, 50, null),
    };
  }

  function comments(repo: Repo, i: number, first: unknown, cursor: unknown): Json {
    return connection(repo.commentsPerDiscussion ?? 2, first, cursor, (k) => comment(repo, i, k));
  }

  /** Discussion i as a delivery names it: its `id` is the GraphQL `databaseId`. */
  function discussionRecord(repo: Repo, i: number): Json {
    const author = actor(i);
    return {
      id: discussionId(repo, i),
      number: i,
      title: `Discussion ${i}`,
      body: `Body of discussion ${i}`,
      html_url: `https://github.com/${repo.fullName}/discussions/${i}`,
      created_at: iso(discussionCreated(i)),
      user: { ...simpleUser(i), id: author.databaseId, avatar_url: author.avatarUrl, html_url: author.url },
    };
  }

  const repositoryNamed = (variables: Json) => repos.find((r) => r.fullName.toLowerCase() === `${variables.owner}/${variables.name}`.toLowerCase());
  const notFound = (variables: Json) => ({
    data: { repository: null },
    errors: [{ type: 'NOT_FOUND', path: ['repository'], message: `Could not resolve to a Repository with the name '${variables.owner}/${variables.name}'.` }],
  });

  function discussions(variables: Json): Json {
    const repo = repositoryNamed(variables);
    if (!repo) return notFound(variables);
    const count = repo.discussions ?? 0;
    const perDiscussion = repo.commentsPerDiscussion ?? 2;
    // Most recently updated first: the discussion with the highest index.
    const page = connection(count, variables.first, variables.cursor, (position) => {
      const i = count + 1 - position;
      const created = discussionCreated(i);
      return {
        databaseId: discussionId(repo, i),
        number: i,
        title: `Discussion ${i}`,
        body: `Body of discussion ${i}`,
        url: `https://github.com/${repo.fullName}/discussions/${i}`,
        createdAt: iso(created),
        updatedAt: iso(created + perDiscussion * 1000),
        author: actor(i),
        // The query asks for the first 50 comments.
        comments: comments(repo, i, 50, null),
      };
    });
    return { data: { repository: { discussions: page } } };
  }

  function discussionComments(variables: Json): Json {
    const repo = repositoryNamed(variables);
    if (!repo) return notFound(variables);
    const i = Number(variables.number);
    if (!(i >= 1 && i <= (repo.discussions ?? 0))) {
      return {
        data: { repository: { discussion: null } },
        errors: [{ type: 'NOT_FOUND', path: ['repository', 'discussion'], message: `Could not resolve to a Discussion with the number of ${i}.` }],
      };
    }
    return { data: { repository: { discussion: { comments: comments(repo, i, variables.first, variables.cursor) } } } };
  }

  function commentReplies(variables: Json): Json {
    const [kind, repoIndex, i, k] = Buffer.from(String(variables.id ?? ''), 'base64')
      .toString('utf8')
      .split(':');
    const repo = repos[Number(repoIndex)];
    if (kind !== 'DiscussionComment' || !repo) {
      return {
        data: { node: null },
        errors: [{ type: 'NOT_FOUND', path: ['node'], message: `Could not resolve to a node with the global id of '${variables.id}'` }],
      };
    }
    return { data: { node: { replies: replies(repo, Number(i), Number(k), variables.first, variables.cursor) } } };
  }

  // ---- The server -------------------------------------------------------------------------------------------

  function send(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    response.end(text);
  }

  function rateHeaders(): Record<string, string> {
    return {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(Math.max(0, remaining)),
      'x-ratelimit-reset': String(Math.floor(reset.getTime() / 1000)),
      'x-ratelimit-used': String(5000 - Math.max(0, remaining)),
      'x-ratelimit-resource': 'core',
    };
  }

  async function readBody(request: http.IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  const docs = 'https://docs.github.com/rest';

  async function handle(request: http.IncomingMessage, response: http.ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const method = request.method ?? 'GET';
    requests.push({ method, path: url.pathname + url.search });
    const index = faults.findIndex((pending) => !pending.path || pending.path.test(url.pathname + url.search));
    let nextIsItself = false;
    if (index >= 0) {
      const pending = faults[index]!;
      if (--pending.times <= 0) faults.splice(index, 1);
      const fault = pending.fault;
      switch (fault.kind) {
        case 'slow':
          await new Promise((resolve) => setTimeout(resolve, fault.ms));
          break;
        case 'secondary-limit':
          return send(
            response,
            403,
            { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: docs },
            { 'retry-after': String(fault.retryAfter), ...rateHeaders() },
          );
        case 'too-many-requests':
          return send(response, 429, { message: 'Too Many Requests', documentation_url: docs }, { 'retry-after': String(fault.retryAfter), ...rateHeaders() });
        case 'primary-limit':
          return send(
            response,
            403,
            { message: 'API rate limit exceeded for user ID 1.', documentation_url: docs },
            {
              ...rateHeaders(),
              'x-ratelimit-remaining': '0',
              'x-ratelimit-reset': String(Math.floor(fault.reset.getTime() / 1000)),
            },
          );
        case 'unauthorized':
          return send(response, 401, { message: 'Bad credentials', documentation_url: docs, status: '401' });
        case 'server-error':
          return send(response, fault.status ?? 502, { message: 'Server Error' });
        case 'echo-authorization': {
          const given = request.headers.authorization ?? '';
          return send(response, fault.status ?? 400, {
            message: `Problems parsing the Authorization header "${given}" (${encodeURIComponent(given)})`,
            documentation_url: docs,
          });
        }
        case 'next-is-itself':
          nextIsItself = true;
          break;
        case 'graphql-rate-limited':
          return send(
            response,
            200,
            { data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] },
            {
              ...rateHeaders(),
              'x-ratelimit-remaining': '0',
              'x-ratelimit-reset': String(Math.floor(fault.reset.getTime() / 1000)),
              'x-ratelimit-resource': 'graphql',
            },
          );
      }
    }

    let path = url.pathname;
    if (prefix && path.startsWith(prefix)) path = path.slice(prefix.length);
    else if (prefix && path === '/api/graphql') path = '/graphql';

    // A GitHub App's installation token, for a JWT signed with the App's private key.
    const tokenRequest = path.match(/^\/app\/installations\/(\d+)\/access_tokens$/);
    if (method === 'POST' && tokenRequest) {
      const jwt = (request.headers.authorization ?? '').replace(/^bearer\s+/i, '');
      if (!options.app || !appKey || Number(tokenRequest[1]) !== options.app.installationId)
        return send(response, 404, { message: 'Not Found', documentation_url: docs });
      try {
        const { payload } = await jwtVerify(jwt, appKey, { algorithms: ['RS256'] });
        if (String(payload.iss) !== String(options.app.appId)) throw new Error('wrong issuer');
      } catch {
        return send(response, 401, { message: 'A JSON web token could not be decoded', documentation_url: docs });
      }
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      tokens.add(token);
      installationTokens.push(token);
      const data = example('/app/installations/{installation_id}/access_tokens', 'post', '201');
      return send(response, 201, { ...data, token, expires_at: new Date(Date.now() + 3600_000).toISOString() });
    }

    const auth = (request.headers.authorization ?? '').replace(/^(token|bearer)\s+/i, '');
    if (revoked || !tokens.has(auth)) return send(response, 401, { message: 'Bad credentials', documentation_url: docs, status: '401' });
    if (remaining <= 0 && Date.now() < reset.getTime()) {
      return send(response, 403, { message: 'API rate limit exceeded for user ID 1.', documentation_url: docs }, rateHeaders());
    }
    remaining--;

    if (method === 'POST' && path === '/graphql') {
      const body = JSON.parse(await readBody(request)) as { query: string; variables?: Json };
      const variables = body.variables ?? {};
      if (/discussions\s*\(/.test(body.query)) return send(response, 200, discussions(variables), rateHeaders());
      if (/discussion\s*\(\s*number:/.test(body.query)) return send(response, 200, discussionComments(variables), rateHeaders());
      if (/node\s*\(\s*id:/.test(body.query)) return send(response, 200, commentReplies(variables), rateHeaders());
      return send(response, 200, { errors: [{ message: 'The stand-in answers only discussion queries' }] }, rateHeaders());
    }
    if (method !== 'GET') return send(response, 404, { message: 'Not Found', documentation_url: docs });

    if (path === '/user') return send(response, 200, { ...example('/user', 'get', '200'), login: 'octocat', id: 1 }, rateHeaders());
    const account = path.match(/^\/user\/(\d+)$/) ?? path.match(/^\/users\/user(\d+)$/);
    if (account) {
      const i = Number(account[1]) - (path.startsWith('/user/') ? USER_BASE : 0);
      if (i < 0) return send(response, 404, { message: 'Not Found', documentation_url: docs });
      return send(response, 200, profile(i), rateHeaders());
    }
    const org = path.match(/^\/orgs\/([^/]+)\/repos$/);
    if (org) {
      const owned = repos.filter((repo) => repo.fullName.split('/')[0]!.toLowerCase() === org[1]!.toLowerCase());
      if (owned.length === 0) return send(response, 404, { message: 'Not Found', documentation_url: docs });
      const { items, link } = pageOf(url, range(0, owned.length - 1), (i) => repository(owned[i]!), false) ?? { items: [], link: '' };
      return send(response, 200, items, { ...rateHeaders(), ...(link ? { link } : {}) });
    }
    const inRepo = path.match(/^\/repos\/([^/]+\/[^/]+?)(?:\/(.+))?$/);
    const repo = inRepo && repos.find((r) => r.fullName.toLowerCase() === inRepo[1]!.toLowerCase());
    if (!inRepo || !repo) return send(response, 404, { message: 'Not Found', documentation_url: docs });
    if (!inRepo[2]) return send(response, 200, repository(repo), rateHeaders());
    const list = listFor(repo, inRepo[2], url, String(request.headers.accept ?? ''));
    if (list === null && options.pageLimit !== undefined && Number(url.searchParams.get('page') ?? 1) > options.pageLimit) {
      return send(
        response,
        422,
        {
          message:
            'In order to keep the API fast for everyone, pagination is limited for this resource. Check the rel=last link relation in the Link response header to see how far back you can traverse.',
          documentation_url: docs,
        },
        rateHeaders(),
      );
    }
    if (!list) return send(response, 404, { message: 'Not Found', documentation_url: docs });
    if (/^issues\/\d+$/.test(inRepo[2])) return send(response, 200, list.items[0], rateHeaders());
    const link = nextIsItself ? `<${origin}${url.pathname}${url.search}>; rel="next"` : list.link;
    return send(response, 200, list.items, { ...rateHeaders(), ...(link ? { link } : {}) });
  }

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => send(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}${prefix}`,
    requests,
    installationTokens,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
    fault: (fault, where = {}) => faults.push({ fault, times: where.times ?? 1, path: where.path }),
    add(fullName, counts) {
      const repo = repos.find((r) => r.fullName === fullName);
      if (!repo) throw new Error(`The stand-in has no repository ${fullName}`);
      for (const [key, value] of Object.entries(counts) as [keyof typeof counts, number][]) {
        (repo as Record<string, unknown>)[key] = ((repo[key] as number | undefined) ?? 0) + value;
      }
    },
    revoke: () => {
      revoked = true;
    },
    setRateLimit(left, until) {
      remaining = left;
      reset = until;
    },
    person: (i) => {
      const { id, login } = person(i);
      return { id, login };
    },
    repositoryId: (fullName) => repoNamed(fullName).id,
    repository: (fullName) => repository(repoNamed(fullName)),
    record(fullName, kind, index) {
      const repo = repoNamed(fullName);
      switch (kind) {
        case 'stargazer':
          return stargazer(repo, index);
        case 'fork':
          return fork(repo, index);
        case 'issue':
          return listedIssue(repo, index);
        case 'closer':
          return issue(repo, index).closed_by as Json;
        case 'issue-comment':
          return issueComment(repo, index);
        case 'pull':
          return pull(repo, index);
        case 'review':
          return review(repo, index, 1);
        case 'review-comment':
          return reviewComment(repo, index);
        case 'release':
          return release(repo, index);
        case 'discussion':
          return discussionRecord(repo, index);
        case 'discussion-comment': {
          const { databaseId, body, url, createdAt, author } = comment(repo, index, 1);
          return {
            id: databaseId,
            parent_id: null,
            body,
            html_url: url,
            created_at: createdAt,
            user: { ...simpleUser(index + 1), id: author.databaseId, avatar_url: author.avatarUrl, html_url: author.url },
          };
        }
      }
    },
  };

  function repoNamed(fullName: string): Repo {
    const repo = repos.find((r) => r.fullName === fullName);
    if (!repo) throw new Error(`The stand-in has no repository ${fullName}`);
    return repo;
  }
}
