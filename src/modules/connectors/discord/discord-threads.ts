import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage } from '../connector-kind.ts';
import { emptyTranslation } from './discord-activities.ts';
import { discordGet, type DiscordAnswer } from './discord-client.ts';
import { PAGE_SIZE } from './discord-channels.ts';
import { translateMessages } from './discord-reactions.ts';
import { compareSnowflakes, isSnowflake, newestOf, snowflakeAt, timeOfSnowflake } from './discord-snowflakes.ts';
import { CHANNEL_TYPES, type DiscordMessage, type DiscordSecrets, type DiscordSettings, type DiscordThread } from './discord.schemas.ts';

/*
 * The stream `threads:<id>`: the public threads of a followed channel (a forum's posts are threads too), and
 * their messages. A walk lists them ("Threads", Enumerating threads):
 * - the server's active threads (GET /guilds/{id}/threads/active: all of them, of every channel), those of
 *   this channel kept;
 * - then the channel's archived public threads (GET /channels/{id}/threads/archived/public), newest archived
 *   first, paged by `before` an archive time;
 * and reads each thread's messages oldest first, `after` a message ID, 100 at a time (one request a page).
 *
 * A sync reads only what is new: the checkpoint keeps a mark, a snowflake of the moment the last complete walk
 * started, by Discord's clock (the first list's `Date` header, less a second). Every message above it is new;
 * a thread whose last message is not above it is passed over, and the archived list is read back only to the
 * threads archived after it (a thread archived earlier has had no message since: a message unarchives it).
 * The mark is the walk's start, not the newest message read: a message posted in a thread already read,
 * during the walk, is below the newest message of a thread read later, but not below the start.
 * Private threads are not read: they are conversations among those invited.
 */
export const THREADS_PREFIX = 'threads:';
/** Archived threads a list request asks for (Discord allows 2 to 100). */
const ARCHIVED_PAGE = 50;
/** Discord's `Date` header counts whole seconds, and its servers' clocks may differ a little. */
const CLOCK_MARGIN_MS = 1_000;

type PendingThread = {
  id: string;
  name: string;
};

type ThreadsCheckpoint = {
  /** Messages above this ID are new: the start of the last complete walk (null: none yet, every message is). */
  mark: string | null;
  /** The walk under way: its start, the next mark. */
  start: string | null;
  /** The list the walk reads next when `threads` is empty. */
  list: 'active' | 'archived' | 'done';
  /** The archived list's next page: threads archived before this time (null: the most recent). */
  before: string | null;
  /** Threads of the list page read, still to read; the first is being read. */
  threads: PendingThread[];
  /** In the first of `threads`: the last message ID read (null: from the mark). */
  after: string | null;
};

function readCheckpoint(value: JsonValue | null): ThreadsCheckpoint {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const id = (key: string) => (isSnowflake(object[key]) ? (object[key] as string) : null);
  const list = object.list === 'archived' || object.list === 'done' ? object.list : 'active';
  const threads = Array.isArray(object.threads)
    ? object.threads.flatMap((entry) => {
        const thread = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? entry : {};
        return isSnowflake(thread.id) ? [{ id: thread.id, name: typeof thread.name === 'string' ? thread.name : '' }] : [];
      })
    : [];
  return { mark: id('mark'), start: id('start'), list, before: typeof object.before === 'string' ? object.before : null, threads, after: id('after') };
}

interface ThreadList {
  threads?: DiscordThread[];
  has_more?: boolean;
}

/**
 * The server's active threads, read once per sync run (per job signal) for all the followed channels: the
 * list is the whole server's. A later channel's walk then starts from the list's time, which is earlier:
 * its mark is lower, never past a message it did not read.
 */
const activeLists = new WeakMap<AbortSignal, Map<string, Promise<DiscordAnswer<ThreadList>>>>();

