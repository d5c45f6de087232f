import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { platformFile } from '../helpers/platforms.ts';
import { seededRandom as mulberry32 } from '../helpers/seeded-random.ts';

/*
 * A local Discord HTTP API (v10) for the Discord connector's tests and the benchmark. Every answer is built
 * from the response schema that Discord's published OpenAPI description gives its operation
 * (shared/platforms/discord/openapi.json, discord/discord-api-spec): the schema's required fields, each with
 * the simplest value it allows (null where allowed, the first enumerated value, an empty list), then the
 * server's records laid over it. The operations the connector uses, and the schema each answer follows:
 *   GET /users/@me                                   get_my_user: UserPIIResponse
 *   GET /guilds/{id}?with_counts                     get_guild: GuildWithCountsResponse
 *   GET /channels/{id}                               get_channel: GuildChannelResponse, or ThreadResponse for a thread
 *   GET /channels/{id}/messages                      list_messages: MessageResponse[]
 *   GET /channels/{id}/messages/{id}/reactions/{e}   list_message_reactions_by_emoji: UserResponse[]
 *   GET /guilds/{id}/threads/active                  get_active_guild_threads: ThreadsResponse
 *   GET /channels/{id}/threads/archived/public       list_public_archived_threads: ThreadsResponse
 *   GET /guilds/{id}/members                         list_guild_members: GuildMemberResponse[]
 *   errors                                           ErrorResponse; a 429 RatelimitedResponse
 * What the description does not say comes from Discord's documentation (https://discord.com/developers/docs):
 * - paging (Message Resource, "Get Channel Messages" and "Get Reactions"; Guild Resource, "List Guild Members";
 *   Channel Resource, "List Public Archived Threads"; Guild Resource, "List Active Guild Threads"): messages
 *   newest first, 50 by default and 1 to 100, `before`/`after`/`around` exclusive; reacting users by ID
 *   ascending, 25 by default, `after` a user ID; members by user ID ascending, 1 by default, up to 1,000,
 *   `after` the highest user ID of the last page; archived threads by archive time, newest first, `before` a
 *   time (the documentation gives no default count: 50 here); active threads by ID, descending. A channel
 *   without Read Message History gives no messages rather than an error;
 * - snowflakes (Reference, "Snowflakes"): milliseconds since 2015-01-01 shifted left 22 bits, then worker,
 *   process and increment;
 * - threads (Topics, "Threads"): a public thread shares its ID with the message it was started from; in a text
 *   channel its first message is a THREAD_STARTER_MESSAGE (type 21) pointing back at that message; in a forum
 *   the post's first message has the thread's ID;
 * - rate limits (Topics, "Rate Limits"): X-RateLimit-Limit, -Remaining, -Reset, -Reset-After and -Bucket on
 *   answers, per route and top-level resource; a 429 has Retry-After and the JSON body `{message,
 *   retry_after, global}`, X-RateLimit-Scope, and X-RateLimit-Global for the global limit;
 * - errors (Topics, "Opcodes and Status Codes"): `{message, code}` with 0 (401), 10003 Unknown Channel, 10004
 *   Unknown Guild, 10008 Unknown Message, 50001 Missing Access, 50013 Missing Permissions, 50035 Invalid Form
 *   Body; the member list without the Server Members intent is 403 Missing Access.
 */

type Json = Record<string, unknown>;
type Schema = Record<string, unknown>;

let description: { components: { schemas: Record<string, Schema> } } | null = null;

/** Discord's OpenAPI description (parsed once). */
export function discordDescription(): { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Schema> } } {
  description ??= JSON.parse(readFileSync(platformFile('discord/openapi.json'), 'utf8'));
  return description as ReturnType<typeof discordDescription>;
}

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const found = discordDescription().components.schemas[name];
  if (!found) throw new Error(`the Discord description has no schema ${name}`);
  return resolve(found);
}

/** The simplest value a schema allows: its required fields only, null where allowed, the first enumerated value. */
function skeleton(given: Schema): unknown {
  const schema = resolve(given);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives) {
    if (alternatives.some((alternative) => resolve(alternative).type === 'null')) return null;
    if (schema.type === undefined || alternatives.every((alternative) => 'const' in resolve(alternative))) return skeleton(alternatives[0]!);
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
  if (types.includes('null')) return null;
  if (Array.isArray(schema.allOf) && types.length === 0) {
    const parts = (schema.allOf as Schema[]).map(skeleton);
    return parts.every((part) => typeof part === 'object' && part !== null) ? Object.assign({}, ...parts) : parts[0];
  }
  switch (types[0]) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const out: Json = {};
      for (const name of (schema.required ?? []) as string[]) out[name] = properties[name] ? skeleton(properties[name]) : null;
      return out;
    }
    case 'array':
      return [];
    case 'string':
      if (schema.format === 'date-time') return discordTime(DISCORD_EPOCH_MS);
      if (schema.format === 'snowflake') return '0';
      return '';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' && schema.minimum > 0 ? schema.minimum : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

