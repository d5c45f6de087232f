import type { PlatformAccess, UserPush } from '../connector-kind.ts';
import { decodeEntities, notAPerson, personOf } from './stackoverflow-activities.ts';
import { stackGetAll } from './stackoverflow-client.ts';
import type { StackOverflowSecrets, StackOverflowSettings, User } from './stackoverflow.schemas.ts';

/**
 * Hosts whose profile address Hearth reads as an identity (a github.com URL in `externalProfiles` becomes
 * the person's GitHub handle; X, Twitter and LinkedIn likewise): a website a user typed into a Stack
 * Exchange profile says where they publish, not who they are there, so it is not put where it would be read so.
 */
const IDENTITY_HOSTS = ['github.com', 'twitter.com', 'x.com', 'linkedin.com'];

/** The address as an http(s) URL, when it is one and names no identity host (nor a subdomain of one). */
export function plainWebsite(value: string | undefined): string | null {
  if (!value) return null;
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (IDENTITY_HOSTS.some((identity) => host === identity || host.endsWith(`.${identity}`))) return null;
  // Read the way the identity rules read an address, from the start of the text: no host of theirs either.
  const leading = /^(?:https?:\/\/)?(?:www\.|mobile\.)?([^/]+)/i.exec(text)?.[1]?.toLowerCase() ?? '';
  if (IDENTITY_HOSTS.includes(leading)) return null;
  return url.toString();
}

/**
 * A user's profile as a push: the person of their posts, with their profile page on the site, the website
 * and the location they typed. The website is kept only when it names no identity host (see `plainWebsite`).
 */
export function profilePush(user: User): UserPush | null {
  if (notAPerson(user)) return null;
  const person = personOf(user);
  const profiles: { url: string; name: string }[] = [];
  const page = plainWebsite(user.link);
  if (page) profiles.push({ url: page, name: hostName(page) ?? 'Stack Exchange' });
  const website = plainWebsite(user.website_url ? decodeEntities(user.website_url) : undefined);
  if (website) profiles.push({ url: website, name: 'website' });
  if (profiles.length > 0) person.externalProfiles = profiles;
  if (user.location) person.rawLocation = decodeEntities(user.location);
  return person;
}

function hostName(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/** Profiles by the site's user IDs, 100 a request (GET /users/{ids}); a user the site no longer has is left out. */
export async function readProfiles(ids: string[], settings: StackOverflowSettings, secrets: StackOverflowSecrets, access: PlatformAccess): Promise<UserPush[]> {
  const wanted = [...new Set(ids.filter((id) => /^\d{1,12}$/.test(id) && Number(id) > 0))];
  const people: UserPush[] = [];
  for (let at = 0; at < wanted.length; at += 100) {
    const batch = wanted.slice(at, at + 100);
    const users = await stackGetAll<User>('users/{ids}', `users/${batch.join(';')}`, { filter: 'default' }, settings, secrets, access);
    for (const user of users) {
      const person = profilePush(user);
      if (person) people.push(person);
    }
  }
  return people;
}
