import type { PlatformAccess, Translation } from '../connector-kind.ts';
import { emojiLabel, reactionActivity, translateMessage, type MessagePlace } from './discord-activities.ts';
import { discordGet } from './discord-client.ts';
import { notAPerson } from './discord-people.ts';
import type { DiscordMessage, DiscordSecrets, DiscordSettings, DiscordUser } from './discord.schemas.ts';

/** Users a request of who reacted gives at most ("Message Resource", Get Reactions). */
const REACTION_PAGE = 100;
/** Reaction types of Get Reactions: normal, and burst (a super reaction), listed apart. */
const NORMAL = 0;
const BURST = 1;

/**
 * The messages of a page, oldest first, with who reacted to each: a message lists its reactions by emoji with
 * counts only, so each emoji (of each type it was used as) is asked for, by pages of 100 users. Returns the
 * records read: the messages and the reactions.
 */
export async function translateMessages(
  messages: DiscordMessage[],
  place: MessagePlace,
  settings: DiscordSettings,
  secrets: DiscordSecrets,
  access: PlatformAccess,
  into: Translation,
): Promise<number> {
  let records = 0;
  for (const message of messages) {
    records += 1;
    const made = translateMessage(message, place, into);
    records += await readReactions(message, place, made, settings, secrets, access, into);
  }
  return records;
}

async function readReactions(
  message: DiscordMessage,
  place: MessagePlace,
  parentType: string | null,
  settings: DiscordSettings,
  secrets: DiscordSecrets,
  access: PlatformAccess,
  into: Translation,
): Promise<number> {
  let records = 0;
  for (const reaction of message.reactions ?? []) {
    const { emoji } = reaction;
    // A custom emoji removed from its server may come without a name; Discord wants `name:id` to list it.
    if (!emoji.name) {
      into.skipped.push(`reactions with emoji ${emoji.id ?? '?'} on message ${message.id}: the emoji has no name to ask for them by`);
      continue;
    }
    const path = encodeURIComponent(emoji.id ? `${emoji.name}:${emoji.id}` : emoji.name);
    const burst = reaction.count_details?.burst ?? 0;
    const normal = reaction.count_details?.normal ?? reaction.count - burst;
    for (const [type, count] of [
      [NORMAL, normal],
      [BURST, burst],
    ] as const) {
      if (count <= 0) continue;
      let after: string | undefined;
      for (;;) {
        const { body: users } = await discordGet<DiscordUser[]>(
          `/channels/${message.channel_id}/messages/${message.id}/reactions/${path}`,
          { type: String(type), limit: String(REACTION_PAGE), after },
          settings,
          secrets,
          access,
        );
        for (const user of users) {
          records += 1;
          const notPerson = notAPerson(user);
          if (notPerson) into.skipped.push(`reaction ${emojiLabel(emoji)} on message ${message.id}: ${notPerson}`);
          else into.activities.push(reactionActivity(message, emoji, user, place, parentType));
        }
        // Users come by ID, ascending: the next page starts after the last one.
        if (users.length < REACTION_PAGE) break;
        after = users[users.length - 1]!.id;
      }
    }
  }
  return records;
}
