import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { platformFile } from '../helpers/platforms.ts';

/*
 * A local Slack Web API for the connector's tests, answering as Slack's published OpenAPI description
 * (shared/platforms/slack/web-api-openapi-v2.json, slackapi/slack-api-specs) says: each answer starts from the
 * method's documented 200 example, and the workspace's values are laid over it; errors are `{ ok: false,
 * error }` with status 200, as the description's "Typical error response" of each method. The methods the
 * connector uses: auth.test, conversations.info, conversations.history, conversations.replies, users.info.
 * Paging by `cursor` / `response_metadata.next_cursor` (opaque to the caller); the token is the bearer one.
 */

type Json = Record<string, unknown>;

interface Operation {
  responses: Record<string, { examples?: Record<string, Json> }>;
}
let spec: { paths: Record<string, Record<string, Operation>> } | null = null;

/** The documented 200 example of a method (a deep copy). */
export function documentedExample(method: string): Json {
  spec ??= JSON.parse(readFileSync(platformFile('slack/web-api-openapi-v2.json'), 'utf8'));
  const example = spec!.paths[`/${method}`]?.get?.responses['200']?.examples?.['application/json'];
  if (!example) throw new Error(`the Slack API description has no example answer for ${method}`);
  return structuredClone(example);
}

export interface StandInChannel {
  id: string;
  name: string;
  isPrivate?: boolean;
  isMember?: boolean;
}

export interface StandInUser {
  id: string;
  name: string;
  realName?: string;
  title?: string;
  email?: string;
  isBot?: boolean;
}

export interface StandInMessage {
  ts: string;
  user?: string;
  text?: string;
  thread_ts?: string;
  subtype?: string;
  bot_id?: string;
  reply_count?: number;
}

export interface SlackStandInOptions {
  token: string;
  channels: StandInChannel[];
  users: StandInUser[];
  /** Page size when the request gives no `limit` (Slack's own default is 100). */
  pageSize?: number;
}

export interface SlackStandIn {
  url: string;
  /** Every request, as `<method>?<query without the token>`. */
  requests: string[];
  /** A message in a channel (a thread reply with `thread_ts`); its `ts` is made when absent. */
  post(channel: string, message: Omit<StandInMessage, 'ts'> & { ts?: string }): StandInMessage;
  /** The next request (of `method`, if given) is answered 429 with Retry-After. */
  rateLimitOnce(retryAfterSeconds: number, method?: string): void;
  /** The next `times` requests of `method` that carry a cursor (a later page) are answered after `ms`. */
  slowPages(method: string, ms: number, times: number): void;
  stop(): Promise<void>;
}

/** Slack's cursors are opaque; these are base64 of the next item's index, like Slack's own `next_ts:` ones. */
const cursorOf = (index: number) => Buffer.from(`next:${index}`).toString('base64');
const indexOf = (cursor: string | null) => (cursor ? Number(Buffer.from(cursor, 'base64').toString().slice('next:'.length)) || 0 : 0);

