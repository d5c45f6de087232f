import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startRedditStandIn, type HistorySummary, type RedditStandIn, type StandInComment, type StandInPost } from '../stand-ins/reddit-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with Reddit's connector, against the local Reddit built from Reddit's API documentation:
 * application-only OAuth, listings paged by `after`, the X-Ratelimit headers. Through the admin API and the
 * worker, as in production; Reddit sends no webhooks, so syncs are all there is.
 */

const CLIENT_ID = 'hearthTestClient01';
const CLIENT_SECRET = 'hearth_test_client_secret_value';
const USER_AGENT = 'server:hearth-http-tests:v1 (by /u/hearth_tests)';

describe.each(ENGINES)('connectors with the Reddit connector (%s)', (engine) => {
  let reddit: RedditStandIn;
  let t: TestApp;
  let clock: ManualClock;
  let history: HistorySummary;
  let elsewhere: StandInPost;
  let question: StandInPost;
  let answered: StandInComment;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
    reddit = await startRedditStandIn({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      now: () => clock.now().getTime(),
      subreddits: [
        { name: 'hearthdev', subscribers: 1_234 },
        { name: 'selfhosted', subscribers: 400_000 },
      ],
    });
    // Two pages of posts and two of comments (100 a page), with deleted authors and AutoModerator among them.
    history = reddit.generate({ subreddit: 'hearthdev', posts: 120, comments: 130, people: 35, seed: 5, deletedEvery: 40, automoderatorEvery: 25 });
    question = reddit.post('hearthdev', { author: 'ada', title: 'Hearth CRM: how to import?', selftext: 'Trying the CSV import.' });
    answered = reddit.comment(question.name, { author: 'grace', body: 'Use `hearth import`.' });
    // Found by the keyword only: another subreddit, not followed.
    elsewhere = reddit.post('selfhosted', { author: 'linus', title: 'Running hearth crm at home', selftext: 'Works well.' });
    reddit.post('selfhosted', { author: 'margaret', title: 'Unrelated', selftext: 'Nothing to see.' });
  });
  afterEach(async () => {
    await t.close();
    await reddit.stop();
  });

  const create = async () => {
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'reddit',
      settings: { subreddits: ['hearthdev'], keywords: ['hearth crm'], apiUrl: reddit.url, authUrl: reddit.authUrl, userAgent: USER_AGENT },
      secrets: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.body).not.toContain(CLIENT_SECRET);
    return made.json().data as { id: string; sourceId: number; receiverUrl: string | null; secrets: string[] };
  };
  const sync = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
  const show = async (id: string) => (await t.get(`/api/v2/admin/connectors/${id}`)).json().data;
  const activities = (sourceId: number) =>
    t.services.db
      .selectFrom('activities as a')
      .leftJoin('activities as p', (join) => join.onRef('p.community_id', '=', 'a.community_id').onRef('p.id', '=', 'a.parent_id'))
      .select(['a.external_id as externalId', 'a.activity_type as type', 'p.external_id as parent'])
      .where('a.source_id', '=', sourceId)
      .orderBy('a.external_id')
      .execute();
  const people = async (sourceId: number) =>
    (await t.services.db.selectFrom('source_profiles').select('external_id').where('source_id', '=', sourceId).execute()).length;
  const apiRequests = () => reddit.requests.filter((request) => !request.path.startsWith('/api/v1/access_token'));
  /** Every post and comment the connector should store: the history's, and the four added by hand (one of them found by search). */
  const expectedPosts = () => history.posts + 2;
  const expectedComments = () => history.comments + 1;

  it('backfills the subreddit and the keyword: exactly the expected activities and people, no receiver, and a test that reads the subreddit', async () => {
    const connector = await create();
    expect(connector.receiverUrl).toBeNull();
    expect(connector.secrets).toEqual(['clientId', 'clientSecret']);
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({
      ok: true,
      message: "Reddit reached with the app's token; r/hearthdev (1,234 subscribers); 1 keyword searched across Reddit",
    });

    await sync();
    const shown = await show(connector.id);
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'active', reason: null });
    expect(shown.streams.map((stream: { stream: string; done: boolean }) => [stream.stream, stream.done])).toEqual([
      ['search:hearth crm', true],
      ['subreddit:hearthdev:comments', true],
      ['subreddit:hearthdev:posts', true],
    ]);
    const stored = await activities(connector.sourceId);
    expect(stored.filter((row) => row.type === 'reddit_post')).toHaveLength(expectedPosts());
    expect(stored.filter((row) => row.type === 'reddit_comment')).toHaveLength(expectedComments());
    expect(stored).toHaveLength(expectedPosts() + expectedComments());
    // The post the keyword found in the subreddit and in the search is one activity; the other subreddit's too.
    expect(stored.filter((row) => row.externalId === question.name)).toHaveLength(1);
    expect(stored).toContainEqual({ externalId: elsewhere.name, type: 'reddit_post', parent: null });
    // Comments hang under their post or comment (but those of a deleted author, which are no activity).
    const comments = stored.filter((row) => row.type === 'reddit_comment');
    expect(comments.filter((row) => row.parent !== null).length).toBeGreaterThan(comments.length * 0.8);
    expect(comments.every((row) => row.parent === null || /^t[13]_/.test(row.parent))).toBe(true);
    expect(comments).toContainEqual({ externalId: answered.name, type: 'reddit_comment', parent: question.name });
    // The history's people, and ada, grace and linus; never [deleted] or AutoModerator.
    expect(await people(connector.sourceId)).toBe(history.people + 3);
    const profiles = await t.services.db.selectFrom('source_profiles').select('fields').where('source_id', '=', connector.sourceId).execute();
    const usernames = profiles.map((row) => (row.fields as { username?: string }).username);
    expect(usernames).toContain('ada');
    expect(usernames).not.toContain('[deleted]');
    expect(usernames).not.toContain('AutoModerator');
    // One token for the whole sync, and the User-Agent on every request.
    expect(reddit.tokensIssued()).toHaveLength(1);
    expect(reddit.requests.every((request) => request.userAgent === USER_AGENT)).toBe(true);
    expect(JSON.stringify(shown)).not.toContain(CLIENT_SECRET);
  });

  it('reads only what is new at the next sync, and reading everything again adds nothing', async () => {
    const connector = await create();
    await sync();
    const before = await activities(connector.sourceId);

    clock.advance(5 * 60_000 + 1000);
    const fresh = reddit.post('hearthdev', { author: 'ada', title: 'Release 2.0', selftext: 'Out now.' });
    const answer = reddit.comment(fresh.name, { author: 'barbara', body: 'Congratulations!' });
    const asked = apiRequests().length;
    // Reddit sends no webhooks: the kind's own interval (5 minutes) makes a sync due.
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(1);
    await sync();
    const after = await activities(connector.sourceId);
    expect(after).toHaveLength(before.length + 2);
    expect(after).toContainEqual({ externalId: fresh.name, type: 'reddit_post', parent: null });
    expect(after).toContainEqual({ externalId: answer.name, type: 'reddit_comment', parent: fresh.name });
    // One page per stream, each from the newest (no `after`).
    const incremental = apiRequests().slice(asked);
    expect(incremental.map((request) => request.path.split('?')[0])).toEqual(['/r/hearthdev/new', '/r/hearthdev/comments', '/search']);
    expect(incremental.every((request) => !request.path.includes('after='))).toBe(true);
    expect(await people(connector.sourceId)).toBe(history.people + 4);

    // Every stream read again from the start: the same activities, none twice.
    await t.services.db.updateTable('connector_streams').set({ checkpoint: null, done: false }).where('source_id', '=', connector.sourceId).execute();
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    expect(await activities(connector.sourceId)).toEqual(after);
    expect(await show(connector.id)).toMatchObject({ state: 'active', reason: null });
  });

  it('stores the page whose answer spent the limit, then waits until the reset asking nothing, then goes on', async () => {
    reddit.spendRateLimit(90);
    const connector = await create();
    await sync();
    let shown = await show(connector.id);
    expect(shown, JSON.stringify(shown)).toMatchObject({
      state: 'waiting',
      waitingUntil: new Date(clock.now().getTime() + 90_000).toISOString(),
      reason: 'the platform asked for no more requests until then',
    });
    // The first page was stored before the wait: 100 posts, less those of deleted authors.
    expect(shown.streams.find((stream: { stream: string }) => stream.stream === 'subreddit:hearthdev:posts')).toMatchObject({ records: 100, done: false });
    const first = (await activities(connector.sourceId)).length;
    expect(first).toBeGreaterThan(90);
    expect(first).toBeLessThanOrEqual(100);
    const asked = reddit.requests.length;
    clock.advance(80_000);
    await t.services.connectors.enqueueDueSyncs();
    expect(await sync()).toBe(0);
    expect(reddit.requests.length).toBe(asked);
    clock.set(new Date(Date.parse(shown.waitingUntil) + 1000));
    expect(await sync()).toBe(1);
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
    expect(await activities(connector.sourceId)).toHaveLength(expectedPosts() + expectedComments());
  });

  it('waits out a 429 until the reset Reddit gives, asking nothing meanwhile, then goes on', async () => {
    reddit.rateLimitNow(120);
    const connector = await create();
    await sync();
    let shown = await show(connector.id);
    expect(shown, JSON.stringify(shown)).toMatchObject({
      state: 'waiting',
      waitingUntil: new Date(clock.now().getTime() + 120_000).toISOString(),
      reason: 'Reddit asked to slow down (429 on /r/hearthdev/new)',
    });
    const asked = reddit.requests.length;
    clock.advance(100_000);
    await t.services.connectors.enqueueDueSyncs();
    expect(await sync()).toBe(0);
    expect(reddit.requests.length).toBe(asked);
    clock.set(new Date(Date.parse(shown.waitingUntil) + 1000));
    expect(await sync()).toBe(1);
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
    expect(await activities(connector.sourceId)).toHaveLength(expectedPosts() + expectedComments());
  });

  it('fails on refused client credentials, naming neither of them', async () => {
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'reddit',
      settings: { subreddits: ['hearthdev'], apiUrl: reddit.url, authUrl: reddit.authUrl, userAgent: USER_AGENT },
      secrets: { clientId: CLIENT_ID, clientSecret: 'a_revoked_client_secret' },
    });
    expect(made.statusCode).toBe(201);
    const connector = made.json().data;
    await sync();
    const shown = await show(connector.id);
    expect(shown.state).toBe('failed');
    expect(shown.reason).toContain("Reddit refused the app's client ID and secret (401 from the token endpoint)");
    expect(JSON.stringify(shown)).not.toContain('a_revoked_client_secret');
    expect(apiRequests()).toEqual([]);
  });

  it('says which field of bad settings or secrets is wrong, never their values', async () => {
    const post = (body: Record<string, unknown>) => t.send('POST', '/api/v2/admin/connectors', { kind: 'reddit', ...body });
    const good = { subreddits: ['hearthdev'], apiUrl: reddit.url, authUrl: reddit.authUrl };
    const badName = await post({ settings: { ...good, subreddits: ['r/hearth dev'] }, secrets: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    expect(badName.statusCode).toBe(400);
    expect(badName.json().error.message).toContain('body field "settings.subreddits.0" must match pattern');
    const neither = await post({ settings: { apiUrl: reddit.url }, secrets: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    expect(neither.statusCode).toBe(400);
    expect(neither.json().error.message).toMatch(/settings\.(subreddits|keywords)" is required/);
    const badAgent = await post({
      settings: { ...good, userAgent: 'line\nbreak in the agent' },
      secrets: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    expect(badAgent.statusCode).toBe(400);
    expect(badAgent.json().error.message).toContain('settings.userAgent');
    const badSecret = await post({ settings: good, secrets: { clientId: CLIENT_ID, clientSecret: 'a secret with spaces' } });
    expect(badSecret.statusCode).toBe(400);
    expect(badSecret.json().error.message).toContain('secrets.clientSecret');
    expect(badSecret.body).not.toContain('a secret with spaces');
    expect(badSecret.body).not.toContain(CLIENT_ID);
    // Reddit sends no webhooks: no webhook secret is taken.
    const withWebhook = await post({ settings: good, secrets: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, webhookSecret: 'not-for-reddit-0000' } });
    expect(withWebhook.statusCode).toBe(400);
    expect(withWebhook.json().error.message).toContain('unknown body field "secrets.webhookSecret"');
    expect(withWebhook.body).not.toContain(CLIENT_SECRET);
    const kinds = await t.get('/api/v2/admin/connector-kinds');
    expect(kinds.json().data.find((one: { kind: string }) => one.kind === 'reddit')).toMatchObject({
      platformName: 'Reddit',
      receives: false,
      platformIssuesWebhookSecret: false,
    });
  });
});
