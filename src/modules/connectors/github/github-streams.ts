import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage } from '../connector-kind.ts';
import { toPlatformError, type ClientOptions, type GitHubClient } from './github-client.ts';
import {
  COMMENT_REPLIES_QUERY,
  DISCUSSIONS_QUERY,
  DISCUSSION_COMMENTS_QUERY,
  asDiscussionRecord,
  moreAfter,
  type CommentNode,
  type CommentRepliesAnswer,
  type DiscussionCommentsAnswer,
  type DiscussionNode,
  type DiscussionsAnswer,
  type ReplyNode,
} from './github-discussions.ts';
import type { GitHubUserRef } from './github-people.ts';
import {
  TranslationBuilder,
  numberOfUrl,
  type CommentRecord,
  type ForkRecord,
  type IssueRecord,
  type PullRecord,
  type ReleaseRecord,
  type RepoRef,
  type ReviewRecord,
} from './github-records.ts';
import { apiUrlOf, graphqlUrlOf, repositoriesOf, type GitHubSettings } from './github-settings.ts';

/** The record kinds walked per repository, parents before their comments. */
export const STREAM_KINDS = ['stargazers', 'forks', 'issues', 'issue-events', 'issue-comments', 'pulls', 'review-comments', 'releases', 'discussions'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

export const streamName = (repository: string, kind: StreamKind) => `${repository}:${kind}`;

export function parseStream(stream: string): { repository: string; kind: StreamKind } {
  const at = stream.lastIndexOf(':');
  const repository = stream.slice(0, at);
  const kind = stream.slice(at + 1) as StreamKind;
  if (at < 0 || !/^[^/]+\/[^/]+$/.test(repository) || !STREAM_KINDS.includes(kind)) throw new Error(`Unknown GitHub stream "${stream}"`);
  return { repository, kind };
}

/**
 * Where a stream stands. `next`: the page to read (a path under the API root, from GitHub's Link header);
 * null when a run starts. `since`: the high-water mark of the last finished run (updated_at), and `top` the
 * highest seen in this run. `last`: for lists GitHub only gives oldest first (stargazers, forks), the last
 * page read, where the next run starts again.
 */
interface Checkpoint {
  repo?: RepoRef;
  total?: number | null;
  next?: string | null;
  since?: string | null;
  top?: string | null;
  /** The records at `since` (and at `top`), already read: GitHub's `since` includes its own second. */
  sinceIds?: (number | string)[];
  topIds?: (number | string)[];
  last?: string | null;
  /** How many records of `last` were read. */
  seen?: number;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- REST answers are GitHub's documented records, read field by field */
type Json = Record<string, any>;

export interface StreamContext {
  client: GitHubClient;
  settings: GitHubSettings;
  access: PlatformAccess;
  options: ClientOptions;
}

async function get(ctx: StreamContext, url: string, accept?: string): Promise<{ data: any; next: string | null }> {
  try {
    const response = await ctx.client.octokit.request({ method: 'GET', url, headers: accept ? { accept } : {} });
    return { data: response.data, next: nextOf(ctx.settings, response.headers.link) };
  } catch (error) {
    throw toPlatformError(error, ctx.access, { options: ctx.options, credential: ctx.client.credential });
  }
}

/** The Link header's next page, as a path under the API root, so a checkpoint outlives a change of host name. */
function nextOf(settings: GitHubSettings, link: string | undefined): string | null {
  const match = link
    ?.split(',')
    .map((part) => part.match(/<([^>]+)>\s*;\s*rel="?next"?/))
    .find(Boolean);
  if (!match) return null;
  const url = match[1]!;
  const root = apiUrlOf(settings);
  if (url.startsWith(root)) return url.slice(root.length) || '/';
  const parsed = new URL(url);
  const rootPath = new URL(root).pathname.replace(/\/$/, '');
  return parsed.pathname.startsWith(rootPath) ? parsed.pathname.slice(rootPath.length) + parsed.search : parsed.pathname + parsed.search;
}

/** Moves the run's high-water mark; false when the record was read by the last run, unchanged since. */
function mark(state: Checkpoint, saved: Checkpoint, at: string, id: number | string): boolean {
  if (!state.top || at > state.top) {
    state.top = at;
    state.topIds = [id];
  } else if (at === state.top && !state.topIds?.includes(id)) state.topIds = [...(state.topIds ?? []), id];
  return !(at === saved.since && saved.sinceIds?.includes(id));
}

/** The repository, read again at the start of each run: its name may have changed, and it says how many stars and forks it has. */
async function repositoryOf(ctx: StreamContext, repository: string): Promise<Json> {
  return (await get(ctx, `/repos/${repository}`)).data as Json;
}

export async function streamPage(ctx: StreamContext, stream: string, saved: JsonValue | null): Promise<StreamPage> {
  const { repository, kind } = parseStream(stream);
  const checkpoint = (saved && typeof saved === 'object' && !Array.isArray(saved) ? saved : {}) as Checkpoint;
  let repo = checkpoint.repo;
  let total = checkpoint.total ?? null;
  if (!repo || !checkpoint.next) {
    const data = await repositoryOf(ctx, repository);
    repo = { id: data.id, full_name: data.full_name, html_url: data.html_url };
    total = kind === 'stargazers' ? (data.stargazers_count ?? null) : kind === 'forks' ? (data.forks_count ?? null) : null;
  }
  const builder = new TranslationBuilder(ctx.settings);
  const state: Checkpoint = { ...checkpoint, repo, total };
  const full = repo.full_name;
  let done: boolean;
  // The platform's records read for the first time (the stream's progress, compared with `total`).
  let read = 0;

  switch (kind) {
    case 'stargazers':
    case 'forks': {
      // Oldest first: a new run reads the last page again (its records are the same activities) and goes on from there.
      const first = kind === 'stargazers' ? `/repos/${full}/stargazers?per_page=100` : `/repos/${full}/forks?sort=oldest&per_page=100`;
      const url = checkpoint.next ?? checkpoint.last ?? first;
      let answer: { data: any; next: string | null };
      try {
        answer = await get(ctx, url, kind === 'stargazers' ? 'application/vnd.github.star+json' : undefined);
      } catch (error) {
        // GitHub pages a long list only so far (a 422 past the last page it serves); later records come by delivery.
        if ((error as { status?: number }).status !== 422) throw error;
        builder.skip(`${kind} of ${full}: GitHub lists no further (${(error as Error).message.split(' - ')[0]})`);
        state.next = null;
        return {
          translation: builder.translation,
          checkpoint: state as unknown as JsonValue,
          done: true,
          total,
          records: 0,
          pauseUntil: ctx.client.pauseUntil,
        };
      }
      const { data, next } = answer;
      const records = data as Json[];
      // The records of the last page already read (if none was removed since, the same ones).
      const skip = !checkpoint.next && checkpoint.last === url ? (checkpoint.seen ?? 0) : 0;
      for (const record of records.slice(skip)) {
        read += 1;
        if (kind === 'stargazers') builder.star(repo, record.user as GitHubUserRef, record.starred_at as string);
        else builder.fork(repo, record as ForkRecord);
      }
      state.last = url;
      state.seen = records.length;
      state.next = next;
      done = next === null;
      break;
    }
    case 'issues':
    case 'issue-comments':
    case 'review-comments': {
      // GitHub filters these by `since` (updated at or after) and sorts them oldest update first.
      const path = {
        issues: `/repos/${full}/issues?state=all&`,
        'issue-comments': `/repos/${full}/issues/comments?`,
        'review-comments': `/repos/${full}/pulls/comments?`,
      }[kind];
      const url =
        checkpoint.next ?? `${path}sort=updated&direction=asc&per_page=100${checkpoint.since ? `&since=${encodeURIComponent(checkpoint.since)}` : ''}`;
      const { data, next } = await get(ctx, url);
      for (const record of data as Json[]) {
        if (!mark(state, checkpoint, record.updated_at, record.id)) continue;
        if (kind === 'issues') {
          // The issue list holds pull requests too; they come from the pull request stream.
          if (record.pull_request) continue;
          // Who closed an issue is not in the list (only in a single issue's answer): closings come from the issue events.
          read += 1;
          builder.issueOpened(repo, record as IssueRecord);
          continue;
        }
        read += 1;
        const number = numberOfUrl(kind === 'issue-comments' ? record.issue_url : record.pull_request_url);
        if (number === null) {
          builder.skip(`comment ${record.id}: no issue number`);
          continue;
        }
        if (kind === 'issue-comments') builder.issueComment(repo, record as CommentRecord, number, /\/pull\/\d+/.test(record.html_url ?? ''));
        else builder.reviewComment(repo, number, record as CommentRecord);
      }
      done = finish(state, next);
      break;
    }
    case 'issue-events': {
      // The repository's issue events, for its closings: the event says who closed the issue. GitHub's reference
      // does not say in which order it lists them: a page newest first lets a run stop at the last run's mark,
      // one oldest first is read to the list's end, passing over what is older than the mark.
      const url = checkpoint.next ?? `/repos/${full}/issues/events?per_page=100`;
      let answer: { data: any; next: string | null };
      try {
        answer = await get(ctx, url);
      } catch (error) {
        // Like long lists of stars, GitHub pages these only so far; later closings come by delivery.
        if ((error as { status?: number }).status !== 422) throw error;
        builder.skip(`issue events of ${full}: GitHub lists no further (${(error as Error).message.split(' - ')[0]})`);
        done = finish(state, null);
        break;
      }
      const events = answer.data as Json[];
      const newestFirst = events.length < 2 || events[0]!.created_at >= events.at(-1)!.created_at;
      let reachedMark = false;
      for (const event of events) {
        if (checkpoint.since && event.created_at < checkpoint.since) {
          if (newestFirst) {
            reachedMark = true;
            break;
          }
          continue;
        }
        if (!mark(state, checkpoint, event.created_at, event.id)) continue;
        const issue = event.issue as IssueRecord | null | undefined;
        // Only the closing that holds now: an issue closed, reopened and closed again is one closing, the last.
        if (event.event !== 'closed' || !issue || (issue as Json).pull_request || issue.closed_at !== event.created_at) continue;
        read += 1;
        builder.issueClosed(repo, issue, event.actor as GitHubUserRef | null);
      }
      done = finish(state, reachedMark ? null : answer.next);
      break;
    }
    case 'pulls':
    case 'releases': {
      // Newest first, without `since`: a run stops at the first record older than the last run's mark.
      const first = kind === 'pulls' ? `/repos/${full}/pulls?state=all&sort=updated&direction=desc&per_page=30` : `/repos/${full}/releases?per_page=100`;
      const url = checkpoint.next ?? first;
      const { data, next } = await get(ctx, url);
      let reachedMark = false;
      for (const record of data as Json[]) {
        const at = (kind === 'pulls' ? record.updated_at : (record.published_at ?? record.created_at)) as string;
        if (checkpoint.since && at < checkpoint.since) {
          reachedMark = true;
          break;
        }
        if (!mark(state, checkpoint, at, record.id)) continue;
        read += 1;
        if (kind === 'releases') {
          builder.release(repo, record as ReleaseRecord);
          continue;
        }
        const pull = record as PullRecord;
        builder.pullOpened(repo, pull);
        if (pull.merged_at) builder.pullMerged(repo, pull);
        let reviews: string | null = `/repos/${full}/pulls/${pull.number}/reviews?per_page=100`;
        while (reviews) {
          const answer = await get(ctx, reviews);
          for (const review of answer.data as ReviewRecord[]) builder.review(repo, pull.number, review);
          reviews = answer.next;
        }
      }
      done = finish(state, reachedMark ? null : next);
      break;
    }
    case 'discussions': {
      const [owner, name] = full.split('/') as [string, string];
      const answer = await graphql<DiscussionsAnswer>(ctx, DISCUSSIONS_QUERY, { owner, name, cursor: checkpoint.next ?? null, first: 25 });
      const discussions = answer.repository?.discussions;
      if (!discussions) throw new Error(`GitHub's GraphQL API does not know the repository ${full}`);
      state.total = discussions.totalCount;
      let reachedMark = false;
      for (const node of discussions.nodes) {
        if (checkpoint.since && node.updatedAt < checkpoint.since) {
          reachedMark = true;
          break;
        }
        if (!mark(state, checkpoint, node.updatedAt, node.databaseId)) continue;
        read += 1;
        builder.discussion(repo, asDiscussionRecord(node));
        for (const comment of await allComments(ctx, full, node)) {
          builder.discussionComment(repo, node.databaseId, asDiscussionRecord(comment));
          for (const reply of await allReplies(ctx, comment)) builder.discussionComment(repo, node.databaseId, asDiscussionRecord(reply));
        }
      }
      done = finish(state, reachedMark || !discussions.pageInfo.hasNextPage ? null : discussions.pageInfo.endCursor);
      break;
    }
  }
  return {
    translation: builder.translation,
    checkpoint: state as unknown as JsonValue,
    done,
    total: state.total ?? null,
    records: read,
    pauseUntil: ctx.client.pauseUntil,
  };
}

/** GitHub's GraphQL endpoint: /graphql on github.com, /api/graphql on Enterprise Server. */
function graphqlOf(ctx: StreamContext) {
  return ctx.client.octokit.graphql.defaults({ url: graphqlUrlOf(ctx.settings) });
}

async function graphql<T>(ctx: StreamContext, query: string, variables: Record<string, unknown>): Promise<T> {
  try {
    return await graphqlOf(ctx)<T>(query, variables);
  } catch (error) {
    throw toPlatformError(error, ctx.access, { options: ctx.options, credential: ctx.client.credential });
  }
}

/**
 * Every comment of a discussion: the page's, then the rest by cursor, a hundred a request. Only a long
 * discussion costs requests of its own; a limit met in between makes the whole page be read again later
 * (its records are the same activities).
 */
async function allComments(ctx: StreamContext, full: string, discussion: DiscussionNode): Promise<CommentNode[]> {
  const comments = [...discussion.comments.nodes];
  let cursor = moreAfter(discussion.comments);
  const [owner, name] = full.split('/') as [string, string];
  while (cursor && discussion.number !== undefined) {
    const answer = await graphql<DiscussionCommentsAnswer>(ctx, DISCUSSION_COMMENTS_QUERY, { owner, name, number: discussion.number, cursor, first: 100 });
    const page = answer.repository?.discussion?.comments;
    // Removed since the page was read: what was read stays.
    if (!page) break;
    comments.push(...page.nodes);
    cursor = moreAfter(page);
  }
  return comments;
}

/** Every reply to a comment: the page's, then the rest by cursor. */
async function allReplies(ctx: StreamContext, comment: CommentNode): Promise<ReplyNode[]> {
  const replies = [...(comment.replies?.nodes ?? [])];
  let cursor = moreAfter(comment.replies);
  while (cursor && comment.id) {
    const answer = await graphql<CommentRepliesAnswer>(ctx, COMMENT_REPLIES_QUERY, { id: comment.id, cursor, first: 100 });
    const page = answer.node?.replies;
    if (!page) break;
    replies.push(...page.nodes);
    cursor = moreAfter(page);
  }
  return replies;
}

/** Goes on to `next`, or ends the run: the next one starts from the highest mark seen. */
function finish(state: Checkpoint, next: string | null): boolean {
  state.next = next;
  if (next !== null) return false;
  if (state.top) {
    state.since = state.top;
    state.sinceIds = state.topIds ?? [];
  }
  state.top = null;
  state.topIds = [];
  return true;
}

/** The streams of every repository followed: the listed ones, or all of the organization's. */
export async function listStreams(ctx: StreamContext): Promise<string[]> {
  const listed = repositoriesOf(ctx.settings);
  let repositories: string[];
  if (listed) repositories = listed;
  else {
    const organization = (ctx.settings as { organization: string }).organization;
    repositories = [];
    let url: string | null = `/orgs/${organization}/repos?type=all&sort=full_name&per_page=100`;
    while (url) {
      const answer: { data: any; next: string | null } = await get(ctx, url);
      for (const repository of answer.data as Json[]) repositories.push(repository.full_name as string);
      url = answer.next;
    }
  }
  return repositories.flatMap((repository) => STREAM_KINDS.map((kind) => streamName(repository, kind)));
}
