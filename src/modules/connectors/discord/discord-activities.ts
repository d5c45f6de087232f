import type { ActivityPush, Translation } from '../connector-kind.ts';
import { notAPerson, personOf } from './discord-people.ts';
import type { DiscordMember, DiscordMessage, DiscordUser } from './discord.schemas.ts';

/**
 * Activity IDs from Discord's own IDs: a message by its ID (a snowflake, unique across Discord), a reaction by
 * the message, the emoji and the person, a join by the server and the person. A record read twice (a page
 * read again after a crash, a join seen in the member list and as a join message) is one activity.
 */
export const ids = {
  message: (messageId: string) => `message:${messageId}`,
  reaction: (messageId: string, emoji: string, userId: string) => `reaction:${messageId}:${emoji}:${userId}`,
  joined: (guildId: string, userId: string) => `joined:${guildId}:${userId}`,
};

/** Message types ("Message Resource", Message Types) that are a person's words: a plain message and a reply. */
const DEFAULT = 0;
const REPLY = 19;
/** "<someone> joined the server", posted in the server's system channel by the person who joined. */
const USER_JOIN = 7;

/** The names Discord's documentation gives the other message types, for the reason a message is skipped. */
const TYPE_NAMES: Record<number, string> = {
  1: 'RECIPIENT_ADD',
  2: 'RECIPIENT_REMOVE',
  3: 'CALL',
  4: 'CHANNEL_NAME_CHANGE',
  5: 'CHANNEL_ICON_CHANGE',
  6: 'CHANNEL_PINNED_MESSAGE',
  8: 'GUILD_BOOST',
  9: 'GUILD_BOOST_TIER_1',
  10: 'GUILD_BOOST_TIER_2',
  11: 'GUILD_BOOST_TIER_3',
  12: 'CHANNEL_FOLLOW_ADD',
  14: 'GUILD_DISCOVERY_DISQUALIFIED',
  15: 'GUILD_DISCOVERY_REQUALIFIED',
  16: 'GUILD_DISCOVERY_GRACE_PERIOD_INITIAL_WARNING',
  17: 'GUILD_DISCOVERY_GRACE_PERIOD_FINAL_WARNING',
  18: 'THREAD_CREATED',
  20: 'CHAT_INPUT_COMMAND',
  21: 'THREAD_STARTER_MESSAGE',
  22: 'GUILD_INVITE_REMINDER',
  23: 'CONTEXT_MENU_COMMAND',
  24: 'AUTO_MODERATION_ACTION',
  25: 'ROLE_SUBSCRIPTION_PURCHASE',
  26: 'INTERACTION_PREMIUM_UPSELL',
  27: 'STAGE_START',
  28: 'STAGE_END',
  29: 'STAGE_SPEAKER',
  31: 'STAGE_TOPIC',
  32: 'GUILD_APPLICATION_PREMIUM_SUBSCRIPTION',
  36: 'GUILD_INCIDENT_ALERT_MODE_ENABLED',
  37: 'GUILD_INCIDENT_ALERT_MODE_DISABLED',
  38: 'GUILD_INCIDENT_REPORT_RAID',
  39: 'GUILD_INCIDENT_REPORT_FALSE_ALARM',
  44: 'PURCHASE_NOTIFICATION',
  46: 'POLL_RESULT',
};

export function emptyTranslation(): Translation {
  return { users: [], activities: [], skipped: [] };
}

/** Where a message was read: its server, the followed channel (the sub-source) and, for a thread's messages, the thread. */
export interface MessagePlace {
  guildId: string;
  channel: string;
  thread?: { id: string; name: string } | null;
}

/** The message in Discord's client (its channel is the thread, for a thread's messages). */
export function messageUrl(guildId: string, channelId: string, messageId: string): string {
  return `https://discord.com/channels/${guildId}/${channelId}/${messageId}`;
}

