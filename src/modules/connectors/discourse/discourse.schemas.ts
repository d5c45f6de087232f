import Type, { type Static } from 'typebox';

/**
 * https, or http for a forum on this machine or a private network (loopback, private IPv4, .local,
 * .internal, .lan names): the API key travels in every request's headers.
 */
const LOCAL_HOST = String.raw`(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2}|[a-z0-9.-]+\.(local|internal|lan))`;
const FORUM_URL = String.raw`^(https://[^\s/?#@]+|http://${LOCAL_HOST}(:\d{1,5})?)(/[^\s?#]*)?$`;

export const DiscourseSettingsSchema = Type.Object(
  {
    url: Type.String({
      pattern: FORUM_URL,
      maxLength: 500,
      description: "The forum's address, e.g. https://forum.example.com (http only for a forum on this machine or network)",
    }),
    apiUsername: Type.String({ minLength: 1, maxLength: 100, description: 'The Api-Username the key acts as (an admin, e.g. system, to read emails)' }),
    categories: Type.Optional(
      Type.Array(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Integer({ minimum: 1 })]), {
        maxItems: 500,
        description: 'Category slugs or IDs to follow; empty or absent: every category',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DiscourseSecretsSchema = Type.Object(
  {
    apiKey: Type.String({ minLength: 1, maxLength: 200, description: "An API key from the forum's admin panel (Api-Key header)" }),
    webhookSecret: Type.String({
      minLength: 12,
      maxLength: 200,
      description: "The secret typed into the forum's webhook (Discourse asks for 12 characters or more)",
    }),
  },
  { additionalProperties: false },
);

export type DiscourseSettings = Static<typeof DiscourseSettingsSchema>;
export type DiscourseSecrets = Static<typeof DiscourseSecretsSchema>;

/** A user as Discourse's lists and payloads give one (BasicUserSerializer, or a post's author fields). */
export interface DiscourseUserRef {
  id: number;
  username: string;
  name?: string | null;
  avatar_template?: string | null;
}

/**
 * A post as /posts.json, /t/{id}.json and the webhooks (WebHookPostSerializer) give it; the fields the
 * connector reads. `category_slug`, `topic_archetype` and `raw` are only in webhook payloads;
 * `accepted_answer` only where the discourse-solved plugin runs.
 */
export interface DiscoursePost {
  id: number;
  user_id: number;
  username: string;
  name?: string | null;
  avatar_template?: string | null;
  created_at: string;
  updated_at?: string;
  post_number: number;
  post_type?: number;
  topic_id: number;
  topic_slug?: string;
  topic_title?: string;
  topic_archetype?: string;
  category_id?: number | null;
  category_slug?: string;
  raw?: string;
  cooked?: string;
  reply_to_post_number?: number | string | null;
  accepted_answer?: boolean;
  deleted_at?: string | null;
  hidden?: boolean;
}

export interface DiscourseCategory {
  id: number;
  name: string;
  slug: string;
  parent_category_id?: number | null;
}
