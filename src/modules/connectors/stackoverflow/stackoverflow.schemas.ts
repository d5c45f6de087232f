import Type, { type Static } from 'typebox';

/**
 * https, or http for an address on this machine or a private network (a proxy in front of the API, or a
 * stand-in): the app key travels in every request's query.
 */
const LOCAL_HOST = String.raw`(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2}|[a-z0-9.-]+\.(local|internal|lan))`;
const API_URL = String.raw`^(https://[^\s/?#@]+|http://${LOCAL_HOST}(:\d{1,5})?)(/[^\s?#]*)?$`;

/** The Stack Exchange API, version 2.3, when the setting is absent. */
export const STACK_EXCHANGE_API = 'https://api.stackexchange.com/2.3';
export const DEFAULT_SITE = 'stackoverflow';

export const StackOverflowSettingsSchema = Type.Object(
  {
    tags: Type.Array(
      // Tags are lower case; `;` separates tags in the API's `tagged`, so it cannot be part of one.
      Type.String({ pattern: '^[^\\sA-Z;,/?&=]{1,35}$', description: 'A tag as the site spells it, e.g. python, c#, asp.net-core' }),
      { minItems: 1, maxItems: 100, uniqueItems: true, description: 'The tags to follow: every question tagged with one of them, its answers and comments' },
    ),
    site: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9][a-z0-9.-]{1,99}$',
        description: "The site's API name: stackoverflow (default), serverfault, superuser, askubuntu, math, ...",
      }),
    ),
    since: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        description: "Only questions asked on or after this day (YYYY-MM-DD, UTC); absent: the tags' whole history",
      }),
    ),
    apiUrl: Type.Optional(
      Type.String({
        pattern: API_URL,
        maxLength: 500,
        description: "The API's address; absent: https://api.stackexchange.com/2.3 (http only for this machine or network)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const StackOverflowSecretsSchema = Type.Object(
  {
    key: Type.Optional(
      Type.String({
        pattern: '^\\S+$',
        minLength: 8,
        maxLength: 200,
        description: "An app's key from stackapps.com: 10,000 requests a day instead of 300 (optional)",
      }),
    ),
  },
  { additionalProperties: false },
);

export type StackOverflowSettings = Static<typeof StackOverflowSettingsSchema>;
export type StackOverflowSecrets = Static<typeof StackOverflowSecretsSchema>;

/*
 * The API's types, as its documentation describes them (https://api.stackexchange.com/docs/types/...): the
 * fields the connector reads. Dates are Unix seconds; strings are HTML-escaped (the default filters are
 * "safe"), so names and titles are decoded before they are kept.
 */

/** A post's author or a comment's (the shallow_user type). */
export interface ShallowUser {
  user_id?: number;
  account_id?: number;
  /** unregistered, registered, moderator, team_admin, or does_not_exist (a deleted or anonymous user: no user_id). */
  user_type?: string;
  display_name?: string;
  link?: string;
  profile_image?: string;
  reputation?: number;
}

/** The question type, with `body` from the `withbody` filter. */
export interface Question {
  question_id: number;
  title?: string;
  body?: string;
  tags?: string[];
  owner?: ShallowUser;
  link?: string;
  creation_date: number;
  last_activity_date: number;
  answer_count?: number;
  accepted_answer_id?: number;
  is_answered?: boolean;
}

/** The answer type, with `body` from the `withbody` filter. */
export interface Answer {
  answer_id: number;
  question_id: number;
  body?: string;
  owner?: ShallowUser;
  creation_date: number;
  last_activity_date?: number;
  is_accepted?: boolean;
}

/** The comment type. */
export interface Comment {
  comment_id: number;
  post_id: number;
  body?: string;
  owner?: ShallowUser;
  creation_date: number;
}

/** The user type (GET /users/{ids}): a shallow user and what the profile says. */
export interface User extends ShallowUser {
  location?: string;
  website_url?: string;
}

/** The common wrapper object (https://api.stackexchange.com/docs/wrapper). */
export interface Wrapper<T> {
  items?: T[];
  has_more?: boolean;
  quota_max?: number;
  quota_remaining?: number;
  /** Seconds: no further request to this method before then. */
  backoff?: number;
  error_id?: number;
  error_name?: string;
  error_message?: string;
}
