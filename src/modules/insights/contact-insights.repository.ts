import { sql } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import type { SparkTexts } from './contact-insights.ts';

/** When a contact's text is written again although its activity has not moved. */
export interface Freshness {
  /** Only contacts with activity after this have anything to write (the reads' window). */
  windowStart: Date;
  /** Text written before this is written again (its "last 30 days" have moved on). */
  staleBefore: Date;
  /** A failed attempt before this is tried again. */
  retryBefore: Date;
  /** Every contact with activity in the window, whatever its watermark (an operator's full refresh). */
  all: boolean;
}

/**
 * The contacts whose text is due, by ID: those with activity in the window (read through the index on
 * (community, latest activity)) whose watermark no longer matches their activity, whose text is stale, or
 * whose last attempt failed a while ago. Erased contacts are never due.
 */
export async function dueContacts(db: Executor, communityId: number, freshness: Freshness, limit?: number): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    select id from contacts
    where community_id = ${communityId} and latest_activity_at > ${freshness.windowStart} and anonymized_at is null
      and (${freshness.all} or sparks_generated_at is null
        or sparks_activity_count is distinct from activity_count_all
        or sparks_latest_activity_at is distinct from latest_activity_at
        or sparks_generated_at < ${freshness.staleBefore}
        or (sparks_input_hash is null and sparks_generated_at < ${freshness.retryBefore}))
    order by id
    ${limit === undefined ? sql`` : sql`limit ${limit}`}`.execute(db);
  return rows.map((row) => Number(row.id));
}

/**
 * Forgets the text of contacts with no activity left in the window (what the deterministic rules would
 * show, null and [], shows); no model is asked. Returns how many.
 */
export async function clearQuiet(db: Executor, communityId: number, windowStart: Date): Promise<number> {
  const result = await sql`
    update contacts set spark_summary = null, recent_spark_summaries = '[]', activate_message = null,
      sparks_generated_at = null, sparks_activity_count = null, sparks_latest_activity_at = null, sparks_input_hash = null
    where community_id = ${communityId} and sparks_generated_at is not null
      and (latest_activity_at is null or latest_activity_at <= ${windowStart})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export async function hasQuietText(db: Executor, communityId: number, windowStart: Date): Promise<boolean> {
  const { rows } = await sql`
    select 1 from contacts where community_id = ${communityId} and sparks_generated_at is not null
      and (latest_activity_at is null or latest_activity_at <= ${windowStart}) limit 1`.execute(db);
  return rows.length > 0;
}

export interface InsightContact {
  id: number;
  name: string;
  fullName: string | null;
  title: string | null;
  organization: string | null;
  activityCount: number;
  /** As PostgreSQL prints it: to the microsecond, which a Date would cut to the millisecond. */
  latestActivityAt: string | null;
  inputHash: string | null;
}

/** What a batch of contacts' requests are written from; erased contacts are left out. */
export async function insightContacts(db: Executor, communityId: number, ids: number[]): Promise<InsightContact[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<InsightContact>`
    select c.id, c.name, c.full_name as "fullName", c.title, o.name as organization, c.activity_count_all as "activityCount",
      c.latest_activity_at::text as "latestActivityAt", c.sparks_input_hash as "inputHash"
    from contacts c
    left join organizations o on o.community_id = c.community_id and o.id = c.organization_id
    where c.community_id = ${communityId} and c.id = any(${ids}::bigint[]) and c.anonymized_at is null
    order by c.id`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** One contact's outcome: the model's texts (null: it failed, the deterministic text shows) or unchanged. */
export interface SparkWrite {
  id: number;
  /** The activity the text was written for: the watermark. */
  activityCount: number;
  latestActivityAt: string | null;
  outcome: { kind: 'written'; texts: SparkTexts; inputHash: string } | { kind: 'unchanged' } | { kind: 'failed' };
}

/**
 * Stores a batch's outcomes in one statement. A contact erased meanwhile is left alone: erasure cleared its
 * text, and nothing written from before it may come back.
 */
export async function writeSparks(db: Executor, communityId: number, writes: SparkWrite[], now: Date): Promise<void> {
  if (writes.length === 0) return;
  const texts = (write: SparkWrite) => (write.outcome.kind === 'written' ? write.outcome.texts : null);
  await sql`
    update contacts c set
      spark_summary = case v.kind when 'unchanged' then c.spark_summary else v.summary end,
      recent_spark_summaries = case v.kind when 'unchanged' then c.recent_spark_summaries else coalesce(v.recent::jsonb, '[]') end,
      activate_message = case v.kind when 'unchanged' then c.activate_message else v.message::jsonb end,
      sparks_input_hash = case v.kind when 'unchanged' then c.sparks_input_hash else v.hash end,
      sparks_generated_at = ${now}, sparks_activity_count = v.count, sparks_latest_activity_at = v.latest
    from unnest(
      ${writes.map((write) => write.id)}::bigint[],
      ${writes.map((write) => write.outcome.kind)}::text[],
      ${writes.map((write) => texts(write)?.sparkSummary ?? null)}::text[],
      ${writes.map((write) => (texts(write) ? JSON.stringify(texts(write)!.recentSparkSummaries) : null))}::text[],
      ${writes.map((write) => (texts(write)?.activateMessage ? JSON.stringify(texts(write)!.activateMessage) : null))}::text[],
      ${writes.map((write) => (write.outcome.kind === 'written' ? write.outcome.inputHash : null))}::text[],
      ${writes.map((write) => write.activityCount)}::int[],
      ${writes.map((write) => write.latestActivityAt)}::timestamptz[]
    ) as v(id, kind, summary, recent, message, hash, count, latest)
    where c.community_id = ${communityId} and c.id = v.id and c.anonymized_at is null`.execute(db);
}

/** How many of the community's contacts show a model's text now. */
export async function contactsWithText(db: Executor, communityId: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from contacts where community_id = ${communityId} and sparks_input_hash is not null and anonymized_at is null`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
