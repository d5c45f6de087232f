import type { ActivityPush, Translation } from '../connector-kind.ts';
import type { SlackMessage, SlackSettings } from './slack.schemas.ts';

/**
 * Activity IDs, the same from an event and from the history, so a message seen both ways is one activity: a
 * message by its channel and `ts` (unique within a channel, Slack's own message ID), a reaction by the
 * message, the person and the emoji, a join by the channel and the person.
 */
export const ids = {
  message: (channel: string, ts: string) => `message:${channel}:${ts}`,
  reaction: (channel: string, ts: string, user: string, emoji: string) => `reaction:${channel}:${ts}:${user}:${emoji}`,
  joined: (channel: string, user: string) => `joined:${channel}:${user}`,
};

/** Slackbot, Slack's own account: it posts reminders and channel notices, never a community member's words. */
export const SLACKBOT = 'USLACKBOT';

/** Message subtypes that are a person's words; any other subtype (an edit, a deletion, a topic change...) is skipped. */
const PEOPLES_SUBTYPES = new Set(['thread_broadcast', 'file_share', 'me_message']);

export function emptyTranslation(): Translation {
  return { users: [], activities: [], skipped: [] };
}

/** A Slack `ts` ("1512085950.000216": seconds and microseconds since the epoch) as an ISO time. */
export function timeOf(ts: string): string | null {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(ts);
  if (!match) return null;
  const micros = Number((match[2] ?? '0').padEnd(6, '0'));
  return new Date(Number(match[1]) * 1000 + Math.floor(micros / 1000)).toISOString();
}

export function followsChannel(settings: SlackSettings, channel: string | undefined): boolean {
  return channel !== undefined && settings.channels.includes(channel);
}

/** Why someone is not a person here, or null: bots (a `bot_id`, a `bot_message`) and Slackbot never are. */
export function notAPerson(user: string | undefined, message?: Pick<SlackMessage, 'bot_id' | 'subtype'>): string | null {
  if (message?.subtype === 'bot_message' || message?.bot_id) return `a bot's message${message.bot_id ? ` (${message.bot_id})` : ''}`;
  if (user === SLACKBOT) return 'by Slackbot';
  if (!user) return 'no user';
  return null;
}

/**
 * The activity of one message of a followed channel: a thread reply (its `thread_ts` is another message's
 * `ts`) under its parent, any other a message; a `channel_join` message is the person's join. Anything else
 * is skipped, saying why, into `into.skipped`.
 */
export function translateMessage(message: SlackMessage, channel: string, settings: SlackSettings, into: Translation): void {
  const what = `message ${channel}/${message.ts}`;
  if (!followsChannel(settings, channel)) return void into.skipped.push(`${what}: channel ${channel} is not followed`);
  const notPerson = notAPerson(message.user, message);
  if (notPerson) return void into.skipped.push(`${what}: ${notPerson}`);
  const user = message.user!;
  if (message.subtype === 'channel_join') {
    into.activities.push(joinActivity(channel, user, message.ts));
    return;
  }
  if (message.subtype && !PEOPLES_SUBTYPES.has(message.subtype)) return void into.skipped.push(`${what}: subtype ${message.subtype} is not followed`);
  const reply = message.thread_ts !== undefined && message.thread_ts !== message.ts;
  const activity: ActivityPush = {
    id: ids.message(channel, message.ts),
    activityType: reply ? 'slack_thread_reply' : 'slack_message',
    user: { id: user },
    content: message.text ? { type: 'text', value: message.text } : null,
    timestamp: timeOf(message.ts),
    parentActivity: reply ? { id: ids.message(channel, message.thread_ts!), activityType: 'slack_message' } : null,
    subSource: channel,
  };
  into.activities.push(activity);
}

export function joinActivity(channel: string, user: string, ts: string | undefined): ActivityPush {
  return {
    id: ids.joined(channel, user),
    activityType: 'slack_joined_channel',
    user: { id: user },
    timestamp: ts ? timeOf(ts) : null,
    subSource: channel,
  };
}
