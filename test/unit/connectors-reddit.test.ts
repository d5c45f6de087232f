import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { compileBodyValidator } from '../../src/core/validation.ts';
import type { JsonValue } from '../../src/db/schema.ts';
import { CredentialRejected, RateLimitWait, type PlatformAccess, type StreamPage, type Translation } from '../../src/modules/connectors/connector-kind.ts';
import { translateThing } from '../../src/modules/connectors/reddit/reddit-activities.ts';
import { redditConnector, type RedditSecrets, type RedditSettings } from '../../src/modules/connectors/reddit/reddit-connector.ts';
import { DEFAULT_USER_AGENT, type RedditThing } from '../../src/modules/connectors/reddit/reddit.schemas.ts';
import { ActivityPushBody } from '../../src/modules/ingestion/index.ts';
import { startRedditStandIn, type RedditStandIn } from '../stand-ins/reddit-api.ts';

const kind = redditConnector;
const CLIENT_ID = 'p-jcoLKBynTLew';
const CLIENT_SECRET = 'gko_LXELoV07ZBNUXrvWZfzE3aI';
const secrets: RedditSecrets = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };
const USER_AGENT = 'server:hearth-tests:v1 (by /u/hearth_tests)';
const checkActivity = compileBodyValidator(ActivityPushBody);

