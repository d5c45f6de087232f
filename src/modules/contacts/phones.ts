/**
 * Phone numbers as pushed → E.164 with their line type (libphonenumber-js, full metadata).
 *
 * Pure function, no database. Junk, impossible and invalid numbers give null: a number is kept only
 * when the metadata says it can exist in its country.
 */
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max';
import { isJunkValue } from '../identity/index.ts';

export interface NormalizedPhone {
  /** E.164, e.g. `+4915123456789` (an extension is dropped). */
  value: string;
  /** `mobile`, `fixed_line`, `fixed_line_or_mobile`, `toll_free`, `voip`, … or `unknown`. */
  type: string;
}

const MAX_INPUT = 100;

function countryOf(code: string | undefined): CountryCode | undefined {
  if (typeof code !== 'string') return undefined;
  const upper = code.trim().toUpperCase();
  return isSupportedCountry(upper) ? upper : undefined;
}

function parseValid(text: string, country: CountryCode | undefined): PhoneNumber | undefined {
  try {
    const phone = parsePhoneNumberFromString(text, country ? { defaultCountry: country } : undefined);
    return phone?.isValid() ? phone : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A phone number in any common spelling (`+49 151 23456789`, `(415) 555-2671`, `tel:+1…`, `0049 …`)
 * → `{value: E.164, type}`, or null. `defaultCountry` (ISO 3166 alpha-2, any case; unknown codes are
 * ignored) reads national numbers; without it only international ones can be read. A leading `00` is
 * read as `+` when the default country does not already read it so.
 */
export function normalizePhone(raw: unknown, defaultCountry?: string): NormalizedPhone | null {
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) raw = String(raw);
  if (typeof raw !== 'string' || isJunkValue(raw)) return null;
  const text = raw.trim();
  if (text.length > MAX_INPUT || !/\d/.test(text)) return null;
  const country = countryOf(defaultCountry);
  let phone = parseValid(text, country);
  if (!phone && /^\s*00/.test(text)) phone = parseValid(text.replace(/^\s*00/, '+'), country);
  if (!phone) return null;
  // E.164 allows at most 15 digits; the metadata accepts some longer German numbers that no carrier routes.
  if (phone.number.length > 16) return null;
  const type = phone.getType();
  return { value: phone.number, type: type ? type.toLowerCase() : 'unknown' };
}
