import Type, { type Static } from 'typebox';

/**
 * https, or http for an address on this machine or a private network (a proxy in front of Reddit, or a
 * stand-in): the client's secret and the bearer token travel in the requests' headers.
 */
const LOCAL_HOST = String.raw`(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2}|[a-z0-9.-]+\.(local|internal|lan))`;
const URL_PATTERN = String.raw`^(https://[^\s/?#@]+|http://${LOCAL_HOST}(:\d{1,5})?)(/[^\s?#]*)?$`;

/** Where OAuth clients read the API ("OAuth2", reddit-archive/reddit wiki), when the setting is absent. */
export const REDDIT_API = 'https://oauth.reddit.com';
/** Where application-only tokens are made, when the setting is absent. */
export const REDDIT_AUTH = 'https://www.reddit.com/api/v1/access_token';
/**
 * Reddit asks every client for a unique, descriptive User-Agent, `<platform>:<app ID>:<version> (by
 * /u/<username>)` ("API" wiki page, Rules), and limits generic ones hard. This one names Hearth; an operator
 * should give their own with their Reddit account, so Reddit knows whom to ask.
 */
export const DEFAULT_USER_AGENT = 'server:hearth-community-connector:v1 (Hearth, a self-hosted community data service)';

/**
 * A subreddit's name as Reddit spells it in addresses: letters, digits and underscores, up to 21 characters
 * (two-letter names of old, like `de`, exist). Without `r/`.
 */
const Subreddit = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_]{1,20}$', description: 'A subreddit name without r/, e.g. typescript' });
const Keyword = Type.String({ minLength: 1, maxLength: 200, pattern: String.raw`\S`, description: 'Words searched across Reddit, e.g. "hearth crm"' });

const Common = {
  apiUrl: Type.Optional(
    Type.String({
      pattern: URL_PATTERN,
      maxLength: 500,
      description: 'The OAuth API address; absent: https://oauth.reddit.com (http only for this machine or network)',
    }),
  ),
  authUrl: Type.Optional(
    Type.String({
      pattern: URL_PATTERN,
      maxLength: 500,
      description: 'The token endpoint; absent: https://www.reddit.com/api/v1/access_token (http only for this machine or network)',
    }),
  ),
  userAgent: Type.Optional(
    Type.String({
      minLength: 10,
      maxLength: 300,
      // Printable ASCII only: it goes into a header as it is.
      pattern: '^[\\x20-\\x7E]+$',
      description: 'The User-Agent Reddit sees, e.g. "server:acme-community:v1 (by /u/acme)"; absent: one naming Hearth',
    }),
  ),
};

const Subreddits = Type.Array(Subreddit, {
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  description: 'The subreddits followed: their new posts and comments',
});
const Keywords = Type.Array(Keyword, { minItems: 1, maxItems: 50, uniqueItems: true, description: 'Searched across Reddit (posts only), newest first' });

export const RedditSettingsSchema = Type.Union(
  [
    Type.Object({ subreddits: Subreddits, keywords: Type.Optional(Keywords), ...Common }, { additionalProperties: false }),
    Type.Object({ keywords: Keywords, subreddits: Type.Optional(Subreddits), ...Common }, { additionalProperties: false }),
  ],
  { description: '`subreddits`, `keywords`, or both' },
);

export const RedditSecretsSchema = Type.Object(
  {
    clientId: Type.String({ pattern: '^[A-Za-z0-9_-]{8,100}$', description: "The app's client ID (under its name at reddit.com/prefs/apps)" }),
    clientSecret: Type.String({ pattern: '^[A-Za-z0-9_-]{8,200}$', description: "The app's secret (a script or web app)" }),
  },
  { additionalProperties: false },
);

export type RedditSettings = Static<typeof RedditSettingsSchema>;
export type RedditSecrets = Static<typeof RedditSecretsSchema>;

/**
 * A link (kind t3) as listings give it (https://www.reddit.com/dev/api, "listings", and the Thing/Link fields
 * of reddit-archive/reddit's JSON wiki page); the fields the connector reads.
 */
export interface RedditLink {
  id: string;
  name: string;
  author: string;
  author_fullname?: string;
  subreddit: string;
  title?: string;
  selftext?: string;
  permalink?: string;
  url?: string;
  created_utc: number;
}

/** A comment (kind t1): `parent_id` is the fullname of the post (t3_) or comment (t1_) it answers. */
export interface RedditComment {
  id: string;
  name: string;
  author: string;
  author_fullname?: string;
  subreddit: string;
  body?: string;
  permalink?: string;
  parent_id: string;
  link_id: string;
  link_title?: string;
  created_utc: number;
}

export type RedditThing = { kind: 't3'; data: RedditLink } | { kind: 't1'; data: RedditComment } | { kind: string; data: Record<string, unknown> };

/** A Listing: one page of things, newest first here, with the fullnames to page from. */
export interface RedditListing {
  kind: 'Listing';
  data: { after: string | null; before: string | null; children: RedditThing[] };
}

/** A subreddit (kind t5) as /r/{name}/about gives it. */
export interface RedditSubredditAbout {
  kind: 't5';
  data: { display_name: string; subscribers?: number | null; subreddit_type?: string; over18?: boolean; title?: string };
}
