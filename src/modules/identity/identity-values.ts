/**
 * Identities: what clients push (emails, handles, profile URLs, Discord names) turned into match keys.
 *
 * Pure functions, no database. Every function takes `unknown` because pushes are lenient: a junk or
 * malformed value is never thrown, it comes back as `{ok: false, reason}` so the caller can drop it
 * and name it in the 202 body's `warnings` (docs/behaviour.md, Ingestion).
 *
 * - `value` is the match key: unique per community, compared exactly.
 * - `display` is what users see: the original spelling, trimmed.
 */
import { createHash } from 'node:crypto';
import emailAddresses from 'email-addresses';

export type IdentityType = 'email' | 'github' | 'twitter' | 'linkedin' | 'discord';

export interface Identity {
  type: IdentityType;
  /** Match key, unique per community. */
  value: string;
  /** As shown to users. */
  display: string;
}

export type Normalized = { ok: true; identity: Identity } | { ok: false; reason: string };

/** Placeholder values that clients send instead of leaving a field out (compared trimmed, lowercased). */
const JUNK_WORDS = new Set(['', 'null', 'undefined', 'unknown', 'n/a', 'na', 'none', '-', '--', '?', '0', 'nil', 'n.a.']);

/** Longest input worth parsing; anything longer is not an identifier (and keeps the parsers cheap). */
const MAX_INPUT = 1024;

/** Local parts of addresses nobody reads: `noreply`, `no-reply+x`, `do_not_reply`, `mailer-daemon`, … */
const NO_REPLY_LOCAL = /^(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|dont[-_.]?reply|mailer[-_.]?daemon)(?:[-_.+].*)?$/;
/** Whole no-reply addresses with an ordinary-looking local part. */
const NO_REPLY_ADDRESSES = new Set(['notifications@github.com', 'noreply@github.com']);
/** Domains whose every address is a robot (GitHub reply-by-email tokens). */
const NO_REPLY_DOMAINS = new Set(['reply.github.com']);
/** `[id+]login@users.noreply.github.com`: GitHub's stand-in for a private email, i.e. the GitHub login. */
const GITHUB_NOREPLY = /^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$/i;

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

/** How a rejected raw value is named in a reason. */
function describe(raw: unknown): string {
  if (typeof raw === 'string') return raw.trim() === '' ? 'an empty value' : quote(raw.trim());
  if (raw === null) return 'null';
  if (raw === undefined) return 'undefined';
  if (typeof raw === 'number' || typeof raw === 'boolean') return `${typeof raw} ${String(raw)}`;
  if (Array.isArray(raw)) return 'an array';
  return `a value of type ${typeof raw}`;
}

function fail(reason: string): Normalized {
  return { ok: false, reason };
}

function ok(type: IdentityType, value: string, display: string): Normalized {
  return { ok: true, identity: { type, value, display } };
}

/** A placeholder: not a string, blank, one of JUNK_WORDS, or nothing but punctuation ("---", "...", "??"). */
function isPlaceholder(raw: unknown): boolean {
  if (typeof raw !== 'string') return true;
  const text = raw.trim().toLowerCase();
  return JUNK_WORDS.has(text) || !/[\p{L}\p{N}]/u.test(text);
}

function notAnIdentifier(raw: unknown): Normalized {
  return fail(`${describe(raw)} is not an identifier`);
}

interface ParsedEmail {
  /** The address as written (comments and the display name removed), trimmed. */
  address: string;
  local: string;
  domain: string;
}

const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;
const TOP_LEVEL = /^(?:\p{L}{2,63}|xn--[a-z0-9-]{1,59})$/iu;
/** Dot-atom local part: no quoting, no whitespace, no leading, trailing or double dots. */
const LOCAL_PART = /^[^\s"(),:;<>@[\]\\.]+(?:\.[^\s"(),:;<>@[\]\\.]+)*$/u;

/**
 * An address as almost every push writes it: ASCII dot-atoms on both sides of the `@`, the domain with a
 * dot. The RFC 5322 parser reads such an input as a mailbox whose address is the input itself (a property
 * test holds it to that), so it is not asked: it costs more than the rest of reading a push's person.
 */
