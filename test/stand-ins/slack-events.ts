import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { platformFile } from '../helpers/platforms.ts';

/*
 * Slack Events API deliveries, for tests. The wrapper's fields and their example values come from Slack's
 * published event wrapper schema (shared/platforms/slack/events-api-wrapper-schema.json); the inner events
 * follow Slack's event pages (https://api.slack.com/events/message, /events/reaction_added,
 * /events/member_joined_channel, /events/url_verification). The signature follows "Verifying requests from
 * Slack" (https://api.slack.com/authentication/verifying-requests-from-slack): `X-Slack-Request-Timestamp` is
 * the Unix time in seconds, and `X-Slack-Signature` is `v0=` and the hex HMAC-SHA256, keyed with the signing
 * secret, of `v0:<timestamp>:<raw body>`.
 */

type Json = Record<string, unknown>;

let wrapper: { properties: Record<string, { examples?: unknown[] }> } | null = null;
function exampleOf(field: string): unknown {
  wrapper ??= JSON.parse(readFileSync(platformFile('slack/events-api-wrapper-schema.json'), 'utf8'));
  return wrapper!.properties[field]?.examples?.[0];
}

export interface SignedDelivery {
  raw: Buffer;
  /** Lower-case names, as Node gives a request's headers. */
  headers: Record<string, string>;
  body: Json;
}

export function sign(secret: string, timestamp: number, raw: Buffer | string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(raw).digest('hex')}`;
}

/** A delivery as Slack sends it, signed at `at` (the receiver's clock), with `X-Slack-Retry-Num` for a retry. */
export function signedDelivery(parts: { secret: string; body: Json; at: Date; retryNum?: number }): SignedDelivery {
  const raw = Buffer.from(JSON.stringify(parts.body));
  const timestamp = Math.floor(parts.at.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': sign(parts.secret, timestamp, raw),
  };
  if (parts.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(parts.retryNum);
    headers['x-slack-retry-reason'] = 'http_timeout';
  }
  return { raw, headers, body: parts.body };
}

let eventCounter = 1000;

export const bodies = {
  urlVerification: (challenge: string): Json => ({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge, type: 'url_verification' }),
  /** The event wrapper around `event`, with a new `event_id` unless one is given. */
  eventCallback: (event: Json, eventId?: string): Json => ({
    token: 'XXYYZZ',
    team_id: exampleOf('team_id'),
    api_app_id: exampleOf('api_app_id'),
    event,
    type: exampleOf('type'),
    event_id: eventId ?? `Ev0STANDIN${eventCounter++}`,
    event_time: exampleOf('event_time'),
    authed_users: ['U0HEARTHBOT'],
  }),
  message: (channel: string, message: { ts: string; user?: string; text?: string; thread_ts?: string; subtype?: string; bot_id?: string }): Json => ({
    type: 'message',
    channel,
    channel_type: 'channel',
    event_ts: message.ts,
    ...message,
  }),
  reactionAdded: (channel: string, ts: string, user: string, reaction: string, itemUser = 'U0AUTHOR'): Json => ({
    type: 'reaction_added',
    user,
    reaction,
    item_user: itemUser,
    item: { type: 'message', channel, ts },
    event_ts: `${Number(ts.split('.')[0]) + 30}.000100`,
  }),
  memberJoined: (channel: string, user: string, eventTs = '1767225700.000200'): Json => ({
    type: 'member_joined_channel',
    user,
    channel,
    channel_type: 'C',
    team: exampleOf('team_id'),
    event_ts: eventTs,
  }),
};
