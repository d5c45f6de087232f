import { contactNames } from '../contacts/index.ts';
import { normalizePhone } from '../contacts/index.ts';
import { isJunkValue, normalizeDiscord, normalizeEmail, normalizeHandle, type Identity, type Normalized } from '../identity/index.ts';
import { registrableDomain } from '../organizations/index.ts';

/** A user as the core pushes send it (ApiUserSchema in ingestion.schemas.ts), after schema validation. */
export interface ApiUser {
  id: string | number;
  fullName?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  username?: string | null;
  avatarUrl?: string | null;
  bio?: string | null;
  email?: string | null;
  linkedin?: Handle | string | null;
  github?: Handle | string | null;
  twitter?: Handle | string | null;
  discord?: { type?: string; username?: string | null; discriminator?: number | string | null } | string | null;
  externalProfiles?: { url?: string | null; name?: string | null }[] | null;
  roleAtCompany?: string | null;
  titleAtCompany?: string | null;
  companyName?: string | null;
  companyDomain?: string | null;
  country?: string | null;
  city?: string | null;
  region?: string | null;
  rawLocation?: string | null;
  phoneNumber?: string | null;
  phoneNumbers?: (string | { type?: string | null; value?: string | null })[] | null;
  tags?: ({ type: 'id'; id: string } | { type: 'name'; name: string })[] | null;
  customFields?: { id: number | string; value?: { type?: string; value?: unknown } | null }[] | null;
}

interface Handle {
  type?: string;
  value?: string | null;
}

export const API_USER_FIELDS = [
  'id',
  'fullName',
  'firstName',
  'lastName',
  'username',
  'avatarUrl',
  'bio',
  'email',
  'linkedin',
  'github',
  'twitter',
  'discord',
  'externalProfiles',
  'roleAtCompany',
  'titleAtCompany',
  'companyName',
  'companyDomain',
  'country',
  'city',
  'region',
  'rawLocation',
  'phoneNumber',
  'phoneNumbers',
  'tags',
  'customFields',
] as const;

/** What one push says about a person, cleaned: identities to match on, values to show, and what was dropped. */
export interface PushedPerson {
  externalId: string;
  identities: Identity[];
  /** The email to show (original spelling), when the push has a usable one. */
  email: string | null;
  names: { fullName: string | null; name: string; explicit: boolean };
  username: string | null;
  avatarUrl: string | null;
  bio: string | null;
  title: string | null;
  role: string | null;
  companyName: string | null;
  /** Registrable domain of `companyDomain`. */
  companyDomain: string | null;
  location: { rawLocation: string | null; city: string | null; region: string | null; country: string | null };
  phones: { type: string; value: string }[];
  /** The profile as this source last sent it, kept on the source profile. */
  profile: Record<string, unknown>;
  warnings: string[];
}