export const PLAIN_ADDRESS = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;

/** The address of one mailbox, by the RFC 5322 parser; null when the input is not one. */
function parseMailbox(input: string): string | null {
  if (PLAIN_ADDRESS.test(input)) return input;
  try {
    const parsed = emailAddresses.parseOneAddress({ input, rejectTLD: true, rfc6532: true, commaInDisplayName: true });
    return parsed && parsed.type === 'mailbox' ? parsed.address : null;
  } catch {
    return null;
  }
}

/** Parses one mailbox (`addr`, `Name <addr>`, `"Name" <addr>`, `mailto:addr`); null when it is not one. */
function parseEmail(raw: string): ParsedEmail | null {
  let input = raw.trim();
  if (/^mailto:/i.test(input)) input = input.slice('mailto:'.length).replace(/\?.*$/s, '').trim();
  if (!input.includes('@')) return null;
  const parsed = parseMailbox(input);
  if (parsed === null) return null;
  const address = parsed.trim();
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length === 0 || local.length > 64 || address.length > 254 || !LOCAL_PART.test(local)) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return null;
  if (!TOP_LEVEL.test(labels[labels.length - 1] ?? '')) return null;
  return { address, local, domain };
}

function isNoReply(email: ParsedEmail): boolean {
  const local = email.local.toLowerCase();
  const domain = email.domain.toLowerCase();
  return (
    NO_REPLY_LOCAL.test(local) ||
    NO_REPLY_ADDRESSES.has(`${local}@${domain}`) ||
    NO_REPLY_DOMAINS.has(domain) ||
    domain.split('.').some((label) => label === 'noreply' || label === 'no-reply')
  );
}

/**
 * True for values that must never match: non-strings, blanks, placeholders ("null", "n/a", "-", …) and
 * no-reply addresses. GitHub's `…@users.noreply.github.com` is not junk when it names a valid GitHub login.
 */
export function isJunkValue(raw: unknown): boolean {
  if (isPlaceholder(raw)) return true;
  const text = (raw as string).trim();
  if (!text.includes('@') || text.length > MAX_INPUT) return false;
  const email = parseEmail(text);
  if (!email) return false;
  const github = GITHUB_NOREPLY.exec(email.address);
  if (github) return !HANDLE_RULES.github.valid.test(github[1] ?? '');
  return isNoReply(email);
}

/** The match key of a valid email: lowercased; Gmail without dots and +tag, googlemail.com → gmail.com. */
function emailKey(email: ParsedEmail): string {
  let local = email.local.toLowerCase();
  let domain = email.domain.toLowerCase();
  if (domain === 'gmail.com' || domain === 'googlemail.com') {
    local = (local.split('+')[0] ?? '').replaceAll('.', '');
    domain = 'gmail.com';
  }
  return `${local}@${domain}`;
}

/**
 * An email as pushed → the email identity, or the GitHub identity for GitHub's noreply addresses.
 * Accepts surrounding spaces, `Name <addr>`, `"Name" <addr>` and `mailto:`.
 */
export function normalizeEmail(raw: unknown): Normalized {
  if (isPlaceholder(raw)) return notAnIdentifier(raw);
  const text = (raw as string).trim();
  if (text.length > MAX_INPUT) return fail(`${quote(text)} is too long to be an email address`);
  const email = parseEmail(text);
  if (!email) return fail(`${quote(text)} is not a valid email address`);
  const github = GITHUB_NOREPLY.exec(email.address);
  if (github) {
    const handle = normalizeHandle('github', github[1]);
    return handle.ok ? handle : fail(`${quote(email.address)} is a GitHub noreply address without a valid GitHub username`);
  }
  if (isNoReply(email)) return fail(`${quote(email.address)} is a no-reply address, not an identifier`);
  const value = emailKey(email);
  if (value.startsWith('@')) return fail(`${quote(email.address)} is not a valid email address`);
  return ok('email', value, email.address);
}

type HandleType = 'github' | 'twitter' | 'linkedin';

