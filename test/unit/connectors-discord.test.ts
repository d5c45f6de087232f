import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { compileBodyValidator } from '../../src/core/validation.ts';
import type { JsonValue } from '../../src/db/schema.ts';
import { CredentialRejected, RateLimitWait, type PlatformAccess, type StreamPage, type Translation } from '../../src/modules/connectors/connector-kind.ts';
import { translateMessage } from '../../src/modules/connectors/discord/discord-activities.ts';
import { discordConnector, type DiscordSecrets, type DiscordSettings } from '../../src/modules/connectors/discord/discord-connector.ts';
import type { DiscordMessage, DiscordUser } from '../../src/modules/connectors/discord/discord.schemas.ts';
import { ActivityPushBody } from '../../src/modules/ingestion/index.ts';
import { discordDescription, startDiscordStandIn, timeOfSnowflake, type DiscordStandIn, type StandInUser } from '../stand-ins/discord-api.ts';

const kind = discordConnector;
const TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhIjKl.stand-in-bot-token-0123456789abcdef';
const secrets: DiscordSecrets = { botToken: TOKEN };
const checkActivity = compileBodyValidator(ActivityPushBody);
const HOUR = 3_600_000;

function valid(translation: Translation): Translation {
  for (const activity of translation.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
  return translation;
}

// ——— The stand-in against Discord's published description ———

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addFormat('snowflake', /^(0|[1-9][0-9]*)$/);
for (const format of ['int32', 'int64', 'nonce']) ajv.addFormat(format, true);
ajv.addSchema({ components: { schemas: discordDescription().components.schemas } }, 'discord');

const withRefs = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"discord#/components/')) as object;

/** The documented JSON answer of an operation (200), with its references resolved against Discord's components. */
function answerSchema(path: string): ValidateFunction {
  const operation = discordDescription().paths[path]!.get as { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
  return ajv.compile(withRefs(operation.responses['200']!.content!['application/json']!.schema));
}
const named = (name: string) => ajv.compile({ $ref: `discord#/components/schemas/${name}` });

function conforms(validate: ValidateFunction, data: unknown, what: string): void {
  const ok = validate(data);
  expect(ok ? [] : validate.errors!.slice(0, 8).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`), what).toEqual([]);
}

describe("the Discord stand-in against Discord's published description", () => {
  let discord: DiscordStandIn;
  let general: string;
  let forum: string;
  let alice: StandInUser;
  const get = async (path: string, token = TOKEN) => {
    const answer = await fetch(`${discord.url}${path}`, { headers: { authorization: `Bot ${token}` } });
    return { status: answer.status, headers: answer.headers, body: (await answer.json()) as unknown };
  };

  beforeAll(async () => {
    discord = await startDiscordStandIn({ token: TOKEN, channels: [{ name: 'general' }, { name: 'help', kind: 'forum' }] });
    general = discord.channel('general');
    forum = discord.channel('help');
    alice = discord.user({ username: 'alice', globalName: 'Alice', avatar: '8342729096ea3675442027381ff50dfe' });
    const bob = discord.user({ username: 'bob', discriminator: '1234' });
    discord.join(alice.id);
    discord.join(bob.id);
    const first = discord.post(general, { author: alice.id, content: 'hello', at: new Date(Date.now() - HOUR) });
    discord.post(general, { author: bob.id, content: 'hi!', replyTo: first.id, at: new Date(Date.now() - HOUR + 1000) });
    discord.react(first.id, '👍', bob.id);
    discord.react(first.id, { id: '1120000000000000001', name: 'party' }, alice.id, { burst: true });
    const thread = discord.startThread(general, { from: first.id, name: 'Hello', author: alice.id, at: new Date(Date.now() - HOUR + 2000) });
    discord.post(thread.id, { author: bob.id, content: 'in the thread', at: new Date(Date.now() - HOUR + 3000) });
    discord.archive(thread.id, new Date(Date.now() - HOUR + 4000));
    discord.startThread(forum, { name: 'A question', author: bob.id, content: 'how?', at: new Date(Date.now() - HOUR + 5000) });
  });
  afterAll(() => discord.stop());

  it('answers each operation the connector uses with its documented schema', async () => {
    conforms(answerSchema('/users/@me'), (await get('/users/@me')).body, 'get_my_user');
    const guild = (await get(`/guilds/${discord.guildId}?with_counts=true`)).body as { approximate_member_count: number };
    conforms(answerSchema('/guilds/{guild_id}'), guild, 'get_guild');
    expect(guild.approximate_member_count).toBe(3);
    conforms(answerSchema('/channels/{channel_id}'), (await get(`/channels/${general}`)).body, 'get_channel (text)');
    conforms(answerSchema('/channels/{channel_id}'), (await get(`/channels/${forum}`)).body, 'get_channel (forum)');
    const messages = (await get(`/channels/${general}/messages`)).body as DiscordMessage[];
    expect(messages).toHaveLength(2);
    conforms(answerSchema('/channels/{channel_id}/messages'), messages, 'list_messages');
    const first = messages[1]!;
    expect(first.reactions).toEqual([
      expect.objectContaining({ emoji: { id: null, name: '👍' }, count: 1, count_details: { burst: 0, normal: 1 } }),
      expect.objectContaining({ emoji: { id: '1120000000000000001', name: 'party' }, count: 1, count_details: { burst: 1, normal: 0 } }),
    ]);
    const reactions = `/channels/${general}/messages/${first.id}/reactions`;
    const thumbs = (await get(`${reactions}/${encodeURIComponent('👍')}`)).body;
    conforms(answerSchema('/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}'), thumbs, 'list_message_reactions_by_emoji');
    expect((await get(`${reactions}/party%3A1120000000000000001?type=1`)).body).toEqual([expect.objectContaining({ id: alice.id })]);
    expect((await get(`${reactions}/party%3A1120000000000000001`)).body).toEqual([]);
    const active = (await get(`/guilds/${discord.guildId}/threads/active`)).body as { threads: unknown[] };
    conforms(answerSchema('/guilds/{guild_id}/threads/active'), active, 'get_active_guild_threads');
    expect(active.threads).toHaveLength(1);
    const archived = (await get(`/channels/${general}/threads/archived/public`)).body as { threads: unknown[] };
    conforms(answerSchema('/channels/{channel_id}/threads/archived/public'), archived, 'list_public_archived_threads');
    expect(archived.threads).toHaveLength(1);
    const members = (await get(`/guilds/${discord.guildId}/members?limit=1000`)).body as unknown[];
    conforms(answerSchema('/guilds/{guild_id}/members'), members, 'list_guild_members');
    expect(members).toHaveLength(3);
  });

  it('makes snowflakes of the documented layout, and pages as documented', async () => {
    const messages = (await get(`/channels/${general}/messages?limit=100`)).body as DiscordMessage[];
    for (const message of messages) expect(timeOfSnowflake(message.id)).toBe(Date.parse(message.timestamp));
    // Newest first; `before` and `after` a message ID; the default limit is 50 and the largest 100.
    const [newest, oldest] = messages;
    expect(BigInt(newest!.id) > BigInt(oldest!.id)).toBe(true);
    expect(((await get(`/channels/${general}/messages?before=${newest!.id}`)).body as DiscordMessage[]).map((m) => m.id)).toEqual([oldest!.id]);
    expect(((await get(`/channels/${general}/messages?after=${oldest!.id}`)).body as DiscordMessage[]).map((m) => m.id)).toEqual([newest!.id]);
    expect(((await get(`/channels/${general}/messages?after=0&limit=1`)).body as DiscordMessage[]).map((m) => m.id)).toEqual([oldest!.id]);
    const tooMany = await get(`/channels/${general}/messages?limit=101`);
    expect(tooMany.status).toBe(400);
    conforms(named('ErrorResponse'), tooMany.body, 'Invalid Form Body');
    expect(((await get(`/guilds/${discord.guildId}/members`)).body as unknown[]).length).toBe(1);
  });

  it('answers errors, rate limits and refused tokens as Discord does', async () => {
    const refused = await get('/users/@me', 'not-the-token');
    expect(refused).toMatchObject({ status: 401, body: { message: '401: Unauthorized', code: 0 } });
    conforms(named('ErrorResponse'), refused.body, '401');
    expect((await get('/channels/1120000000000000999')).body).toEqual({ code: 10003, message: 'Unknown Channel' });

    discord.rateLimitOnce({ retryAfter: 64.57 });
    const limited = await get(`/channels/${general}/messages`);
    expect(limited.status).toBe(429);
    conforms(named('RatelimitedResponse'), limited.body, '429');
    expect(limited.body).toMatchObject({ retry_after: 64.57, global: false });
    expect(limited.headers.get('retry-after')).toBe('65');
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);

    discord.rateLimitOnce({ retryAfter: 2, global: true });
    const global = await get('/users/@me');
    expect(global).toMatchObject({ status: 429, body: { global: true } });
    expect(global.headers.get('x-ratelimit-global')).toBe('true');

    const ok = await get(`/channels/${general}`);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(ok.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(0);
  });
});

// ——— Translation ———

const GUILD = '1100000000000000000';
const GENERAL = '1100000000000000001';
const ALICE: DiscordUser = {
  id: '1100000000000000100',
  username: 'alice',
  discriminator: '0',
  global_name: 'Alice Liddell',
  avatar: 'a_1269e74af4df7417b13759eae50c83dc',
};
const message = (fields: Partial<DiscordMessage>): DiscordMessage => ({
  id: '1200000000000000000',
  channel_id: GENERAL,
  type: 0,
  content: 'hello **world**',
  timestamp: '2026-01-02T03:04:05.678000+00:00',
  author: ALICE,
  ...fields,
});
const translate = (given: DiscordMessage, thread?: { id: string; name: string }) => {
  const into: Translation = { users: [], activities: [], skipped: [] };
  translateMessage(given, { guildId: GUILD, channel: GENERAL, thread }, into);
  return valid(into);
};

describe('the Discord connector: translation', () => {
  it('makes a message with its person: the user ID, username, display name, avatar and Discord identity', () => {
    expect(translate(message({}))).toEqual({
      users: [],
      skipped: [],
      activities: [
        {
          id: 'message:1200000000000000000',
          activityType: 'discord_message',
          user: {
            id: ALICE.id,
            username: 'alice',
            fullName: 'Alice Liddell',
            avatarUrl: `https://cdn.discordapp.com/avatars/${ALICE.id}/a_1269e74af4df7417b13759eae50c83dc.png`,
            discord: { type: 'username', username: 'alice', discriminator: '0' },
          },
          content: { type: 'markdown', value: 'hello **world**' },
          timestamp: '2026-01-02T03:04:05.678000+00:00',
          url: `https://discord.com/channels/${GUILD}/${GENERAL}/1200000000000000000`,
          parentActivity: null,
          subSource: GENERAL,
        },
      ],
    });
    // A legacy account keeps its tag; no display name, no avatar: nothing guessed.
    const legacy = translate(message({ author: { id: '1100000000000000101', username: 'Bob', discriminator: '1234', global_name: null, avatar: null } }));
    expect(legacy.activities[0]!.user).toEqual({
      id: '1100000000000000101',
      username: 'Bob',
      discord: { type: 'username', username: 'Bob', discriminator: '1234' },
    });
    // Without the Message Content intent Discord gives an empty content: no content, not an empty one.
    expect(translate(message({ content: '' })).activities[0]!.content).toBeNull();
  });

  it("puts a reply under the message it answers, a thread reply under the thread's starter, and a forum post first", () => {
    const reply = translate(
      message({ id: '1200000000000000002', type: 19, message_reference: { type: 0, message_id: '1200000000000000000', channel_id: GENERAL } }),
    );
    expect(reply.activities[0]).toMatchObject({
      activityType: 'discord_message',
      parentActivity: { id: 'message:1200000000000000000', activityType: 'discord_message' },
    });
    const thread = { id: '1200000000000000000', name: 'Release plans' };
    const inThread = translate(message({ id: '1200000000000000010', channel_id: thread.id }), thread);
    expect(inThread.activities[0]).toMatchObject({
      id: 'message:1200000000000000010',
      activityType: 'discord_thread_reply',
      activityTitle: 'Release plans',
      url: `https://discord.com/channels/${GUILD}/${thread.id}/1200000000000000010`,
      parentActivity: { id: 'message:1200000000000000000', activityType: 'discord_message' },
      subSource: GENERAL,
    });
    // In a forum, the post's first message has the thread's ID: the post itself.
    const post = translate(message({ id: thread.id, channel_id: thread.id }), thread);
    expect(post.activities[0]).toMatchObject({
      id: `message:${thread.id}`,
      activityType: 'discord_message',
      activityTitle: 'Release plans',
      parentActivity: null,
    });
  });

  it("makes a join message the person's join, and skips bots, webhooks, system messages and deleted accounts, saying why", () => {
    const join = translate(message({ type: 7, content: '' }));
    expect(join.activities).toEqual([
      {
        id: `joined:${GUILD}:${ALICE.id}`,
        activityType: 'discord_joined_server',
        user: expect.objectContaining({ id: ALICE.id }),
        timestamp: '2026-01-02T03:04:05.678000+00:00',
      },
    ]);
    const cases: [DiscordMessage, RegExp][] = [
      [message({ author: { id: '1100000000000000200', username: 'MEE6', bot: true } }), /a bot \(MEE6\)/],
      [message({ webhook_id: '1100000000000000300', author: { id: '1100000000000000300', username: 'GitHub' } }), /a webhook's message \(GitHub\)/],
      [message({ author: { id: '643945264868098049', username: 'Discord', system: true } }), /Discord's system account/],
      [message({ author: { id: '1100000000000000400', username: 'Deleted User 1a2b3c4d', discriminator: '0000' } }), /a deleted account/],
      [message({ type: 6 }), /a system message \(type 6, CHANNEL_PINNED_MESSAGE\)/],
      [message({ type: 21, content: '' }), /THREAD_STARTER_MESSAGE/],
      [message({ type: 20 }), /CHAT_INPUT_COMMAND/],
    ];
    for (const [given, reason] of cases) {
      const translation = translate(given);
      expect(translation.activities, JSON.stringify(given)).toEqual([]);
      expect(translation.skipped.join('; ')).toMatch(reason);
    }
  });
});