export function readPushedPerson(user: ApiUser): PushedPerson {
  const warnings: string[] = [];
  const identities: Identity[] = [];
  const add = (field: string, result: Normalized) => {
    if (!result.ok) {
      warnings.push(`${field}: ${result.reason}; the value was dropped`);
      return null;
    }
    if (!identities.some((known) => known.type === result.identity.type && known.value === result.identity.value)) {
      identities.push(result.identity);
    }
    return result.identity;
  };
  const present = (value: unknown) => value !== undefined && value !== null;

  let email: string | null = null;
  if (present(user.email)) {
    const identity = add('email', normalizeEmail(user.email));
    if (identity?.type === 'email') email = identity.display;
  }
  for (const type of ['github', 'twitter', 'linkedin'] as const) {
    const given = user[type];
    if (!present(given)) continue;
    add(type, normalizeHandle(type, typeof given === 'string' ? given : (given?.value ?? null)));
  }
  if (present(user.discord)) add('discord', normalizeDiscord(user.discord));
  for (const [index, profile] of (user.externalProfiles ?? []).entries()) {
    const type = profileType(profile.url);
    if (type) add(`externalProfiles[${index}]`, normalizeHandle(type, profile.url));
  }

  const text = (field: keyof ApiUser): string | null => {
    const value = user[field];
    if (typeof value !== 'string' || isJunkValue(value)) return null;
    return value.trim().replace(/\s+/g, ' ');
  };

  const names = contactNames({
    fullName: user.fullName,
    firstName: user.firstName,
    lastName: user.lastName,
    username: user.username,
    email,
  });

  let companyDomain: string | null = null;
  if (text('companyDomain')) {
    companyDomain = registrableDomain(user.companyDomain);
    if (!companyDomain) warnings.push(`companyDomain: "${user.companyDomain}" is not a domain; the value was dropped`);
  }

  const location = { rawLocation: text('rawLocation'), city: text('city'), region: text('region'), country: text('country') };
  const phones: { type: string; value: string }[] = [];
  const givenPhones = [user.phoneNumber, ...(user.phoneNumbers ?? [])].filter(present);
  for (const given of givenPhones as (string | { type?: string | null; value?: string | null })[]) {
    const raw = typeof given === 'string' ? given : given.value;
    const phone = normalizePhone(raw, countryHint(location.country));
    if (!phone) {
      warnings.push(`phone number "${raw}" is not a phone number; the value was dropped`);
      continue;
    }
    const type = typeof given === 'object' && given.type ? given.type : phone.type;
    if (!phones.some((known) => known.value === phone.value)) phones.push({ type, value: phone.value });
  }

  const avatarUrl = httpUrl('avatarUrl', text('avatarUrl'), warnings);

  const profile: Record<string, unknown> = {};
  for (const field of API_USER_FIELDS) {
    if (field !== 'tags' && field !== 'customFields' && user[field] !== undefined) profile[field] = user[field];
  }
  // A dropped address is not kept on the profile either: nothing stored may hold it.
  if (avatarUrl === null && text('avatarUrl') !== null) delete profile.avatarUrl;

  return {
    externalId: String(user.id).trim(),
    identities,
    email,
    names: { ...names, explicit: Boolean(text('fullName') || text('firstName') || text('lastName')) },
    username: text('username'),
    avatarUrl,
    bio: text('bio'),
    title: text('titleAtCompany'),
    role: text('roleAtCompany'),
    companyName: text('companyName'),
    companyDomain,
    location,
    phones,
    profile,
    warnings,
  };
}

/**
 * A pushed address is kept only when it is an absolute http or https URL, as a browser would read it
 * (the WHATWG parser: it also drops tabs and line breaks inside, so `java\tscript:` is caught). Clients
 * put these addresses in links and images, where a `javascript:` URL runs script and a `data:` URL shows
 * what the sender made up; any other value is dropped with a warning, and the rest of the push is stored.
 */
export function httpUrl(field: string, given: string | null, warnings: string[]): string | null {
  if (given === null) return null;
  let protocol: string | null = null;
  try {
    protocol = new URL(given).protocol;
  } catch {
    // Not an absolute URL.
  }
  if (protocol === 'http:' || protocol === 'https:') return given;
  warnings.push(`${field}: not an http or https URL; the value was dropped`);
  return null;
}

function profileType(url: unknown): 'github' | 'twitter' | 'linkedin' | null {
  if (typeof url !== 'string') return null;
  const host = /^(?:https?:\/\/)?(?:www\.|mobile\.)?([^/]+)/i.exec(url.trim())?.[1]?.toLowerCase();
  if (host === 'github.com') return 'github';
  if (host === 'twitter.com' || host === 'x.com') return 'twitter';
  if (host === 'linkedin.com') return 'linkedin';
  return null;
}

/** A two-letter country code, when the push gives one, to read local phone numbers. */
function countryHint(country: string | null): string | undefined {
  return country && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : undefined;
}
