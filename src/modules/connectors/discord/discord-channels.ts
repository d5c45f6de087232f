import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage } from '../connector-kind.ts';
import { emptyTranslation } from './discord-activities.ts';
import { discordGet } from './discord-client.ts';
import { translateMessages } from './discord-reactions.ts';
import { compareSnowflakes, isSnowflake, newestOf } from './discord-snowflakes.ts';
import { CHANNEL_TYPES, type DiscordChannel, type DiscordMessage, type DiscordSecrets, type DiscordSettings } from './discord.schemas.ts';

/*
 * The stream `channel:<id>`: a followed channel's own messages (its threads are `threads:<id>`), with GET
 * /channels/{id}/messages ("Message Resource", Get Channel Messages: newest first, at most 100 a request,
 * `before` / `after` a message ID):
 * - the backfill walks back from the newest message, `before` the oldest of the last page, until a page
 *   comes short; it keeps the newest message ID it saw;
 * - then each sync reads forward, `after` the newest message read, 100 at a time, until a page comes
 *   short: only what is new. A message posted during the backfill is above its newest ID, so it is read then.
 * The channel's type is read once: a forum or media channel holds no messages of its own, only threads.
 */
export const CHANNEL_PREFIX = 'channel:';
export const PAGE_SIZE = 100;

/** Channel types whose messages are read; forums and media channels hold only threads. */
const WITH_MESSAGES = new Set<number>([CHANNEL_TYPES.text, CHANNEL_TYPES.announcement, 2, 13]);
const THREADS_ONLY = new Set<number>([CHANNEL_TYPES.forum, CHANNEL_TYPES.media]);

interface ChannelCheckpoint {
  /** What the channel holds, once read: its own messages, or only threads. */
  holds: 'messages' | 'threads' | null;
  /** Backfill: the next page is the messages before this ID (null: from the newest). */
  before: string | null;
  /** Backfill: the newest message ID seen. */
  top: string | null;
  /** Caught up once: messages after this ID are new. */
  after: string | null;
}

function readCheckpoint(value: JsonValue | null): ChannelCheckpoint {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const id = (key: string) => (isSnowflake(object[key]) ? (object[key] as string) : null);
  const holds = object.holds === 'messages' || object.holds === 'threads' ? object.holds : null;
  return { holds, before: id('before'), top: id('top'), after: id('after') };
}

/** The channel's type, checked against the settings: in the followed server, and one with messages or threads. */
export async function channelHolds(
  channelId: string,
  settings: DiscordSettings,
  secrets: DiscordSecrets,
  access: PlatformAccess,
): Promise<{ holds: 'messages' | 'threads'; channel: DiscordChannel }> {
  const { body: channel } = await discordGet<DiscordChannel>(`/channels/${channelId}`, {}, settings, secrets, access);
  if (channel.guild_id !== settings.guildId) {
    throw new Error(`channel ${channelId} (#${channel.name ?? '?'}) is not in server ${settings.guildId}: follow only the server's own channels`);
  }
  if (WITH_MESSAGES.has(channel.type)) return { holds: 'messages', channel };
  if (THREADS_ONLY.has(channel.type)) return { holds: 'threads', channel };
  throw new Error(`channel ${channelId} (#${channel.name ?? '?'}) is of type ${channel.type}: follow text, announcement or forum channels`);
}

export async function channelPage(
  channelId: string,
  checkpoint: JsonValue | null,
  settings: DiscordSettings,
  secrets: DiscordSecrets,
  access: PlatformAccess,
): Promise<StreamPage> {
  const at = readCheckpoint(checkpoint);
  const translation = emptyTranslation();
  if (at.holds === null) at.holds = (await channelHolds(channelId, settings, secrets, access)).holds;
  if (at.holds === 'threads') {
    translation.skipped.push(`channel ${channelId}: a forum holds only threads, read by the stream threads:${channelId}`);
    return { translation, checkpoint: { ...at }, done: true, total: null, records: 0 };
  }

  const forward = at.after !== null;
  const query = forward ? { after: at.after!, limit: String(PAGE_SIZE) } : { before: at.before ?? undefined, limit: String(PAGE_SIZE) };
  const { body } = await discordGet<DiscordMessage[]>(`/channels/${channelId}/messages`, query, settings, secrets, access);
  const messages = [...body].sort((a, b) => compareSnowflakes(a.id, b.id));
  const records = await translateMessages(messages, { guildId: settings.guildId, channel: channelId }, settings, secrets, access, translation);
  const newest = messages.length > 0 ? messages[messages.length - 1]!.id : null;
  const last = messages.length < PAGE_SIZE;

  if (forward) {
    const after = newestOf(at.after, newest);
    return { translation, checkpoint: { holds: at.holds, before: null, top: null, after }, done: last, total: null, records };
  }
  const top = newestOf(at.top, newest);
  if (last) {
    // The backfill is done: from now on, what is above its newest message is new ("0": the channel was empty).
    return { translation, checkpoint: { holds: at.holds, before: null, top: null, after: top ?? '0' }, done: true, total: null, records };
  }
  return { translation, checkpoint: { holds: at.holds, before: messages[0]!.id, top, after: null }, done: false, total: null, records };
}
