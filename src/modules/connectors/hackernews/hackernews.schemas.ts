import Type, { type Static } from 'typebox';

/**
 * https, or http for an address on this machine or a private network (a caching proxy, or the tests'
 * stand-in). Nothing secret travels with the requests, but an http address elsewhere could be answered by
 * anyone on the way.
 */
const LOCAL_HOST = String.raw`(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2}|[a-z0-9.-]+\.(local|internal|lan))`;
const API_URL = String.raw`^(https://[^\s/?#@]+|http://${LOCAL_HOST}(:\d{1,5})?)(/[^\s?#]*)?$`;
/** A host name without scheme, port or path: `example.com`, `docs.example.com`. */
const DOMAIN = String.raw`^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$`;

/** Hacker News Search (by Algolia), when the setting is absent. */
export const HACKERNEWS_API = 'https://hn.algolia.com/api/v1';
/** How far back the first sync reads, when the setting is absent. */
export const DEFAULT_BACKFILL_DAYS = 365;

const Keywords = Type.Array(
  Type.String({ minLength: 1, maxLength: 100, pattern: String.raw`\S`, description: 'Words to search for, e.g. "hearth" or "hearth crm"' }),
  {
    minItems: 1,
    maxItems: 50,
    uniqueItems: true,
    description: 'Stories and comments that mention these are followed (all the words of a keyword, in any order; case does not matter)',
  },
);
const Domains = Type.Array(Type.String({ pattern: DOMAIN, maxLength: 253, description: 'A host name, e.g. example.com (its subdomains too)' }), {
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  description: 'Stories whose link is on these sites (or their subdomains) are followed',
});

const Common = {
  backfillDays: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 7300,
      description: `How many days back the first sync reads (default ${DEFAULT_BACKFILL_DAYS}); later syncs read what is new`,
    }),
  ),
  profiles: Type.Optional(
    Type.Boolean({ description: "Read each person's Hacker News profile (its 'about' text) once: one request per person (default true)" }),
  ),
  apiUrl: Type.Optional(
    Type.String({
      pattern: API_URL,
      maxLength: 500,
      description: `The search API's address; absent: ${HACKERNEWS_API} (http only for this machine or network)`,
    }),
  ),
};

/** At least one keyword or domain: a connector following nothing would read nothing. */
export const HackerNewsSettingsSchema = Type.Union(
  [
    Type.Object({ keywords: Keywords, domains: Type.Optional(Domains), ...Common }, { additionalProperties: false }),
    Type.Object({ domains: Domains, keywords: Type.Optional(Keywords), ...Common }, { additionalProperties: false }),
  ],
  { description: '`keywords`, `domains`, or both' },
);

/** Hacker News Search is public: no credential. */
export const HackerNewsSecretsSchema = Type.Object({}, { additionalProperties: false });

export type HackerNewsSettings = Static<typeof HackerNewsSettingsSchema>;
export type HackerNewsSecrets = Static<typeof HackerNewsSecretsSchema>;

/**
 * A hit of the search API, as the documentation's search answer and item examples show it
 * (https://hn.algolia.com/api): the fields the connector reads. A story has `title`, `url` (null for a text
 * post) and `story_text`; a comment has `comment_text`, `parent_id` (a story or a comment) and `story_id`,
 * with its story's `story_title` and `story_url`. `_tags` holds the type (`story`, `comment`, ...).
 */
export interface SearchHit {
  objectID: string;
  author?: string | null;
  created_at?: string | null;
  created_at_i?: number | null;
  title?: string | null;
  url?: string | null;
  story_text?: string | null;
  comment_text?: string | null;
  story_id?: number | null;
  parent_id?: number | null;
  story_title?: string | null;
  story_url?: string | null;
  points?: number | null;
  num_comments?: number | null;
  _tags?: string[];
}

/** The search answer: Algolia's (hits, nbHits, page, nbPages, hitsPerPage). */
export interface SearchAnswer {
  hits?: SearchHit[];
  nbHits?: number;
  page?: number;
  nbPages?: number;
  hitsPerPage?: number;
}

/** GET /users/{username}, as the documentation shows it: only these three fields. */
export interface HackerNewsUser {
  username?: string;
  about?: string | null;
  karma?: number | string | null;
}
