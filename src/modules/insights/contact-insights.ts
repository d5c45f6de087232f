import { createHash } from 'node:crypto';
import type { SparkDraft } from '../contacts/index.ts';
import { SPARK_DAYS } from '../contacts/index.ts';
import { jsonObjectIn, LlmError, type ChatMessage } from './llm-client.ts';

/** What a contact's request is written from (and all of it: docs/insights.md lists what is sent). */
export interface ContactPerson {
  title: string | null;
  organization: string | null;
}

export interface SparkTexts {
  sparkSummary: string | null;
  recentSparkSummaries: string[];
  activateMessage: { title: string; message: string } | null;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * The facts of a contact a model is given: its title and organization's name, and for each period of
 * SPARK_DAYS with activity the counts by type, place and topic, and the latest activity's day, type, place
 * and topics. No address, identity, location, activity text or custom field is sent.
 */
export function contactFacts(person: ContactPerson, draft: SparkDraft, now: Date) {
  const name = (key: string) => draft.typeNames.get(key) ?? key;
  const counted = (entries: { key: string; count: number }[], label: (key: string) => string = (key) => key) =>
    entries.map((entry) => ({ name: label(entry.key), count: entry.count }));
  return {
    title: person.title,
    organization: person.organization,
    periods: (draft.digest?.periods ?? []).map((period) => {
      const end = new Date(now.getTime() - period.period * SPARK_DAYS * 86_400_000);
      return {
        from: day(new Date(end.getTime() - SPARK_DAYS * 86_400_000)),
        to: day(end),
        activities: period.total,
        types: counted(period.types, name),
        places: counted(period.places),
        topics: counted(period.topics.slice(0, 10)),
      };
    }),
    latest: draft.digest?.latest
      ? { day: day(draft.digest.latest.time), type: name(draft.digest.latest.type), place: draft.digest.latest.place, topics: draft.digest.latest.topics }
      : null,
  };
}

export const CONTACT_SYSTEM_PROMPT = `You write short notes about one member of an online community, for the team that runs the community.
Use only the facts given. Invent nothing: no names, numbers, dates, products, places or feelings the facts do not hold.
Plain language, no markdown. The drafts are correct; say the same things better, more readably.
Answer with one JSON object and nothing else:
{"sparkSummary": string or null, "recentSparkSummaries": [string, ...], "activateMessage": {"title": string, "message": string} or null}
- sparkSummary: one or two sentences on the last ${SPARK_DAYS} days (what they did, where, how often, about what); null exactly when drafts.sparkSummary is null.
- recentSparkSummaries: exactly one string per entry of drafts.recentSparkSummaries, in the same order, each starting with that entry's period label (the words before the first colon).
- activateMessage: a suggested outreach to the member about their latest activity: a title of a few words and a message of two to four friendly sentences, greeting them as the draft does; null exactly when drafts.activateMessage is null.`;

/** The chat a contact's texts are asked with: the instructions, then the facts and the deterministic drafts as JSON. */
export function contactMessages(person: ContactPerson, draft: SparkDraft, now: Date): ChatMessage[] {
  const drafts: SparkTexts = { sparkSummary: draft.sparkSummary, recentSparkSummaries: draft.recentSparkSummaries, activateMessage: draft.activateMessage };
  return [
    { role: 'system', content: CONTACT_SYSTEM_PROMPT },
    { role: 'user', content: JSON.stringify({ facts: contactFacts(person, draft, now), drafts }) },
  ];
}

/** The watermark of what was asked: the same model given the same messages need not be asked again. */
export function inputHash(model: string, messages: ChatMessage[]): string {
  return createHash('sha256').update(JSON.stringify({ model, messages })).digest('base64url');
}

const MAX_SUMMARY = 1000;
const MAX_TITLE = 200;
const MAX_MESSAGE = 2000;

function text(value: unknown, what: string, max: number): string {
  if (typeof value !== 'string') throw new LlmError(`${what} is not a string`, false);
  const trimmed = value.trim();
  if (!trimmed) throw new LlmError(`${what} is empty`, false);
  if (trimmed.length > max) throw new LlmError(`${what} is longer than ${max} characters`, false);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(trimmed)) throw new LlmError(`${what} holds control characters`, false);
  return trimmed;
}

/**
 * The model's texts, checked against the drafts: each text the draft has must be there, in shape and
 * length; what the draft has not (no activity to speak of) stays empty whatever the model says. Anything
 * else throws LlmError, and the deterministic text stays.
 */
export function checkContactAnswer(content: string, drafts: SparkTexts): SparkTexts {
  const answer = jsonObjectIn(content);
  if (!answer) throw new LlmError('the answer is not a JSON object', false);
  const sparkSummary = drafts.sparkSummary === null ? null : text(answer.sparkSummary, 'sparkSummary', MAX_SUMMARY);
  const recent = answer.recentSparkSummaries;
  if (drafts.recentSparkSummaries.length > 0 && (!Array.isArray(recent) || recent.length !== drafts.recentSparkSummaries.length)) {
    throw new LlmError(`recentSparkSummaries must hold ${drafts.recentSparkSummaries.length} texts`, false);
  }
  const recentSparkSummaries = drafts.recentSparkSummaries.map((_, index) => text((recent as unknown[])[index], `recentSparkSummaries[${index}]`, MAX_SUMMARY));
  let activateMessage: SparkTexts['activateMessage'] = null;
  if (drafts.activateMessage !== null) {
    const given = answer.activateMessage as { title?: unknown; message?: unknown } | null | undefined;
    if (!given || typeof given !== 'object') throw new LlmError('activateMessage is not an object', false);
    activateMessage = { title: text(given.title, 'activateMessage.title', MAX_TITLE), message: text(given.message, 'activateMessage.message', MAX_MESSAGE) };
  }
  return { sparkSummary, recentSparkSummaries, activateMessage };
}
