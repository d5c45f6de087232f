import type { PlatformAccess, UserPush } from '../connector-kind.ts';
import { SLACKBOT } from './slack-activities.ts';
import { SlackError, slackCall } from './slack-client.ts';
import type { SlackSecrets, SlackSettings, SlackUser } from './slack.schemas.ts';

/** Slack user IDs: U..., or W... for an Enterprise Grid member. */
const USER_ID = /^[UW][A-Z0-9]{2,30}$/;

/**
 * A person's profile from users.info: the Slack user ID is the person's ID (it survives a rename; Hearth has
 * no Slack identity of its own); the display name as username, the real name, the title, the avatar and, when
 * the app has the users:read.email scope, the email. Slack's time zone is not a place, so it is left out. Bots,
 * app users, Slackbot and deactivated accounts are not people: nothing is pushed for them.
 */
export function personOfProfile(user: SlackUser): UserPush | null {
  if (user.is_bot || user.is_app_user || user.id === SLACKBOT || user.deleted) return null;
  const profile = user.profile ?? {};
  const person: UserPush = { id: user.id };
  const username = profile.display_name || user.name;
  if (username) person.username = username;
  const fullName = profile.real_name || user.real_name;
  if (fullName) person.fullName = fullName;
  if (profile.title) person.titleAtCompany = profile.title;
  if (profile.email) person.email = profile.email;
  const avatar = profile.image_512 || profile.image_192 || profile.image_72;
  if (avatar) person.avatarUrl = avatar;
  return person;
}

export async function readProfiles(ids: string[], settings: SlackSettings, secrets: SlackSecrets, access: PlatformAccess): Promise<UserPush[]> {
  const people: UserPush[] = [];
  for (const id of ids) {
    if (!USER_ID.test(id) || id === SLACKBOT) continue;
    let answer: { user?: SlackUser };
    try {
      answer = await slackCall<{ user?: SlackUser }>('users.info', { user: id }, settings, secrets, access);
    } catch (error) {
      // A user of another workspace (a shared channel) or one removed since: their records are enough.
      if (error instanceof SlackError && (error.code === 'user_not_found' || error.code === 'user_not_visible')) continue;
      throw error;
    }
    const person = answer.user ? personOfProfile(answer.user) : null;
    if (person) people.push(person);
  }
  return people;
}
