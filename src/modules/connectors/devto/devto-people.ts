import type { PlatformAccess, UserPush } from '../connector-kind.ts';
import { DevtoNotFound, devtoGet, siteBase } from './devto-client.ts';
import type { DevtoSecrets, DevtoSettings, DevtoSharedUser, DevtoUser } from './devto.schemas.ts';

/** Forem usernames: letters, digits and underscores (its User model's format). */
const USERNAME = /^[A-Za-z0-9_]{1,60}$/;

/** An image address as given, or made absolute on the community's site (Forem gives uploads as paths). */
function absolute(image: string | null | undefined, settings: DevtoSettings): string | null {
  const value = image?.trim();
  if (!value) return null;
  if (/^https?:\/\//i.test(value)) return value;
  if (value.startsWith('//')) return `${new URL(siteBase(settings)).protocol}${value}`;
  return `${siteBase(settings)}${value.startsWith('/') ? '' : '/'}${value}`;
}

const text = (value: string | null | undefined): string | null => value?.trim() || null;

/**
 * A DEV person, from an article's or comment's `user` or from a profile. The username is the person's ID on
 * the platform (the lists give no user ID for comments). `github_username` and `twitter_username` are filled
 * by DEV only when the person connected that account to sign in, so they are the person's own handles, and
 * are given as such. `website_url` is the person's to type, so it says nothing about who they are: it is left
 * out (an address on github.com would otherwise be taken as a GitHub identity). Null when there is no
 * username: a deleted comment's author, or one hidden by the article's author.
 */
export function personOf(user: DevtoSharedUser | DevtoUser | null | undefined, settings: DevtoSettings): UserPush | null {
  const username = text(user?.username);
  if (!user || !username) return null;
  const person: UserPush = { id: username, username };
  const fullName = text(user.name);
  if (fullName) person.fullName = fullName;
  const avatar = absolute(user.profile_image, settings);
  if (avatar) person.avatarUrl = avatar;
  const github = text(user.github_username);
  if (github) person.github = github;
  const twitter = text(user.twitter_username);
  if (twitter) person.twitter = twitter;
  person.externalProfiles = [{ name: 'DEV', url: `${siteBase(settings)}/${encodeURIComponent(username)}` }];
  return person;
}

/** A profile (GET /users/by_username): what the lists say, with the summary as bio and the location as given. */
export function personOfProfile(user: DevtoUser, settings: DevtoSettings): UserPush | null {
  const person = personOf(user, settings);
  if (!person) return null;
  const bio = text(user.summary);
  if (bio) person.bio = bio;
  const location = text(user.location);
  if (location) person.rawLocation = location;
  return person;
}

/**
 * Profiles by username (GET /users/by_username?url=<username>, the API's documented way to find a user by
 * name). A user DEV no longer has (a deleted account) keeps what the records said.
 */
export async function readProfiles(usernames: string[], settings: DevtoSettings, secrets: DevtoSecrets, access: PlatformAccess): Promise<UserPush[]> {
  const people: UserPush[] = [];
  for (const username of usernames) {
    if (!USERNAME.test(username)) continue;
    let user: DevtoUser;
    try {
      user = await devtoGet<DevtoUser>('/users/by_username', { url: username }, settings, secrets, access);
    } catch (error) {
      if (error instanceof DevtoNotFound) continue;
      throw error;
    }
    // The profile of another name (an account renamed since): its records still name the old one.
    if (text(user.username)?.toLowerCase() !== username.toLowerCase()) continue;
    const person = personOfProfile(user, settings);
    if (person) people.push({ ...person, id: username });
  }
  return people;
}
