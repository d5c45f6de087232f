import { generateKeyPairSync } from 'node:crypto';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { JsonValue } from '../../src/db/schema.ts';
import { CredentialRejected, RateLimitWait, type ActivityPush, type PlatformAccess, type StreamPage } from '../../src/modules/connectors/connector-kind.ts';
import { createGitHubConnector, type GitHubSecrets, type GitHubSettings } from '../../src/modules/connectors/github/github-connector.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { standInDelivery, webhookExamples, type StandInEvent } from '../stand-ins/github-webhooks.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// 5xx answers are tried again at once (plugin-retry's delays in milliseconds), then the sync waits a minute.
// Octokit's throttling spaces GraphQL requests a second apart: on only where limits are checked.
const github = createGitHubConnector({ retryBaseMs: 1, retries: 2, serverErrorWaitMs: 60_000, throttle: false });
const throttled = createGitHubConnector({ retryBaseMs: 1, retries: 2, serverErrorWaitMs: 60_000 });
const clock = new ManualClock('2026-03-01T12:00:00Z');
const access: PlatformAccess = { fetch: (...args) => fetch(...args), now: () => clock.now(), signal: new AbortController().signal, cache: new Map() };
const TOKEN = 'ghp_hearth_test';
const secrets: GitHubSecrets = { token: TOKEN, webhookSecret: 'w' };

let standIn: GitHubStandIn;
let settings: GitHubSettings;

beforeAll(async () => {
  standIn = await startGitHubStandIn({
    repositories: [
      {
        fullName: 'acme/widgets',
        stargazers: 250,
        forks: 3,
        issues: 30,
        issueComments: 12,
        reviewComments: 4,
        reviewsPerPull: 2,
        releases: 3,
        discussions: 30,
        commentsPerDiscussion: 2,
      },
      { fullName: 'acme/gadgets', stargazers: 5 },
    ],
    botEvery: 7,
  });
  settings = { repositories: ['acme/widgets', 'acme/gadgets'], apiUrl: standIn.url, bots: 'skip' };
});

afterAll(async () => {
  await standIn?.stop();
});

async function walk(stream: string, from: JsonValue | null = null, given: GitHubSettings = settings) {
  const pages: StreamPage[] = [];
  let checkpoint = from;
  for (;;) {
    const page = await github.page(stream, checkpoint, given, secrets, access);
    pages.push(page);
    checkpoint = page.checkpoint;
    if (page.done) break;
    if (pages.length > 50) throw new Error('no end');
  }
  return { pages, checkpoint, activities: pages.flatMap((p) => p.translation.activities), skipped: pages.flatMap((p) => p.translation.skipped) };
}

const requestsSince = (mark: number) => standIn.requests.slice(mark).map((r) => r.path);
const repoRef = () => ({
  id: standIn.repositoryId('acme/widgets'),
  full_name: 'acme/widgets',
  html_url: 'https://github.com/acme/widgets',
  node_id: 'x',
  name: 'widgets',
});

