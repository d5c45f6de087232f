import type { ConnectorKind, PlatformAccess } from '../connector-kind.ts';
import { CHANNEL_PREFIX, channelHolds, channelPage } from './discord-channels.ts';
import { DiscordError, discordGet } from './discord-client.ts';
import { MEMBERS_STREAM, membersPage } from './discord-members.ts';
import { THREADS_PREFIX, threadsPage } from './discord-threads.ts';
import { DiscordSecretsSchema, DiscordSettingsSchema, type DiscordSecrets, type DiscordSettings } from './discord.schemas.ts';

export type { DiscordSecrets, DiscordSettings } from './discord.schemas.ts';

/**
 * Discord servers, read through the HTTP API with a bot's token: the followed channels' messages, their public
 * threads' messages, who reacted, and who joined. Discord sends no webhooks for messages (only its Gateway, a
 * websocket this connector does not hold open), so the kind has no receiver and is read every minute.
 * People are Discord user IDs.
 */
export const discordConnector: ConnectorKind<DiscordSettings, DiscordSecrets> = {
  kind: 'discord',
  platformName: 'Discord',
  settingsSchema: DiscordSettingsSchema,
  secretsSchema: DiscordSecretsSchema,
  syncIntervalMs: 60_000,
  async streams(settings) {
    // A channel's own messages before its threads: a text channel's thread replies name a message of the channel.
    return [...settings.channels.flatMap((channel) => [`${CHANNEL_PREFIX}${channel}`, `${THREADS_PREFIX}${channel}`]), MEMBERS_STREAM];
  },
  async page(stream, checkpoint, settings, secrets, access) {
    if (stream.startsWith(CHANNEL_PREFIX)) return channelPage(stream.slice(CHANNEL_PREFIX.length), checkpoint, settings, secrets, access);
    if (stream.startsWith(THREADS_PREFIX)) return threadsPage(stream.slice(THREADS_PREFIX.length), checkpoint, settings, secrets, access);
    if (stream === MEMBERS_STREAM) return membersPage(checkpoint, settings, secrets, access);
    throw new Error(`the Discord connector has no stream "${stream}"`);
  },
  test: testServer,
};

const KINDS: Record<number, string> = { 0: 'text', 2: 'voice', 5: 'announcement', 13: 'stage', 15: 'forum', 16: 'media' };

/**
 * Whether a read is allowed: true, or false when Discord answers 403 (the bot lacks the permission or the
 * intent); any other error is thrown.
 */
async function allowed(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (error) {
    if (error instanceof DiscordError && error.status === 403) return false;
    throw error;
  }
}

type Get = <T>(route: string, query?: Record<string, string>) => Promise<T>;

/**
 * A channel's history: Discord refuses a channel the bot cannot see (403), and answers no messages, rather
 * than an error, when it lacks Read Message History ("Message Resource", Get Channel Messages): a channel
 * whose last message is known but none comes back is one the bot may not read.
 */
async function messagesReadable(lastMessageId: string | null, id: string, get: Get): Promise<string> {
  let messages: unknown[];
  try {
    messages = await get<unknown[]>(`/channels/${id}/messages`, { limit: '1' });
  } catch (error) {
    if (error instanceof DiscordError && error.status === 403) return 'the bot cannot see it';
    throw error;
  }
  if (messages.length === 0 && lastMessageId) return 'history not readable: the bot lacks Read Message History';
  return 'history readable';
}

/** A forum's posts: listing its archived threads needs Read Message History. */
async function threadsReadable(id: string, get: Get): Promise<string> {
  try {
    await get(`/channels/${id}/threads/archived/public`, { limit: '2' });
    return 'posts readable';
  } catch (error) {
    if (error instanceof DiscordError && error.status === 403) return 'posts not readable: the bot lacks View Channel or Read Message History';
    throw error;
  }
}

/**
 * Tries the token (the bot's own user), the server and each channel, and says what it found: the names, each
 * channel's kind and whether the bot can read its history, and whether it can list the server's members.
 */
async function testServer(settings: DiscordSettings, secrets: DiscordSecrets, access: PlatformAccess): Promise<string> {
  const get: Get = <T>(route: string, query: Record<string, string> = {}) => discordGet<T>(route, query, settings, secrets, access).then(({ body }) => body);
  const me = await get<{ username?: string }>('/users/@me');
  const guild = await get<{ name?: string; approximate_member_count?: number }>(`/guilds/${settings.guildId}`, { with_counts: 'true' });
  const channels: string[] = [];
  for (const id of settings.channels) {
    const { holds, channel } = await channelHolds(id, settings, secrets, access);
    const history = holds === 'messages' ? await messagesReadable(channel.last_message_id ?? null, id, get) : await threadsReadable(id, get);
    channels.push(`#${channel.name ?? id} (${KINDS[channel.type] ?? `type ${channel.type}`}, ${history})`);
  }
  const members = await allowed(() => get(`/guilds/${settings.guildId}/members`, { limit: '1' }));
  const size = typeof guild.approximate_member_count === 'number' ? ` (${guild.approximate_member_count} members)` : '';
  return (
    `server '${guild.name ?? settings.guildId}'${size} reached as '${me.username ?? '?'}'; channels: ${channels.join('; ')}; ` +
    `members: ${members ? 'listable' : 'not listable (turn on the Server Members Intent)'}`
  );
}
