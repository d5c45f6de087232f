import Type, { type Static } from 'typebox';

/**
 * https, or http for an address on this machine or a private network (a proxy in front of Discord, or a
 * stand-in): the bot token travels in every request's headers.
 */
const LOCAL_HOST = String.raw`(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2}|[a-z0-9.-]+\.(local|internal|lan))`;
const API_URL = String.raw`^(https://[^\s/?#@]+|http://${LOCAL_HOST}(:\d{1,5})?)(/[^\s?#]*)?$`;

/** Discord's HTTP API, version 10, when the setting is absent. */
export const DISCORD_API = 'https://discord.com/api/v10';

/** A snowflake as Discord shows it: a decimal number of 17 to 20 digits (a millisecond time since 2015 and more, shifted left 22 bits). */
const SNOWFLAKE = '^[1-9][0-9]{16,19}$';

export const DiscordSettingsSchema = Type.Object(
  {
    guildId: Type.String({
      pattern: SNOWFLAKE,
      description: "The server's ID (with Developer Mode on: right-click the server's icon → Copy Server ID)",
    }),
    channels: Type.Array(Type.String({ pattern: SNOWFLAKE, description: 'A channel ID, e.g. 1120456789012345678' }), {
      minItems: 1,
      maxItems: 200,
      uniqueItems: true,
      description:
        'The text, announcement or forum channels to follow, by ID (right-click the channel → Copy Channel ID); their public threads are followed too',
    }),
    apiUrl: Type.Optional(
      Type.String({
        pattern: API_URL,
        maxLength: 500,
        description: "The HTTP API's address, version included; absent: https://discord.com/api/v10 (http only for this machine or network)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const DiscordSecretsSchema = Type.Object(
  {
    botToken: Type.String({
      // Today's tokens are three base64url parts joined by dots; the shape is not promised, so only what no
      // token holds is refused here (a space: the "Bot " prefix pasted with it). A wrong token is Discord's 401.
      pattern: '^[A-Za-z0-9._-]+$',
      minLength: 20,
      maxLength: 200,
      description: "The bot's token (Developer Portal → the application → Bot → Reset Token), without the 'Bot ' prefix",
    }),
  },
  { additionalProperties: false },
);

export type DiscordSettings = Static<typeof DiscordSettingsSchema>;
export type DiscordSecrets = Static<typeof DiscordSecretsSchema>;

/*
 * Discord's objects as its HTTP API gives them (the OpenAPI description's UserResponse, MessageResponse,
 * ThreadResponse, GuildChannelResponse, GuildMemberResponse): the fields the connector reads.
 */

export interface DiscordUser {
  id: string;
  username: string;
  /** "0" for an account on the unique-username system; a legacy account's four digits otherwise. */
  discriminator?: string;
  global_name?: string | null;
  avatar?: string | null;
  bot?: boolean;
  system?: boolean;
}

export interface DiscordReaction {
  emoji: { id: string | null; name: string | null };
  count: number;
  count_details?: { burst: number; normal: number };
}

export interface DiscordMessage {
  id: string;
  channel_id: string;
  /** The message type (0 DEFAULT, 19 REPLY, 7 USER_JOIN, 21 THREAD_STARTER_MESSAGE, ...). */
  type: number;
  content: string;
  timestamp: string;
  author: DiscordUser;
  webhook_id?: string;
  message_reference?: { type?: number; message_id?: string; channel_id?: string; guild_id?: string };
  reactions?: DiscordReaction[];
}

/** Channel types (the API's ChannelTypes) the connector follows or meets. */
export const CHANNEL_TYPES = {
  text: 0,
  announcement: 5,
  announcementThread: 10,
  publicThread: 11,
  privateThread: 12,
  forum: 15,
  media: 16,
} as const;

export interface DiscordChannel {
  id: string;
  type: number;
  guild_id?: string;
  name?: string;
  parent_id?: string | null;
  last_message_id?: string | null;
}

export interface DiscordThread extends DiscordChannel {
  name: string;
  thread_metadata?: { archived: boolean; archive_timestamp: string | null };
}

export interface DiscordMember {
  user: DiscordUser;
  joined_at: string;
  nick?: string | null;
}
