import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage } from '../connector-kind.ts';
import { emptyTranslation, translateMessage } from './slack-activities.ts';
import { slackCall } from './slack-client.ts';
import type { SlackMessage, SlackSecrets, SlackSettings } from './slack.schemas.ts';

/*
 * The streams a sync walks: one per followed channel, `channel:<id>`.
 * - conversations.history, newest first, 200 a page, paged by `response_metadata.next_cursor`. The walk is
 *   bounded below by `oldest`, the newest `ts` of the last complete walk (exclusive, Slack's default), so the
 *   next sync reads only what is new.
 * - For each message of the page that starts a thread (`reply_count` > 0), conversations.replies reads the
 *   whole thread, by cursor, before the page is stored (its first message is the parent, already in the page).
 * A reply posted later in a thread whose parent is older than `oldest` is not found by the history: it comes
 * from the `message` event.
 */
const PAGE_SIZE = 200;
export const STREAM_PREFIX = 'channel:';

interface ChannelCheckpoint {
  /** The walk's next page (null: from the newest message). */
  cursor: string | null;
  /** The lower bound of the walk under way: the newest ts of the last complete walk. */
  oldest: string | null;
  /** The newest ts the walk under way has seen. */
  top: string | null;
}

function readCheckpoint(value: JsonValue | null): ChannelCheckpoint {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const text = (key: string) => (typeof object[key] === 'string' && object[key] ? (object[key] as string) : null);
  return { cursor: text('cursor'), oldest: text('oldest'), top: text('top') };
}

/** Slack's `ts` values compare as numbers (seconds and microseconds), not as text. */
function newer(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Number(a) >= Number(b) ? a : b;
}

interface MessagesAnswer {
  messages?: SlackMessage[];
  has_more?: boolean;
  response_metadata?: { next_cursor?: string };
}

export async function channelPage(
  channel: string,
  checkpoint: JsonValue | null,
  settings: SlackSettings,
  secrets: SlackSecrets,
  access: PlatformAccess,
): Promise<StreamPage> {
  const at = readCheckpoint(checkpoint);
  const answer = await slackCall<MessagesAnswer>(
    'conversations.history',
    { channel, limit: String(PAGE_SIZE), cursor: at.cursor ?? undefined, oldest: at.oldest ?? undefined },
    settings,
    secrets,
    access,
  );
  const messages = answer.messages ?? [];
  const translation = emptyTranslation();
  let records = 0;
  let top = at.top;
  for (const message of messages) {
    top = newer(top, message.ts);
    records += 1;
    translateMessage(message, channel, settings, translation);
    if ((message.reply_count ?? 0) > 0 && (message.thread_ts ?? message.ts) === message.ts) {
      for (const reply of await threadReplies(channel, message.ts, settings, secrets, access)) {
        records += 1;
        translateMessage(reply, channel, settings, translation);
      }
    }
  }
  const next = answer.response_metadata?.next_cursor || null;
  if (!next || answer.has_more === false) {
    const done: JsonValue = { cursor: null, oldest: newer(top, at.oldest), top: null };
    return { translation, checkpoint: done, done: true, total: null, records };
  }
  return { translation, checkpoint: { cursor: next, oldest: at.oldest, top }, done: false, total: null, records };
}

/** A thread's replies (without its parent), every page. */
async function threadReplies(channel: string, ts: string, settings: SlackSettings, secrets: SlackSecrets, access: PlatformAccess): Promise<SlackMessage[]> {
  const replies: SlackMessage[] = [];
  let cursor: string | undefined;
  for (;;) {
    const answer = await slackCall<MessagesAnswer>('conversations.replies', { channel, ts, limit: String(PAGE_SIZE), cursor }, settings, secrets, access);
    for (const message of answer.messages ?? []) if (message.ts !== ts) replies.push(message);
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!cursor || answer.has_more === false) return replies;
  }
}
