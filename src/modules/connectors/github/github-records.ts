import type { ActivityPush, Translation } from '../connector-kind.ts';
import { personOf, type GitHubUserRef } from './github-people.ts';
import type { GitHubSettings } from './github-settings.ts';

/**
 * GitHub records as activities. Deliveries and the backfill both go through these builders, so one star,
 * issue or comment seen both ways is the same activity (same `id`, same content).
 *
 * Issues and pull requests are named by repository ID and number, not by their own IDs: a comment (in a
 * delivery and in the repository's comment list) names its issue or pull request only by number, and a
 * comment's parent must be the exact activity ID of what it answers.
 */

/** The repository a record belongs to: its ID (stable across renames) and its full name (the activity's subSource). */
export interface RepoRef {
  id: number;
  full_name: string;
  html_url: string;
}

export interface IssueRecord {
  number: number;
  title?: string | null;
  body?: string | null;
  html_url: string;
  created_at: string;
  closed_at?: string | null;
  user?: GitHubUserRef | null;
  pull_request?: unknown;
}

export interface CommentRecord {
  id: number;
  body?: string | null;
  html_url: string;
  created_at: string;
  user?: GitHubUserRef | null;
}

export interface PullRecord {
  number: number;
  title?: string | null;
  body?: string | null;
  html_url: string;
  created_at: string;
  merged_at?: string | null;
  user?: GitHubUserRef | null;
}

export interface ReviewRecord {
  id: number;
  body?: string | null;
  html_url: string;
  state?: string | null;
  submitted_at?: string | null;
  user?: GitHubUserRef | null;
}

export interface ReleaseRecord {
  id: number;
  name?: string | null;
  tag_name: string;
  body?: string | null;
  html_url: string;
  published_at?: string | null;
  draft?: boolean;
  author?: GitHubUserRef | null;
}

/** A discussion or one of its comments, in the webhook's shape (the GraphQL answer is turned into it). */
export interface DiscussionRecord {
  id: number;
  title?: string | null;
  body?: string | null;
  html_url: string;
  created_at: string;
  user?: GitHubUserRef | null;
}

export interface ForkRecord {
  id: number;
  full_name: string;
  html_url: string;
  created_at: string;
  owner?: GitHubUserRef | null;
}

export interface CommitRecord {
  id: string;
  message?: string | null;
  timestamp: string;
  url: string;
  distinct?: boolean;
}

/** Long bodies are cut: the activity keeps what is enough to read and to find topics in. */
const MAX_TEXT = 5_000;

function text(value: string | null | undefined): { type: 'markdown'; value: string } | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  return { type: 'markdown', value: trimmed.length > MAX_TEXT ? `${trimmed.slice(0, MAX_TEXT - 1)}…` : trimmed };
}

function title(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  return trimmed.length > 500 ? `${trimmed.slice(0, 499)}…` : trimmed;
}

export const issueId = (repo: RepoRef, number: number) => `issue:${repo.id}:${number}`;
export const pullId = (repo: RepoRef, number: number) => `pr:${repo.id}:${number}`;