const skeletons = new Map<string, unknown>();

/** The skeleton of a named schema of the description (a fresh copy). */
export function documentedShape(name: string): Json {
  if (!skeletons.has(name)) skeletons.set(name, skeleton({ $ref: `#/components/schemas/${name}` }));
  return structuredClone(skeletons.get(name)) as Json;
}

export const DISCORD_EPOCH_MS = 1_420_070_400_000;

/** A time as Discord writes it: ISO 8601 with microseconds and an offset. */
export function discordTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000+00:00');
}

export function timeOfSnowflake(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}

const byId = (a: { id: string }, b: { id: string }) => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);

export interface StandInUser {
  id: string;
  username: string;
  globalName?: string | null;
  avatar?: string | null;
  /** "0" (the default) for today's unique usernames; four digits for a legacy account. */
  discriminator?: string;
  bot?: boolean;
  system?: boolean;
}

export type ChannelKind = 'text' | 'announcement' | 'forum' | 'voice';

export interface StandInChannelOptions {
  id?: string;
  name: string;
  kind?: ChannelKind;
  /** The bot cannot see the channel: 403 Missing Access. */
  hidden?: boolean;
  /** The bot lacks Read Message History: no messages, and the archived threads refused (50013). */
  noHistory?: boolean;
  /** A channel of another server. */
  guildId?: string;
}

export type Emoji = string | { id: string; name: string };

export interface StandInMessage {
  id: string;
  channelId: string;
  authorId: string;
  content: string;
  type: number;
  at: number;
  webhookId?: string;
  reference?: { channelId: string; messageId?: string };
  /** Emoji key → the emoji and who reacted (user ID → a super reaction). */
  reactions: Map<string, { emoji: { id: string | null; name: string }; users: Map<string, boolean> }>;
  /** The thread started from this message. */
  threadId?: string;
}

interface StandInThread {
  id: string;
  parentId: string;
  name: string;
  ownerId: string;
  private: boolean;
  archived: boolean;
  archiveAt: number;
  createdAt: number;
}

interface StandInChannel extends Required<Pick<StandInChannelOptions, 'id' | 'name' | 'kind'>> {
  hidden: boolean;
  noHistory: boolean;
  guildId: string;
}

export interface HistoryOptions {
  /** The generator's seed: the same seed makes the same history. */
  seed: number;
  channelId: string;
  /** Messages of the channel (not counting thread replies). */
  messages: number;
  /** People who post and react (made as users and members); bots come on top. */
  people: number;
  /** Every this many messages starts a thread (0: none) with `repliesPerThread` replies. */
  threadEvery?: number;
  repliesPerThread?: number;
  /** Every this many messages gets one or two reactions (0: none). */
  reactionEvery?: number;
  /** Every this many messages is a bot's (0: none). */
  botEvery?: number;
  /** When the first message was posted; each next one `spacingMs` later (default: a minute). Default: so the last is a minute ago. */
  start?: Date;
  spacingMs?: number;
}

/** What a generated history holds, as the connector should count it. */
export interface HistoryCounts {
  /** People's messages of the channel (bots' excluded). */
  messages: number;
  threadReplies: number;
  /** People's reactions. */
  reactions: number;
  /** Members who joined (people, not bots). */
  joins: number;
  people: string[];
  bots: number;
  firstMessageId: string;
}

export interface DiscordStandInOptions {
  /** The bot token the stand-in takes (`Authorization: Bot <token>`); any other is 401. */
  token: string;
  guild?: { id?: string; name?: string };
  channels: StandInChannelOptions[];
  users?: (Omit<StandInUser, 'id'> & { id?: string })[];
  /** False: the bot's Server Members intent is off, and the member list answers 403 Missing Access. */
  membersIntent?: boolean;
  /** Each route bucket (per route and top-level resource): requests per window, in the X-RateLimit-* headers and enforced with a 429. */
  bucket?: { limit: number; windowMs: number };
  /** Generated histories, made at start. */
  histories?: HistoryOptions[];
}

export interface RateLimitFault {
  /** Seconds, with decimals, as the body's `retry_after`; Retry-After is them rounded up. */
  retryAfter: number;
  /** The requests it applies to (their path and query after /api/v10); default: the next request. */
  path?: RegExp;
  global?: boolean;
  scope?: 'user' | 'shared' | 'global';
  /** Send Retry-After (default true); false: only the body says how long. */
  header?: boolean;
}