describe('GitHub backfill against the stand-in', () => {
  it('names a stream per repository and record kind, parents before their comments', async () => {
    const streams = await github.streams(settings, secrets, access);
    expect(streams.slice(0, 9)).toEqual(
      ['stargazers', 'forks', 'issues', 'issue-events', 'issue-comments', 'pulls', 'review-comments', 'releases', 'discussions'].map(
        (k) => `acme/widgets:${k}`,
      ),
    );
    expect(streams).toHaveLength(18);
    expect(await github.streams({ organization: 'acme', apiUrl: standIn.url }, secrets, access)).toEqual(streams);
  });

  it('pages through every stargazer with the Link header, dated by starred_at, and starts the next run where it ended', async () => {
    const mark = standIn.requests.length;
    const { pages, activities, skipped, checkpoint } = await walk('acme/widgets:stargazers');
    expect(pages.map((p) => p.done)).toEqual([false, false, true]);
    expect(pages[0]!.total).toBe(250);
    expect(requestsSince(mark)).toEqual([
      '/repos/acme/widgets',
      '/repos/acme/widgets/stargazers?per_page=100',
      '/repos/acme/widgets/stargazers?per_page=100&page=2',
      '/repos/acme/widgets/stargazers?per_page=100&page=3',
    ]);
    // Every 7th person is a bot, left out.
    const bots = Array.from({ length: 250 }, (_, i) => i + 1).filter((i) => i % 7 === 0);
    expect(activities).toHaveLength(250 - bots.length);
    expect(skipped).toHaveLength(bots.length);
    expect(skipped[0]).toBe('star of acme/widgets: bot helper7[bot]');
    const repoId = standIn.repositoryId('acme/widgets');
    const person = standIn.person(1);
    expect(activities[0]).toEqual({
      id: `star:${repoId}:${person.id}`,
      activityType: 'starred_repo',
      timestamp: '2024-01-01T00:01:01Z',
      url: 'https://github.com/acme/widgets',
      subSource: 'acme/widgets',
      user: { id: String(person.id), username: person.login, github: person.login, avatarUrl: `https://avatars.githubusercontent.com/u/${person.id}?v=4` },
    });
    expect(new Set(activities.map((a) => a.id)).size).toBe(activities.length);

    // Incremental: three new stars; the last page is read again and only what is new comes.
    standIn.add('acme/widgets', { stargazers: 3 });
    const next = await walk('acme/widgets:stargazers', checkpoint);
    expect(next.pages).toHaveLength(1);
    expect(next.activities.map((a) => a.id)).toEqual([251, 252, 253].filter((i) => i % 7 !== 0).map((i) => `star:${repoId}:${standIn.person(i).id}`));
  });

  it('reads issues without the pull requests GitHub lists with them, their closings from the issue events, and pull requests with their reviews', async () => {
    const repoId = standIn.repositoryId('acme/widgets');
    const issues = await walk('acme/widgets:issues');
    // 30 numbers, every third a pull request; persons 7, 14, 21, 28 are bots.
    const issueNumbers = Array.from({ length: 30 }, (_, i) => i + 1).filter((n) => n % 3 !== 0);
    expect(issues.activities.map((a) => a.id)).toEqual(issueNumbers.filter((n) => n % 7 !== 0).map((n) => `issue:${repoId}:${n}`));
    // The events are listed newest first: the closings of the even issues (the pull requests' are left to the pull requests).
    const events = await walk('acme/widgets:issue-events');
    const closed = events.activities;
    expect(closed.every((a) => a.activityType === 'issue_closed')).toBe(true);
    expect(closed.map((a) => a.id)).toEqual(
      issueNumbers
        .filter((n) => n % 2 === 0 && (n + 1) % 7 !== 0)
        .reverse()
        .map((n) => `issue-closed:${repoId}:${n}`),
    );
    expect(closed.at(-1)).toMatchObject({
      timestamp: '2024-01-01T00:02:30Z',
      parentActivity: { id: `issue:${repoId}:2` },
      user: { id: String(standIn.person(3).id) },
    });
    expect(events.pages.map((p) => p.records)).toEqual([closed.length + events.skipped.length]);

    const pulls = await walk('acme/widgets:pulls');
    const types = (type: string) => pulls.activities.filter((a) => a.activityType === type);
    expect(
      types('pr_opened')
        .map((a) => a.id)
        .sort(),
    ).toEqual([3, 6, 9, 12, 15, 18, 24, 27, 30].map((n) => `pr:${repoId}:${n}`).sort());
    expect(
      types('pr_merged')
        .map((a) => a.id)
        .sort(),
    ).toEqual([6, 12, 18, 24, 30].map((n) => `pr-merged:${repoId}:${n}`).sort());
    // Two reviews of each of the ten, by persons n+3 and n+4: those of 7, 21 and 28 are bots.
    expect(types('pr_review')).toHaveLength(17);
    expect(types('pr_review')[0]).toMatchObject({ parentActivity: { id: `pr:${repoId}:30` }, activityTitle: 'approved' });
    expect(pulls.pages.every((p) => p.translation.activities.length > 0)).toBe(true);
  });

  it('gives a record the same activity by delivery and by backfill', async () => {
    const repository = { ...webhookExamples('star', 'created')[0]!.repository, ...repoRef() };
    const deliver = (event: string, body: Json) => github.receiver!.translate({ event, body: { ...body, repository }, headers: {} }, settings).activities;
    const backfilled = new Map<string, ActivityPush>();
    for (const stream of ['stargazers', 'forks', 'issues', 'issue-events', 'issue-comments', 'pulls', 'review-comments', 'releases', 'discussions']) {
      for (const activity of (await walk(`acme/widgets:${stream}`)).activities) backfilled.set(activity.id as string, activity);
    }
    const same = (delivered: ActivityPush[]) => {
      expect(delivered).toHaveLength(1);
      expect(backfilled.get(delivered[0]!.id as string)).toEqual(delivered[0]);
    };
    // Persons 7, 14, ... are bots: records by others. The issue numbered 8 is closed (by person 9); number 6 is a merged pull request.
    const cases: [StandInEvent, number][] = [
      ['star', 5],
      ['fork', 2],
      ['issue-opened', 8],
      ['issue-closed', 8],
      ['issue-comment', 1],
      ['issue-comment', 3],
      ['pull-opened', 6],
      ['pull-merged', 6],
      ['review', 6],
      ['review-comment', 1],
      ['release', 1],
    ];
    for (const [what, index] of cases) {
      const { event, body } = standInDelivery(standIn, 'acme/widgets', what, index);
      same(deliver(event, body));
    }
    // The list leaves out who closed an issue (GitHub's list answers do); the backfill reads it from the closing event.
    expect(standIn.record('acme/widgets', 'issue', 8).closed_by).toBeUndefined();
    expect(backfilled.get(`issue-comment:${standIn.record('acme/widgets', 'issue-comment', 3).id}`)!.activityType).toBe('pr_comment');

    // A discussion's delivery carries its numeric `id`, GraphQL its `databaseId`: the same number.
    const discussion = [...backfilled.values()].find((a) => a.activityType === 'discussion_opened')!;
    const comment = [...backfilled.values()].find((a) => a.activityType === 'discussion_comment')!;
    const author = (activity: ActivityPush) => ({
      id: Number(activity.user.id),
      login: activity.user.username,
      avatar_url: activity.user.avatarUrl,
      type: 'User',
    });
    const discussionId = Number(String(discussion.id).split(':')[1]);
    same(
      deliver('discussion', {
        ...webhookExamples('discussion', 'created')[0],
        discussion: {
          id: discussionId,
          title: discussion.activityTitle,
          body: (discussion.content as Json).value,
          html_url: discussion.url,
          created_at: discussion.timestamp,
          user: author(discussion),
        },
      }),
    );
    same(
      deliver('discussion_comment', {
        ...webhookExamples('discussion_comment', 'created')[0],
        discussion: { id: Number(String(comment.parentActivity!.id).split(':')[1]) },
        comment: {
          id: Number(String(comment.id).split(':')[1]),
          body: (comment.content as Json).value,
          html_url: comment.url,
          created_at: comment.timestamp,
          user: author(comment),
        },
      }),
    );
  });

  it('reads discussions and their comments through GraphQL, 25 at a time', async () => {
    const { pages, activities, checkpoint } = await walk('acme/widgets:discussions');
    expect(pages).toHaveLength(2);
    expect(pages[0]!.total).toBe(30);
    const opened = activities.filter((a) => a.activityType === 'discussion_opened');
    const comments = activities.filter((a) => a.activityType === 'discussion_comment');
    expect(opened.length + comments.length + pages.flatMap((p) => p.translation.skipped).length).toBe(90);
    expect(comments[0]!.parentActivity!.id).toBe(opened[0]!.id);
    expect(opened[0]).toMatchObject({ activityTitle: 'Discussion 30', url: 'https://github.com/acme/widgets/discussions/30', subSource: 'acme/widgets' });
    // Nothing changed: the next run reads one page and brings nothing again.
    const again = await walk('acme/widgets:discussions', checkpoint);
    expect(again.pages).toHaveLength(1);
    expect(again.activities).toEqual([]);
  });

  it('reads every comment of a long discussion and every reply of a long thread, by cursor after the first page', async () => {
    const forum = await startGitHubStandIn({ repositories: [{ fullName: 'acme/forum', discussions: 1, commentsPerDiscussion: 60, repliesPerComment: 55 }] });
    try {
      const given: GitHubSettings = { repositories: ['acme/forum'], apiUrl: forum.url };
      const { pages, activities, skipped } = await walk('acme/forum:discussions', null, given);
      expect(pages).toHaveLength(1);
      expect(skipped).toEqual([]);
      const [discussion, ...answers] = activities;
      expect(discussion).toMatchObject({ activityType: 'discussion_opened', activityTitle: 'Discussion 1' });
      // 60 comments (50 with the discussion, 10 more) and 55 replies to each (50 with their comment, 5 more).
      expect(answers).toHaveLength(60 + 60 * 55);
      expect(new Set(answers.map((a) => a.id)).size).toBe(answers.length);
      expect(answers.every((a) => a.activityType === 'discussion_comment' && a.parentActivity?.id === discussion!.id)).toBe(true);
      expect(answers.filter((a) => (a.content as Json).value.startsWith('Comment ')).map((a) => (a.content as Json).value)).toEqual(
        Array.from({ length: 60 }, (_, k) => `Comment ${k + 1} on discussion 1`),
      );
      expect(
        answers.filter((a) => (a.content as Json).value.startsWith('Reply ') && (a.content as Json).value.endsWith(' to comment 60 on discussion 1')),
      ).toHaveLength(55);
      // One request for the page, one for comments 51-60, one for the further replies of each comment.
      expect(forum.requests.filter((r) => r.path === '/graphql')).toHaveLength(1 + 1 + 60);
    } finally {
      await forum.stop();
    }
  });

  it('brings only the new records on the run after the stream was caught up', async () => {
    const repoId = standIn.repositoryId('acme/widgets');
    const issues = await walk('acme/widgets:issues');
    const events = await walk('acme/widgets:issue-events');
    const comments = await walk('acme/widgets:issue-comments');
    const releases = await walk('acme/widgets:releases');
    standIn.add('acme/widgets', { issues: 2, issueComments: 1, releases: 2 });
    const mark = standIn.requests.length;
    const newIssues = await walk('acme/widgets:issues', issues.checkpoint);
    expect(newIssues.activities.map((a) => a.id)).toEqual([`issue:${repoId}:31`, `issue:${repoId}:32`]);
    expect(requestsSince(mark)[1]).toBe(
      `/repos/acme/widgets/issues?state=all&sort=updated&direction=asc&per_page=100&since=${encodeURIComponent('2024-01-01T00:30:30Z')}`,
    );
    // Newest first: the first page holds the new closing and reaches the last run's mark.
    const eventsMark = standIn.requests.length;
    const newClosings = await walk('acme/widgets:issue-events', events.checkpoint);
    expect(newClosings.activities.map((a) => a.id)).toEqual([`issue-closed:${repoId}:32`]);
    expect(requestsSince(eventsMark)).toEqual(['/repos/acme/widgets', '/repos/acme/widgets/issues/events?per_page=100']);
    const newComments = await walk('acme/widgets:issue-comments', comments.checkpoint);
    expect(newComments.activities).toHaveLength(1);
    expect(newComments.activities[0]).toMatchObject({ activityType: 'issue_comment', parentActivity: { id: `issue:${repoId}:13` } });
    const newReleases = await walk('acme/widgets:releases', releases.checkpoint);
    expect(newReleases.activities.map((a) => a.activityTitle)).toEqual(['Release 1.5']);
    expect(newReleases.skipped).toEqual(['release v1.4.0 of acme/widgets: bot helper7[bot]']);
  });

  it('reads issue events listed oldest first to their end, bringing only the closings since the last run', async () => {
    const oldestFirst = await startGitHubStandIn({ repositories: [{ fullName: 'acme/tools', issues: 250 }], issueEventsOrder: 'oldest-first' });
    try {
      const given: GitHubSettings = { repositories: ['acme/tools'], apiUrl: oldestFirst.url };
      const repoId = oldestFirst.repositoryId('acme/tools');
      const closings = (numbers: number[]) => numbers.filter((n) => n % 2 === 0 && n % 3 !== 0).map((n) => `issue-closed:${repoId}:${n}`);
      const all = await walk('acme/tools:issue-events', null, given);
      expect(all.pages).toHaveLength(2);
      expect(all.activities.map((a) => a.id)).toEqual(closings(Array.from({ length: 250 }, (_, i) => i + 1)));
      oldestFirst.add('acme/tools', { issues: 6 });
      const next = await walk('acme/tools:issue-events', all.checkpoint, given);
      expect(next.pages).toHaveLength(2);
      expect(next.activities.map((a) => a.id)).toEqual(closings([251, 252, 253, 254, 255, 256]));
    } finally {
      await oldestFirst.stop();
    }
  });
});

