import type { UserPush } from '../connector-kind.ts';
import type { DiscordUser } from './discord.schemas.ts';

/** Discord's CDN: a user's avatar is avatars/{user id}/{hash}.png ("Reference", Image Formatting). */
const CDN = 'https://cdn.discordapp.com';

/**
 * Discord renames a deleted account "Deleted User" and eight hex digits, with the discriminator "0000", and
 * keeps its ID; the user object has no flag for it. A space is not allowed in today's usernames, nor was
 * 0000 a discriminator given to a legacy account, so no living account looks like this.
 */
const DELETED = /^Deleted User [0-9a-f]{8}$/i;

/** Why a user is not a person here, or null: bots (apps), Discord's own system account and deleted accounts never are. */
export function notAPerson(user: DiscordUser | undefined): string | null {
  if (!user?.id) return 'no user';
  if (user.bot) return `a bot (${user.username})`;
  if (user.system) return "Discord's system account";
  if (DELETED.test(user.username ?? '') && (user.discriminator ?? '0000') === '0000') return 'a deleted account';
  return null;
}

/**
 * A person as Discord's records show them: the user ID (it survives a change of username) is the person's ID
 * in the source; the username, the display name (`global_name`) as the full name, the avatar (when they set
 * one: the default avatars are Discord's, not theirs) and the Discord identity, `{username, discriminator}`:
 * "0" marks today's unique usernames, four other digits a legacy name#1234, which is how the identity is
 * matched. A server nickname is the server's name for them, not theirs: left out.
 */
export function personOf(user: DiscordUser): UserPush {
  const person: UserPush = { id: user.id, username: user.username };
  if (user.global_name) person.fullName = user.global_name;
  if (user.avatar) person.avatarUrl = `${CDN}/avatars/${user.id}/${user.avatar}.png`;
  person.discord = { type: 'username', username: user.username, discriminator: user.discriminator ?? '0' };
  return person;
}