export interface DiscordStandIn {
  /** The API's base, version included: the connector's `apiUrl`. */
  url: string;
  guildId: string;
  bot: StandInUser;
  /** Every request, as `<path after /api/v10>?<query>`. */
  requests: string[];
  channel(name: string): string;
  user(options: Omit<StandInUser, 'id'> & { id?: string; at?: Date }): StandInUser;
  /** A message in a channel or a thread; `at` defaults to now (then it is newer than any before). */
  post(channelId: string, message: { author: string; content?: string; type?: number; replyTo?: string; webhook?: boolean; at?: Date }): StandInMessage;
  /**
   * A public thread: in a text channel, from a message (the thread gets its ID, and a THREAD_STARTER_MESSAGE);
   * in a forum, a post (its first message, by `author`, gets the thread's ID).
   */
  startThread(channelId: string, thread: { from?: string; name: string; author: string; content?: string; private?: boolean; at?: Date }): { id: string };
  archive(threadId: string, at?: Date): void;
  react(messageId: string, emoji: Emoji, userId: string, options?: { burst?: boolean }): void;
  /** A member joins (again, later: a new `joined_at`). */
  join(userId: string, at?: Date): void;
  /** A history made from a seed (see HistoryOptions). */
  generate(options: HistoryOptions): HistoryCounts;
  /** The next request matching `path` is answered 429 as Discord does. */
  rateLimitOnce(fault: RateLimitFault): void;
  /** The next answer matching `path` says its bucket is spent for `resetAfter` seconds; requests to it meanwhile get a 429. */
  exhaustBucketOnce(fault: { path?: RegExp; resetAfter: number }): void;
  /** The next `times` requests matching `path` are answered after `ms`. */
  slow(fault: { path: RegExp; ms: number; times: number }): void;
  /** Every bucket full again, and no fault waiting (between tests). */
  clearRateLimits(): void;
  /** The token the stand-in takes from now on (the old one is then refused). */
  setToken(token: string): void;
  stop(): Promise<void>;
}

const WORDS = ['release', 'docs', 'plugin', 'error', 'thanks', 'deploy', 'question', 'config', 'works', 'idea', 'build', 'help', 'great', 'issue', 'fixed'];
const UNICODE_EMOJI = ['👍', '🎉', '❤️', '🚀', '👀'];

const CHANNEL_TYPE: Record<ChannelKind, number> = { text: 0, voice: 2, announcement: 5, forum: 15 };

