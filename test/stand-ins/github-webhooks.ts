import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sign } from '@octokit/webhooks-methods';
import type { GitHubStandIn } from './github-api.ts';

/**
 * GitHub's published webhook examples (@octokit/webhooks-examples: real deliveries, per event) and a way to
 * deliver one as GitHub does: the JSON body signed with the webhook secret in `X-Hub-Signature-256`.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface ExampleFile {
  name: string;
  examples: Json[];
}

let cache: ExampleFile[] | null = null;

function exampleFiles(): ExampleFile[] {
  if (!cache) {
    const require = createRequire(import.meta.url);
    cache = JSON.parse(readFileSync(require.resolve('@octokit/webhooks-examples/api.github.com/index.json'), 'utf8')) as ExampleFile[];
  }
  return cache;
}

/** Every published example of an event (with the given action, when one is named), each a fresh copy. */
export function webhookExamples(event: string, action?: string): Json[] {
  const file = exampleFiles().find((entry) => entry.name === event);
  if (!file) throw new Error(`No published example of the ${event} event`);
  return file.examples.filter((body) => action === undefined || body.action === action).map((body) => structuredClone(body));
}

/** The names of every event with published examples. */
export function webhookEventNames(): string[] {
  return exampleFiles().map((entry) => entry.name);
}

/** A delivery as GitHub sends it: the raw bytes and the headers, signed with `secret`. */
export async function signedDelivery(event: string, body: unknown, secret: string, deliveryId: string = randomUUID()) {
  const raw = JSON.stringify(body);
  return {
    raw: Buffer.from(raw),
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/stand-in',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-github-hook-id': '1',
      'x-hub-signature-256': await sign(secret, raw),
    } as Record<string, string>,
  };
}

/** Posts a signed delivery to a receiver URL (Hearth's /api/v2/receivers/github/<key>); answers the receiver's response. */
export async function postDelivery(url: string, event: string, body: unknown, secret: string, deliveryId?: string): Promise<Response> {
  const delivery = await signedDelivery(event, body, secret, deliveryId);
  return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.raw });
}

export type StandInEvent =
  | 'star'
  | 'fork'
  | 'issue-opened'
  | 'issue-closed'
  | 'issue-comment'
  | 'pull-opened'
  | 'pull-merged'
  | 'review'
  | 'review-comment'
  | 'release'
  | 'discussion'
  | 'discussion-comment';

/**
 * The delivery GitHub would send for a record the stand-in also lists (the published example of the event,
 * with the stand-in's repository and record in it): its backfill and this delivery are one activity.
 */
export function standInDelivery(standIn: GitHubStandIn, fullName: string, what: StandInEvent, index: number): { event: string; body: Json } {
  const repository = { ...webhookExamples('star', 'created')[0]!.repository, ...standIn.repository(fullName) };
  const example = (event: string, action?: string) => ({ ...webhookExamples(event, action)[0]!, repository });
  const number = (url: string) => Number(url.split('/').pop());
  switch (what) {
    case 'star': {
      const star = standIn.record(fullName, 'stargazer', index);
      return { event: 'star', body: { ...example('star', 'created'), starred_at: star.starred_at, sender: star.user } };
    }
    case 'fork': {
      const forkee = standIn.record(fullName, 'fork', index);
      return { event: 'fork', body: { ...example('fork'), forkee, sender: forkee.owner } };
    }
    case 'issue-opened':
      return { event: 'issues', body: { ...example('issues', 'opened'), issue: standIn.record(fullName, 'issue', index) } };
    case 'issue-closed':
      return {
        event: 'issues',
        body: {
          ...example('issues', 'opened'),
          action: 'closed',
          issue: standIn.record(fullName, 'issue', index),
          sender: standIn.record(fullName, 'closer', index),
        },
      };
    case 'issue-comment': {
      const comment = standIn.record(fullName, 'issue-comment', index);
      const onPull = /\/pull\/\d+/.test(comment.html_url) ? { pull_request: { url: comment.issue_url.replace('/issues/', '/pulls/') } } : {};
      return { event: 'issue_comment', body: { ...example('issue_comment', 'created'), issue: { number: number(comment.issue_url), ...onPull }, comment } };
    }
    case 'pull-opened':
      return { event: 'pull_request', body: { ...example('pull_request', 'opened'), pull_request: standIn.record(fullName, 'pull', index) } };
    case 'pull-merged':
      return {
        event: 'pull_request',
        body: { ...example('pull_request', 'closed'), pull_request: { ...standIn.record(fullName, 'pull', index), merged: true } },
      };
    case 'review': {
      const review = standIn.record(fullName, 'review', index);
      return {
        event: 'pull_request_review',
        body: { ...example('pull_request_review', 'submitted'), pull_request: standIn.record(fullName, 'pull', index), review },
      };
    }
    case 'review-comment': {
      const comment = standIn.record(fullName, 'review-comment', index);
      return {
        event: 'pull_request_review_comment',
        body: { ...example('pull_request_review_comment', 'created'), pull_request: { number: number(comment.pull_request_url) }, comment },
      };
    }
    case 'release':
      return { event: 'release', body: { ...example('release', 'published'), release: standIn.record(fullName, 'release', index) } };
    case 'discussion':
      return { event: 'discussion', body: { ...example('discussion', 'created'), discussion: standIn.record(fullName, 'discussion', index) } };
    case 'discussion-comment': {
      const discussion = standIn.record(fullName, 'discussion', index);
      return {
        event: 'discussion_comment',
        body: { ...example('discussion_comment', 'created'), discussion, comment: standIn.record(fullName, 'discussion-comment', index) },
      };
    }
  }
}
