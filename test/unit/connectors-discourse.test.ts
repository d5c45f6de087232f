import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { compileBodyValidator } from '../../src/core/validation.ts';
import type { JsonValue } from '../../src/db/schema.ts';
import { CredentialRejected, RateLimitWait, type ActivityPush, type PlatformAccess, type Translation } from '../../src/modules/connectors/connector-kind.ts';
import { discourseConnector, type DiscourseSecrets, type DiscourseSettings } from '../../src/modules/connectors/discourse/discourse-connector.ts';
import { ActivityPushBody, UserPushBody } from '../../src/modules/ingestion/index.ts';
import { platformFile } from '../helpers/platforms.ts';
import { startDiscourseStandIn, type DiscourseStandIn } from '../stand-ins/discourse-api.ts';
import { bodies, sign, signedDelivery, type SignedDelivery } from '../stand-ins/discourse-webhooks.ts';

const kind = discourseConnector;
const receiver = discourseConnector.receiver!;
const SECRET = 'a-webhook-secret-of-the-forum';
const secrets: DiscourseSecrets = { apiKey: 'admin-key', webhookSecret: SECRET };
const checkActivity = compileBodyValidator(ActivityPushBody);
const checkUser = compileBodyValidator(UserPushBody);

function access(clock = new ManualClock('2026-02-01T00:00:00.000Z')): PlatformAccess {
  return { fetch: globalThis.fetch, now: () => clock.now(), signal: new AbortController().signal, cache: new Map() };
}