interface HandleRule {
  /** The platform, as named in reasons. */
  site: string;
  /** What a handle is called there, as named in reasons. */
  label: string;
  /** Hosts of this platform's profile URLs, after dropping `www.`/`mobile.`/`m.`/a locale subdomain. */
  hosts: readonly string[];
  /** The handle in a profile URL's path segments, or null when the URL is not a profile. */
  fromPath: (segments: string[]) => string | null;
  valid: RegExp;
}

const GITHUB_NOT_USERS = new Set([
  'about',
  'apps',
  'collections',
  'contact',
  'explore',
  'features',
  'login',
  'marketplace',
  'new',
  'notifications',
  'orgs',
  'pricing',
  'pulls',
  'issues',
  'search',
  'settings',
  'signup',
  'sponsors',
  'topics',
  'trending',
]);
const TWITTER_NOT_USERS = new Set([
  'home',
  'explore',
  'hashtag',
  'i',
  'intent',
  'messages',
  'notifications',
  'search',
  'settings',
  'share',
  'login',
  'signup',
  'tos',
  'privacy',
]);

const HANDLE_RULES: Record<HandleType, HandleRule> = {
  github: {
    site: 'GitHub',
    label: 'GitHub username',
    hosts: ['github.com'],
    fromPath: (segments) => (segments.length === 1 && !GITHUB_NOT_USERS.has(segments[0]!.toLowerCase()) ? segments[0]! : null),
    valid: /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$/,
  },
  twitter: {
    site: 'X/Twitter',
    label: 'X/Twitter handle',
    hosts: ['twitter.com', 'x.com'],
    fromPath: (segments) => (segments.length === 1 && !TWITTER_NOT_USERS.has(segments[0]!.toLowerCase()) ? segments[0]! : null),
    valid: /^[A-Za-z0-9_]{1,15}$/,
  },
  linkedin: {
    site: 'LinkedIn',
    label: 'LinkedIn profile id',
    hosts: ['linkedin.com'],
    // /in/<id>, optionally followed by a locale (/in/jane-doe/de) or a profile section.
    fromPath: (segments) => (segments[0]?.toLowerCase() === 'in' && segments[1] ? segments[1] : null),
    valid: /^[\p{L}\p{M}\p{N}_-]{3,100}$/u,
  },
};

/** Looks like a URL (a scheme or a path) rather than a bare handle, which never holds a slash. */
function looksLikeUrl(text: string): boolean {
  return text.includes('/');
}

/** The hostname without `www.`, `mobile.`, `m.` or (LinkedIn) a country subdomain such as `de.`. */
function platformHost(hostname: string, rule: HandleRule): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  for (const known of rule.hosts) {
    if (host === known) return known;
    const prefix = host.slice(0, -known.length - 1);
    if (host.endsWith(`.${known}`) && /^(?:www|mobile|m|[a-z]{2})$/.test(prefix)) return known;
  }
  return host;
}

