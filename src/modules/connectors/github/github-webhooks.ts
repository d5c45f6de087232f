import { verify as verifySignature } from '@octokit/webhooks-methods';
import type { Delivery, Headers, Translation } from '../connector-kind.ts';
import type { GitHubUserRef } from './github-people.ts';
import { TranslationBuilder, type RepoRef } from './github-records.ts';
import { repositoriesOf, type GitHubSecrets, type GitHubSettings } from './github-settings.ts';

function header(headers: Headers, name: string): string | null {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() || null;
}

/** GitHub signs the raw body with the webhook secret: HMAC-SHA256 in `X-Hub-Signature-256`. */
export async function verifyDelivery(raw: Buffer, headers: Headers, secrets: GitHubSecrets): Promise<boolean> {
  const signature = header(headers, 'x-hub-signature-256');
  const secret = secrets.webhookSecret;
  if (!signature || !secret || !signature.startsWith('sha256=')) return false;
  try {
    return await verifySignature(secret, raw.toString('utf8'), signature);
  } catch {
    return false;
  }
}

export const deliveryIdOf = (headers: Headers) => header(headers, 'x-github-delivery');
export const eventOf = (headers: Headers) => header(headers, 'x-github-event');

/* eslint-disable @typescript-eslint/no-explicit-any -- webhook bodies are GitHub's documented payloads, read field by field */
type Body = Record<string, any>;

/** The events followed, by `event.action` (or the event alone when it has no action). */
const HANDLERS: Record<string, (b: TranslationBuilder, repo: RepoRef, body: Body, settings: GitHubSettings) => void> = {
  'star.created': (b, repo, body) => b.star(repo, body.sender, body.starred_at),
  fork: (b, repo, body) => b.fork(repo, body.forkee),
  'issues.opened': (b, repo, body) => b.issueOpened(repo, body.issue),
  'issues.closed': (b, repo, body) => b.issueClosed(repo, body.issue, body.sender),
  'issue_comment.created': (b, repo, body) => b.issueComment(repo, body.comment, body.issue.number, body.issue.pull_request != null),
  'pull_request.opened': (b, repo, body) => b.pullOpened(repo, body.pull_request),
  'pull_request.closed': (b, repo, body) => b.pullMerged(repo, body.pull_request),
  'pull_request_review.submitted': (b, repo, body) => b.review(repo, body.pull_request.number, body.review),
  'pull_request_review_comment.created': (b, repo, body) => b.reviewComment(repo, body.pull_request.number, body.comment),
  'discussion.created': (b, repo, body) => b.discussion(repo, body.discussion),
  'discussion_comment.created': (b, repo, body) => b.discussionComment(repo, body.discussion.id, body.comment),
  'release.published': (b, repo, body) => b.release(repo, body.release),
  push: (b, repo, body, settings) => {
    if (!settings.commits) return b.skip('push: commits are not recorded (settings.commits is off)');
    const sender = body.sender as GitHubUserRef | undefined;
    for (const commit of (body.commits ?? []) as Body[]) {
      // A commit already pushed elsewhere in the repository (a branch made from another) is not new work.
      if (commit.distinct === false) continue;
      // A push names its commits' authors by login, without the numeric ID people are keyed by: only the pusher's own commits are credited.
      if (!sender || commit.author?.username !== sender.login) {
        b.skip(`commit ${String(commit.id).slice(0, 12)}: its author ${commit.author?.username ?? commit.author?.name ?? '(unknown)'} is not the pusher`);
        continue;
      }
      b.commit(repo, commit as never, sender);
    }
  },
};

/** The pushes of one delivery. Everything GitHub sends that is not followed is skipped, with its name. */
export function translateDelivery(delivery: Delivery, settings: GitHubSettings): Translation {
  const builder = new TranslationBuilder(settings);
  const body = (delivery.body ?? {}) as Body;
  const name = typeof body.action === 'string' ? `${delivery.event}.${body.action}` : delivery.event;
  const handler = HANDLERS[name] ?? (typeof body.action === 'string' ? undefined : HANDLERS[delivery.event]);
  if (!handler) {
    builder.skip(`${name}: not followed`);
    return builder.translation;
  }
  const repository = body.repository as RepoRef | undefined;
  if (!repository || typeof repository.id !== 'number') {
    builder.skip(`${name}: no repository`);
    return builder.translation;
  }
  const followed = repositoriesOf(settings);
  if (followed && !followed.some((full) => full.toLowerCase() === repository.full_name.toLowerCase())) {
    builder.skip(`${name}: ${repository.full_name} is not one of the connector's repositories`);
    return builder.translation;
  }
  if ('organization' in settings && repository.full_name.split('/')[0]!.toLowerCase() !== settings.organization.toLowerCase()) {
    builder.skip(`${name}: ${repository.full_name} is not in ${settings.organization}`);
    return builder.translation;
  }
  handler(builder, { id: repository.id, full_name: repository.full_name, html_url: repository.html_url }, body, settings);
  return builder.translation;
}