export async function startSlackStandIn(options: SlackStandInOptions): Promise<SlackStandIn> {
  const requests: string[] = [];
  const channels = new Map(options.channels.map((channel) => [channel.id, { ...channel, messages: [] as StandInMessage[] }]));
  const users = new Map(options.users.map((user) => [user.id, user]));
  let clock = 1_767_225_600; // 2026-01-01T00:00:00Z, in seconds
  let sequence = 0;
  let rateLimit: { seconds: number; method?: string } | null = null;
  let slow: { method: string; ms: number; times: number } | null = null;

  function post(channelId: string, message: Omit<StandInMessage, 'ts'> & { ts?: string }): StandInMessage {
    const channel = channels.get(channelId);
    if (!channel) throw new Error(`no channel ${channelId} in the stand-in`);
    clock += 60;
    sequence += 1;
    const made: StandInMessage = { ...message, ts: message.ts ?? `${clock}.${String(sequence).padStart(6, '0')}` };
    channel.messages.push(made);
    if (made.thread_ts && made.thread_ts !== made.ts) {
      const parent = channel.messages.find((candidate) => candidate.ts === made.thread_ts);
      if (parent) {
        parent.thread_ts = parent.ts;
        parent.reply_count = (parent.reply_count ?? 0) + 1;
      }
    }
    return made;
  }

  /** A message as the API gives it: the documented example message's fields, then the record's. */
  function messageOut(message: StandInMessage): Json {
    const out: Json = { type: 'message', text: message.text ?? '', ts: message.ts };
    for (const key of ['user', 'thread_ts', 'subtype', 'bot_id', 'reply_count'] as const) if (message[key] !== undefined) out[key] = message[key];
    return out;
  }

  function page<T>(items: T[], query: URLSearchParams): { items: T[]; next: string } {
    const limit = Math.min(Number(query.get('limit')) || options.pageSize || 100, 1000);
    const start = indexOf(query.get('cursor'));
    const slice = items.slice(start, start + limit);
    return { items: slice, next: start + limit < items.length ? cursorOf(start + limit) : '' };
  }

  function answer(method: string, query: URLSearchParams): Json {
    const error = (code: string): Json => ({ ok: false, error: code });
    switch (method) {
      case 'auth.test':
        return {
          ...documentedExample(method),
          team: 'Stand-in Workspace',
          team_id: 'T0STANDIN',
          user: 'hearth',
          user_id: 'U0HEARTHBOT',
          url: 'https://standin.slack.com/',
        };
      case 'conversations.info': {
        const channel = channels.get(query.get('channel') ?? '');
        if (!channel || (channel.isPrivate && !channel.isMember)) return error('channel_not_found');
        const example = documentedExample(method);
        const info = example.channel as Json;
        return {
          ...example,
          channel: {
            ...info,
            id: channel.id,
            name: channel.name,
            name_normalized: channel.name,
            is_private: !!channel.isPrivate,
            is_member: channel.isMember !== false,
            is_general: false,
          },
        };
      }
      case 'conversations.history': {
        const channel = channels.get(query.get('channel') ?? '');
        if (!channel || (channel.isPrivate && !channel.isMember)) return error('channel_not_found');
        if (channel.isMember === false) return error('not_in_channel');
        const oldest = Number(query.get('oldest') ?? 0);
        const listed = channel.messages
          .filter((message) => !message.thread_ts || message.thread_ts === message.ts)
          .filter((message) => Number(message.ts) > oldest)
          .sort((a, b) => Number(b.ts) - Number(a.ts));
        const { items, next } = page(listed, query);
        return { ...documentedExample(method), messages: items.map(messageOut), has_more: next !== '', response_metadata: { next_cursor: next } };
      }
      case 'conversations.replies': {
        const channel = channels.get(query.get('channel') ?? '');
        if (!channel || (channel.isPrivate && !channel.isMember)) return error('channel_not_found');
        const ts = query.get('ts') ?? '';
        const thread = channel.messages.filter((message) => message.ts === ts || message.thread_ts === ts).sort((a, b) => Number(a.ts) - Number(b.ts));
        if (thread.length === 0) return error('thread_not_found');
        const { items, next } = page(thread, query);
        return { ...documentedExample(method), messages: items.map(messageOut), has_more: next !== '', response_metadata: { next_cursor: next } };
      }
      case 'users.info': {
        const user = users.get(query.get('user') ?? '');
        if (!user) return error('user_not_found');
        const example = documentedExample(method);
        const documented = example.user as Json;
        const profile: Json = { ...(documented.profile as Json), display_name: user.name, display_name_normalized: user.name };
        profile.real_name = profile.real_name_normalized = user.realName ?? '';
        profile.title = user.title ?? '';
        if (user.email) profile.email = user.email;
        else delete profile.email; // without the users:read.email scope, or no address
        return { ...example, user: { ...documented, id: user.id, name: user.name, real_name: user.realName ?? '', is_bot: !!user.isBot, profile } };
      }
      default:
        return error('unknown_method');
    }
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const method = url.pathname.replace(/^\/api\//, '');
    const shown = new URLSearchParams(url.search);
    shown.delete('token');
    requests.push(`${method}${shown.size > 0 ? `?${shown}` : ''}`);
    const send = (status: number, body: Json, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(JSON.stringify(body));
    };
    if (rateLimit && (!rateLimit.method || rateLimit.method === method)) {
      const seconds = rateLimit.seconds;
      rateLimit = null;
      // "Rate limits" (https://api.slack.com/docs/rate-limits): HTTP 429 with Retry-After in seconds.
      return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(seconds) });
    }
    const auth = request.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : url.searchParams.get('token');
    if (!token) return send(200, { ok: false, error: 'not_authed' });
    if (token !== options.token) return send(200, { ok: false, error: 'invalid_auth' });
    if (slow && slow.times > 0 && slow.method === method && url.searchParams.get('cursor')) {
      slow.times -= 1;
      // Answered as it stands when the request came, as a slow Slack would.
      const late = answer(method, url.searchParams);
      setTimeout(() => send(200, late), slow.ms);
      return;
    }
    send(200, answer(method, url.searchParams));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api`,
    requests,
    post,
    rateLimitOnce(seconds, method) {
      rateLimit = { seconds, method };
    },
    slowPages(method, ms, times) {
      slow = { method, ms, times };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