/** Reduces a profile URL to the handle it names; a string is a reason when the URL is not a profile. */
function handleFromUrl(text: string, rule: HandleRule): { handle: string } | { reason: string } {
  const notProfile = { reason: `${quote(text)} is not a ${rule.site} profile URL` };
  // A path without a host (`in/jane-doe`, the form LinkedIn's own API documents) is a path on the platform.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && !text.replace(/^\/+/, '').split('/')[0]!.includes('.')) {
    const handle = rule.fromPath(text.split(/[?#]/)[0]!.split('/').filter(Boolean));
    return handle === null ? notProfile : { handle };
  }
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text.replace(/^\/+/, '')}`);
  } catch {
    return notProfile;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return notProfile;
  if (!rule.hosts.includes(platformHost(url.hostname, rule))) return notProfile;
  // Old Twitter links put the path after a hash-bang: twitter.com/#!/jack
  const path = url.pathname === '/' && url.hash.startsWith('#!/') ? url.hash.slice(2) : url.pathname;
  const handle = rule.fromPath(path.split('/').filter(Boolean));
  return handle === null ? notProfile : { handle };
}

/**
 * A GitHub, X/Twitter or LinkedIn handle or profile URL → the identity. Strips a leading `@` and
 * whitespace; reduces profile URLs (with or without scheme, `www.`, trailing slash, query) to the handle.
 * Also accepts the push shape `{type: "handle", value}`.
 */
export function normalizeHandle(type: HandleType, raw: unknown): Normalized {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'value' in raw) raw = (raw as { value: unknown }).value;
  if (isPlaceholder(raw)) return notAnIdentifier(raw);
  const rule = HANDLE_RULES[type];
  const text = (raw as string).trim();
  if (text.length > MAX_INPUT) return fail(`${quote(text)} is too long to be a ${rule.label}`);
  let handle = text.replace(/^@\s*/, '');
  if (looksLikeUrl(handle)) {
    const fromUrl = handleFromUrl(handle, rule);
    if ('reason' in fromUrl) return fail(fromUrl.reason);
    handle = fromUrl.handle.replace(/^@/, '');
    // A URL's path can hold a placeholder too (`github.com/null`, `0/`); it is no more a handle there.
    if (isPlaceholder(handle)) return notAnIdentifier(text);
  }
  if (type === 'linkedin') {
    try {
      handle = decodeURIComponent(handle).normalize('NFC');
    } catch {
      return fail(`${quote(text)} is not a valid ${rule.label}`);
    }
  }
  if (!rule.valid.test(handle)) return fail(`${quote(text)} is not a valid ${rule.label}`);
  return ok(type, handle.toLowerCase(), handle);
}

/** Characters a Discord username cannot hold (both the legacy and the current system). */
const DISCORD_FORBIDDEN = /[@#:\p{Cc}]|```/u;

/**
 * A Discord user → the identity. Takes `{type: "username", username, discriminator}` or a string
 * `"name#1234"` / `"name"`. The key is the lowercased username; a legacy discriminator other than 0 is
 * kept (`name#1234`), and 0 or none means a current (unique) username.
 */
export function normalizeDiscord(raw: unknown): Normalized {
  let username: unknown;
  let discriminator: unknown;
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    ({ username, discriminator } = raw as { username?: unknown; discriminator?: unknown });
  } else if (typeof raw === 'string') {
    const legacy = /^(.*)#(\d{1,4})$/s.exec(raw.trim());
    username = legacy ? legacy[1] : raw;
    discriminator = legacy ? legacy[2] : undefined;
  } else {
    return notAnIdentifier(raw);
  }
  if (isPlaceholder(username)) return notAnIdentifier(username);
  const name = (username as string).trim().replace(/^@/, '').normalize('NFC');
  if ([...name].length < 2 || [...name].length > 32 || DISCORD_FORBIDDEN.test(name)) {
    return fail(`${quote(name)} is not a valid Discord username`);
  }
  let tag = '';
  if (discriminator !== undefined && discriminator !== null && discriminator !== '') {
    const text = String(discriminator).trim();
    if (!/^\d{1,4}$/.test(text)) return fail(`${describe(discriminator)} is not a valid Discord discriminator (0 to 9999)`);
    if (Number(text) !== 0) tag = `#${text.padStart(4, '0')}`;
  }
  return ok('discord', `${name.toLowerCase()}${tag}`, `${name}${tag}`);
}

/** `${type}:${value}`: one string naming an identity across types. */
export function identityKey(identity: Pick<Identity, 'type' | 'value'>): string {
  return `${identity.type}:${identity.value}`;
}

/** SHA-256 hex of `${type}:${value}`: the one-way hash kept on the suppression list. */
export function identityHash(identity: Pick<Identity, 'type' | 'value'>): string {
  return createHash('sha256').update(identityKey(identity), 'utf8').digest('hex');
}

/**
 * What a sender's external ID becomes when its contact is erased: a one-way hash, so the ID no longer reads
 * as the person, while a later push with the same ID still finds the erased profile.
 */
export function erasedExternalId(externalId: string): string {
  return `erased:${createHash('sha256').update(externalId).digest('hex')}`;
}

export function isErasedExternalId(externalId: string): boolean {
  return /^erased:[0-9a-f]{64}$/.test(externalId);
}