describe('GitHub limits and refusals', () => {
  const stream = 'acme/gadgets:stargazers';
  const failure = async () =>
    throttled.page(stream, null, settings, secrets, access).then(
      () => null,
      (error: unknown) => error,
    );

  it('waits for the time GitHub gives on a secondary limit, a 429 and a spent primary limit', async () => {
    standIn.fault({ kind: 'secondary-limit', retryAfter: 30 });
    let error = await failure();
    expect(error).toBeInstanceOf(RateLimitWait);
    expect((error as RateLimitWait).until.toISOString()).toBe('2026-03-01T12:00:30.000Z');

    standIn.fault({ kind: 'too-many-requests', retryAfter: 120 }, { path: /stargazers/ });
    error = await failure();
    expect(error).toBeInstanceOf(RateLimitWait);
    expect((error as RateLimitWait).until.toISOString()).toBe('2026-03-01T12:02:00.000Z');

    standIn.fault({ kind: 'primary-limit', reset: new Date('2026-03-01T12:45:00Z') });
    error = await failure();
    expect(error).toBeInstanceOf(RateLimitWait);
    expect((error as RateLimitWait).until.toISOString()).toBe('2026-03-01T12:45:00.000Z');
    expect((error as Error).message).toMatch(/rate limit is spent/);
  });

  it("waits until the reset when GitHub's GraphQL answers RATE_LIMITED, with Octokit's throttling or without", async () => {
    const reset = new Date('2026-03-01T13:00:00Z');
    for (const connector of [throttled, github]) {
      standIn.fault({ kind: 'graphql-rate-limited', reset }, { path: /graphql/ });
      const error = await connector.page('acme/widgets:discussions', null, settings, secrets, access).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RateLimitWait);
      expect((error as RateLimitWait).until.toISOString()).toBe(reset.toISOString());
    }
  });

  it('stores a page that spent the last request and pauses until the reset', async () => {
    const reset = new Date(Date.now() + 3600_000);
    reset.setMilliseconds(0);
    standIn.setRateLimit(2, reset);
    const page = await throttled.page(stream, null, settings, secrets, access);
    expect(page.translation.activities.length).toBeGreaterThan(0);
    expect(page.pauseUntil?.toISOString()).toBe(reset.toISOString());
    // GitHub refuses what comes next until then.
    const error = await failure();
    expect((error as RateLimitWait).until.toISOString()).toBe(reset.toISOString());
    standIn.setRateLimit(5000, new Date(Date.now() + 3600_000));
  });

  it('fails on a revoked token, and waits after a run of 5xx answers', async () => {
    standIn.fault({ kind: 'unauthorized' });
    const rejected = await failure();
    expect(rejected).toBeInstanceOf(CredentialRejected);
    expect((rejected as Error).message).toMatch(/GitHub refused the access token \(401 Bad credentials\)/);

    const mark = standIn.requests.length;
    standIn.fault({ kind: 'server-error', status: 502 }, { times: 3 });
    const waiting = await failure();
    expect(waiting).toBeInstanceOf(RateLimitWait);
    expect((waiting as RateLimitWait).until.toISOString()).toBe('2026-03-01T12:01:00.000Z');
    expect((waiting as Error).message).toMatch(/GitHub answered 502 .* 3 times/);
    expect(requestsSince(mark)).toHaveLength(3);

    // No answer at all is not GitHub's: an error the sync retries, saying why.
    const closed = await startGitHubStandIn({ repositories: [] });
    await closed.stop();
    const unreachable = await github.page(stream, null, { ...settings, apiUrl: closed.url }, secrets, access).catch((error: unknown) => error);
    expect(unreachable).not.toBeInstanceOf(RateLimitWait);
    expect((unreachable as Error).message).toMatch(/^GitHub could not be reached: /);

    // One 5xx is tried again at once.
    standIn.fault({ kind: 'server-error', status: 503 });
    expect((await github.page(stream, null, settings, secrets, access)).done).toBe(true);
  });

  it('tells what the credential reaches', async () => {
    expect(await github.test(settings, secrets, access)).toBe('token works (as octocat); 2 repositories readable: acme/widgets, acme/gadgets');
    expect(await github.test({ organization: 'acme', apiUrl: standIn.url }, secrets, access)).toBe(
      'token works (as octocat); 2 repositories readable: acme/widgets, acme/gadgets',
    );
    await expect(github.test({ repositories: ['acme/widgets', 'acme/missing'], apiUrl: standIn.url }, secrets, access)).rejects.toThrow(
      'token works (as octocat), but 1 of 2 repositories cannot be read: acme/missing (not found or not shared with the credential)',
    );
    await expect(github.test(settings, { token: 'ghp_wrong' }, access)).rejects.toBeInstanceOf(CredentialRejected);
  });

  it('reads full profiles by user ID', async () => {
    const ids = [3, 4, 7].map((i) => String(standIn.person(i).id));
    const users = await github.profiles!([...ids, 'bot:5'], settings, secrets, access);
    expect(users).toHaveLength(2);
    expect(users[0]).toEqual({
      id: ids[0],
      username: 'user3',
      github: 'user3',
      avatarUrl: `https://avatars.githubusercontent.com/u/${ids[0]}?v=4`,
      fullName: 'User 3',
      email: null,
      companyName: 'acme',
      companyDomain: 'acme.io',
      twitter: null,
      rawLocation: 'Lisbon, Portugal',
      bio: 'Person number 3',
      externalProfiles: [
        { name: 'GitHub', url: 'https://github.com/user3' },
        { name: 'Website', url: 'https://acme.io' },
      ],
    });
    expect(users[1]).toMatchObject({ id: ids[1], email: 'user4@example.com', companyName: 'Initech', companyDomain: null, twitter: 'user4_x' });
  });
});