// ——— Against the stand-in ———

describe('the Discord connector against the stand-in', () => {
  let discord: DiscordStandIn;
  let stand: DiscordSettings;
  let general: string;
  let forum: string;
  let people: StandInUser[];
  const clock = new ManualClock('2026-01-15T12:00:00.000Z');
  /** One sync run's access: its requests share the REST client's knowledge of buckets. */
  const access = (): PlatformAccess => ({ fetch: globalThis.fetch, now: () => clock.now(), signal: new AbortController().signal, cache: new Map() });

  /** Every page of a stream from a checkpoint, in one run, until it is done. */
  async function walk(stream: string, from: JsonValue | null, run = access()) {
    let checkpoint = from;
    const pages: StreamPage[] = [];
    for (;;) {
      expect(pages.length).toBeLessThan(50);
      const page = await kind.page(stream, checkpoint, stand, secrets, run);
      valid(page.translation);
      pages.push(page);
      if (page.done) return { checkpoint: page.checkpoint, pages, activities: pages.flatMap((one) => one.translation.activities) };
      expect(page.checkpoint).not.toEqual(checkpoint);
      checkpoint = page.checkpoint;
    }
  }

  beforeAll(async () => {
    discord = await startDiscordStandIn({ token: TOKEN, channels: [{ name: 'general' }, { name: 'help', kind: 'forum' }] });
    general = discord.channel('general');
    forum = discord.channel('help');
    stand = { guildId: discord.guildId, channels: [general, forum], apiUrl: discord.url };
    const counts = discord.generate({
      seed: 7,
      channelId: general,
      messages: 230,
      people: 12,
      threadEvery: 40,
      repliesPerThread: 3,
      reactionEvery: 40,
      botEvery: 25,
    });
    people = counts.people.map((id) => ({ id, username: '?' }));
    expect(counts).toMatchObject({ messages: 221, bots: 9, threadReplies: 12, joins: 12 });
  });
  afterAll(() => discord.stop());
  beforeEach(() => {
    discord.requests.splice(0);
    discord.clearRateLimits();
  });

  it('walks a channel back by `before` from the newest message, then reads forward `after` it: only what is new', async () => {
    const backfill = await walk(`channel:${general}`, null);
    // 230 messages: the channel's type, then three pages of 100 going back.
    expect(discord.requests.filter((request) => /\/messages\?/.test(request) && !/reactions/.test(request))).toEqual([
      `/channels/${general}/messages?limit=100`,
      expect.stringMatching(new RegExp(`^/channels/${general}/messages\\?before=\\d+&limit=100$`)),
      expect.stringMatching(new RegExp(`^/channels/${general}/messages\\?before=\\d+&limit=100$`)),
    ]);
    const messages = backfill.activities.filter((activity) => activity.activityType === 'discord_message');
    expect(messages).toHaveLength(221);
    expect(new Set(messages.map((activity) => activity.id)).size).toBe(221);
    const reactions = backfill.activities.filter((activity) => activity.activityType === 'discord_reaction');
    expect(reactions.length).toBeGreaterThan(0);
    for (const reaction of reactions) expect(reaction.parentActivity).toEqual({ id: expect.stringMatching(/^message:/), activityType: 'discord_message' });
    expect(backfill.pages.flatMap((page) => page.translation.skipped).filter((reason) => /a bot/.test(reason))).toHaveLength(9);
    expect(backfill.pages.reduce((sum, page) => sum + (page.records ?? 0), 0)).toBe(230 + reactions.length);

    discord.requests.splice(0);
    const later = discord.post(general, { author: people[0]!.id, content: 'something new' });
    const next = await walk(`channel:${general}`, backfill.checkpoint);
    expect(next.activities.map((activity) => activity.id)).toEqual([`message:${later.id}`]);
    expect(discord.requests).toEqual([expect.stringMatching(new RegExp(`^/channels/${general}/messages\\?after=\\d+&limit=100$`))]);
    // Nothing new: one request, nothing read.
    const again = await walk(`channel:${general}`, next.checkpoint);
    expect(again.activities).toEqual([]);
  });

  it("reads each thread's replies under its starter, then only the threads with something new", async () => {
    const backfill = await walk(`threads:${general}`, null);
    const replies = backfill.activities.filter((activity) => activity.activityType === 'discord_thread_reply');
    expect(replies).toHaveLength(12);
    for (const reply of replies) expect(reply.parentActivity).toEqual({ id: expect.stringMatching(/^message:\d+$/), activityType: 'discord_message' });
    expect(backfill.pages.flatMap((page) => page.translation.skipped)).toEqual(
      Array.from({ length: 4 }, () => expect.stringMatching(/THREAD_STARTER_MESSAGE/)),
    );

    // A reply in an old thread, and a new thread (archived at once): both read, nothing else.
    discord.requests.splice(0);
    const threads = (await (await fetch(`${discord.url}/guilds/${discord.guildId}/threads/active`, { headers: { authorization: `Bot ${TOKEN}` } })).json()) as {
      threads: { id: string }[];
    };
    const old = threads.threads[0]!.id;
    const reply = discord.post(old, { author: people[1]!.id, content: 'a late reply' });
    const starter = discord.post(general, { author: people[2]!.id, content: 'new topic' });
    const fresh = discord.startThread(general, { from: starter.id, name: 'New topic', author: people[2]!.id });
    const freshReply = discord.post(fresh.id, { author: people[3]!.id, content: 'first!' });
    discord.archive(fresh.id);
    const next = await walk(`threads:${general}`, backfill.checkpoint);
    expect(next.activities.map((activity) => activity.id).sort()).toEqual([`message:${reply.id}`, `message:${freshReply.id}`].sort());
    expect(next.activities.find((activity) => activity.id === `message:${freshReply.id}`)).toMatchObject({
      parentActivity: { id: `message:${starter.id}` },
      activityTitle: 'New topic',
    });
    // Only the two threads with news were read.
    expect(discord.requests.filter((request) => /^\/channels\/\d+\/messages\?/.test(request) && !request.startsWith(`/channels/${general}/`))).toHaveLength(2);
  });

  it('pages the archived threads by archive time, and later reads them back only to its mark', async () => {
    const archive = await startDiscordStandIn({ token: TOKEN, channels: [{ name: 'archive' }] });
    try {
      const channel = archive.channel('archive');
      const poster = archive.user({ username: 'poster' });
      const start = Date.now() - 10 * HOUR;
      const threads = Array.from({ length: 60 }, (_, i) => {
        const from = archive.post(channel, { author: poster.id, content: `topic ${i}`, at: new Date(start + i * 60_000) });
        const thread = archive.startThread(channel, { from: from.id, name: `Topic ${i}`, author: poster.id, at: new Date(start + i * 60_000 + 1) });
        archive.post(thread.id, { author: poster.id, content: `reply ${i}`, at: new Date(start + i * 60_000 + 2) });
        archive.archive(thread.id, new Date(start + i * 60_000 + 3));
        return thread.id;
      });
      const settings = { guildId: archive.guildId, channels: [channel], apiUrl: archive.url };
      const read = async (from: JsonValue | null) => {
        archive.requests.splice(0);
        let checkpoint = from;
        const ids: string[] = [];
        for (;;) {
          const page = await kind.page(`threads:${channel}`, checkpoint, settings, secrets, access());
          ids.push(...page.translation.activities.map((activity) => String(activity.id)));
          checkpoint = page.checkpoint;
          if (page.done) return { ids, checkpoint, lists: archive.requests.filter((request) => request.includes('/threads/')) };
        }
      };
      const backfill = await read(null);
      expect(backfill.ids).toHaveLength(60);
      expect(backfill.lists).toEqual([
        `/guilds/${archive.guildId}/threads/active`,
        `/channels/${channel}/threads/archived/public?limit=50`,
        expect.stringMatching(new RegExp(`^/channels/${channel}/threads/archived/public\\?before=2\\d{3}-.*&limit=50$`)),
      ]);
      // A reply unarchives an old thread: it is among the active ones; the archived list is read only back to the mark.
      const late = archive.post(threads[3]!, { author: poster.id, content: 'one more thing' });
      const next = await read(backfill.checkpoint);
      expect(next.ids).toEqual([`message:${late.id}`]);
      expect(next.lists).toEqual([`/guilds/${archive.guildId}/threads/active`, `/channels/${channel}/threads/archived/public?limit=50`]);
    } finally {
      await archive.stop();
    }
  });

  it('reads a forum: its posts are threads, each post a message with its replies under it', async () => {
    const post = discord.startThread(forum, {
      name: 'How do I configure it?',
      author: people[4]!.id,
      content: 'I tried everything',
      at: new Date(Date.now() - HOUR),
    });
    discord.post(post.id, { author: people[5]!.id, content: 'Read the docs', at: new Date(Date.now() - HOUR + 1000) });
    const channel = await walk(`channel:${forum}`, null);
    expect(channel.activities).toEqual([]);
    expect(channel.pages[0]!.translation.skipped).toEqual([expect.stringMatching(/a forum holds only threads/)]);
    discord.requests.splice(0);
    // The channel's type is known: later syncs ask nothing for it.
    await walk(`channel:${forum}`, channel.checkpoint);
    expect(discord.requests).toEqual([]);
    const threads = await walk(`threads:${forum}`, null);
    expect(threads.activities.map((activity) => [activity.activityType, activity.id, activity.parentActivity?.id ?? null])).toEqual([
      ['discord_message', `message:${post.id}`, null],
      ['discord_thread_reply', expect.stringMatching(/^message:/), `message:${post.id}`],
    ]);
  });

  it('lists members as joins, again at most hourly and then only the new ones; without the intent the stream says why', async () => {
    const first = await walk('members', null);
    expect(first.activities).toHaveLength(12);
    expect(first.activities[0]).toMatchObject({
      id: expect.stringMatching(new RegExp(`^joined:${discord.guildId}:\\d+$`)),
      activityType: 'discord_joined_server',
    });
    expect(first.pages[0]!.total).toBe(13); // the people and the connector's bot, a member too
    discord.requests.splice(0);
    const newcomer = discord.user({ username: 'newcomer', at: new Date('2018-01-01T00:00:00Z') });
    discord.join(newcomer.id);
    clock.advance(30 * 60_000);
    expect((await walk('members', first.checkpoint)).activities).toEqual([]);
    expect(discord.requests).toEqual([]);
    clock.advance(31 * 60_000);
    const next = await walk('members', first.checkpoint);
    // An old account that joined now: found though the list is by user ID.
    expect(next.activities.map((activity) => activity.id)).toEqual([`joined:${discord.guildId}:${newcomer.id}`]);

    const closed = await startDiscordStandIn({ token: TOKEN, channels: [{ name: 'general' }], membersIntent: false });
    try {
      const page = await kind.page('members', null, { ...stand, guildId: closed.guildId, apiUrl: closed.url }, secrets, access());
      expect(page).toMatchObject({ done: true, records: 0 });
      expect(page.translation.skipped).toEqual([expect.stringMatching(/403 Missing Access.*Server Members Intent/)]);
    } finally {
      await closed.stop();
    }
  });

  it('waits out a 429 as Discord says, a short one within the request, a spent bucket without asking; a refused token fails', async () => {
    discord.rateLimitOnce({ retryAfter: 30, path: /\/messages/ });
    const limited = await kind.page(`channel:${general}`, null, stand, secrets, access()).catch((caught: unknown) => caught);
    expect(limited).toBeInstanceOf(RateLimitWait);
    expect((limited as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 30_000));
    expect((limited as Error).message).toMatch(/Discord asked to wait 30 s \(429 on \/api\/v10\/channels\/\d+\/messages, the route's limit\)/);

    // The global limit; a body's retry_after alone (no Retry-After header) is waited too.
    discord.rateLimitOnce({ retryAfter: 12.5, global: true, header: false });
    const global = await kind.page(`channel:${general}`, null, stand, secrets, access()).catch((caught: unknown) => caught);
    expect((global as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 12_500));
    expect((global as Error).message).toMatch(/the global limit/);

    // A second's 429 is waited out by the REST client, and the page goes on.
    discord.rateLimitOnce({ retryAfter: 1, path: /\/messages/ });
    const started = Date.now();
    const page = await kind.page(`channel:${general}`, null, stand, secrets, access());
    expect(page.translation.activities.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    // An answer saying its bucket is spent for 45 s: the run's next request to it is not made, the wait is the
    // framework's. (The REST client learns a route's bucket from its first answer: the second one says it is spent.)
    const run = access();
    const first = await kind.page(`channel:${general}`, null, stand, secrets, run);
    discord.exhaustBucketOnce({ path: /\/messages\?before=\d+&limit=100$/, resetAfter: 45 });
    const spent = await kind.page(`channel:${general}`, first.checkpoint, stand, secrets, run);
    const asked = discord.requests.length;
    const waited = await kind.page(`channel:${general}`, spent.checkpoint, stand, secrets, run).catch((caught: unknown) => caught);
    expect(waited).toBeInstanceOf(RateLimitWait);
    const wait = (waited as RateLimitWait).until.getTime() - clock.now().getTime();
    expect(wait).toBeGreaterThan(43_000);
    expect(wait).toBeLessThanOrEqual(46_000);
    expect(discord.requests.length).toBe(asked);

    const refused = await kind
      .page(`channel:${general}`, null, stand, { botToken: 'MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhIjKl.revoked-token-0000000000000000' }, access())
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(CredentialRejected);
    expect((refused as Error).message).toContain('Discord refused the bot token (401: 401: Unauthorized)');
    expect((refused as Error).message).not.toContain('revoked-token');
  });

  it('waits a minute when Discord answers 5xx or cannot be reached, asking once', async () => {
    let asked = 0;
    const failing = (answer: () => Promise<Response>): PlatformAccess => ({
      ...access(),
      fetch: (async () => {
        asked += 1;
        return answer();
      }) as typeof fetch,
    });
    const down = await kind
      .page(
        `channel:${general}`,
        null,
        stand,
        secrets,
        failing(async () => new Response('upstream connect error', { status: 503 })),
      )
      .catch((caught: unknown) => caught);
    expect(down).toBeInstanceOf(RateLimitWait);
    expect((down as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 60_000));
    expect((down as Error).message).toBe(`Discord answered 503 for /channels/${general}; trying again later`);
    expect(asked).toBe(1);
    const unreachable = await kind
      .page(
        `channel:${general}`,
        null,
        stand,
        secrets,
        failing(async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:9');
        }),
      )
      .catch((caught: unknown) => caught);
    expect(unreachable).toBeInstanceOf(RateLimitWait);
    expect((unreachable as Error).message).toMatch(/^Discord could not be reached \(connect ECONNREFUSED 127.0.0.1:9\)/);
    expect(asked).toBe(2);
  });

  it('tests the token, the server and each channel, saying what it found', async () => {
    expect(await kind.test(stand, secrets, access())).toBe(
      "server 'Stand-in Server' (14 members) reached as 'hearth'; channels: #general (text, history readable); #help (forum, posts readable); members: listable",
    );
    const other = await startDiscordStandIn({
      token: TOKEN,
      channels: [
        { name: 'secret', hidden: true },
        { name: 'muted', noHistory: true },
        { name: 'elsewhere', guildId: '1100000000000000999' },
      ],
      membersIntent: false,
    });
    try {
      const on = (channel: string) => ({ guildId: other.guildId, channels: [other.channel(channel)], apiUrl: other.url });
      const muted = on('muted');
      other.post(muted.channels[0]!, { author: other.bot.id, content: 'hidden history' });
      expect(await kind.test(muted, secrets, access())).toMatch(
        /#muted \(text, history not readable: the bot lacks Read Message History\); members: not listable/,
      );
      await expect(kind.test(on('secret'), secrets, access())).rejects.toThrow(/403 \(code 50001\).*Missing Access: the bot cannot see it/);
      await expect(kind.test(on('elsewhere'), secrets, access())).rejects.toThrow(/is not in server/);
      await expect(kind.test({ ...muted, guildId: '1100000000000000999' }, secrets, access())).rejects.toThrow(/Unknown Guild: check the server ID/);
    } finally {
      await other.stop();
    }
  });
});
