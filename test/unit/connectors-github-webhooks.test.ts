import { describe, expect, it } from 'vitest';
import type { ActivityPush } from '../../src/modules/connectors/connector-kind.ts';
import { githubConnector, type GitHubSettings } from '../../src/modules/connectors/github/github-connector.ts';
import { signedDelivery, webhookEventNames, webhookExamples } from '../stand-ins/github-webhooks.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const settings: GitHubSettings = { organization: 'Codertocat' };
const anyRepo = (body: Json): GitHubSettings => ({ repositories: [body.repository.full_name] });

const translate = (event: string, body: Json, given: GitHubSettings = anyRepo(body)) =>
  githubConnector.receiver!.translate({ event, body, headers: { 'x-github-event': event } }, given);

interface Row {
  event: string;
  action: string | null;
  /** Published examples, or examples made from them where GitHub publishes none (named in `derived`). */
  bodies: () => Json[];
  derived?: string;
  type: string | ((body: Json) => string);
  id: (body: Json) => string;
  person: (body: Json) => Json;
  timestamp: (body: Json) => string;
  url: (body: Json) => string;
  parent?: (body: Json) => string;
}

const issueOf = (b: Json) => `issue:${b.repository.id}:${b.issue.number}`;
const pullOf = (b: Json, number: number) => `pr:${b.repository.id}:${number}`;

const ROWS: Row[] = [
  {
    event: 'star',
    action: 'created',
    bodies: () => webhookExamples('star', 'created'),
    type: 'starred_repo',
    id: (b) => `star:${b.repository.id}:${b.sender.id}`,
    person: (b) => b.sender,
    timestamp: (b) => b.starred_at,
    url: (b) => b.repository.html_url,
  },
  {
    // The published forks are into an organization (skipped, below); the same deliveries by a person's account.
    event: 'fork',
    action: null,
    derived: 'forkee owner made a User',
    bodies: () => webhookExamples('fork').map((b) => ({ ...b, forkee: { ...b.forkee, owner: { ...b.forkee.owner, type: 'User' } } })),
    type: 'forked_repo',
    id: (b) => `fork:${b.forkee.id}`,
    person: (b) => b.forkee.owner,
    timestamp: (b) => b.forkee.created_at,
    url: (b) => b.forkee.html_url,
  },
  {
    event: 'issues',
    action: 'opened',
    bodies: () => webhookExamples('issues', 'opened'),
    type: 'issue_opened',
    id: issueOf,
    person: (b) => b.issue.user,
    timestamp: (b) => b.issue.created_at,
    url: (b) => b.issue.html_url,
  },
  {
    event: 'issues',
    action: 'closed',
    derived: 'GitHub publishes no issues.closed example: the opened ones, closed',
    bodies: () =>
      webhookExamples('issues', 'opened').map((b) => ({ ...b, action: 'closed', issue: { ...b.issue, state: 'closed', closed_at: '2019-05-16T10:00:00Z' } })),
    type: 'issue_closed',
    id: (b) => `issue-closed:${b.repository.id}:${b.issue.number}`,
    person: (b) => b.sender,
    timestamp: (b) => b.issue.closed_at,
    url: (b) => b.issue.html_url,
    parent: issueOf,
  },
  {
    event: 'issue_comment',
    action: 'created',
    bodies: () => webhookExamples('issue_comment', 'created'),
    type: 'issue_comment',
    id: (b) => `issue-comment:${b.comment.id}`,
    person: (b) => b.comment.user,
    timestamp: (b) => b.comment.created_at,
    url: (b) => b.comment.html_url,
    parent: issueOf,
  },
  {
    event: 'issue_comment',
    action: 'created',
    derived: 'the published comments, on a pull request',
    bodies: () =>
      webhookExamples('issue_comment', 'created').map((b) => ({
        ...b,
        issue: { ...b.issue, pull_request: { url: 'https://api.github.com/repos/x/y/pulls/1' } },
      })),
    type: 'pr_comment',
    id: (b) => `issue-comment:${b.comment.id}`,
    person: (b) => b.comment.user,
    timestamp: (b) => b.comment.created_at,
    url: (b) => b.comment.html_url,
    parent: (b) => pullOf(b, b.issue.number),
  },
  {
    event: 'pull_request',
    action: 'opened',
    bodies: () => webhookExamples('pull_request', 'opened'),
    type: 'pr_opened',
    id: (b) => pullOf(b, b.pull_request.number),
    person: (b) => b.pull_request.user,
    timestamp: (b) => b.pull_request.created_at,
    url: (b) => b.pull_request.html_url,
  },
  {
    event: 'pull_request',
    action: 'closed',
    derived: 'the published closed ones are not merged: the same, merged',
    bodies: () =>
      webhookExamples('pull_request', 'closed').map((b) => ({ ...b, pull_request: { ...b.pull_request, merged: true, merged_at: '2019-05-16T11:00:00Z' } })),
    type: 'pr_merged',
    id: (b) => `pr-merged:${b.repository.id}:${b.pull_request.number}`,
    person: (b) => b.pull_request.user,
    timestamp: (b) => b.pull_request.merged_at,
    url: (b) => b.pull_request.html_url,
    parent: (b) => pullOf(b, b.pull_request.number),
  },
  {
    event: 'pull_request_review',
    action: 'submitted',
    bodies: () => webhookExamples('pull_request_review', 'submitted'),
    type: 'pr_review',
    id: (b) => `pr-review:${b.review.id}`,
    person: (b) => b.review.user,
    timestamp: (b) => b.review.submitted_at,
    url: (b) => b.review.html_url,
    parent: (b) => pullOf(b, b.pull_request.number),
  },
  {
    event: 'pull_request_review_comment',
    action: 'created',
    bodies: () => webhookExamples('pull_request_review_comment', 'created'),
    type: 'pr_comment',
    id: (b) => `pr-review-comment:${b.comment.id}`,
    person: (b) => b.comment.user,
    timestamp: (b) => b.comment.created_at,
    url: (b) => b.comment.html_url,
    parent: (b) => pullOf(b, b.pull_request.number),
  },
  {
    event: 'discussion',
    action: 'created',
    bodies: () => webhookExamples('discussion', 'created'),
    type: 'discussion_opened',
    id: (b) => `discussion:${b.discussion.id}`,
    person: (b) => b.discussion.user,
    timestamp: (b) => b.discussion.created_at,
    url: (b) => b.discussion.html_url,
  },
  {
    event: 'discussion_comment',
    action: 'created',
    bodies: () => webhookExamples('discussion_comment', 'created'),
    type: 'discussion_comment',
    id: (b) => `discussion-comment:${b.comment.id}`,
    person: (b) => b.comment.user,
    timestamp: (b) => b.comment.created_at,
    url: (b) => b.comment.html_url,
    parent: (b) => `discussion:${b.discussion.id}`,
  },
  {
    event: 'release',
    action: 'published',
    bodies: () => webhookExamples('release', 'published'),
    type: 'release_published',
    id: (b) => `release:${b.release.id}`,
    person: (b) => b.release.author,
    timestamp: (b) => b.release.published_at,
    url: (b) => b.release.html_url,
  },
];

