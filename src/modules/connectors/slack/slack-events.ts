import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Delivery, Headers, Translation } from '../connector-kind.ts';
import { emptyTranslation, followsChannel, ids, joinActivity, notAPerson, timeOf, translateMessage } from './slack-activities.ts';
import type { SlackMessage, SlackSecrets, SlackSettings } from './slack.schemas.ts';

/*
 * Slack's Events API, as "Verifying requests from Slack" (https://api.slack.com/authentication/verifying-requests-from-slack)
 * and the Events API's description (https://api.slack.com/apis/connections/events-api) say:
 * - every request is signed: `X-Slack-Signature` is `v0=` and the hex HMAC-SHA256, keyed with the app's signing
 *   secret, of `v0:<X-Slack-Request-Timestamp>:<raw body>`; a timestamp more than five minutes from now is a replay;
 * - the body is the event wrapper `{ type: "event_callback", event_id, event_time, team_id, event: {...} }`, or
 *   the handshake `{ type: "url_verification", challenge }`, answered with the challenge;
 * - a delivery not answered in 3 s is sent again with `X-Slack-Retry-Num` and the same `event_id`.
 */

/** Slack's own bound on a request's age: older (or further ahead) is refused as a replay. */
const MAX_AGE_SECONDS = 5 * 60;

function header(headers: Headers, name: string): string | null {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? null : first;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function verifySlack(raw: Buffer, headers: Headers, secrets: SlackSecrets, now?: Date): Promise<boolean> {
  const signature = header(headers, 'x-slack-signature');
  const timestamp = header(headers, 'x-slack-request-timestamp');
  if (!now || !signature || !timestamp || !signature.startsWith('v0=') || !/^\d{1,12}$/.test(timestamp) || !secrets.webhookSecret) return false;
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > MAX_AGE_SECONDS) return false;
  const given = Buffer.from(signature.slice('v0='.length).trim(), 'hex');
  const expected = createHmac('sha256', secrets.webhookSecret)
    .update(Buffer.concat([Buffer.from(`v0:${timestamp}:`), raw]))
    .digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Slack's `event_id` is unique across workspaces and kept by its retries: a retry is stored once. */
export function slackDeliveryId(_headers: Headers, body?: unknown): string | null {
  return isRecord(body) && typeof body.event_id === 'string' && body.event_id ? body.event_id : null;
}

/** The inner event's type for an event callback (`message`, `reaction_added`), else the wrapper's (`url_verification`). */
export function slackEventOf(_headers: Headers, body?: unknown): string | null {
  if (!isRecord(body) || typeof body.type !== 'string' || !body.type) return null;
  if (body.type !== 'event_callback') return body.type;
  return isRecord(body.event) && typeof body.event.type === 'string' && body.event.type ? body.event.type : null;
}

/** The URL handshake Slack makes when the Request URL is entered: its challenge, sent back as it came. */
export function slackAnswer(delivery: Delivery): Record<string, string> | null {
  if (delivery.event !== 'url_verification' || !isRecord(delivery.body) || typeof delivery.body.challenge !== 'string') return null;
  return { challenge: delivery.body.challenge };
}

/** The events turned into activities; any other is stored and skipped, saying so. */
export const FOLLOWED_EVENTS = ['message', 'reaction_added', 'member_joined_channel'] as const;

export function translateSlack(delivery: Delivery, settings: SlackSettings): Translation {
  const translation = emptyTranslation();
  const body = isRecord(delivery.body) ? delivery.body : {};
  const event = isRecord(body.event) ? body.event : {};
  const str = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
  switch (delivery.event) {
    case 'message': {
      const channel = str(event.channel);
      const ts = str(event.ts);
      if (!channel || !ts) return skip(translation, 'message: the event has no channel or ts');
      translateMessage(event as unknown as SlackMessage, channel, settings, translation);
      return translation;
    }
    case 'reaction_added': {
      const item = isRecord(event.item) ? event.item : {};
      const channel = str(item.channel);
      const ts = str(item.ts);
      const user = str(event.user);
      const emoji = str(event.reaction);
      if (item.type !== 'message' || !channel || !ts) return skip(translation, `reaction_added: not on a message (${String(item.type ?? 'no item')})`);
      if (!emoji) return skip(translation, 'reaction_added: the event has no reaction');
      if (!followsChannel(settings, channel)) return skip(translation, `reaction on ${channel}/${ts}: channel ${channel} is not followed`);
      const notPerson = notAPerson(user);
      if (notPerson) return skip(translation, `reaction on ${channel}/${ts}: ${notPerson}`);
      translation.activities.push({
        id: ids.reaction(channel, ts, user!, emoji),
        activityType: 'slack_reaction',
        user: { id: user! },
        activityTitle: `:${emoji}:`,
        timestamp: str(event.event_ts) ? timeOf(str(event.event_ts)!) : null,
        parentActivity: { id: ids.message(channel, ts), activityType: 'slack_message' },
        subSource: channel,
      });
      return translation;
    }
    case 'member_joined_channel': {
      const channel = str(event.channel);
      const user = str(event.user);
      if (!channel) return skip(translation, 'member_joined_channel: the event has no channel');
      if (!followsChannel(settings, channel)) return skip(translation, `join of ${channel}: channel ${channel} is not followed`);
      const notPerson = notAPerson(user);
      if (notPerson) return skip(translation, `join of ${channel}: ${notPerson}`);
      translation.activities.push(joinActivity(channel, user!, str(event.event_ts)));
      return translation;
    }
    case 'app_rate_limited':
      return skip(translation, 'app_rate_limited: Slack dropped events for the app for a minute; the next sync reads them');
    default:
      return skip(translation, `${delivery.event}: not an event the Slack connector follows (it follows ${FOLLOWED_EVENTS.join(', ')})`);
  }
}

function skip(translation: Translation, reason: string): Translation {
  translation.skipped.push(reason);
  return translation;
}
