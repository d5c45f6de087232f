import Type, { type Static } from 'typebox';

/**
 * https, or http for an address on this machine or a private network (a proxy in front of Slack, or a
 * stand-in): the bot token travels in every request's headers.
 */
const LOCAL_HOST = String.raw`(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2}|[a-z0-9.-]+\.(local|internal|lan))`;
const API_URL = String.raw`^(https://[^\s/?#@]+|http://${LOCAL_HOST}(:\d{1,5})?)(/[^\s?#]*)?$`;

/** Slack's Web API, when the setting is absent. */
export const SLACK_API = 'https://slack.com/api';

export const SlackSettingsSchema = Type.Object(
  {
    channels: Type.Array(
      Type.String({ pattern: '^[CG][A-Z0-9]{2,30}$', description: 'A channel ID, e.g. C0123ABCD (a public channel, or a private one the bot is in)' }),
      {
        minItems: 1,
        maxItems: 500,
        uniqueItems: true,
        description:
          "The channels to follow, by ID (Slack shows it at the bottom of the channel's details): public ones, or private ones the bot was invited to",
      },
    ),
    apiUrl: Type.Optional(
      Type.String({
        pattern: API_URL,
        maxLength: 500,
        description: "The Web API's address; absent: https://slack.com/api (http only for this machine or network)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const SlackSecretsSchema = Type.Object(
  {
    botToken: Type.String({ pattern: '^xoxb-', minLength: 10, maxLength: 300, description: "The app's Bot User OAuth Token (xoxb-...)" }),
    webhookSecret: Type.String({
      minLength: 16,
      maxLength: 200,
      description: "The app's Signing Secret (Basic Information → App Credentials): it signs every Events API request",
    }),
  },
  { additionalProperties: false },
);

export type SlackSettings = Static<typeof SlackSettingsSchema>;
export type SlackSecrets = Static<typeof SlackSecretsSchema>;

/**
 * A message as conversations.history, conversations.replies and the `message` event give it (the API
 * description's objs_message); the fields the connector reads.
 */
export interface SlackMessage {
  type?: string;
  subtype?: string;
  ts: string;
  user?: string;
  bot_id?: string;
  text?: string;
  thread_ts?: string;
  reply_count?: number;
  parent_user_id?: string;
  /** Only in events: the channel the message is in (the lists are per channel). */
  channel?: string;
  hidden?: boolean;
}

/** A user as users.info gives one (objs_user). */
export interface SlackUser {
  id: string;
  name?: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_app_user?: boolean;
  tz?: string;
  profile?: {
    display_name?: string;
    real_name?: string;
    title?: string;
    email?: string;
    image_192?: string;
    image_512?: string;
    image_72?: string;
  };
}