describe('GitHub deliveries, over the published examples', () => {
  it.each(ROWS.map((row) => [`${row.event}${row.action ? `.${row.action}` : ''}${row.derived ? ` (${row.derived})` : ''}`, row] as const))(
    '%s',
    (_name, row) => {
      const bodies = row.bodies();
      expect(bodies.length).toBeGreaterThan(0);
      for (const body of bodies) {
        const { activities, users, skipped } = translate(row.event, body);
        expect(skipped).toEqual([]);
        expect(users).toEqual([]);
        expect(activities).toHaveLength(1);
        const person = row.person(body);
        const expected: Partial<ActivityPush> = {
          id: row.id(body),
          activityType: typeof row.type === 'string' ? row.type : row.type(body),
          timestamp: row.timestamp(body),
          url: row.url(body),
          subSource: body.repository.full_name,
          user: { id: String(person.id), username: person.login, github: person.login, avatarUrl: person.avatar_url },
        };
        if (row.parent) expected.parentActivity = expect.objectContaining({ id: row.parent(body) });
        expect(activities[0]).toMatchObject(expected);
        if (!row.parent) expect(activities[0]!.parentActivity).toBeUndefined();
      }
    },
  );

  it("records the pusher's own commits of a push only when settings.commits is on", () => {
    const bodies = webhookExamples('push').filter((b) => b.commits.length > 0);
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) {
      expect(translate('push', body).activities).toEqual([]);
      expect(translate('push', body).skipped).toEqual(['push: commits are not recorded (settings.commits is off)']);
      const on = translate('push', body, { repositories: [body.repository.full_name], commits: true });
      expect(on.activities.map((a) => a.id)).toEqual(body.commits.map((c: Json) => `commit:${c.id}`));
      expect(on.activities[0]).toMatchObject({
        activityType: 'commit',
        timestamp: body.commits[0].timestamp,
        url: body.commits[0].url,
        subSource: body.repository.full_name,
        user: { id: String(body.sender.id), github: body.sender.login },
      });
      const someoneElse = { ...body, commits: body.commits.map((c: Json) => ({ ...c, author: { ...c.author, username: 'another' } })) };
      const notPusher = translate('push', someoneElse, { repositories: [body.repository.full_name], commits: true });
      expect(notPusher.activities).toEqual([]);
      expect(notPusher.skipped[0]).toMatch(/its author another is not the pusher/);
    }
  });

  it('skips every other published event and action, saying which', () => {
    const followed = new Set([
      'star.created',
      'fork',
      'issues.opened',
      'issues.closed',
      'issue_comment.created',
      'pull_request.opened',
      'pull_request.closed',
      'pull_request_review.submitted',
      'pull_request_review_comment.created',
      'discussion.created',
      'discussion_comment.created',
      'release.published',
      'push',
    ]);
    let checked = 0;
    for (const event of webhookEventNames()) {
      for (const body of webhookExamples(event)) {
        const name = typeof body.action === 'string' ? `${event}.${body.action}` : event;
        if (followed.has(name)) continue;
        const translation = translate(event, body, settings);
        expect(translation.activities, name).toEqual([]);
        expect(translation.skipped, name).toEqual([`${name}: not followed`]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(150);
    // A pull request closed without merging, and forks into an organization, are skipped too.
    for (const body of webhookExamples('pull_request', 'closed')) expect(translate('pull_request', body).skipped[0]).toMatch(/closed without merging/);
    for (const body of webhookExamples('fork')) expect(translate('fork', body).skipped[0]).toMatch(/organization account Octocoders/);
  });

  it('skips bots, or keeps them as people of their own with no GitHub identity', () => {
    const [body] = webhookExamples('issues', 'opened');
    const bot = { ...body!, issue: { ...body!.issue, user: { ...body!.issue.user, id: 49699333, login: 'dependabot[bot]', type: 'Bot' } } };
    const skipped = translate('issues', bot);
    expect(skipped.activities).toEqual([]);
    expect(skipped.skipped).toEqual([`issue ${body!.repository.full_name}#${body!.issue.number}: bot dependabot[bot]`]);
    const kept = translate('issues', bot, { repositories: [body!.repository.full_name], bots: 'keep' });
    expect(kept.activities[0]!.user).toEqual({
      id: 'bot:49699333',
      username: 'dependabot[bot]',
      fullName: 'dependabot[bot]',
      avatarUrl: body!.issue.user.avatar_url,
    });
    // Named like a bot without the type says so.
    const named = { ...body!, issue: { ...body!.issue, user: { ...body!.issue.user, login: 'renovate[bot]', type: 'User' } } };
    expect(translate('issues', named).skipped[0]).toMatch(/bot renovate\[bot\]/);
  });

  it('skips deliveries of repositories the connector does not follow', () => {
    const [body] = webhookExamples('star', 'created');
    expect(translate('star', body!, { repositories: ['someone/else'] }).skipped).toEqual([
      `star.created: ${body!.repository.full_name} is not one of the connector's repositories`,
    ]);
    expect(translate('star', body!, { organization: 'other-org' }).skipped[0]).toMatch(/is not in other-org/);
  });

  it('reads the delivery ID and event from the headers', async () => {
    const delivery = await signedDelivery('star', {}, 's', 'd-1');
    expect(githubConnector.receiver!.deliveryId(delivery.headers)).toBe('d-1');
    expect(githubConnector.receiver!.eventOf(delivery.headers)).toBe('star');
    expect(githubConnector.receiver!.eventOf({})).toBeNull();
    expect(githubConnector.receiver!.deliveryId({})).toBeNull();
  });
});

describe('GitHub delivery signatures', () => {
  it("accepts the signature of the webhook secret, and refuses a bad, missing or other secret's one", async () => {
    const [body] = webhookExamples('star', 'created');
    const secrets = { token: 't', webhookSecret: "It's a Secret to Everybody" };
    const good = await signedDelivery('star', body, secrets.webhookSecret);
    expect(await githubConnector.receiver!.verify(good.raw, good.headers, secrets)).toBe(true);

    const tampered = Buffer.from(good.raw.toString().replace('"created"', '"deleted"'));
    expect(await githubConnector.receiver!.verify(tampered, good.headers, secrets)).toBe(false);
    const other = await signedDelivery('star', body, 'another secret');
    expect(await githubConnector.receiver!.verify(other.raw, other.headers, secrets)).toBe(false);
    const { 'x-hub-signature-256': _dropped, ...unsigned } = good.headers;
    expect(await githubConnector.receiver!.verify(good.raw, unsigned, secrets)).toBe(false);
    expect(await githubConnector.receiver!.verify(good.raw, { ...good.headers, 'x-hub-signature-256': 'sha256=zz' }, secrets)).toBe(false);
    expect(await githubConnector.receiver!.verify(good.raw, { ...good.headers, 'x-hub-signature-256': 'sha1=abc' }, secrets)).toBe(false);
    // No webhook secret set: nothing is accepted.
    expect(await githubConnector.receiver!.verify(good.raw, good.headers, { token: 't' })).toBe(false);
  });
});