/**
 * The activity of one message, into `into`; its activity type, or null when it made none (skipped saying why,
 * or a join). In a thread, the message whose ID is the thread's is the post that started it (a forum post):
 * a `discord_message`; the others are replies under it. A public thread always shares its ID with the
 * message it was started from ("Threads": in a text channel that message is in the channel, in a forum it is
 * the thread's first), so the parent is named without being looked up. A reply in a channel names the
 * message it answers as its parent. A join message is the person's join of the server.
 */
export function translateMessage(message: DiscordMessage, place: MessagePlace, into: Translation): string | null {
  const what = `message ${message.id}`;
  if (message.webhook_id) return skip(into, `${what}: a webhook's message (${message.author?.username ?? message.webhook_id})`);
  const notPerson = notAPerson(message.author);
  if (notPerson) return skip(into, `${what}: ${notPerson}`);
  if (message.type === USER_JOIN) {
    into.activities.push(joinActivity(place.guildId, message.author, message.timestamp));
    return null;
  }
  if (message.type !== DEFAULT && message.type !== REPLY) {
    return skip(into, `${what}: a system message (type ${message.type}${TYPE_NAMES[message.type] ? `, ${TYPE_NAMES[message.type]}` : ''})`);
  }
  const thread = place.thread ?? null;
  const reply = thread !== null && message.id !== thread.id;
  const answered = !thread && message.type === REPLY ? message.message_reference?.message_id : undefined;
  const activity: ActivityPush = {
    id: ids.message(message.id),
    activityType: reply ? 'discord_thread_reply' : 'discord_message',
    user: personOf(message.author),
    content: message.content ? { type: 'markdown', value: message.content } : null,
    timestamp: message.timestamp,
    url: messageUrl(place.guildId, thread?.id ?? place.channel, message.id),
    parentActivity: reply
      ? { id: ids.message(thread!.id), activityType: 'discord_message' }
      : answered
        ? { id: ids.message(answered), activityType: 'discord_message' }
        : null,
    subSource: place.channel,
  };
  if (thread) activity.activityTitle = thread.name;
  into.activities.push(activity);
  return activity.activityType;
}

function skip(into: Translation, reason: string): null {
  into.skipped.push(reason);
  return null;
}

/** A custom emoji by its ID (it keeps it when renamed), a Unicode one by itself. */
export function emojiKey(emoji: { id: string | null; name: string | null }): string {
  return emoji.id ?? emoji.name ?? '';
}

/** How the emoji reads: the character, or `:name:` for a server's own. */
export function emojiLabel(emoji: { id: string | null; name: string | null }): string {
  return emoji.id ? `:${emoji.name ?? emoji.id}:` : (emoji.name ?? '');
}

/**
 * A reaction: the reacting person's activity on the message (its parent, when the message is an activity).
 * Discord does not say when a reaction was given: its time is the message's, the earliest it can be.
 */
export function reactionActivity(
  message: DiscordMessage,
  emoji: { id: string | null; name: string | null },
  user: DiscordUser,
  place: MessagePlace,
  parentType: string | null,
): ActivityPush {
  return {
    id: ids.reaction(message.id, emojiKey(emoji), user.id),
    activityType: 'discord_reaction',
    user: personOf(user),
    activityTitle: emojiLabel(emoji),
    timestamp: message.timestamp,
    url: messageUrl(place.guildId, place.thread?.id ?? place.channel, message.id),
    parentActivity: parentType ? { id: ids.message(message.id), activityType: parentType } : null,
    subSource: place.channel,
  };
}

/** A join of the server, from the member list (`joined_at`) or a join message (its time). One per person: a later join replaces it. */
export function joinActivity(guildId: string, user: DiscordUser, at: string): ActivityPush {
  return { id: ids.joined(guildId, user.id), activityType: 'discord_joined_server', user: personOf(user), timestamp: at };
}

/** A member of the list as a join, or why not (a bot, a deleted account). */
export function translateMember(member: DiscordMember, guildId: string, into: Translation): boolean {
  const notPerson = notAPerson(member.user);
  if (notPerson) {
    into.skipped.push(`member ${member.user?.id ?? '?'}: ${notPerson}`);
    return false;
  }
  into.activities.push(joinActivity(guildId, member.user, member.joined_at));
  return true;
}
