import Type, { type Static } from 'typebox';

/**
 * https, or http for an address on this machine or a private network (a Forem behind a proxy, or a
 * stand-in): the API key, when there is one, travels in every request's headers.
 */
const LOCAL_HOST = String.raw`(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2}|[a-z0-9.-]+\.(local|internal|lan))`;
const API_URL = String.raw`^(https://[^\s/?#@]+|http://${LOCAL_HOST}(:\d{1,5})?)(/[^\s?#]*)?$`;

/** DEV's API, when the setting is absent; any other Forem community's is `https://<its host>/api`. */
export const DEVTO_API = 'https://dev.to/api';

/** How far back the comments of articles already read are read again, when the setting is absent. */
export const DEFAULT_COMMENTS_WINDOW_DAYS = 30;

/**
 * A tag as Forem stores it: letters and digits only, lower case (Forem lowers what authors type), without
 * the `#`; letters of any script, for communities that do not write English.
 */
const Tag = Type.String({ pattern: String.raw`^[\p{Ll}\p{Lo}\p{Nd}]{1,30}$`, description: 'A tag as DEV shows it after #, in lower case, e.g. javascript' });
/** An organization's username, as in its page's address (dev.to/<username>). */
const Organization = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,50}$',
  description: "An organization's username, as in its page's address, e.g. devteam for dev.to/devteam",
});

const Tags = Type.Array(Tag, { minItems: 1, maxItems: 100, uniqueItems: true, description: 'The tags followed: their published articles and comments' });
const Organizations = Type.Array(Organization, {
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  description: "The organizations followed: their published articles and the articles' comments",
});

const Common = {
  apiUrl: Type.Optional(
    Type.String({
      pattern: API_URL,
      maxLength: 500,
      description: "The Forem community's API address; absent: https://dev.to/api (http only for this machine or network)",
    }),
  ),
  commentsWindowDays: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 365,
      description:
        'Articles published within this many days have their comments read again at each sync, for comments added since (default 30; 0: only new articles are read)',
    }),
  ),
};

export const DevtoSettingsSchema = Type.Union(
  [
    Type.Object({ tags: Tags, organizations: Type.Optional(Organizations), ...Common }, { additionalProperties: false }),
    Type.Object({ organizations: Organizations, tags: Type.Optional(Tags), ...Common }, { additionalProperties: false }),
  ],
  { description: '`tags`, `organizations`, or both' },
);

/**
 * DEV's public reads need no key; a key (the `api-key` header) is for a private Forem community, and lets the
 * test say whose it is. Without one the secrets are `{}`.
 */
export const DevtoSecretsSchema = Type.Object(
  {
    apiKey: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{8,200}$',
        description: 'A DEV API key (Settings → Extensions → DEV Community API Keys); optional on dev.to',
      }),
    ),
  },
  { additionalProperties: false },
);

export type DevtoSettings = Static<typeof DevtoSettingsSchema>;
export type DevtoSecrets = Static<typeof DevtoSecretsSchema>;

/**
 * The article's author, a comment's author, as the lists give them (the API description's SharedUser); an
 * article's also carries `user_id`. A deleted comment's, or one its article's author hid, is `{}`.
 */
export interface DevtoSharedUser {
  name?: string | null;
  username?: string | null;
  user_id?: number | null;
  twitter_username?: string | null;
  github_username?: string | null;
  website_url?: string | null;
  profile_image?: string | null;
  profile_image_90?: string | null;
}

/** An article as a list gives it (ArticleIndex); the fields the connector reads. */
export interface DevtoArticle {
  type_of?: string;
  id: number;
  title?: string | null;
  description?: string | null;
  url?: string | null;
  published_at?: string | null;
  published_timestamp?: string | null;
  comments_count?: number | null;
  tag_list?: string[] | string | null;
  user?: DevtoSharedUser | null;
  organization?: { username?: string | null; name?: string | null } | null;
}

/** A comment as GET /comments gives it (Comment): threaded, each with its replies in `children`. */
export interface DevtoComment {
  type_of?: string;
  id_code: string;
  created_at?: string | null;
  body_html?: string | null;
  user?: DevtoSharedUser | null;
  children?: DevtoComment[] | null;
}

/** A user as GET /users/{id} and /users/me give one (User). */
export interface DevtoUser {
  type_of?: string;
  id?: number;
  username?: string | null;
  name?: string | null;
  summary?: string | null;
  twitter_username?: string | null;
  github_username?: string | null;
  website_url?: string | null;
  location?: string | null;
  joined_at?: string | null;
  profile_image?: string | null;
}
