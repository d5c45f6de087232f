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

const JUNK = new Set(['', 'null', 'undefined', 'unknown', 'n/a', 'na', 'none', '-', '--', '?', '0']);

const NO_REPLY_LOCALS = new Set(['noreply', 'no-reply', 'donotreply', 'do-not-reply', 'mailer-daemon']);

function describe(raw: unknown): string {
  if (typeof raw === 'string') return raw.trim() === '' ? 'an empty value' : JSON.stringify(raw.trim());
  if (raw === null) return 'null';
  if (raw === undefined) return 'undefined';
  return `a ${typeof raw}`;
}

function junkReason(raw: unknown): string {
  return `${describe(raw)} is not an identifier`;
}

function isNoReplyAddress(address: string): boolean {
  const lower = address.toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return false;
  const local = lower.slice(0, at).split('+')[0] ?? '';
  return NO_REPLY_LOCALS.has(local) || lower === 'notifications@github.com';
}

export function isJunkValue(raw: unknown): boolean {
  if (typeof raw !== 'string') return true;
  const trimmed = raw.trim().toLowerCase();
  if (JUNK.has(trimmed)) return true;
  const stripped = trimmed.replace(/^mailto:/, '');
  return stripped.includes('@') && isNoReplyAddress(stripped.replace(/^.*<\s*/, '').replace(/\s*>.*$/, ''));
}

function fail(reason: string): Normalized {
  return { ok: false, reason };
}

function ok(type: IdentityType, value: string, display: string): Normalized {
  return { ok: true, identity: { type, value, display } };
}

export function normalizeEmail(raw: unknown): Normalized {
  if (typeof raw !== 'string' || JUNK.has(raw.trim().toLowerCase())) return fail(junkReason(raw));
  let input = raw.trim();
  if (/^mailto:/i.test(input)) input = input.slice(7).trim();
  const parsed = emailAddresses.parseOneAddress({ input, rejectTLD: true });
  if (!parsed || parsed.type !== 'mailbox') return fail(`${JSON.stringify(raw.trim())} is not a valid email address`);
  const display = parsed.address.trim();
  const domain = parsed.domain.toLowerCase();
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) return fail(`${JSON.stringify(display)} has no valid domain`);
  const noreply = /^(?:\d+\+)?([a-z0-9-]+)@users\.noreply\.github\.com$/i.exec(display);
  if (noreply?.[1]) return normalizeHandle('github', noreply[1]);
  if (isNoReplyAddress(display)) return fail(`${JSON.stringify(display)} is a no-reply address, not an identifier`);
  let local = parsed.local.toLowerCase();
  let keyDomain = domain;
  if (domain === 'gmail.com' || domain === 'googlemail.com') {
    local = (local.split('+')[0] ?? '').replaceAll('.', '');
    keyDomain = 'gmail.com';
  }
  return ok('email', `${local}@${keyDomain}`, display);
}

const HANDLE_RULES = {
  github: { hosts: ['github.com'], pattern: /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$/, label: 'GitHub username' },
  twitter: { hosts: ['twitter.com', 'x.com'], pattern: /^[A-Za-z0-9_]{1,15}$/, label: 'X/Twitter handle' },
  linkedin: { hosts: ['linkedin.com'], pattern: /^[\p{L}\p{N}_-]{3,100}$/u, label: 'LinkedIn public profile id' },
} as const;

export function normalizeHandle(type: 'github' | 'twitter' | 'linkedin', raw: unknown): Normalized {
  if (typeof raw !== 'string' || JUNK.has(raw.trim().toLowerCase())) return fail(junkReason(raw));
  const rule = HANDLE_RULES[type];
  let handle = raw.trim();
  if (/^(https?:\/\/)?([a-z0-9-]+\.)*[a-z0-9-]+\.[a-z]{2,}\//i.test(handle)) {
    const url = new URL(/^https?:\/\//i.test(handle) ? handle : `https://${handle}`);
    const host = url.hostname.toLowerCase().replace(/^(www|mobile|m)\./, '');
    if (!(rule.hosts as readonly string[]).includes(host) && !host.endsWith('.linkedin.com')) {
      return fail(`${JSON.stringify(raw.trim())} is not a ${rule.label} URL`);
    }
    const segments = url.pathname.split('/').filter(Boolean);
    const picked = type === 'linkedin' ? (segments[0] === 'in' ? segments[1] : undefined) : segments[0];
    if (!picked) return fail(`${JSON.stringify(raw.trim())} is not a ${rule.label} URL`);
    handle = picked;
  }
  handle = handle.replace(/^@/, '').trim();
  if (type === 'linkedin') {
    try {
      handle = decodeURIComponent(handle);
    } catch {
      return fail(`${JSON.stringify(raw.trim())} is not a valid ${rule.label}`);
    }
  }
  if (!rule.pattern.test(handle)) return fail(`${JSON.stringify(raw.trim())} is not a valid ${rule.label}`);
  return ok(type, handle.toLowerCase(), handle);
}

export function normalizeDiscord(raw: unknown): Normalized {
  let username: unknown;
  let discriminator: unknown;
  if (raw && typeof raw === 'object') {
    const obj = raw as Record<string, unknown>;
    username = obj.username;
    discriminator = obj.discriminator;
  } else if (typeof raw === 'string') {
    const match = /^(.*)#(\d{1,4})$/.exec(raw.trim());
    username = match ? match[1] : raw;
    discriminator = match ? match[2] : undefined;
  } else {
    return fail(junkReason(raw));
  }
  if (typeof username !== 'string' || JUNK.has(username.trim().toLowerCase())) return fail(junkReason(username));
  const name = username.trim().replace(/^@/, '');
  if (name.length < 2 || name.length > 32) return fail(`${JSON.stringify(name)} is not a valid Discord username`);
  const disc = discriminator === undefined || discriminator === null ? '0' : String(discriminator).trim();
  const legacy = /^\d{1,4}$/.test(disc) && Number(disc) !== 0 ? `#${disc.padStart(4, '0')}` : '';
  return ok('discord', `${name.toLowerCase()}${legacy}`, `${name}${legacy}`);
}

export function identityKey(identity: Pick<Identity, 'type' | 'value'>): string {
  return `${identity.type}:${identity.value}`;
}

export function identityHash(identity: Pick<Identity, 'type' | 'value'>): string {
  return createHash('sha256').update(identityKey(identity)).digest('hex');
}