function translated(delivery: SignedDelivery, settings: DiscourseSettings): Translation {
  const event = receiver.eventOf(delivery.headers);
  expect(event).not.toBeNull();
  const translation = receiver.translate({ headers: delivery.headers, event: event!, body: JSON.parse(delivery.raw.toString()) }, settings);
  for (const activity of translation.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
  return translation;
}

/** Walks a stream from `checkpoint` until done; answers every activity and the final checkpoint. */
async function walk(settings: DiscourseSettings, keySecrets: DiscourseSecrets, checkpoint: JsonValue | null, platform = access()) {
  const activities: ActivityPush[] = [];
  const skipped: string[] = [];
  let pages = 0;
  let records = 0;
  for (;;) {
    const page = await kind.page('posts', checkpoint, settings, keySecrets, platform);
    pages++;
    records += page.records ?? 0;
    activities.push(...page.translation.activities);
    skipped.push(...page.translation.skipped);
    // The framework stops a stream whose page leads back to itself: a walk must never give one.
    if (!page.done) expect(page.checkpoint).not.toEqual(checkpoint);
    checkpoint = page.checkpoint;
    if (page.done) return { activities, skipped, checkpoint, pages, records };
    expect(pages).toBeLessThan(1000);
  }
}

describe('the Discourse connector', () => {
  let forum: DiscourseStandIn;
  let settings: DiscourseSettings;

  beforeAll(async () => {
    forum = await startDiscourseStandIn({ topics: 40, postsPerTopic: 5, users: 12 });
    settings = { url: forum.url, apiUsername: 'system' };
  });
  afterAll(() => forum.stop());

  it('takes https forums, and http ones only on this machine or a private network', () => {
    const check = compileBodyValidator(kind.settingsSchema);
    const valid = (url: string, extra: object = {}) => check({ url, apiUsername: 'system', ...extra });
    for (const url of [
      'https://forum.example.com',
      'https://example.com/forum/',
      'http://127.0.0.1:4200',
      'http://localhost',
      'http://192.168.1.9',
      'http://forum.internal',
    ]) {
      expect(valid(url), url).toBe(true);
    }
    for (const url of [
      'http://forum.example.com',
      'http://127.0.0.1.example.com',
      'ftp://forum.example.com',
      'https://user@forum.example.com',
      'forum.example.com',
    ]) {
      expect(valid(url), url).toBe(false);
    }
    expect(valid('https://forum.example.com', { categories: ['support', 12] })).toBe(true);
    expect(valid('https://forum.example.com', { categories: [''] })).toBe(false);
    expect(compileBodyValidator(kind.secretsSchema)({ apiKey: 'k', webhookSecret: 'short' })).toBe(false);
    expect(() => platformFile('discourse/no-such-file.json')).toThrow(/no-such-file\.json is not in .*shared\/platforms/);
  });

  it('checks the signature over the raw body: good, bad, missing, another secret', async () => {
    const delivery = signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(forum.webhookPost(7)) });
    expect(await receiver.verify(delivery.raw, delivery.headers, secrets)).toBe(true);
    // One byte changed, the same signature.
    const tampered = Buffer.from(delivery.raw.toString().replace('Words', 'Wordz'));
    expect(await receiver.verify(tampered, delivery.headers, secrets)).toBe(false);
    expect(await receiver.verify(delivery.raw, { ...delivery.headers, 'x-discourse-event-signature': undefined }, secrets)).toBe(false);
    expect(await receiver.verify(delivery.raw, { ...delivery.headers, 'x-discourse-event-signature': 'sha256=' }, secrets)).toBe(false);
    expect(
      await receiver.verify(
        delivery.raw,
        { ...delivery.headers, 'x-discourse-event-signature': sign(SECRET, delivery.raw).replace('sha256=', 'sha1=') },
        secrets,
      ),
    ).toBe(false);
    expect(await receiver.verify(delivery.raw, { ...delivery.headers, 'x-discourse-event-signature': 'sha256=zz-not-hex' }, secrets)).toBe(false);
    expect(await receiver.verify(delivery.raw, delivery.headers, { ...secrets, webhookSecret: 'another-secret-entirely' })).toBe(false);
  });

  it('names a delivery by forum and event ID, and its event by type and name', () => {
    const headers = signedDelivery({ secret: SECRET, type: 'like', event: 'post_liked', eventId: 42, instance: 'https://a.example', body: {} }).headers;
    expect(receiver.deliveryId(headers)).toBe('https://a.example#42');
    expect(receiver.deliveryId({ ...headers, 'x-discourse-instance': 'https://b.example' })).toBe('https://b.example#42');
    expect(receiver.deliveryId({ ...headers, 'x-discourse-event-id': undefined })).toBeNull();
    expect(receiver.eventOf(headers)).toBe('like/post_liked');
    expect(receiver.eventOf({})).toBeNull();
  });

  it('turns each followed event into its activity', () => {
    // Topic 6: category "ideas" (round-robin), its second post (ID 27) the accepted answer.
    const first = forum.webhookPost(26);
    const reply = forum.webhookPost(27);
    const liker = forum.user(5);
    const base = forum.url;

    const topic = translated(signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(first) }), settings);
    expect(topic.activities).toHaveLength(1);
    expect(topic.activities[0]).toMatchObject({
      id: 'topic:6',
      activityType: 'forum_topic',
      activityTitle: 'Topic number 6',
      content: { type: 'markdown', value: 'Words of post 26' },
      parentActivity: null,
      subSource: 'ideas',
      url: `${base}/t/topic-number-6/6/1`,
      timestamp: first.created_at,
      user: {
        id: String(first.user_id),
        username: first.username,
        fullName: first.name,
        avatarUrl: `${base}/user_avatar/127.0.0.1/${String(first.username)}/240/${String(first.user_id)}_2.png`,
      },
    });

    const replied = translated(signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(reply) }), settings);
    expect(replied.activities).toEqual([
      expect.objectContaining({
        id: 'post:27',
        activityType: 'forum_reply',
        parentActivity: { id: 'topic:6', activityType: 'forum_topic' },
        subSource: 'ideas',
        url: `${base}/t/topic-number-6/6/2`,
        timestamp: reply.created_at,
        user: expect.objectContaining({ id: String(reply.user_id), username: reply.username }),
      }),
    ]);

    const liked = translated(signedDelivery({ secret: SECRET, type: 'like', event: 'post_liked', body: bodies.postLiked(reply, liker) }), settings);
    expect(liked.activities).toEqual([
      expect.objectContaining({
        id: 'like:27:5',
        activityType: 'forum_like',
        parentActivity: { id: 'post:27', activityType: 'forum_reply' },
        subSource: 'ideas',
        url: `${base}/t/topic-number-6/6/2`,
        user: expect.objectContaining({ id: '5', username: 'member5', fullName: 'Member 5' }),
      }),
    ]);
    expect(liked.activities[0]!.timestamp).toBeUndefined();
    const likedTopic = translated(signedDelivery({ secret: SECRET, type: 'like', event: 'post_liked', body: bodies.postLiked(first, liker) }), settings);
    expect(likedTopic.activities[0]).toMatchObject({ id: 'like:26:5', parentActivity: { id: 'topic:6', activityType: 'forum_topic' } });

    const accepted = translated(signedDelivery({ secret: SECRET, type: 'solved', event: 'accepted_solution', body: bodies.acceptedSolution(reply) }), settings);
    expect(accepted.activities).toEqual([
      expect.objectContaining({
        id: 'accepted:27',
        activityType: 'forum_accepted_answer',
        parentActivity: { id: 'topic:6', activityType: 'forum_topic' },
        subSource: 'ideas',
        timestamp: reply.created_at,
        user: expect.objectContaining({ id: String(reply.user_id) }),
      }),
    ]);
  });

  it('skips, saying why: events not followed, categories not followed, system users, the topic record', () => {
    const post = forum.webhookPost(27);
    const skippedBy = (delivery: SignedDelivery, withSettings = settings) => {
      const translation = translated(delivery, withSettings);
      expect(translation.activities).toEqual([]);
      expect(translation.skipped).toHaveLength(1);
      return translation.skipped[0];
    };
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'user', event: 'user_created', body: { user: forum.user(3) } }))).toMatch(
      /user\/user_created: not an event/,
    );
    // The "Ping" button's delivery names its event "ping" in both headers; without the event header, as well.
    const ping = signedDelivery({ secret: SECRET, type: 'ping', event: 'ping', body: bodies.ping() });
    expect(receiver.eventOf(ping.headers)).toBe('ping/ping');
    expect(skippedBy(ping)).toMatch(/^ping: the forum's test delivery/);
    expect(skippedBy({ ...ping, headers: { ...ping.headers, 'x-discourse-event': '' } })).toMatch(/^ping: the forum's test delivery/);
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'post', event: 'post_edited', body: bodies.postCreated(post) }))).toMatch(
      /post\/post_edited: not an event/,
    );
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'topic', event: 'topic_created', body: bodies.topicCreated(forum.webhookPost(26)) }))).toMatch(
      /topic 6: taken from its first post/,
    );
    // Categories given as slugs or IDs.
    const supportOnly = { ...settings, categories: ['support'] };
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(post) }), supportOnly)).toMatch(
      /category ideas is not followed/,
    );
    expect(
      translated(signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(post) }), { ...settings, categories: [3] })
        .activities,
    ).toHaveLength(1);
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'like', event: 'post_liked', body: bodies.postLiked(post, forum.user(2)) }), supportOnly)).toMatch(
      /not followed/,
    );
    // The welcome topic (topic 1, post 1) is the system user's; system and discobot never are people.
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(forum.webhookPost(1)) }))).toMatch(
      /system account/,
    );
    const discobot = { id: -2, username: 'discobot', name: 'discobot', avatar_template: '/x/{size}.png' };
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'like', event: 'post_liked', body: bodies.postLiked(post, discobot) }))).toMatch(
      /discobot, a Discourse system account/,
    );
    // Private messages, whispers and small actions are not the community's words.
    expect(
      skippedBy(
        signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated({ ...post, topic_archetype: 'private_message' }) }),
      ),
    ).toMatch(/private message/);
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated({ ...post, post_type: 3 }) }))).toMatch(
      /small action/,
    );
    expect(skippedBy(signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: { nothing: true } }))).toMatch(/no post/);
    // Without `raw`, the HTML's text.
    const cookedOnly = { ...post, raw: undefined, cooked: '<p>Try <code>a &amp; b</code>&nbsp;first</p>' };
    expect(
      translated(signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(cookedOnly) }), settings).activities[0]!
        .content,
    ).toEqual({
      type: 'text',
      value: 'Try a & b first',
    });
  });

  it('walks every post, with the same IDs as the webhooks, then brings only new posts', async () => {
    const run = await walk(settings, secrets, null);
    // 200 posts, 50 a page, and a last empty page.
    expect(run.pages).toBe(5);
    const byId = new Map(run.activities.map((activity) => [`${activity.activityType} ${String(activity.id)}`, activity]));
    // 39 topics (the system's welcome topic is not), 40 x 4 replies (members reply to the welcome topic), 13 accepted answers (every third topic).
    expect(run.activities.filter((a) => a.activityType === 'forum_topic')).toHaveLength(39);
    expect(run.activities.filter((a) => a.activityType === 'forum_reply')).toHaveLength(160);
    expect(run.activities.filter((a) => a.activityType === 'forum_accepted_answer')).toHaveLength(13);
    expect(run.skipped.filter((reason) => /system account/.test(reason))).toHaveLength(1);
    for (const activity of run.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
    expect(byId.size).toBe(run.activities.length);

    // The webhook's translation of the same posts is the backfill's, field for field.
    for (const [event, type, postId] of [
      ['post_created', 'post', 26],
      ['post_created', 'post', 27],
      ['accepted_solution', 'solved', 27],
    ] as const) {
      const body = event === 'accepted_solution' ? bodies.acceptedSolution(forum.webhookPost(postId)) : bodies.postCreated(forum.webhookPost(postId));
      const [fromWebhook] = translated(signedDelivery({ secret: SECRET, type, event, body }), settings).activities;
      const fromBackfill = byId.get(`${fromWebhook!.activityType} ${String(fromWebhook!.id)}`);
      expect(fromBackfill).toBeDefined();
      expect(fromBackfill).toEqual(fromWebhook);
    }

    // Caught up: nothing new, one request.
    const before = forum.requests.length;
    const again = await walk(settings, secrets, run.checkpoint);
    expect(again).toMatchObject({ activities: [], pages: 1 });
    expect(forum.requests.slice(before).filter((r) => r.includes('/posts.json'))).toHaveLength(1);

    // New replies: only they come, and the next walk starts after them.
    const added = [forum.addReply(8, 4), forum.addReply(9, 5)];
    const incremental = await walk(settings, secrets, again.checkpoint);
    expect(incremental.activities.map((a) => a.id).sort()).toEqual(added.map((id) => `post:${id}`).sort());
    expect(incremental.activities[0]).toMatchObject({ activityType: 'forum_reply', parentActivity: { activityType: 'forum_topic' } });
    expect((await walk(settings, secrets, incremental.checkpoint)).activities).toEqual([]);
  });

  it('walks to its end, each post once, a forum that answers `before` with that post too (Discourse 3.x)', async () => {
    const older = await startDiscourseStandIn({ topics: 40, postsPerTopic: 5, users: 12, beforeInclusive: true });
    const newer = await startDiscourseStandIn({ topics: 40, postsPerTopic: 5, users: 12 });
    try {
      const olderSettings = { url: older.url, apiUsername: 'system' };
      const run = await walk(olderSettings, secrets, null);
      const current = await walk({ url: newer.url, apiUsername: 'system' }, secrets, null);
      const named = (activities: ActivityPush[]) => activities.map((activity) => `${activity.activityType} ${String(activity.id)}`);
      expect(named(run.activities)).toEqual(named(current.activities));
      expect(new Set(named(run.activities)).size).toBe(run.activities.length);
      // 200 posts, each counted once, though each page after the first starts with the last one seen.
      expect(run.records).toBe(200);
      const added = older.addReply(3, 2);
      const incremental = await walk(olderSettings, secrets, run.checkpoint);
      expect(incremental.activities.map((activity) => activity.id)).toEqual([`post:${added}`]);
      expect((await walk(olderSettings, secrets, incremental.checkpoint)).activities).toEqual([]);
    } finally {
      await older.stop();
      await newer.stop();
    }
  });

  it('names a category without a slug "<id>-category", as the webhooks do', async () => {
    const unslugged = await startDiscourseStandIn({ topics: 3, postsPerTopic: 2, users: 4, categories: [{ id: 7, name: 'Вопросы', slug: '' }] });
    try {
      const forumSettings = { url: unslugged.url, apiUsername: 'system' };
      const run = await walk(forumSettings, secrets, null);
      expect(new Set(run.activities.map((activity) => activity.subSource))).toEqual(new Set(['7-category']));
      const [hooked] = translated(
        signedDelivery({ secret: SECRET, type: 'post', event: 'post_created', body: bodies.postCreated(unslugged.webhookPost(4)) }),
        forumSettings,
      ).activities;
      expect(hooked).toEqual(run.activities.find((activity) => activity.id === hooked!.id));
      expect((await walk({ ...forumSettings, categories: [7] }, secrets, null)).activities).toHaveLength(run.activities.length);
    } finally {
      await unslugged.stop();
    }
  });

  it('follows only the categories named', async () => {
    const run = await walk({ ...settings, categories: ['support', 1] }, secrets, null);
    expect(new Set(run.activities.map((a) => a.subSource))).toEqual(new Set(['general', 'support']));
    expect(run.skipped.some((reason) => /category ideas is not followed/.test(reason))).toBe(true);
  });

  it('waits as a 429 says, waits after a run of 5xx, and stops for a refused key', async () => {
    const clock = new ManualClock('2026-02-01T00:00:00.000Z');
    forum.fail({ status: 429, retryAfter: 37, path: '/posts.json' });
    const wait = await kind.page('posts', null, settings, secrets, access(clock)).catch((error: unknown) => error);
    expect(wait).toBeInstanceOf(RateLimitWait);
    expect((wait as RateLimitWait).until.toISOString()).toBe('2026-02-01T00:00:37.000Z');

    // Two 5xx are retried; a third one makes the job wait, saying why.
    forum.fail({ status: 502, times: 2, path: '/posts.json' });
    const page = await kind.page('posts', null, settings, secrets, access(clock));
    expect(page.translation.activities.length).toBeGreaterThan(0);
    forum.fail({ status: 503, times: 3, path: '/posts.json' });
    const overloaded = await kind.page('posts', null, settings, secrets, access(clock)).catch((error: unknown) => error);
    expect(overloaded).toBeInstanceOf(RateLimitWait);
    expect((overloaded as RateLimitWait).message).toMatch(/503 3 times/);
    expect((overloaded as RateLimitWait).until.getTime()).toBeGreaterThan(clock.now().getTime());

    forum.fail({ status: 401, path: '/posts.json' });
    await expect(kind.page('posts', null, settings, secrets, access())).rejects.toThrow(/refused the API key \(401\)/);
    for (const bad of [
      { apiKey: 'not-a-key', user: 'system' },
      { apiKey: 'admin-key', user: 'nobody-here' },
      { apiKey: 'member-key', user: 'system' },
    ]) {
      const refused = await kind
        .page('posts', null, { ...settings, apiUsername: bad.user }, { ...secrets, apiKey: bad.apiKey }, access())
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CredentialRejected);
      expect((refused as Error).message).toMatch(/refused the API key \(403\)/);
    }
  });

  it('serves a large forum cheaply, and slow answers are waited for', async () => {
    const big = await startDiscourseStandIn({ topics: 250_000, postsPerTopic: 4, users: 5_000 });
    try {
      const bigSettings = { url: big.url, apiUsername: 'system' };
      const started = Date.now();
      const newest = await kind.page('posts', null, bigSettings, secrets, access());
      expect(newest.translation.activities[0]).toMatchObject({ id: 'post:1000000' });
      expect(newest.checkpoint).toEqual({ before: 999_951, top: 1_000_000, highWater: null });
      const deep = await kind.page('posts', { before: 11, top: 1_000_000, highWater: null }, bigSettings, secrets, access());
      expect(deep.translation.activities.map((a) => a.id)).toContain('topic:2');
      expect(Date.now() - started).toBeLessThan(2_000);
      big.setDelay(150);
      const slow = await kind.page('posts', null, bigSettings, secrets, access());
      expect(slow.translation.activities).toEqual(newest.translation.activities);
    } finally {
      await big.stop();
    }
  });

  it('reads full profiles, with emails, with an admin key; with a member key, what posts said stands', async () => {
    const people = await kind.profiles!(['3', '-1', '999', '4'], settings, secrets, access());
    expect(people).toEqual([
      {
        id: '3',
        username: 'member3',
        fullName: 'Member 3',
        avatarUrl: `${forum.url}/user_avatar/127.0.0.1/member3/240/3_2.png`,
        email: 'member3@example.com',
        rawLocation: 'City 3',
        bio: 'I am member 3.',
        externalProfiles: [{ url: 'https://member3.example.org', name: 'member3.example.org' }],
      },
      expect.objectContaining({ id: '4', email: 'member4@example.com' }),
    ]);
    for (const person of people) expect(checkUser(person)).toBe(true);
    expect(await kind.profiles!(['3'], { ...settings, apiUsername: 'member2' }, { ...secrets, apiKey: 'member-key' }, access())).toEqual([]);
  });

  it('tests the forum and the key, saying whether emails will be read', async () => {
    expect(await kind.test(settings, secrets, access())).toBe("forum 'Stand-in Forum' reached; key works as 'system' (admin: emails will be read)");
    expect(await kind.test({ ...settings, apiUsername: 'member2' }, { ...secrets, apiKey: 'member-key' }, access())).toBe(
      "forum 'Stand-in Forum' reached; key works as 'member2' (not an admin: emails will not be read)",
    );
    await expect(kind.test(settings, { ...secrets, apiKey: 'wrong' }, access())).rejects.toBeInstanceOf(CredentialRejected);
    await expect(kind.test({ ...settings, url: `${forum.url}/not-a-forum` }, secrets, access())).rejects.toThrow(/does not answer as a Discourse forum/);
    expect(await kind.streams(settings, secrets, access())).toEqual(['posts']);
  });
});
