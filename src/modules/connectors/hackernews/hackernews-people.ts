import type { PlatformAccess, UserPush } from '../connector-kind.ts';
import { HackerNewsNotFound, hackerNewsGet } from './hackernews-client.ts';
import type { HackerNewsSettings, HackerNewsUser } from './hackernews.schemas.ts';

/** Hacker News usernames: letters, digits, `-` and `_`, up to 15 characters (older accounts a little longer). */
const USERNAME = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * A person's profile from GET /users/{username}, which gives the username, `about` and `karma`, and nothing
 * else. `about` (HTML, as the person wrote it) is the bio; karma is a score, not something about the person,
 * and has no place on a contact. The username is the person's ID: Hacker News has no other, and shows no
 * name, email or link to another account, so none is made up from the text.
 */
export function personOfProfile(user: HackerNewsUser, asked: string): UserPush | null {
  if (typeof user.username === 'string' && user.username.toLowerCase() !== asked.toLowerCase()) return null;
  const about = typeof user.about === 'string' ? user.about.trim() : '';
  if (!about) return null;
  return { id: asked, username: asked, bio: about };
}

export async function readProfiles(ids: string[], settings: HackerNewsSettings, _secrets: unknown, access: PlatformAccess): Promise<UserPush[]> {
  if (settings.profiles === false) return [];
  const people: UserPush[] = [];
  for (const id of ids) {
    if (!USERNAME.test(id)) continue;
    let user: HackerNewsUser;
    try {
      user = await hackerNewsGet<HackerNewsUser>(`/users/${encodeURIComponent(id)}`, {}, settings, access);
    } catch (error) {
      // An account deleted since: what its items said is enough.
      if (error instanceof HackerNewsNotFound) continue;
      throw error;
    }
    const person = personOfProfile(user, id);
    if (person) people.push(person);
  }
  return people;
}
