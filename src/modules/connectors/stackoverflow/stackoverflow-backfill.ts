import type { JsonValue } from '../../../db/schema.ts';
import type { PlatformAccess, StreamPage, Translation } from '../connector-kind.ts';
import { emptyTranslation, threadOf, translateAnswer, translateComment, translateQuestion, type Thread } from './stackoverflow-activities.ts';
import { lastQuota, pauseFor, stackGet, stackGetAll, type Quota } from './stackoverflow-client.ts';
import type { Answer, Comment, Question, StackOverflowSecrets, StackOverflowSettings } from './stackoverflow.schemas.ts';

/*
 * The streams a sync walks: one per followed tag, `tag:<name>` (the API's `tagged` takes several tags as an
 * AND, so each tag is listed by itself; a question with two followed tags is read by both, as one activity).
 *
 * - The backfill walks the tag's questions by creation date, oldest first: GET /questions?tagged=<tag>
 *   &sort=creation&order=asc&fromdate=<newest creation date read>, 100 a page. It goes on from the newest
 *   date read rather than with `page`, so a long walk (the quota may stop it for a day) never pages deep,
 *   and the questions read at that second are remembered and passed over.
 * - Once caught up, every walk is by activity: GET /questions?tagged=<tag>&sort=activity&order=asc
 *   &min=<newest last_activity_date read>. A new question, an answer and an edit all move a question's
 *   last_activity_date, so this one list brings the new questions and the old ones that were answered since:
 *   a sync with nothing new costs one request a tag. The first such walk starts from the backfill's start
 *   (less a margin for clocks that differ), for what was posted while it ran. /answers and /comments have no
 *   tag parameter: walking them would read every post of the site, most of other tags, at the quota's cost.
 * - Each page's questions bring their answers (GET /questions/{ids}/answers), the comments on them
 *   (/questions/{ids}/comments) and on their answers (/answers/{ids}/comments), 100 IDs a request, every
 *   page, before the page is stored.
 * A comment alone does not move its question's last_activity_date: a comment made on an old question, with
 * nothing else since, is read with the question's next activity, not before.
 */
export const STREAM_PREFIX = 'tag:';
const PAGE_SIZE = 100;
/** Questions active this long before the backfill started are read again after it: Hearth's clock and the API's may differ. */
const CLOCK_MARGIN_SECONDS = 10 * 60;
/** The methods a page calls: a backoff on any of them is waited for before the next page. */
const PAGE_METHODS = ['questions', 'questions/{ids}/answers', 'questions/{ids}/comments', 'answers/{ids}/comments'];

interface TagCheckpoint {
  /** `creation`: the backfill, by creation date; `activity`: every later walk, by last activity. */
  walk: 'creation' | 'activity';
  /** The date (creation or last activity, in seconds) the next request starts from; null: the beginning. */
  from: number | null;
  /** The page at `from`: more than 1 only when a whole page had that same second. */
  page: number;
  /** Questions read already at `from`, passed over when they come again. */
  seen: number[];
  /** When the backfill started (seconds): where the first activity walk starts. */
  started: number | null;
  /** Posts created from then (seconds) on were not read by an earlier walk: they count as records read. */
  countFrom: number | null;
  /** The API's quota after the last request, shown with the stream. */
  quota: Quota | null;
}

function readCheckpoint(value: JsonValue | null): TagCheckpoint | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const number = (key: string) => (typeof value[key] === 'number' ? (value[key] as number) : null);
  const seen = Array.isArray(value.seen) ? value.seen.filter((id): id is number => typeof id === 'number') : [];
  return {
    walk: value.walk === 'activity' ? 'activity' : 'creation',
    from: number('from'),
    page: Math.max(1, number('page') ?? 1),
    seen,
    started: number('started'),
    countFrom: number('countFrom'),
    quota: null,
  };
}

/** Where the walk goes on after a page of items in ascending `dateOf` order. */
function advance<T>(at: TagCheckpoint, items: T[], dateOf: (item: T) => number, idOf: (item: T) => number): Pick<TagCheckpoint, 'from' | 'page' | 'seen'> {
  if (items.length === 0) return { from: at.from, page: at.page, seen: at.seen };
  const newest = Math.max(...items.map(dateOf));
  if (at.from === null || newest > at.from) return { from: newest, page: 1, seen: items.filter((item) => dateOf(item) === newest).map(idOf) };
  // The whole page had the same second: the next page of that second.
  return { from: at.from, page: at.page + 1, seen: [...new Set([...at.seen, ...items.map(idOf)])] };
}

function sinceOf(settings: StackOverflowSettings): number | undefined {
  return settings.since ? Math.floor(Date.parse(`${settings.since}T00:00:00Z`) / 1000) : undefined;
}

