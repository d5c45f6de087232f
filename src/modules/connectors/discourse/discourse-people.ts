import type { PlatformAccess, UserPush } from '../connector-kind.ts';
import { DiscourseForbidden, DiscourseNotFound, discourseGet, forumBase } from './discourse-client.ts';
import type { DiscourseSecrets, DiscourseSettings, DiscourseUserRef } from './discourse.schemas.ts';

/** The avatar size asked of `avatar_template` ("{size}"): big enough for the console's cards. */
const AVATAR_SIZE = 240;
const NOT_PEOPLE = new Set(['system', 'discobot']);

/**
 * Discourse's own accounts (system, the discobot tutorial bot; negative IDs) post welcome topics, small
 * actions and tutorials: they are never community members.
 */
export function isSystemUser(user: { id?: number | null; username?: string | null }): boolean {
  return user.id === undefined || user.id === null || user.id <= 0 || NOT_PEOPLE.has((user.username ?? '').toLowerCase());
}

/** An absolute avatar address from `avatar_template` (relative to the forum, protocol-relative, or absolute). */
export function avatarUrl(template: string | null | undefined, settings: DiscourseSettings): string | null {
  if (!template) return null;
  const sized = template.replace('{size}', String(AVATAR_SIZE));
  if (/^https?:\/\//i.test(sized)) return sized;
  if (sized.startsWith('//')) return `${new URL(forumBase(settings)).protocol}${sized}`;
  return `${forumBase(settings)}${sized.startsWith('/') ? '' : '/'}${sized}`;
}

/** The person of a post, like or list entry: the Discourse user ID is the identity; username and name as given. */
export function personOf(user: DiscourseUserRef, settings: DiscourseSettings): UserPush {
  return {
    id: String(user.id),
    username: user.username,
    fullName: user.name || null,
    avatarUrl: avatarUrl(user.avatar_template, settings),
  };
}

interface AdminUser extends DiscourseUserRef {
  email?: string;
}

interface PublicUser {
  user: DiscourseUserRef & {
    location?: string | null;
    website?: string | null;
    website_name?: string | null;
    bio_raw?: string | null;
    bio_excerpt?: string | null;
  };
}

/** The user the key acts as, and whether it is an admin (`admin` of GET /u/{username}.json). */
export async function actingUser(
  settings: DiscourseSettings,
  secrets: DiscourseSecrets,
  access: PlatformAccess,
): Promise<{ id: number; username: string; admin: boolean }> {
  const answer = await discourseGet<{ user?: DiscourseUserRef & { admin?: boolean } }>(
    `/u/${encodeURIComponent(settings.apiUsername)}.json`,
    settings,
    secrets,
    access,
  );
  const user = answer.user;
  return { id: user?.id ?? 0, username: user?.username ?? settings.apiUsername, admin: user?.admin === true };
}

/**
 * Full profiles by Discourse user ID. Only an admin can find a user by ID (GET /admin/users/{id}.json; to
 * anyone else Discourse answers 404, as if the route did not exist) and read email addresses
 * (GET /u/{username}/emails.json); the public profile (GET /u/{username}.json) adds location, website and
 * bio. With a non-admin key nothing is read: the people keep what their posts said of them.
 */
export async function readProfiles(ids: string[], settings: DiscourseSettings, secrets: DiscourseSecrets, access: PlatformAccess): Promise<UserPush[]> {
  const wanted = ids.filter((id) => /^\d+$/.test(id) && Number(id) > 0);
  if (wanted.length === 0 || !(await actingUser(settings, secrets, access)).admin) return [];
  const people: UserPush[] = [];
  for (const id of wanted) {
    let admin: AdminUser;
    try {
      admin = await discourseGet<AdminUser>(`/admin/users/${id}.json`, settings, secrets, access, { forbiddenIsPermission: true });
    } catch (error) {
      if (error instanceof DiscourseForbidden) return people;
      if (error instanceof DiscourseNotFound) continue;
      throw error;
    }
    if (isSystemUser(admin)) continue;
    const username = encodeURIComponent(admin.username);
    const person: UserPush = personOf(admin, settings);
    try {
      const profile = await discourseGet<PublicUser>(`/u/${username}.json`, settings, secrets, access);
      const user = profile.user;
      if (user.name) person.fullName = user.name;
      const bio = user.bio_raw ?? user.bio_excerpt;
      if (bio) person.bio = bio;
      if (user.location) person.rawLocation = user.location;
      if (user.website) person.externalProfiles = [{ url: user.website, name: user.website_name || 'website' }];
    } catch (error) {
      if (!(error instanceof DiscourseNotFound)) throw error;
    }
    const email = admin.email ?? (await readEmail(username, settings, secrets, access));
    if (email) person.email = email;
    people.push(person);
  }
  return people;
}

async function readEmail(username: string, settings: DiscourseSettings, secrets: DiscourseSecrets, access: PlatformAccess): Promise<string | null> {
  try {
    const emails = await discourseGet<{ email?: string }>(`/u/${username}/emails.json`, settings, secrets, access, { forbiddenIsPermission: true });
    return emails.email || null;
  } catch (error) {
    if (error instanceof DiscourseForbidden || error instanceof DiscourseNotFound) return null;
    throw error;
  }
}
