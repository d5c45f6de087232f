import type { ActivityDigest, PeriodDigest } from './contact-spark.repository.ts';

/** Spark summaries cover periods of this many days; `recentSparkSummaries` the last SPARK_PERIODS of them. */
export const SPARK_DAYS = 30;
export const SPARK_PERIODS = 3;

/** "a, b and c". */
function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const day = (date: Date) => date.toISOString().slice(0, 10);
/** A type's display name inside a sentence: "Commented or replied" → "commented or replied". */
const inline = (name: string) => (/^[A-Z][a-z]/.test(name) ? name[0]!.toLowerCase() + name.slice(1) : name);

/**
 * One period in plain words, from the counts alone: how much, how often, what (the two most frequent
 * activity types), where (the two busiest places) and about what (up to three topics). Deterministic: the
 * same activities always give the same text.
 */
export function describePeriod(period: PeriodDigest, typeNames: Map<string, string>): string {
  const perWeek = period.total / (SPARK_DAYS / 7);
  const often = period.total > 1 && perWeek >= 1 ? ` (about ${Math.round(perWeek)} a week)` : '';
  const counted = (entries: { key: string; count: number }[], name: (key: string) => string) =>
    list(entries.slice(0, 2).map((entry) => (period.total === 1 ? name(entry.key) : `${name(entry.key)} (${entry.count})`)));
  const what = `${period.types.length > 1 ? 'mostly ' : ''}${counted(period.types, (key) => inline(typeNames.get(key) ?? key))}`;
  const where = counted(period.places, (key) => key);
  const topics = period.topics.slice(0, 3).map((entry) => entry.key);
  const about = topics.length ? `; about ${list(topics)}` : '';
  return `${period.total} ${period.total === 1 ? 'activity' : 'activities'}${often}: ${what}, in ${where}${about}.`;
}

/** `sparkSummary`: the last 30 days; null without activity in them. */
export function sparkSummaryOf(digest: ActivityDigest | undefined, typeNames: Map<string, string>): string | null {
  const current = digest?.periods.find((period) => period.period === 0);
  if (!current || !digest?.latest) return null;
  return `In the last ${SPARK_DAYS} days, ${describePeriod(current, typeNames)} Latest on ${day(digest.latest.time)}.`;
}

/** `recentSparkSummaries`: each of the last periods with activity, newest first, named by the day it ends. */
export function recentSparkSummariesOf(digest: ActivityDigest | undefined, typeNames: Map<string, string>, now: Date): string[] {
  return (digest?.periods ?? []).map((period) => {
    const end = new Date(now.getTime() - period.period * SPARK_DAYS * 86_400_000);
    return `${SPARK_DAYS} days to ${day(end)}: ${describePeriod(period, typeNames)}`;
  });
}

/**
 * The topic of the latest activity to mention: the one the contact's last 30 days carry most, a name (a
 * capitalized topic, such as a product) before a common word on a tie, then by name.
 */
function mainTopic(topics: string[], period: PeriodDigest | undefined): string | null {
  const count = new Map((period?.topics ?? []).map((entry) => [entry.key, entry.count]));
  const named = (topic: string) => (/^\p{Lu}/u.test(topic) ? 1 : 0);
  const ranked = [...topics].sort((a, b) => (count.get(b) ?? 0) - (count.get(a) ?? 0) || named(b) - named(a) || a.localeCompare(b));
  return ranked[0] ?? null;
}

/**
 * `activateMessage`: a suggested outreach grounded in the contact's latest activity of the last 30 days
 * (what, where, when, its main topic); null without one.
 */
export function activateMessageOf(
  digest: ActivityDigest | undefined,
  typeNames: Map<string, string>,
  person: { fullName: string | null; name: string },
): { title: string; message: string } | null {
  const latest = digest?.latest;
  if (!latest) return null;
  const firstName = (person.fullName ?? '').trim().split(/\s+/)[0] || null;
  const what = inline(typeNames.get(latest.type) ?? latest.type);
  const current = digest.periods.find((period) => period.period === 0);
  const topic = mainTopic(latest.topics, current);
  const subject = topic ?? what;
  const greeting = firstName ? `Hi ${firstName},` : 'Hi,';
  const about = topic ? ` about ${topic}` : '';
  const count = current?.total ?? 1;
  const more = count > 1 ? ` It's one of ${count} things you did with us in the last ${SPARK_DAYS} days, and we're grateful.` : '';
  return {
    title: `Follow up on ${subject}`,
    message:
      `${greeting} I saw your activity in ${latest.place} on ${day(latest.time)} (${what}${about}).${more} ` +
      `Would it help to talk it through with someone on our team?`,
  };
}
