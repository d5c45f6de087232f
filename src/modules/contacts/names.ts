/**
 * A contact's names from a core user push (docs/behaviour.md, Record fields; docs/ingestion.md, What a push writes).
 *
 * Pure function, no database.
 */
import { isJunkValue, normalizeEmail } from '../identity/index.ts';

export interface ContactNames {
  /** The person's full name, or null when the push gives none. */
  fullName: string | null;
  /** What the contact is called: never null, never empty. */
  name: string;
}

const MAX_NAME = 500;

/**
 * Junk for a name. "Na" is a given name (Li Na), so of the "na" spellings only the all-capitals
 * placeholder "NA" is junk here; every other junk value (see isJunkValue) is.
 */
function isJunkName(text: string): boolean {
  return text.toLowerCase() === 'na' ? text === 'NA' : isJunkValue(text);
}

/** A usable name part: a string, not junk, with inner whitespace (and control characters) collapsed. */
function clean(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const text = raw.replace(/[\s\p{Cc}\u200B\uFEFF]+/gu, ' ').trim();
  if (text === '' || isJunkName(text)) return null;
  return [...text].length > MAX_NAME ? [...text].slice(0, MAX_NAME).join('').trim() : text;
}

/** The local part of a usable email, or the GitHub login of a GitHub noreply address. */
function emailName(email: string | null | undefined): string | null {
  const normalized = normalizeEmail(email);
  if (!normalized.ok) return null;
  const { type, display } = normalized.identity;
  return clean(type === 'email' ? display.slice(0, display.lastIndexOf('@')) : display);
}

/**
 * `fullName` (or `firstName` + " " + `lastName`, used only when `fullName` is absent) gives `fullName`
 * and `name`. `name` falls back to the username, then the email's local part, then "Unknown".
 * Junk values ("null", "n/a", "-", …) and blank strings count as absent.
 */
export function contactNames(input: { fullName?: unknown; firstName?: unknown; lastName?: unknown; username?: unknown; email?: string | null }): ContactNames {
  const parts = [clean(input.firstName), clean(input.lastName)].filter((part): part is string => part !== null);
  const fullName = clean(input.fullName) ?? (parts.length > 0 ? parts.join(' ') : null);
  const name = fullName ?? clean(input.username) ?? emailName(input.email) ?? 'Unknown';
  return { fullName, name };
}