/** Issue and pull-request numbers share one sequence: the number in a comment's URL names either. */
export function numberOfUrl(url: string | null | undefined): number | null {
  const match = url?.match(/\/(?:issues|pull|pulls)\/(\d+)(?:[/#?]|$)/);
  return match ? Number(match[1]) : null;
}

/** Collects a page's or a delivery's activities, and what was left out and why. */
export class TranslationBuilder {
  readonly translation: Translation = { users: [], activities: [], skipped: [] };

  constructor(private readonly settings: GitHubSettings) {}

  skip(reason: string): void {
    this.translation.skipped.push(reason);
  }

  private add(user: GitHubUserRef | null | undefined, what: string, activity: Omit<ActivityPush, 'user'>): void {
    const person = personOf(user, this.settings);
    if ('skipped' in person) {
      this.skip(`${what}: ${person.skipped}`);
      return;
    }
    this.translation.activities.push({ ...activity, user: person.user });
  }

  star(repo: RepoRef, user: GitHubUserRef | null | undefined, starredAt: string | null | undefined): void {
    if (!user) return this.skip(`star of ${repo.full_name}: no user`);
    this.add(user, `star of ${repo.full_name}`, {
      id: `star:${repo.id}:${user.id}`,
      activityType: 'starred_repo',
      timestamp: starredAt ?? null,
      // A star has no page of its own: the repository's.
      url: repo.html_url,
      subSource: repo.full_name,
    });
  }

  fork(repo: RepoRef, fork: ForkRecord): void {
    this.add(fork.owner, `fork ${fork.full_name}`, {
      id: `fork:${fork.id}`,
      activityType: 'forked_repo',
      activityTitle: fork.full_name,
      timestamp: fork.created_at,
      url: fork.html_url,
      subSource: repo.full_name,
    });
  }

  issueOpened(repo: RepoRef, issue: IssueRecord): void {
    this.add(issue.user, `issue ${repo.full_name}#${issue.number}`, {
      id: issueId(repo, issue.number),
      activityType: 'issue_opened',
      activityTitle: title(issue.title),
      content: text(issue.body),
      timestamp: issue.created_at,
      url: issue.html_url,
      subSource: repo.full_name,
    });
  }

  /** Credited to who closed it (a delivery's sender, a listed issue's `closed_by`). */
  issueClosed(repo: RepoRef, issue: IssueRecord, closer: GitHubUserRef | null | undefined): void {
    if (!issue.closed_at) return this.skip(`issue ${repo.full_name}#${issue.number}: not closed`);
    this.add(closer, `closing of ${repo.full_name}#${issue.number}`, {
      id: `issue-closed:${repo.id}:${issue.number}`,
      activityType: 'issue_closed',
      activityTitle: title(issue.title),
      timestamp: issue.closed_at,
      url: issue.html_url,
      subSource: repo.full_name,
      parentActivity: { id: issueId(repo, issue.number), activityType: 'issue_opened' },
    });
  }

  /** A comment in an issue's or a pull request's conversation: both are "issue comments" to GitHub. */
  issueComment(repo: RepoRef, comment: CommentRecord, number: number, onPullRequest: boolean): void {
    this.add(comment.user, `comment ${comment.id} on ${repo.full_name}#${number}`, {
      id: `issue-comment:${comment.id}`,
      activityType: onPullRequest ? 'pr_comment' : 'issue_comment',
      content: text(comment.body),
      timestamp: comment.created_at,
      url: comment.html_url,
      subSource: repo.full_name,
      parentActivity: onPullRequest ? { id: pullId(repo, number), activityType: 'pr_opened' } : { id: issueId(repo, number), activityType: 'issue_opened' },
    });
  }

  pullOpened(repo: RepoRef, pull: PullRecord): void {
    this.add(pull.user, `pull request ${repo.full_name}#${pull.number}`, {
      id: pullId(repo, pull.number),
      activityType: 'pr_opened',
      activityTitle: title(pull.title),
      content: text(pull.body),
      timestamp: pull.created_at,
      url: pull.html_url,
      subSource: repo.full_name,
    });
  }

  /** Credited to the pull request's author: their contribution was merged (a listed pull request does not say who merged it). */
  pullMerged(repo: RepoRef, pull: PullRecord): void {
    if (!pull.merged_at) return this.skip(`pull request ${repo.full_name}#${pull.number}: closed without merging`);
    this.add(pull.user, `merge of ${repo.full_name}#${pull.number}`, {
      id: `pr-merged:${repo.id}:${pull.number}`,
      activityType: 'pr_merged',
      activityTitle: title(pull.title),
      timestamp: pull.merged_at,
      url: pull.html_url,
      subSource: repo.full_name,
      parentActivity: { id: pullId(repo, pull.number), activityType: 'pr_opened' },
    });
  }

  review(repo: RepoRef, number: number, review: ReviewRecord): void {
    if (!review.submitted_at || review.state?.toUpperCase() === 'PENDING') {
      return this.skip(`review ${review.id} on ${repo.full_name}#${number}: not submitted`);
    }
    this.add(review.user, `review ${review.id} on ${repo.full_name}#${number}`, {
      id: `pr-review:${review.id}`,
      activityType: 'pr_review',
      activityTitle: review.state ? review.state.toLowerCase().replace(/_/g, ' ') : null,
      content: text(review.body),
      timestamp: review.submitted_at,
      url: review.html_url,
      subSource: repo.full_name,
      parentActivity: { id: pullId(repo, number), activityType: 'pr_opened' },
    });
  }

  reviewComment(repo: RepoRef, number: number, comment: CommentRecord): void {
    this.add(comment.user, `review comment ${comment.id} on ${repo.full_name}#${number}`, {
      id: `pr-review-comment:${comment.id}`,
      activityType: 'pr_comment',
      content: text(comment.body),
      timestamp: comment.created_at,
      url: comment.html_url,
      subSource: repo.full_name,
      parentActivity: { id: pullId(repo, number), activityType: 'pr_opened' },
    });
  }

  release(repo: RepoRef, release: ReleaseRecord): void {
    if (release.draft || !release.published_at) return this.skip(`release ${release.id} of ${repo.full_name}: a draft`);
    this.add(release.author, `release ${release.tag_name} of ${repo.full_name}`, {
      id: `release:${release.id}`,
      activityType: 'release_published',
      activityTitle: title(release.name) ?? release.tag_name,
      content: text(release.body),
      timestamp: release.published_at,
      url: release.html_url,
      subSource: repo.full_name,
    });
  }

  discussion(repo: RepoRef, discussion: DiscussionRecord): void {
    this.add(discussion.user, `discussion ${discussion.id} of ${repo.full_name}`, {
      id: `discussion:${discussion.id}`,
      activityType: 'discussion_opened',
      activityTitle: title(discussion.title),
      content: text(discussion.body),
      timestamp: discussion.created_at,
      url: discussion.html_url,
      subSource: repo.full_name,
    });
  }

  discussionComment(repo: RepoRef, discussionId: number, comment: DiscussionRecord): void {
    this.add(comment.user, `discussion comment ${comment.id} of ${repo.full_name}`, {
      id: `discussion-comment:${comment.id}`,
      activityType: 'discussion_comment',
      content: text(comment.body),
      timestamp: comment.created_at,
      url: comment.html_url,
      subSource: repo.full_name,
      parentActivity: { id: `discussion:${discussionId}`, activityType: 'discussion_opened' },
    });
  }

  commit(repo: RepoRef, commit: CommitRecord, author: GitHubUserRef | null | undefined): void {
    const message = commit.message?.trim() ?? '';
    this.add(author, `commit ${commit.id.slice(0, 12)} to ${repo.full_name}`, {
      id: `commit:${commit.id}`,
      activityType: 'commit',
      activityTitle: title(message.split('\n', 1)[0]),
      content: text(message),
      timestamp: commit.timestamp,
      url: commit.url,
      subSource: repo.full_name,
    });
  }
}