export async function tagPage(
  tag: string,
  checkpoint: JsonValue | null,
  settings: StackOverflowSettings,
  secrets: StackOverflowSecrets,
  access: PlatformAccess,
): Promise<StreamPage> {
  const nowSeconds = Math.floor(access.now().getTime() / 1000);
  const at: TagCheckpoint = readCheckpoint(checkpoint) ?? {
    walk: 'creation',
    from: null,
    page: 1,
    seen: [],
    started: null,
    countFrom: null,
    quota: null,
  };
  const since = sinceOf(settings);
  const byCreation = at.walk === 'creation';
  const answer = await stackGet<Question>(
    'questions',
    'questions',
    {
      tagged: tag,
      sort: byCreation ? 'creation' : 'activity',
      order: 'asc',
      ...(byCreation ? { fromdate: at.from ?? since } : { min: at.from ?? undefined, fromdate: since }),
      page: at.page,
      pagesize: PAGE_SIZE,
      filter: 'withbody',
    },
    settings,
    secrets,
    access,
  );
  const dateOf = byCreation ? (question: Question) => question.creation_date : (question: Question) => question.last_activity_date;
  const fresh = answer.items.filter((question) => !(dateOf(question) === at.from && at.seen.includes(question.question_id)));
  const { translation, records } = await readThreads(fresh, tag, byCreation ? null : at.countFrom, settings, secrets, access);
  const position = advance(at, answer.items, dateOf, (question) => question.question_id);
  const quota = lastQuota(settings, secrets, access);
  const pauseUntil = pauseFor(PAGE_METHODS, settings, secrets, access);
  const more = answer.hasMore && answer.items.length > 0;

  let next: TagCheckpoint;
  let done = false;
  if (byCreation && more) {
    next = { ...at, ...position, started: at.started ?? nowSeconds, quota };
  } else if (byCreation) {
    // Caught up: the activity walk goes on at once from the backfill's start, for what was posted meanwhile.
    const started = at.started ?? nowSeconds;
    next = { walk: 'activity', from: started - CLOCK_MARGIN_SECONDS, page: 1, seen: [], started: null, countFrom: nowSeconds, quota };
  } else if (more) {
    next = { ...at, ...position, quota };
  } else {
    next = { ...at, ...position, page: 1, countFrom: nowSeconds, quota };
    done = true;
  }
  return { translation, checkpoint: next as unknown as JsonValue, done, total: null, records, pauseUntil };
}

/**
 * The pushes of a page's questions with their answers and comments. A post counts as read for the first
 * time when it is from `countFrom` on (every post, in the backfill): an old post read again with its
 * question's new activity is not counted again.
 */
async function readThreads(
  questions: Question[],
  stream: string,
  countFrom: number | null,
  settings: StackOverflowSettings,
  secrets: StackOverflowSecrets,
  access: PlatformAccess,
): Promise<{ translation: Translation; records: number }> {
  const translation = emptyTranslation();
  if (questions.length === 0) return { translation, records: 0 };
  let records = 0;
  const counts = (created: number) => (countFrom === null || created >= countFrom ? 1 : 0);
  const threads = new Map<number, Thread>();
  for (const question of questions) {
    const thread = threadOf(question, settings, stream);
    threads.set(question.question_id, thread);
    translateQuestion(thread, translation);
    records += counts(question.creation_date);
  }

  // A question without answers needs no request for them (answer_count is in the default filter).
  const answered = questions.filter((question) => question.answer_count === undefined || question.answer_count > 0).map((question) => question.question_id);
  const answers = await byIds<Answer>('questions/{ids}/answers', 'questions', 'answers', answered, settings, secrets, access);
  const questionComments = await byIds<Comment>('questions/{ids}/comments', 'questions', 'comments', [...threads.keys()], settings, secrets, access);
  const answerComments = await byIds<Comment>(
    'answers/{ids}/comments',
    'answers',
    'comments',
    answers.map((one) => one.answer_id),
    settings,
    secrets,
    access,
  );

  const threadOfAnswer = new Map<number, Thread>();
  for (const one of answers) {
    const thread = threads.get(one.question_id);
    if (!thread) continue;
    threadOfAnswer.set(one.answer_id, thread);
    translateAnswer(one, thread, translation);
    records += counts(one.creation_date);
  }
  for (const comment of questionComments) {
    const thread = threads.get(comment.post_id);
    if (!thread) continue;
    translateComment(comment, thread, false, translation);
    records += counts(comment.creation_date);
  }
  for (const comment of answerComments) {
    const thread = threadOfAnswer.get(comment.post_id);
    if (!thread) continue;
    translateComment(comment, thread, true, translation);
    records += counts(comment.creation_date);
  }
  return { translation, records };
}

/** Every item of a `/<kind>/{ids}/<what>` method for `ids`, 100 IDs a request (the API's bound), oldest first. */
async function byIds<T>(
  method: string,
  kind: string,
  what: string,
  ids: number[],
  settings: StackOverflowSettings,
  secrets: StackOverflowSecrets,
  access: PlatformAccess,
): Promise<T[]> {
  const items: T[] = [];
  for (let at = 0; at < ids.length; at += 100) {
    const batch = ids.slice(at, at + 100).join(';');
    items.push(
      ...(await stackGetAll<T>(method, `${kind}/${batch}/${what}`, { sort: 'creation', order: 'asc', filter: 'withbody' }, settings, secrets, access)),
    );
  }
  return items;
}
