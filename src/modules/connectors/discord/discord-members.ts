import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage } from '../connector-kind.ts';
import { emptyTranslation, translateMember } from './discord-activities.ts';
import { DiscordError, discordGet } from './discord-client.ts';
import { isSnowflake } from './discord-snowflakes.ts';
import type { DiscordMember, DiscordSecrets, DiscordSettings } from './discord.schemas.ts';

/*
 * The stream `members`: who joined the server, from GET /guilds/{id}/members ("Guild Resource", List Guild
 * Members: up to 1,000 a request, by user ID ascending, `after` the highest user ID of the last page). It
 * needs the bot's Server Members intent (privileged, turned on in the Developer Portal): without it Discord
 * answers 403 Missing Access, and the stream is left out, saying so, and tried again at the next walk.
 *
 * The list is in user ID order, not join order (a new member may have an old account), so what is new cannot
 * be asked for: each walk reads the whole list again, at most once an hour, and pushes only the joins after
 * the last walk's start (by Discord's clock, its `Date` header). The count of members the server gives
 * (`approximate_member_count`, bots included) is the stream's total.
 */
export const MEMBERS_STREAM = 'members';
const PAGE_SIZE = 1_000;
/** The whole list is read again at most this often. */
export const MEMBERS_WALK_EVERY_MS = 60 * 60_000;
/** Discord's `Date` header counts whole seconds, and its servers' clocks may differ a little. */
const CLOCK_MARGIN_MS = 1_000;

type MembersCheckpoint = {
  /** The walk under way: the highest user ID read (null: none yet). */
  after: string | null;
  /** The walk under way: when it started, by Discord's clock (ms); null when no walk is under way. */
  start: number | null;
  /** Joins after this time (ms) are new: the last complete walk's start (null: every join is). */
  mark: number | null;
  /** When the last walk ended, by our clock (ISO). */
  walkedAt: string | null;
  total: number | null;
  /** Why the last walk could not read the list. */
  skipped: string | null;
};

function readCheckpoint(value: JsonValue | null): MembersCheckpoint {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const number = (key: string) => (typeof object[key] === 'number' ? (object[key] as number) : null);
  const text = (key: string) => (typeof object[key] === 'string' ? (object[key] as string) : null);
  return {
    after: isSnowflake(object.after) ? object.after : null,
    start: number('start'),
    mark: number('mark'),
    walkedAt: text('walkedAt'),
    total: number('total'),
    skipped: text('skipped'),
  };
}

export async function membersPage(
  checkpoint: JsonValue | null,
  settings: DiscordSettings,
  secrets: DiscordSecrets,
  access: PlatformAccess,
): Promise<StreamPage> {
  const at = readCheckpoint(checkpoint);
  const translation = emptyTranslation();
  const now = access.now().getTime();
  const ended = (skipped: string | null, records: number): StreamPage => ({
    translation,
    checkpoint: {
      after: null,
      start: null,
      mark: skipped ? at.mark : at.start! - CLOCK_MARGIN_MS,
      walkedAt: new Date(now).toISOString(),
      total: at.total,
      skipped,
    },
    done: true,
    total: at.total,
    records,
  });

  if (at.start === null) {
    const last = at.walkedAt ? Date.parse(at.walkedAt) : NaN;
    if (now - last < MEMBERS_WALK_EVERY_MS) {
      if (at.skipped) translation.skipped.push(at.skipped);
      return { translation, checkpoint: { ...at }, done: true, total: at.total, records: 0 };
    }
    const { body: guild, serverTime } = await discordGet<{ approximate_member_count?: number }>(
      `/guilds/${settings.guildId}`,
      { with_counts: 'true' },
      settings,
      secrets,
      access,
    );
    at.start = serverTime ?? now;
    at.after = null;
    at.total = typeof guild.approximate_member_count === 'number' ? guild.approximate_member_count : at.total;
  }

  let members: DiscordMember[];
  try {
    ({ body: members } = await discordGet<DiscordMember[]>(
      `/guilds/${settings.guildId}/members`,
      { limit: String(PAGE_SIZE), after: at.after ?? '0' },
      settings,
      secrets,
      access,
    ));
  } catch (error) {
    if (!(error instanceof DiscordError) || error.status !== 403) throw error;
    const reason =
      "members: Discord refused the member list (403 Missing Access): turn on the bot's Server Members Intent (Developer Portal → Bot → Privileged Gateway Intents); joins come only from the join messages of a followed system channel until then";
    translation.skipped.push(reason);
    return ended(reason, 0);
  }

  let records = 0;
  let highest = at.after;
  for (const member of members) {
    if (!isSnowflake(member.user?.id)) continue;
    if (highest === null || BigInt(member.user.id) > BigInt(highest)) highest = member.user.id;
    const joined = Date.parse(member.joined_at);
    // Joined before the last walk started: that walk read them.
    if (at.mark !== null && joined <= at.mark) continue;
    if (translateMember(member, settings.guildId, translation)) records += 1;
  }
  if (members.length < PAGE_SIZE) return ended(null, records);
  return { translation, checkpoint: { ...at, after: highest }, done: false, total: at.total, records };
}
