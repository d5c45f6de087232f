import type { Translation, UserPush } from '../connector-kind.ts';
import type { Answer, Comment, Question, ShallowUser, StackOverflowSettings } from './stackoverflow.schemas.ts';

/**
 * Activity IDs from the site's own post and comment IDs (questions and answers share one sequence of post
 * IDs on a site; comments have their own), so a post read twice is one activity.
 */
export const ids = {
  question: (questionId: number) => `question:${questionId}`,
  answer: (answerId: number) => `answer:${answerId}`,
  comment: (commentId: number) => `comment:${commentId}`,
  accepted: (answerId: number) => `accepted:${answerId}`,
};

/** Long bodies are cut: the activity keeps what is enough to read and to find topics in. */
const MAX_TEXT = 5_000;

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  copy: '©',
  reg: '®',
  trade: '™',
};

/** The API escapes every string it returns ("safe" filters): `O&#39;Brien` is O'Brien. Decoded once, as sent. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]{2,8}));/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES[name] ?? whole;
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\uFFFD';
  });
}

/** A post's HTML body as text: line breaks kept at block ends (code blocks keep theirs), tags dropped, entities decoded. */
export function bodyText(html: string | undefined): string | null {
  if (!html) return null;
  const text = decodeEntities(
    html
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|div|li|h[1-6]|pre|blockquote|tr|ul|ol)\s*>/gi, '\n')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/[ \t\f\v]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!text) return null;
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

export function emptyTranslation(): Translation {
  return { users: [], activities: [], skipped: [] };
}

/** Seconds since the epoch, as the API gives every date, as an ISO time. */
export function timeOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/**
 * Why the author of a post is not a person, or null. A deleted or anonymous author comes as `user_type:
 * does_not_exist` without a `user_id`; the Community user (ID -1) is the site's own account, which owns
 * community wikis and migrated posts.
 */
export function notAPerson(owner: ShallowUser | undefined): string | null {
  if (!owner) return 'no author';
  if (owner.user_type === 'does_not_exist' || typeof owner.user_id !== 'number')
    return `by a deleted or anonymous user (user_type ${owner.user_type ?? 'absent'}${owner.display_name ? `, "${decodeEntities(owner.display_name)}"` : ''})`;
  if (owner.user_id <= 0) return `by the site's Community user (${owner.user_id}), not a person`;
  return null;
}

/**
 * The person of a post: the site's user ID (one site's; another site's account of the same person has
 * another), the display name and the avatar. The profile page and what the profile says come from the
 * profiles pass (`/users/{ids}`), so that a later post does not take back what the profile gave.
 */
export function personOf(owner: ShallowUser): UserPush {
  const person: UserPush = { id: String(owner.user_id) };
  if (owner.display_name) person.username = decodeEntities(owner.display_name);
  if (owner.profile_image) person.avatarUrl = owner.profile_image;
  return person;
}

/** The followed tag a question is under: its first tag that is followed, so every stream names it alike. */
export function tagOf(question: Question, settings: StackOverflowSettings, stream: string): string {
  const followed = new Set(settings.tags.map((tag) => tag.toLowerCase()));
  return question.tags?.find((tag) => followed.has(tag.toLowerCase())) ?? stream;
}

/** What an answer and a comment take from their question. */
export interface Thread {
  question: Question;
  title: string | null;
  url: string | null;
  subSource: string;
}

export function threadOf(question: Question, settings: StackOverflowSettings, stream: string): Thread {
  return { question, title: question.title ? decodeEntities(question.title) : null, url: question.link ?? null, subSource: tagOf(question, settings, stream) };
}

/** The site's address (https://stackoverflow.com), from a question's link. */
function siteOrigin(thread: Thread): string | null {
  try {
    return thread.url ? new URL(thread.url).origin : null;
  } catch {
    return null;
  }
}

const questionParent = (thread: Thread) => ({ id: ids.question(thread.question.question_id), activityType: 'stackoverflow_question' });

export function translateQuestion(thread: Thread, into: Translation): void {
  const { question } = thread;
  const reason = notAPerson(question.owner);
  if (reason) return void into.skipped.push(`question ${question.question_id}: ${reason}`);
  const body = bodyText(question.body);
  into.activities.push({
    id: ids.question(question.question_id),
    activityType: 'stackoverflow_question',
    user: personOf(question.owner!),
    activityTitle: thread.title,
    content: body ? { type: 'text', value: body } : null,
    timestamp: timeOf(question.creation_date),
    url: thread.url,
    parentActivity: null,
    subSource: thread.subSource,
  });
}

/** The address of an answer: the site's short link to it (the API gives an answer's link only in other filters). */
function answerUrl(answer: Answer, thread: Thread): string | null {
  const origin = siteOrigin(thread);
  return origin ? `${origin}/a/${answer.answer_id}` : thread.url;
}

/**
 * An answer under its question, and, when it is the accepted one, the accepted answer: the answer's
 * author's, under the question. The API shows no time of acceptance, so its time is the answer's.
 */
export function translateAnswer(answer: Answer, thread: Thread, into: Translation): void {
  const reason = notAPerson(answer.owner);
  if (reason) return void into.skipped.push(`answer ${answer.answer_id}: ${reason}`);
  const body = bodyText(answer.body);
  const user = personOf(answer.owner!);
  const url = answerUrl(answer, thread);
  into.activities.push({
    id: ids.answer(answer.answer_id),
    activityType: 'stackoverflow_answer',
    user,
    activityTitle: thread.title,
    content: body ? { type: 'text', value: body } : null,
    timestamp: timeOf(answer.creation_date),
    url,
    parentActivity: questionParent(thread),
    subSource: thread.subSource,
  });
  if (answer.is_accepted === true || thread.question.accepted_answer_id === answer.answer_id) {
    into.activities.push({
      id: ids.accepted(answer.answer_id),
      activityType: 'stackoverflow_accepted_answer',
      user: { ...user },
      activityTitle: thread.title,
      timestamp: timeOf(answer.creation_date),
      url,
      parentActivity: questionParent(thread),
      subSource: thread.subSource,
    });
  }
}

/** A comment under its post: the question, or the answer it was made on. */
export function translateComment(comment: Comment, thread: Thread, onAnswer: boolean, into: Translation): void {
  const reason = notAPerson(comment.owner);
  if (reason) return void into.skipped.push(`comment ${comment.comment_id}: ${reason}`);
  const body = bodyText(comment.body);
  into.activities.push({
    id: ids.comment(comment.comment_id),
    activityType: 'stackoverflow_comment',
    user: personOf(comment.owner!),
    activityTitle: thread.title,
    content: body ? { type: 'text', value: body } : null,
    timestamp: timeOf(comment.creation_date),
    // The site's anchor of a comment on its question's page.
    url: thread.url ? `${thread.url.split('#')[0]}#comment${comment.comment_id}_${comment.post_id}` : null,
    parentActivity: onAnswer ? { id: ids.answer(comment.post_id), activityType: 'stackoverflow_answer' } : questionParent(thread),
    subSource: thread.subSource,
  });
}