export async function startDiscordStandIn(options: DiscordStandInOptions): Promise<DiscordStandIn> {
  let token = options.token;
  const requests: string[] = [];
  let sequence = 0;
  let lastNow = 0;

  /** A snowflake of a moment (now, unless given), unique in the stand-in. */
  function snowflake(at?: number): string {
    let ms = at ?? Math.max(Date.now(), lastNow);
    if (at === undefined) lastNow = ms;
    ms = Math.max(ms, DISCORD_EPOCH_MS);
    sequence = (sequence + 1) & 0xfff;
    return ((BigInt(ms - DISCORD_EPOCH_MS) << 22n) | (1n << 17n) | (1n << 12n) | BigInt(sequence)).toString();
  }

  const guildId = options.guild?.id ?? snowflake(Date.UTC(2020, 0, 1));
  const guildName = options.guild?.name ?? 'Stand-in Server';
  const users = new Map<string, StandInUser>();
  const members = new Map<string, number>();
  const channels = new Map<string, StandInChannel>();
  const threads = new Map<string, StandInThread>();
  /** Messages by channel or thread ID, in the order of their IDs. */
  const messages = new Map<string, StandInMessage[]>();
  const messageById = new Map<string, StandInMessage>();

  const bot: StandInUser = { id: snowflake(Date.UTC(2021, 0, 1)), username: 'hearth', discriminator: '0', bot: true, globalName: 'Hearth' };
  users.set(bot.id, bot);
  members.set(bot.id, Date.UTC(2021, 0, 2));

  function user(given: Omit<StandInUser, 'id'> & { id?: string; at?: Date }): StandInUser {
    const { at, ...rest } = given;
    const made: StandInUser = { discriminator: '0', ...rest, id: given.id ?? snowflake(at?.getTime() ?? Date.UTC(2019, 0, 1) + users.size * 60_000) };
    users.set(made.id, made);
    return made;
  }
  for (const given of options.users ?? []) user(given);

  for (const given of options.channels) {
    const id = given.id ?? snowflake(Date.UTC(2020, 0, 2) + channels.size * 1000);
    channels.set(id, {
      id,
      name: given.name,
      kind: given.kind ?? 'text',
      hidden: !!given.hidden,
      noHistory: !!given.noHistory,
      guildId: given.guildId ?? guildId,
    });
    messages.set(id, []);
  }

  function insert(list: StandInMessage[], message: StandInMessage) {
    // Usually the newest: appended; a message given an earlier time goes in its place.
    if (list.length === 0 || byId(list[list.length - 1]!, message) < 0) list.push(message);
    else
      list.splice(
        list.findIndex((other) => byId(other, message) > 0),
        0,
        message,
      );
    messageById.set(message.id, message);
  }

  function post(channelId: string, given: Parameters<DiscordStandIn['post']>[1], id?: string): StandInMessage {
    const list = messages.get(channelId);
    if (!list) throw new Error(`no channel or thread ${channelId} in the stand-in`);
    if (!users.has(given.author)) throw new Error(`no user ${given.author} in the stand-in`);
    const at = given.at?.getTime();
    const made: StandInMessage = {
      id: id ?? snowflake(at),
      channelId,
      authorId: given.author,
      content: given.content ?? '',
      type: given.type ?? (given.replyTo ? 19 : 0),
      at: 0,
      reactions: new Map(),
    };
    made.at = timeOfSnowflake(made.id);
    if (given.webhook) made.webhookId = snowflake(Date.UTC(2022, 0, 1));
    if (given.replyTo) made.reference = { channelId, messageId: given.replyTo };
    insert(list, made);
    // A message in an archived thread unarchives it, and that is a new archive_timestamp (Topics, "Threads").
    const thread = threads.get(channelId);
    if (thread?.archived) {
      thread.archived = false;
      thread.archiveAt = made.at;
    }
    return made;
  }

  function startThread(channelId: string, given: Parameters<DiscordStandIn['startThread']>[1]): { id: string } {
    const channel = channels.get(channelId);
    if (!channel) throw new Error(`no channel ${channelId} in the stand-in`);
    const at = given.at?.getTime();
    let id: string;
    if (channel.kind === 'forum') {
      id = snowflake(at);
    } else if (given.from) {
      const from = messageById.get(given.from);
      if (!from) throw new Error(`no message ${given.from} in the stand-in`);
      id = from.id;
      from.threadId = id;
    } else {
      // Without a message: a private thread (Topics, "Threads": public threads start from a message).
      id = snowflake(at);
    }
    const thread: StandInThread = {
      id,
      parentId: channelId,
      name: given.name,
      ownerId: given.author,
      private: !!given.private,
      archived: false,
      archiveAt: at ?? Date.now(),
      createdAt: at ?? Date.now(),
    };
    threads.set(id, thread);
    messages.set(id, []);
    if (channel.kind === 'forum') post(id, { author: given.author, content: given.content ?? given.name, at: given.at }, id);
    else if (given.from) post(id, { author: given.author, type: 21, at: given.at }).reference = { channelId, messageId: id };
    return { id };
  }

  function react(messageId: string, emoji: Emoji, userId: string, reaction: { burst?: boolean } = {}) {
    const message = messageById.get(messageId);
    if (!message) throw new Error(`no message ${messageId} in the stand-in`);
    const normalized = typeof emoji === 'string' ? { id: null, name: emoji } : emoji;
    const key = normalized.id ?? normalized.name;
    let entry = message.reactions.get(key);
    if (!entry) message.reactions.set(key, (entry = { emoji: normalized, users: new Map() }));
    entry.users.set(userId, !!reaction.burst);
  }

  function generate(history: HistoryOptions): HistoryCounts {
    const random = mulberry32(history.seed);
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
    const spacing = history.spacingMs ?? 60_000;
    const perThread = history.repliesPerThread ?? 0;
    const total = history.messages + (history.threadEvery ? Math.floor(history.messages / history.threadEvery) * perThread : 0);
    const start = history.start?.getTime() ?? Date.now() - (total + 1) * spacing;
    const people = Array.from({ length: history.people }, (_, i) =>
      user({
        username: `person${history.seed}.${i}`,
        globalName: `Person ${i}`,
        avatar: i % 3 === 0 ? null : `a1b2c3${i}`,
        at: new Date(start - 86_400_000 * (i + 1)),
      }),
    );
    people.forEach((person, i) => members.set(person.id, start - 3_600_000 + i * 1000));
    const bots = history.botEvery ? [user({ username: `helper-bot-${history.seed}`, bot: true })] : [];
    let at = start;
    const counts: HistoryCounts = {
      messages: 0,
      threadReplies: 0,
      reactions: 0,
      joins: people.length,
      people: people.map((p) => p.id),
      bots: 0,
      firstMessageId: '',
    };
    for (let i = 0; i < history.messages; i++) {
      at += spacing;
      const byBot = !!history.botEvery && i % history.botEvery === history.botEvery - 1;
      const author = byBot ? bots[0]! : pick(people);
      const words = Array.from({ length: 3 + Math.floor(random() * 8) }, () => pick(WORDS)).join(' ');
      const message = post(history.channelId, { author: author.id, content: `${words} #${i}`, at: new Date(at) });
      if (i === 0) counts.firstMessageId = message.id;
      if (byBot) counts.bots += 1;
      else counts.messages += 1;
      if (history.reactionEvery && i % history.reactionEvery === 0) {
        const reactors = new Set([pick(people).id, pick(people).id]);
        const emoji = pick(UNICODE_EMOJI);
        for (const reactor of reactors) react(message.id, emoji, reactor);
        counts.reactions += reactors.size;
      }
      if (history.threadEvery && i % history.threadEvery === history.threadEvery - 1 && !byBot) {
        const thread = startThread(history.channelId, { from: message.id, name: `Thread ${i}`, author: author.id, at: new Date(at) });
        for (let r = 0; r < perThread; r++) {
          at += spacing;
          post(thread.id, { author: pick(people).id, content: `${pick(WORDS)} ${pick(WORDS)} (reply ${r})`, at: new Date(at) });
          counts.threadReplies += 1;
        }
      }
    }
    return counts;
  }
  for (const history of options.histories ?? []) generate(history);

  // ——— Answers, each from its documented schema ———

  function userOut(id: string): Json {
    const known = users.get(id)!;
    const out = documentedShape('UserResponse');
    Object.assign(out, {
      id: known.id,
      username: known.username,
      avatar: known.avatar ?? null,
      discriminator: known.discriminator ?? '0',
      global_name: known.globalName ?? null,
      public_flags: 0,
      flags: 0,
    });
    if (known.bot) out.bot = true;
    if (known.system) out.system = true;
    return out;
  }

  function lastMessageOf(id: string): string | null {
    const list = messages.get(id) ?? [];
    return list.length > 0 ? list[list.length - 1]!.id : null;
  }

  function threadOut(thread: StandInThread): Json {
    const out = documentedShape('ThreadResponse');
    const list = messages.get(thread.id) ?? [];
    Object.assign(out, {
      id: thread.id,
      type: thread.private ? 12 : channels.get(thread.parentId)?.kind === 'announcement' ? 10 : 11,
      guild_id: guildId,
      parent_id: thread.parentId,
      name: thread.name,
      owner_id: thread.ownerId,
      last_message_id: lastMessageOf(thread.id),
      flags: 0,
      message_count: list.length,
      member_count: 1,
      total_message_sent: list.length,
      rate_limit_per_user: 0,
      thread_metadata: {
        archived: thread.archived,
        archive_timestamp: discordTime(thread.archiveAt),
        auto_archive_duration: 1440,
        locked: false,
        create_timestamp: discordTime(thread.createdAt),
      },
    });
    return out;
  }

  function channelOut(channel: StandInChannel): Json {
    const out = documentedShape('GuildChannelResponse');
    const forumLast =
      [...threads.values()]
        .filter((thread) => thread.parentId === channel.id)
        .sort(byId)
        .pop()?.id ?? null;
    Object.assign(out, {
      id: channel.id,
      type: CHANNEL_TYPE[channel.kind],
      guild_id: channel.guildId,
      name: channel.name,
      position: 0,
      flags: 0,
      parent_id: null,
      // A forum's last_message_id is its newest post's thread (Topics, "Threads": Forum and Media Channel Fields).
      last_message_id: channel.kind === 'forum' ? forumLast : lastMessageOf(channel.id),
    });
    return out;
  }

  function messageOut(message: StandInMessage): Json {
    const out = documentedShape('MessageResponse');
    Object.assign(out, {
      id: message.id,
      channel_id: message.channelId,
      type: message.type,
      content: message.content,
      timestamp: discordTime(message.at),
      edited_timestamp: null,
      author: message.webhookId ? { ...userOut(message.authorId), id: message.webhookId } : userOut(message.authorId),
      flags: 0,
    });
    if (message.webhookId) out.webhook_id = message.webhookId;
    if (message.reference) {
      out.message_reference = {
        type: 0,
        channel_id: message.reference.channelId,
        guild_id: guildId,
        ...(message.reference.messageId ? { message_id: message.reference.messageId } : {}),
      };
    }
    if (message.threadId && threads.has(message.threadId)) out.thread = threadOut(threads.get(message.threadId)!);
    if (message.reactions.size > 0) {
      out.reactions = [...message.reactions.values()].map(({ emoji, users: who }) => {
        const burst = [...who.values()].filter(Boolean).length;
        return {
          ...documentedShape('MessageReactionResponse'),
          emoji: { id: emoji.id, name: emoji.name },
          count: who.size,
          count_details: { burst, normal: who.size - burst },
          burst_colors: [],
          me: who.has(bot.id),
          me_burst: who.get(bot.id) === true,
        };
      });
    }
    return out;
  }

  function memberOut(id: string): Json {
    const out = documentedShape('GuildMemberResponse');
    Object.assign(out, {
      user: userOut(id),
      joined_at: discordTime(members.get(id)!),
      nick: null,
      roles: [],
      flags: 0,
      pending: false,
      mute: false,
      deaf: false,
    });
    return out;
  }

  function guildOut(withCounts: boolean): Json {
    const out = documentedShape('GuildWithCountsResponse');
    const everyone = { ...documentedShape('GuildRoleResponse'), id: guildId, name: '@everyone', permissions: '104320577' };
    Object.assign(out, {
      id: guildId,
      name: guildName,
      owner_id: bot.id,
      roles: [everyone],
      afk_timeout: 300,
      preferred_locale: 'en-US',
      region: 'deprecated',
      max_members: 500000,
    });
    if (withCounts) {
      out.approximate_member_count = members.size;
      out.approximate_presence_count = 0;
    } else {
      delete out.approximate_member_count;
      delete out.approximate_presence_count;
    }
    return out;
  }

  class Refusal {
    constructor(
      readonly status: number,
      readonly code: number,
      readonly message: string,
    ) {}
  }
  const missingAccess = () => new Refusal(403, 50001, 'Missing Access');
  const invalidForm = (field: string, detail: string) => new Refusal(400, 50035, `Invalid Form Body (${field}: ${detail})`);

  function limitOf(query: URLSearchParams, fallback: number, min: number, max: number): number {
    if (!query.has('limit')) return fallback;
    const limit = Number(query.get('limit'));
    if (!Number.isInteger(limit) || limit < min || limit > max) throw invalidForm('limit', `must be between ${min} and ${max}`);
    return limit;
  }

  function snowflakeParam(query: URLSearchParams, name: string): bigint | null {
    const value = query.get(name);
    if (value === null) return null;
    if (!/^(0|[1-9][0-9]*)$/.test(value)) throw invalidForm(name, 'value is not snowflake');
    return BigInt(value);
  }

  function readableChannel(id: string): { channel: StandInChannel | null; thread: StandInThread | null } {
    const thread = threads.get(id) ?? null;
    const channel = channels.get(thread ? thread.parentId : id) ?? null;
    if (!channel) throw new Refusal(404, 10003, 'Unknown Channel');
    if (channel.hidden) throw missingAccess();
    return { channel, thread };
  }

  function answer(path: string, query: URLSearchParams): unknown {
    let match: RegExpExecArray | null;
    if (path === '/users/@me') {
      const out = { ...documentedShape('UserPIIResponse'), ...userOut(bot.id), mfa_enabled: false, locale: 'en-US', verified: true };
      return out;
    }
    if ((match = /^\/guilds\/(\d+)$/.exec(path))) {
      if (match[1] !== guildId) throw new Refusal(404, 10004, 'Unknown Guild');
      return guildOut(query.get('with_counts') === 'true');
    }
    if ((match = /^\/guilds\/(\d+)\/threads\/active$/.exec(path))) {
      if (match[1] !== guildId) throw new Refusal(404, 10004, 'Unknown Guild');
      const active = [...threads.values()].filter((thread) => !thread.archived && !channels.get(thread.parentId)!.hidden);
      return { ...documentedShape('ThreadsResponse'), threads: active.sort(byId).reverse().map(threadOut), members: [], has_more: false };
    }
    if ((match = /^\/guilds\/(\d+)\/members$/.exec(path))) {
      if (match[1] !== guildId) throw new Refusal(404, 10004, 'Unknown Guild');
      if (options.membersIntent === false) throw missingAccess();
      const limit = limitOf(query, 1, 1, 1000);
      const after = snowflakeParam(query, 'after') ?? 0n;
      return [...members.keys()]
        .filter((id) => BigInt(id) > after)
        .sort((a, b) => byId({ id: a }, { id: b }))
        .slice(0, limit)
        .map(memberOut);
    }
    if ((match = /^\/channels\/(\d+)$/.exec(path))) {
      const { channel, thread } = readableChannel(match[1]!);
      return thread ? threadOut(thread) : channelOut(channel!);
    }
    if ((match = /^\/channels\/(\d+)\/threads\/archived\/public$/.exec(path))) {
      const { channel } = readableChannel(match[1]!);
      if (channel!.noHistory) throw new Refusal(403, 50013, 'Missing Permissions');
      const limit = limitOf(query, 50, 2, 100);
      const before = query.has('before') ? Date.parse(query.get('before')!) : Infinity;
      if (Number.isNaN(before)) throw invalidForm('before', 'not a valid ISO8601 timestamp');
      const archived = [...threads.values()]
        .filter((thread) => thread.parentId === channel!.id && thread.archived && !thread.private && thread.archiveAt < before)
        .sort((a, b) => b.archiveAt - a.archiveAt);
      return { ...documentedShape('ThreadsResponse'), threads: archived.slice(0, limit).map(threadOut), members: [], has_more: archived.length > limit };
    }
    if ((match = /^\/channels\/(\d+)\/messages$/.exec(path))) {
      const { channel } = readableChannel(match[1]!);
      const limit = limitOf(query, 50, 1, 100);
      const given = ['before', 'after', 'around'].filter((name) => query.has(name));
      if (given.length > 1) throw invalidForm(given.join(', '), 'only one of before, after and around may be passed');
      if (channel!.noHistory) return [];
      const list = messages.get(match[1]!)!;
      const before = snowflakeParam(query, 'before');
      const after = snowflakeParam(query, 'after');
      const around = snowflakeParam(query, 'around');
      let page: StandInMessage[];
      if (after !== null) page = list.filter((message) => BigInt(message.id) > after).slice(0, limit);
      else if (before !== null) page = list.filter((message) => BigInt(message.id) < before).slice(-limit);
      else if (around !== null) {
        const at = list.findIndex((message) => BigInt(message.id) >= around);
        const from = Math.max(0, (at === -1 ? list.length : at) - Math.floor(limit / 2));
        page = list.slice(from, from + limit);
      } else page = list.slice(-limit);
      return page.reverse().map(messageOut);
    }
    if ((match = /^\/channels\/(\d+)\/messages\/(\d+)\/reactions\/([^/]+)$/.exec(path))) {
      readableChannel(match[1]!);
      const message = messageById.get(match[2]!);
      if (!message || message.channelId !== match[1]) throw new Refusal(404, 10008, 'Unknown Message');
      const emoji = decodeURIComponent(match[3]!);
      const custom = /^[^:]+:(\d+)$/.exec(emoji);
      if (!custom && (emoji.includes(':') || emoji === '')) throw new Refusal(400, 10014, 'Unknown Emoji');
      const limit = limitOf(query, 25, 1, 100);
      const after = snowflakeParam(query, 'after') ?? 0n;
      const burst = query.get('type') === '1';
      const entry = message.reactions.get(custom ? custom[1]! : emoji);
      return [...(entry?.users ?? new Map<string, boolean>()).entries()]
        .filter(([id, isBurst]) => isBurst === burst && BigInt(id) > after)
        .map(([id]) => ({ id }))
        .sort(byId)
        .slice(0, limit)
        .map(({ id }) => userOut(id));
    }
    throw new Refusal(404, 0, '404: Not Found');
  }

  // ——— Rate limits and faults ———

  const bucketSize = options.bucket ?? { limit: 1000, windowMs: 1000 };
  const buckets = new Map<string, { remaining: number; resetAt: number }>();
  let rateLimits: RateLimitFault[] = [];
  let exhaust: { path?: RegExp; resetAfter: number } | null = null;
  let slow: { path: RegExp; ms: number; times: number } | null = null;

  /** The bucket of a request: its route with IDs generalized, and its top-level resource (Topics, "Rate Limits"). */
  function bucketOf(path: string): { key: string; hash: string } {
    const route = path.replace(/\/\d{5,}/g, '/:id').replace(/\/reactions\/[^/]+/, '/reactions/:emoji');
    const major = /^\/(?:channels|guilds)\/(\d+)/.exec(path)?.[1] ?? 'global';
    return { key: `${route} ${major}`, hash: createHash('sha256').update(route).digest('hex').slice(0, 32) };
  }

  function rateHeaders(path: string, now: number, spend: boolean): { headers: Record<string, string>; spent: boolean } {
    const { key, hash } = bucketOf(path);
    let bucket = buckets.get(key);
    if (!bucket || bucket.resetAt <= now) buckets.set(key, (bucket = { remaining: bucketSize.limit, resetAt: now + bucketSize.windowMs }));
    const spent = bucket.remaining <= 0;
    if (spend && !spent) bucket.remaining -= 1;
    const resetAfter = (bucket.resetAt - now) / 1000;
    return {
      spent,
      headers: {
        'x-ratelimit-limit': String(bucketSize.limit),
        'x-ratelimit-remaining': String(Math.max(0, bucket.remaining)),
        'x-ratelimit-reset': (bucket.resetAt / 1000).toFixed(3),
        'x-ratelimit-reset-after': resetAfter.toFixed(3),
        'x-ratelimit-bucket': hash,
      },
    };
  }

  /**
   * A 429 as the documentation's examples show it: for the route's limit, the bucket's headers say it is
   * spent until Retry-After; for a shared (resource) limit they keep the bucket's own count; the global
   * limit comes without them.
   */
  function tooMany(fault: RateLimitFault, bucketHeaders: Record<string, string>, now: number): { headers: Record<string, string>; body: Json } {
    const global = !!fault.global;
    const headers: Record<string, string> = global ? { 'x-ratelimit-global': 'true' } : { ...bucketHeaders };
    if (!global && fault.scope !== 'shared') {
      headers['x-ratelimit-remaining'] = '0';
      headers['x-ratelimit-reset-after'] = fault.retryAfter.toFixed(3);
      headers['x-ratelimit-reset'] = (now / 1000 + fault.retryAfter).toFixed(3);
    }
    if (fault.header !== false) headers['retry-after'] = String(Math.ceil(fault.retryAfter));
    headers['x-ratelimit-scope'] = fault.scope ?? (global ? 'global' : 'user');
    // RatelimitedResponse: the documented fields, and `code`, which the description's Error requires.
    return {
      headers,
      body: {
        message: fault.scope === 'shared' ? 'The resource is being rate limited.' : 'You are being rate limited.',
        retry_after: fault.retryAfter,
        global,
        code: 0,
      },
    };
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const path = url.pathname.replace(/^\/api\/v10/, '');
    const shown = `${path}${url.search}`;
    requests.push(shown);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'GET') return send(405, { message: '405: Method Not Allowed', code: 0 });
    const auth = request.headers.authorization ?? '';
    if (auth !== `Bot ${token}`) return send(401, { message: '401: Unauthorized', code: 0 });

    const now = Date.now();
    const fault = rateLimits.find((one) => !one.path || one.path.test(shown));
    if (fault) {
      rateLimits = rateLimits.filter((one) => one !== fault);
      const { headers, body } = tooMany(fault, rateHeaders(path, now, false).headers, now);
      return send(429, body, headers);
    }
    const rate = rateHeaders(path, now, true);
    if (rate.spent) {
      const retryAfter = Number(rate.headers['x-ratelimit-reset-after']);
      const { headers, body } = tooMany({ retryAfter }, rate.headers, now);
      return send(429, body, headers);
    }
    if (exhaust && (!exhaust.path || exhaust.path.test(shown))) {
      const { key } = bucketOf(path);
      buckets.set(key, { remaining: 0, resetAt: now + exhaust.resetAfter * 1000 });
      Object.assign(rate.headers, rateHeaders(path, now, false).headers);
      exhaust = null;
    }
    let status = 200;
    let body: unknown;
    try {
      body = answer(path, url.searchParams);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      status = error.status;
      body = { code: error.code, message: error.message };
    }
    if (slow && slow.times > 0 && slow.path.test(shown)) {
      slow.times -= 1;
      // Answered as it stood when the request came, as a slow Discord would.
      setTimeout(() => send(status, body, rate.headers), slow.ms);
      return;
    }
    send(status, body, rate.headers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/api/v10`,
    guildId,
    bot,
    requests,
    channel(name) {
      const found = [...channels.values()].find((channel) => channel.name === name);
      if (!found) throw new Error(`no channel #${name} in the stand-in`);
      return found.id;
    },
    user,
    post: (channelId, message) => post(channelId, message),
    startThread,
    archive(threadId, at) {
      const thread = threads.get(threadId);
      if (!thread) throw new Error(`no thread ${threadId} in the stand-in`);
      thread.archived = true;
      thread.archiveAt = at?.getTime() ?? Date.now();
    },
    react,
    join(userId, at) {
      if (!users.has(userId)) throw new Error(`no user ${userId} in the stand-in`);
      members.set(userId, at?.getTime() ?? Date.now());
    },
    generate,
    rateLimitOnce(fault) {
      rateLimits.push(fault);
    },
    exhaustBucketOnce(fault) {
      exhaust = fault;
    },
    slow(fault) {
      slow = { ...fault };
    },
    clearRateLimits() {
      buckets.clear();
      rateLimits = [];
      exhaust = null;
    },
    setToken(next) {
      token = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