function translated(...things: RedditThing[]): Translation {
  const translation: Translation = { users: [], activities: [], skipped: [] };
  for (const thing of things) translateThing(thing, translation);
  for (const activity of translation.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
  return translation;
}

const link = (data: Record<string, unknown>): RedditThing => ({
  kind: 't3',
  data: {
    id: '1abcde',
    name: 't3_1abcde',
    author: 'ada',
    author_fullname: 't2_ada01',
    subreddit: 'typescript',
    title: 'Strict mode & generics',
    selftext: 'Why does `<T>` widen?',
    permalink: '/r/typescript/comments/1abcde/strict_mode_generics/',
    url: 'https://www.reddit.com/r/typescript/comments/1abcde/strict_mode_generics/',
    created_utc: 1767225600,
    ...data,
  } as never,
});

const reply = (data: Record<string, unknown>): RedditThing => ({
  kind: 't1',
  data: {
    id: 'k1xyz',
    name: 't1_k1xyz',
    author: 'grace',
    author_fullname: 't2_grace1',
    subreddit: 'typescript',
    body: 'Use a constraint.',
    permalink: '/r/typescript/comments/1abcde/strict_mode_generics/k1xyz/',
    parent_id: 't3_1abcde',
    link_id: 't3_1abcde',
    link_title: 'Strict mode & generics',
    created_utc: 1767225660.0,
    ...data,
  } as never,
});

describe('the Reddit connector: records', () => {
  it('makes a post from a link, with its fullname, title, text, address and subreddit', () => {
    expect(translated(link({}))).toEqual({
      users: [],
      skipped: [],
      activities: [
        {
          id: 't3_1abcde',
          activityType: 'reddit_post',
          user: { id: 't2_ada01', username: 'ada' },
          activityTitle: 'Strict mode & generics',
          content: { type: 'markdown', value: 'Why does `<T>` widen?' },
          url: 'https://www.reddit.com/r/typescript/comments/1abcde/strict_mode_generics/',
          timestamp: '2026-01-01T00:00:00.000Z',
          parentActivity: null,
          subSource: 'typescript',
        },
      ],
    });
  });

  it('makes a comment under the post or the comment it answers', () => {
    const { activities } = translated(reply({}), reply({ id: 'k2abc', name: 't1_k2abc', parent_id: 't1_k1xyz', created_utc: 1767225720.5 }));
    expect(activities[0]).toEqual({
      id: 't1_k1xyz',
      activityType: 'reddit_comment',
      user: { id: 't2_grace1', username: 'grace' },
      activityTitle: 'Strict mode & generics',
      content: { type: 'markdown', value: 'Use a constraint.' },
      url: 'https://www.reddit.com/r/typescript/comments/1abcde/strict_mode_generics/k1xyz/',
      timestamp: '2026-01-01T00:01:00.000Z',
      parentActivity: { id: 't3_1abcde', activityType: 'reddit_post' },
      subSource: 'typescript',
    });
    expect(activities[1]).toMatchObject({
      id: 't1_k2abc',
      parentActivity: { id: 't1_k1xyz', activityType: 'reddit_comment' },
      timestamp: '2026-01-01T00:02:00.500Z',
    });
  });

  it('names a person by the account fullname, else the username; a link post keeps its permalink as address; removed text is left out', () => {
    const { activities } = translated(link({ author_fullname: undefined, url: 'https://example.org/article', selftext: '' }), reply({ body: '[removed]' }));
    expect(activities[0]).toMatchObject({
      user: { id: 'ada', username: 'ada' },
      content: null,
      url: 'https://www.reddit.com/r/typescript/comments/1abcde/strict_mode_generics/',
    });
    expect(activities[0]!.user).not.toHaveProperty('email');
    expect(activities[1]).toMatchObject({ id: 't1_k1xyz', content: null, user: { id: 't2_grace1' } });
  });

  it('skips deleted authors, AutoModerator and things that are not posts or comments, saying why', () => {
    const translation = translated(
      link({ author: '[deleted]', author_fullname: undefined, selftext: '[deleted]' }),
      reply({ author: 'AutoModerator', author_fullname: 't2_6l4z3' }),
      { kind: 'more', data: { name: 't1_more1', count: 12, children: ['abc'] } },
      { kind: 't5', data: { name: 't5_2qh1i', display_name: 'typescript' } },
      { kind: 't3', data: { author: 'ada' } },
    );
    expect(translation.activities).toEqual([]);
    expect(translation.skipped).toEqual([
      't3 t3_1abcde: the author is [deleted] (the account, or the record, was deleted)',
      "t1 t1_k1xyz: by AutoModerator, Reddit's moderation bot",
      'more t1_more1: not a post or a comment',
      't5 t5_2qh1i: not a post or a comment',
      't3 (no name): no fullname',
    ]);
  });

  it('lists one stream per subreddit and record kind, and one per keyword', async () => {
    const settings: RedditSettings = { subreddits: ['typescript', 'node'], keywords: ['hearth crm'] };
    const access: PlatformAccess = { fetch: globalThis.fetch, now: () => new Date(), signal: new AbortController().signal, cache: new Map() };
    expect(await kind.streams(settings, secrets, access)).toEqual([
      'subreddit:typescript:posts',
      'subreddit:typescript:comments',
      'subreddit:node:posts',
      'subreddit:node:comments',
      'search:hearth crm',
    ]);
    await expect(kind.page('channel:C0', null, settings, secrets, access)).rejects.toThrow('the Reddit connector has no stream "channel:C0"');
  });
});

describe('the Reddit connector against the stand-in', () => {
  let reddit: RedditStandIn;
  let clock: ManualClock;
  let settings: RedditSettings;
  /** One connector service's cache: the token is kept in it between pages. */
  let cache: Map<string, unknown>;
  const access = (): PlatformAccess => ({ fetch: globalThis.fetch, now: () => clock.now(), signal: new AbortController().signal, cache });

  beforeEach(async () => {
    clock = new ManualClock('2026-02-01T00:00:00.000Z');
    cache = new Map();
    reddit = await startRedditStandIn({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      now: () => clock.now().getTime(),
      subreddits: [
        { name: 'typescript', subscribers: 264_512 },
        { name: 'node', subscribers: 301_000 },
        { name: 'secretclub', type: 'private' },
        { name: 'gone', banned: true },
      ],
    });
    settings = { subreddits: ['typescript'], apiUrl: reddit.url, authUrl: reddit.authUrl, userAgent: USER_AGENT };
  });
  afterEach(() => reddit.stop());

  async function walk(stream: string, from: JsonValue | null = null, given: RedditSettings = settings) {
    const pages: StreamPage[] = [];
    let checkpoint = from;
    for (;;) {
      expect(pages.length).toBeLessThan(50);
      const page = await kind.page(stream, checkpoint, given, secrets, access());
      pages.push(page);
      checkpoint = page.checkpoint;
      if (page.done) return { pages, checkpoint, activities: pages.flatMap((one) => one.translation.activities) };
    }
  }
  const apiRequests = () => reddit.requests.filter((request) => !request.path.startsWith('/api/v1/access_token'));

  it('walks the posts 100 at a time by `after`, with one token, then reads only what is new', async () => {
    const history = reddit.generate({ subreddit: 'typescript', posts: 229, comments: 0, people: 40, seed: 7, deletedEvery: 23 });
    const newest = reddit.post('typescript', { author: 'person_0', title: 'The newest' });
    const { pages, checkpoint, activities } = await walk('subreddit:typescript:posts');
    expect(pages).toHaveLength(3);
    expect(pages.map((page) => page.records)).toEqual([100, 100, 30]);
    expect(activities).toHaveLength(history.posts + 1);
    expect(new Set(activities.map((activity) => activity.id)).size).toBe(history.posts + 1);
    expect(pages.flatMap((page) => page.translation.skipped)).toHaveLength(history.skipped);
    expect(history.skipped).toBeGreaterThan(0);
    expect(new Set(activities.map((activity) => activity.user.id)).size).toBe(history.people);
    for (const activity of activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
    // Newest first; the second page starts after the first page's last fullname.
    const paths = apiRequests().map((request) => request.path);
    expect(paths[0]).toBe('/r/typescript/new?limit=100&raw_json=1');
    expect(paths[1]).toMatch(/^\/r\/typescript\/new\?limit=100&after=t3_[0-9a-z]+&raw_json=1$/);
    expect(reddit.tokensIssued()).toHaveLength(1);
    expect(reddit.requests.every((request) => request.userAgent === USER_AGENT)).toBe(true);
    // raw_json=1: Reddit's text as it was typed, not HTML-escaped.
    expect(activities.some((activity) => /&.*<\d+>/.test(String((activity.content as { value: string } | null)?.value)))).toBe(true);

    // Two new posts, one in the same second as the newest seen: the next walk reads them alone, in one request.
    const same = reddit.post('typescript', { author: 'ada', title: 'Same second', createdUtc: newest.created_utc });
    const later = reddit.post('typescript', { author: 'grace', title: 'Later', createdUtc: newest.created_utc + 3600 });
    const asked = apiRequests().length;
    const next = await walk('subreddit:typescript:posts', checkpoint);
    expect(next.pages).toHaveLength(1);
    expect(next.activities.map((activity) => activity.id).sort()).toEqual([same.name, later.name].sort());
    expect(next.pages[0]!.records).toBe(2);
    expect(apiRequests().length).toBe(asked + 1);
    const nothing = await walk('subreddit:typescript:posts', next.checkpoint);
    expect(nothing.activities).toEqual([]);
    expect(nothing.pages[0]!.records).toBe(0);
  });

  it('goes on from a checkpoint saved in the middle of a walk, reading no page twice', async () => {
    reddit.generate({ subreddit: 'typescript', posts: 250, comments: 0, people: 20, seed: 3 });
    const first = await kind.page('subreddit:typescript:posts', null, settings, secrets, access());
    expect(first.done).toBe(false);
    const rest = await walk('subreddit:typescript:posts', JSON.parse(JSON.stringify(first.checkpoint)) as JsonValue);
    const ids = [...first.translation.activities, ...rest.activities].map((activity) => activity.id);
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    expect(apiRequests().filter((request) => !request.path.includes('after='))).toHaveLength(1);
  });

  it('reads the comments stream with parents, and stops where the listing ends (about 1,000 things on Reddit)', async () => {
    const shallow = await startRedditStandIn({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, subreddits: [{ name: 'node' }], listingDepth: 150 });
    try {
      const history = shallow.generate({ subreddit: 'node', posts: 40, comments: 260, people: 25, seed: 11, automoderatorEvery: 20 });
      const given: RedditSettings = { subreddits: ['node'], apiUrl: shallow.url, authUrl: shallow.authUrl, userAgent: USER_AGENT };
      const { pages, activities } = await walk('subreddit:node:comments', null, given);
      expect(pages.reduce((sum, page) => sum + (page.records ?? 0), 0)).toBe(150);
      expect(activities.length).toBeLessThan(history.comments);
      expect(activities.every((activity) => activity.activityType === 'reddit_comment')).toBe(true);
      expect(activities.every((activity) => /^t[13]_/.test(String(activity.parentActivity?.id)))).toBe(true);
      expect(activities.some((activity) => activity.parentActivity?.activityType === 'reddit_comment')).toBe(true);
      expect(pages.flatMap((page) => page.translation.skipped).every((reason) => reason.includes('AutoModerator'))).toBe(true);
    } finally {
      await shallow.stop();
    }
  });

  it('searches a keyword across Reddit, newest posts first', async () => {
    const wanted = [
      reddit.post('typescript', { author: 'ada', title: 'Hearth CRM with TypeScript', selftext: 'typed pushes' }),
      reddit.post('node', { author: 'grace', title: 'Anyone self-hosting?', selftext: 'We run hearth crm on a Pi' }),
    ];
    reddit.post('node', { author: 'linus', title: 'Unrelated', selftext: 'nothing here' });
    const { activities } = await walk('search:hearth crm', null, {
      keywords: ['hearth crm'],
      apiUrl: reddit.url,
      authUrl: reddit.authUrl,
      userAgent: USER_AGENT,
    });
    expect(activities.map((activity) => [activity.id, activity.subSource])).toEqual([
      [wanted[1]!.name, 'node'],
      [wanted[0]!.name, 'typescript'],
    ]);
    expect(apiRequests()[0]!.path).toBe('/search?q=hearth+crm&sort=new&type=link&limit=100&raw_json=1');
  });

  it('stores a page whose answer spent the limit and pauses until the reset; a 429 is a wait until its reset', async () => {
    reddit.generate({ subreddit: 'typescript', posts: 150, comments: 0, people: 10 });
    reddit.spendRateLimit(120);
    const page = await kind.page('subreddit:typescript:posts', null, settings, secrets, access());
    expect(page.translation.activities).toHaveLength(100);
    expect(page.pauseUntil).toEqual(new Date(clock.now().getTime() + 120_000));
    // Before the reset, Reddit answers 429 with the time left.
    clock.advance(30_000);
    const limited = await kind.page('subreddit:typescript:posts', page.checkpoint, settings, secrets, access()).catch((caught: unknown) => caught);
    expect(limited).toBeInstanceOf(RateLimitWait);
    expect((limited as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 90_000));
    expect((limited as Error).message).toBe('Reddit asked to slow down (429 on /r/typescript/new)');
    clock.advance(90_000);
    const after = await kind.page('subreddit:typescript:posts', page.checkpoint, settings, secrets, access());
    expect(after.translation.activities).toHaveLength(50);
    expect(after.pauseUntil).toBeNull();
  });

  it('asks nothing more once an answer said no request remains (a test of several subreddits)', async () => {
    reddit.spendRateLimit(60);
    const error = await kind.test({ ...settings, subreddits: ['typescript', 'node'] }, secrets, access()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitWait);
    expect((error as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 60_000));
    expect(apiRequests().map((request) => request.path)).toEqual(['/r/typescript/about?raw_json=1']);
  });

  it('fails on refused client credentials without naming them; keeps the token until it expires, and takes a new one when refused', async () => {
    const refused = await kind
      .page('subreddit:typescript:posts', null, settings, { clientId: CLIENT_ID, clientSecret: 'not-the-secret-at-all' }, access())
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(CredentialRejected);
    expect((refused as Error).message).toMatch(/refused the app's client ID and secret \(401 from the token endpoint\)/);
    expect((refused as Error).message).not.toContain('not-the-secret-at-all');
    expect((refused as Error).message).not.toContain(CLIENT_ID);
    expect(apiRequests()).toEqual([]);

    await kind.page('subreddit:typescript:posts', null, settings, secrets, access());
    await kind.page('subreddit:typescript:comments', null, settings, secrets, access());
    expect(reddit.tokensIssued()).toHaveLength(1);
    // An hour later the token has expired: a new one is asked for first.
    clock.advance(3_600_000);
    await kind.page('subreddit:typescript:posts', null, settings, secrets, access());
    expect(reddit.tokensIssued()).toHaveLength(2);
    // Revoked: the refused request is asked again once with a new token.
    reddit.revokeTokens();
    const page = await kind.page('subreddit:typescript:posts', null, settings, secrets, access());
    expect(page.done).toBe(true);
    expect(reddit.tokensIssued()).toHaveLength(3);
    for (const request of reddit.requests) expect(request.userAgent).toBe(USER_AGENT);
  });

  it('sends a User-Agent naming Hearth by default; a generic one is limited by Reddit', async () => {
    const { userAgent: _given, ...plain } = settings as RedditSettings & { userAgent?: string };
    await kind.page('subreddit:typescript:posts', null, plain as RedditSettings, secrets, access());
    expect(reddit.requests.map((request) => request.userAgent)).toEqual([DEFAULT_USER_AGENT, DEFAULT_USER_AGENT]);
    expect(DEFAULT_USER_AGENT).toMatch(/hearth/i);
    const generic = await kind
      .page('subreddit:typescript:posts', null, { ...settings, userAgent: 'python-requests/2.31.0' }, secrets, { ...access(), cache: new Map() })
      .catch((caught: unknown) => caught);
    expect(generic).toBeInstanceOf(RateLimitWait);
  });

  it('tests the app: each subreddit with its subscribers; private, banned and unknown ones fail the test, named', async () => {
    expect(await kind.test({ ...settings, subreddits: ['typescript', 'node'], keywords: ['hearth'] }, secrets, access())).toBe(
      "Reddit reached with the app's token; r/typescript (264,512 subscribers); r/node (301,000 subscribers); 1 keyword searched across Reddit",
    );
    expect(await kind.test({ keywords: ['hearth', 'crm'], apiUrl: reddit.url, authUrl: reddit.authUrl, userAgent: USER_AGENT }, secrets, access())).toBe(
      "Reddit reached with the app's token; 2 keywords searched across Reddit",
    );
    await expect(kind.test({ ...settings, subreddits: ['typescript', 'secretclub', 'gone', 'nosuchplace'] }, secrets, access())).rejects.toThrow(
      "the app's token works, but r/secretclub is private: only its approved members can read it; r/gone is banned by Reddit; r/nosuchplace was not found on Reddit (404)",
    );
    await expect(kind.test(settings, { ...secrets, clientSecret: 'wrong-secret-value' }, access())).rejects.toBeInstanceOf(CredentialRejected);
  });

  it('fails a page of a private subreddit, saying so', async () => {
    await expect(kind.page('subreddit:secretclub:posts', null, { ...settings, subreddits: ['secretclub'] }, secrets, access())).rejects.toThrow(
      'r/secretclub is private: only its approved members can read it',
    );
  });
});