describe('GitHub App installations', () => {
  it("gets an installation token for a JWT signed with the App's key, and reuses it", async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const app = await startGitHubStandIn({
      repositories: [{ fullName: 'acme/widgets', stargazers: 3 }],
      tokens: [],
      app: { appId: 4242, installationId: 99, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    });
    try {
      const appSettings: GitHubSettings = { repositories: ['acme/widgets'], apiUrl: app.url, installationId: 99 };
      const appSecrets: GitHubSecrets = { appId: 4242, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
      const page = await github.page('acme/widgets:stargazers', null, appSettings, appSecrets, access);
      expect(page.translation.activities).toHaveLength(3);
      expect(await github.test(appSettings, appSecrets, access)).toBe('GitHub App 4242 works (installation 99); 1 repository readable: acme/widgets');
      expect(app.installationTokens).toHaveLength(1);
      expect(app.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/app/installations/99/access_tokens']);

      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      await expect(github.page('acme/widgets:stargazers', null, appSettings, { appId: 4242, privateKey: other }, access)).rejects.toThrow(
        /refused the GitHub App's ID or private key/,
      );
      await expect(github.page('acme/widgets:stargazers', null, { ...appSettings, installationId: 5 }, appSecrets, access)).rejects.toThrow(
        /knows no installation 5/,
      );
      await expect(
        github.page('acme/widgets:stargazers', null, { repositories: ['acme/widgets'], apiUrl: app.url }, appSecrets, access),
      ).rejects.toBeInstanceOf(CredentialRejected);
    } finally {
      await app.stop();
    }
  });
});

describe('GitHub Enterprise Server', () => {
  it('reads under /api/v3, follows its Link pages, and asks /api/graphql for discussions', async () => {
    const server = await startGitHubStandIn({
      repositories: [{ fullName: 'corp/tool', stargazers: 150, discussions: 1, commentsPerDiscussion: 1 }],
      prefix: '/api/v3',
    });
    try {
      expect(server.url).toMatch(/\/api\/v3$/);
      const enterprise: GitHubSettings = { repositories: ['corp/tool'], apiUrl: server.url };
      const first = await github.page('corp/tool:stargazers', null, enterprise, secrets, access);
      expect(first.checkpoint).toMatchObject({ next: '/repos/corp/tool/stargazers?per_page=100&page=2' });
      const second = await github.page('corp/tool:stargazers', first.checkpoint, enterprise, secrets, access);
      expect(first.translation.activities.length + second.translation.activities.length).toBe(150);
      const discussions = await github.page('corp/tool:discussions', null, enterprise, secrets, access);
      expect(discussions.translation.activities.map((a) => a.activityType)).toEqual(['discussion_opened', 'discussion_comment']);
      expect(server.requests.map((r) => r.path)).toContain('/api/graphql');
    } finally {
      await server.stop();
    }
  });
});

describe('GitHub settings and secrets', () => {
  it('take repositories or an organization, and exactly one form of credential', () => {
    const settingsOk = (value: unknown) => Value.Check(github.settingsSchema, value);
    const secretsOk = (value: unknown) => Value.Check(github.secretsSchema, value);
    expect(settingsOk({ repositories: ['a/b'] })).toBe(true);
    expect(settingsOk({ organization: 'acme', apiUrl: 'https://ghe.example.com/api/v3', installationId: 4, commits: true, bots: 'keep' })).toBe(true);
    expect(settingsOk({ repositories: ['a/b'], organization: 'acme' })).toBe(false);
    expect(settingsOk({})).toBe(false);
    expect(settingsOk({ repositories: ['not a repository'] })).toBe(false);
    expect(settingsOk({ repositories: ['a/b'], bots: 'sometimes' })).toBe(false);
    expect(secretsOk({ token: 't', webhookSecret: 'w' })).toBe(true);
    expect(secretsOk({ appId: 12, privateKey: 'pem', webhookSecret: 'w' })).toBe(true);
    expect(secretsOk({ token: 't', appId: 12, privateKey: 'pem' })).toBe(false);
    expect(secretsOk({ appId: 12 })).toBe(false);
    expect(secretsOk({ webhookSecret: 'w' })).toBe(false);
  });
});

describe('the GitHub stand-in', () => {
  it('serves 100,000 stargazers and issues without making them first, and answers slowly on demand', async () => {
    const big = await startGitHubStandIn({ repositories: [{ fullName: 'big/repo', stargazers: 100_000, issues: 100_000 }], pageLimit: 1000 });
    try {
      const started = Date.now();
      const headers = { authorization: `token ${TOKEN}`, accept: 'application/vnd.github.star+json' };
      const last = await fetch(`${big.url}/repos/big/repo/stargazers?per_page=100&page=1000`, { headers });
      const stars = (await last.json()) as Json[];
      expect(stars).toHaveLength(100);
      expect(stars.at(-1)!.user.id).toBe(big.person(100_000).id);
      expect(last.headers.get('link')).not.toMatch(/rel="next"/);
      const page = await github.page(
        'big/repo:issues',
        { repo: { id: big.repositoryId('big/repo'), full_name: 'big/repo', html_url: 'x' }, since: '2024-03-01T00:00:00Z', next: null },
        { repositories: ['big/repo'], apiUrl: big.url },
        secrets,
        access,
      );
      expect(page.done).toBe(false);
      expect(Date.now() - started).toBeLessThan(3000);

      // Past the pages GitHub serves: the stream ends, saying so, and the next run starts from the last page read.
      const end = await github.page(
        'big/repo:stargazers',
        {
          repo: { id: 1000, full_name: 'big/repo', html_url: 'x' },
          next: '/repos/big/repo/stargazers?per_page=100&page=1001',
          last: '/repos/big/repo/stargazers?per_page=100&page=1000',
          seen: 100,
        },
        { repositories: ['big/repo'], apiUrl: big.url },
        secrets,
        access,
      );
      expect(end.done).toBe(true);
      expect(end.translation.skipped).toEqual([expect.stringMatching(/^stargazers of big\/repo: GitHub lists no further \(In order to keep the API fast/)]);
      expect(end.checkpoint).toMatchObject({ next: null, last: '/repos/big/repo/stargazers?per_page=100&page=1000' });
      // The same for the issue events: the run ends there, and the next one starts from the newest it read.
      const eventsEnd = await github.page(
        'big/repo:issue-events',
        {
          repo: { id: 1000, full_name: 'big/repo', html_url: 'x' },
          next: '/repos/big/repo/issues/events?per_page=100&page=1001',
          top: '2024-03-01T00:00:30Z',
          topIds: [7],
        },
        { repositories: ['big/repo'], apiUrl: big.url },
        secrets,
        access,
      );
      expect(eventsEnd.done).toBe(true);
      expect(eventsEnd.translation.skipped).toEqual([expect.stringMatching(/^issue events of big\/repo: GitHub lists no further/)]);
      expect(eventsEnd.checkpoint).toMatchObject({ next: null, since: '2024-03-01T00:00:30Z', sinceIds: [7] });

      big.fault({ kind: 'slow', ms: 150 });
      const slow = Date.now();
      await github.page('big/repo:stargazers', null, { repositories: ['big/repo'], apiUrl: big.url }, secrets, access);
      expect(Date.now() - slow).toBeGreaterThanOrEqual(150);
    } finally {
      await big.stop();
    }
  });
});
