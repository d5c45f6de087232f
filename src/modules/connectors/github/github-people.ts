import type { UserPush } from '../connector-kind.ts';
import type { GitHubSettings } from './github-settings.ts';

/** The user object GitHub puts in its records (a "simple user"): enough to name the person, not to describe them. */
export interface GitHubUserRef {
  id: number;
  login: string;
  avatar_url?: string | null;
  html_url?: string | null;
  type?: string | null;
}

/** A full profile (GET /users/{login}, GET /user/{id}). */
export interface GitHubProfile extends GitHubUserRef {
  name?: string | null;
  email?: string | null;
  company?: string | null;
  blog?: string | null;
  twitter_username?: string | null;
  location?: string | null;
  bio?: string | null;
}

export function isBot(user: GitHubUserRef): boolean {
  return user.type === 'Bot' || user.login.endsWith('[bot]');
}

/**
 * The person of a record, or why the record is left out. A person's ID is GitHub's numeric user ID, which
 * survives renames; the login is their GitHub identity. A kept bot gets an ID of its own (`bot:<id>`) and no
 * GitHub identity, so it is never matched to a person.
 */
export function personOf(user: GitHubUserRef | null | undefined, settings: GitHubSettings): { user: UserPush } | { skipped: string } {
  if (!user || typeof user.id !== 'number') return { skipped: 'no author (a deleted account)' };
  // A fork into an organization: the organization's account is not a person.
  if (user.type === 'Organization') return { skipped: `organization account ${user.login}` };
  if (isBot(user)) {
    if ((settings.bots ?? 'skip') === 'skip') return { skipped: `bot ${user.login}` };
    return { user: { id: `bot:${user.id}`, username: user.login, fullName: user.login, avatarUrl: user.avatar_url ?? null } };
  }
  return {
    user: {
      id: String(user.id),
      username: user.login,
      github: user.login,
      avatarUrl: user.avatar_url ?? null,
    },
  };
}

const DOMAIN = /^(?:https?:\/\/)?(?:www\.)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?:[/:?#].*)?$/i;

function domainOf(value: string | null | undefined): string | null {
  const match = value?.trim().match(DOMAIN);
  return match ? match[1]!.toLowerCase() : null;
}

/** The blog's domain, when it is the company's own (`acme.io` for "Acme"): a personal site says nothing of an employer. */
function companySite(blogDomain: string | null, company: string | null): string | null {
  if (!blogDomain || !company) return null;
  const name = company.toLowerCase().replace(/[^a-z0-9]/g, '');
  const label = blogDomain.split('.').at(-2) ?? '';
  return name.length > 1 && label.replace(/-/g, '') === name ? blogDomain : null;
}

/** A profile as a user push: the identities GitHub shows publicly (public email, blog, X handle), company and location. */
export function profilePush(profile: GitHubProfile, settings: GitHubSettings): UserPush | null {
  const person = personOf(profile, settings);
  if (!('user' in person)) return null;
  if (isBot(profile)) return person.user;
  const company = profile.company?.trim().replace(/^@+/, '').trim() || null;
  const blog = profile.blog?.trim() || null;
  const companyDomainFromName = domainOf(company);
  const blogDomain = domainOf(blog);
  const companyDomain = companyDomainFromName ?? companySite(blogDomain, company);
  const externalProfiles = [
    ...(profile.html_url ? [{ name: 'GitHub', url: profile.html_url }] : []),
    ...(blog ? [{ name: 'Website', url: /^https?:\/\//i.test(blog) ? blog : `https://${blog}` }] : []),
  ];
  return {
    ...person.user,
    fullName: profile.name?.trim() || null,
    email: profile.email?.trim() || null,
    companyName: company ? company.slice(0, 500) : null,
    companyDomain,
    twitter: profile.twitter_username?.trim() || null,
    rawLocation: profile.location?.trim() || null,
    bio: profile.bio?.trim() || null,
    externalProfiles,
  };
}