function activeThreads(settings: DiscordSettings, secrets: DiscordSecrets, access: PlatformAccess): Promise<DiscordAnswer<ThreadList>> {
  let forRun = activeLists.get(access.signal);
  if (!forRun) activeLists.set(access.signal, (forRun = new Map()));
  const key = `${settings.apiUrl ?? ''} ${settings.guildId}`;
  let list = forRun.get(key);
  if (!list) {
    list = discordGet<ThreadList>(`/guilds/${settings.guildId}/threads/active`, {}, settings, secrets, access);
    forRun.set(key, list);
    // A refused read (a limit, the network) is asked again by the next page that needs it.
    list.catch(() => forRun.delete(key));
  }
  return list;
}

/** The channel's public threads of a list with a message above the mark. */
function withNews(threads: DiscordThread[], channelId: string, mark: string | null): PendingThread[] {
  return threads
    .filter((thread) => thread.parent_id === channelId && thread.type !== CHANNEL_TYPES.privateThread)
    .filter((thread) => isSnowflake(thread.last_message_id) && (mark === null || compareSnowflakes(thread.last_message_id, mark) > 0))
    .map((thread) => ({ id: thread.id, name: thread.name }));
}

export async function threadsPage(
  channelId: string,
  checkpoint: JsonValue | null,
  settings: DiscordSettings,
  secrets: DiscordSecrets,
  access: PlatformAccess,
): Promise<StreamPage> {
  const at = readCheckpoint(checkpoint);
  const translation = emptyTranslation();
  const finished = (): StreamPage => ({
    translation,
    checkpoint: { mark: newestOf(at.mark, at.start), start: null, list: 'active', before: null, threads: [], after: null },
    done: true,
    total: null,
    records: 0,
  });

  // The next thread with something new: from the list page under way, else from the next list page.
  while (at.threads.length === 0) {
    if (at.list === 'done') return finished();
    if (at.list === 'active') {
      const { body, serverTime } = await activeThreads(settings, secrets, access);
      at.start = snowflakeAt((serverTime ?? access.now().getTime()) - CLOCK_MARGIN_MS);
      at.threads = withNews(body.threads ?? [], channelId, at.mark);
      at.list = 'archived';
      at.before = null;
      continue;
    }
    const { body } = await discordGet<ThreadList>(
      `/channels/${channelId}/threads/archived/public`,
      { before: at.before ?? undefined, limit: String(ARCHIVED_PAGE) },
      settings,
      secrets,
      access,
    );
    const threads = body.threads ?? [];
    at.threads = withNews(threads, channelId, at.mark);
    const times = threads.map((thread) => thread.thread_metadata?.archive_timestamp).filter((time): time is string => typeof time === 'string');
    const oldest = times.length > 0 ? times.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b)) : null;
    const pastMark = at.mark !== null && oldest !== null && Date.parse(oldest) < timeOfSnowflake(at.mark) - CLOCK_MARGIN_MS;
    at.list = body.has_more && oldest !== null && !pastMark ? 'archived' : 'done';
    at.before = oldest;
  }

  const thread = at.threads[0]!;
  const { body } = await discordGet<DiscordMessage[]>(
    `/channels/${thread.id}/messages`,
    { after: at.after ?? at.mark ?? '0', limit: String(PAGE_SIZE) },
    settings,
    secrets,
    access,
  );
  const messages = [...body].sort((a, b) => compareSnowflakes(a.id, b.id));
  const records = await translateMessages(messages, { guildId: settings.guildId, channel: channelId, thread }, settings, secrets, access, translation);
  if (messages.length < PAGE_SIZE) {
    at.threads = at.threads.slice(1);
    at.after = null;
    if (at.threads.length === 0 && at.list === 'done') return { ...finished(), records };
  } else {
    at.after = messages[messages.length - 1]!.id;
  }
  return { translation, checkpoint: { ...at, threads: at.threads.map((one) => ({ ...one })) }, done: false, total: null, records };
}
