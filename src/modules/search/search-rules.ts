/**
 * What a search query becomes before it reaches SQL: the name key (merge-suggestions' nameKey: lower case,
 * common accents off, punctuation a space) for names, and the lower-cased text for emails, handles and
 * domains. Pure, so tests can read it.
 */
import { nameKey } from '../merge-suggestions/index.ts';

export const MAX_QUERY_LENGTH = 200;
export const MAX_LIMIT = 20;

/**
 * The largest code point: a prefix range `[p, p || TOP)` holds every text that starts with `p` (compared
 * byte by byte, as text_pattern_ops does). A range rather than `like 'p%'` because a named statement's
 * generic plan can still read the index for it (`like $1` needs the pattern when the plan is made).
 */
const TOP = '\u{10FFFF}';

export interface PrefixRange {
  /** The text itself: an exact match. */
  exact: string;
  from: string;
  to: string;
  /** `%text%`, escaped, for substring matches; `% text%` for word-prefix ones. */
  substring: string;
  wordPrefix: string;
}

/** A range that matches nothing (an empty key: the query was all punctuation). */
const NOTHING: PrefixRange = { exact: '', from: '', to: '', substring: '', wordPrefix: '' };

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

function rangeOf(text: string): PrefixRange {
  if (text === '') return NOTHING;
  const escaped = escapeLike(text);
  return { exact: text, from: text, to: text + TOP, substring: `%${escaped}%`, wordPrefix: `% ${escaped}%` };
}

export interface SearchTerms {
  /** Of names (contacts, organizations, segments), by their key; nothing for a query with an `@` inside (an address). */
  name: PrefixRange;
  /** Of emails and handles, lower case, a leading `@` dropped (`@octocat` is the handle `octocat`). */
  text: PrefixRange;
  /** Of domains: lower case, without a scheme, `www.` or a path (`https://www.acme.com/x` is `acme.com`). */
  domain: PrefixRange;
  /** How many characters the name key has: word-prefix and substring matches need a few to be worth reading. */
  nameLength: number;
}

export function searchTerms(query: string): SearchTerms {
  const trimmed = query.trim();
  const key = nameKey(trimmed);
  const text = trimmed.toLowerCase().replace(/^@+/, '');
  const domain = text
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[/?#].*$/s, '');
  // An address being typed (`jane.smith@`) is not a name: its words would find every Jane Smith first.
  const nameKeyOf = text.includes('@') ? '' : key;
  return {
    name: rangeOf(nameKeyOf),
    text: rangeOf(text),
    domain: rangeOf(domain),
    nameLength: [...nameKeyOf].length,
  };
}

/** Substring matches (`"mit"` finds "Jane Smith") from this many characters; shorter ones match word starts only. */
export const SUBSTRING_FROM = 3;
