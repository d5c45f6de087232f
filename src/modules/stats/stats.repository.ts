import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import { PLANNED_EACH_TIME_MARK } from '../../db/prepared-statements.ts';

/**
 * Every read of a period starts with this: planned for its own dates each time, as a period of 7 days and one
 * of a year want different plans.
 */
const planned = sql.raw(PLANNED_EACH_TIME_MARK);

/**
 * A period as the statements take it: its first and last day (`YYYY-MM-DD`, UTC), the instants that bound it
 * (`from` inclusive, `to` exclusive: midnight after the last day) and whether buckets are weeks.
 */
export interface Span {
  first: string;
  last: string;
  from: Date;
  to: Date;
}

/** A day's bucket: the day itself, or the Monday of its week, but never before the period's first day. */
const bucketOf = (day: RawBuilder<unknown>, first: string, week: boolean) =>
  week ? sql`greatest(${day} - (extract(isodow from ${day})::int - 1), ${first}::date)` : day;

const utcDay = (column: RawBuilder<unknown>) => sql`(${column} at time zone 'UTC')::date`;

export interface DayCount {
  day: string;
  sourceId: number;
  type: string;
  count: number;
}

/**
 * Activities per day, source and type over `first`..`last`: the rollup plus the changes the fold step has
 * not moved into it yet, so the answer is exact at any moment. Days with none are left out.
 */
export async function rolledUpDays(db: Executor, communityId: number, first: string, last: string): Promise<DayCount[]> {
  const { rows } = await sql<{ day: string; sourceId: string | number; type: string; count: number }>`${planned}
    select day::text as day, source_id as "sourceId", activity_type as type, sum(n)::int as count
    from (
      select day, source_id, activity_type, activities as n from activity_day_counts
      where community_id = ${communityId} and day between ${first}::date and ${last}::date
      union all
      select day, source_id, activity_type, delta from activity_day_changes
      where community_id = ${communityId} and day between ${first}::date and ${last}::date
    ) x
    group by day, source_id, activity_type
    having sum(n) <> 0`.execute(db);
  return rows.map((row) => ({ ...row, sourceId: Number(row.sourceId) }));
}

/**
 * The same from the activities themselves, for a lightFilter the rollup cannot answer: the index on
 * (community, time) bounds the read to the period's activities, and the filter is applied to each.
 */
export async function filteredDays(db: Executor, communityId: number, from: Date, to: Date, where: RawBuilder<SqlBool>): Promise<DayCount[]> {
  const { rows } = await sql<{ day: string; sourceId: string | number; type: string; count: number }>`${planned}
    select ${utcDay(sql.ref('a.activity_time'))}::text as day, a.source_id as "sourceId", a.activity_type as type, count(*)::int as count
    from activities a
    where a.community_id = ${communityId} and a.activity_time >= ${from} and a.activity_time < ${to} and ${where}
    group by 1, 2, 3`.execute(db);
  return rows.map((row) => ({ ...row, sourceId: Number(row.sourceId) }));
}

export async function sourceNames(db: Executor, communityId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('sources').select(['id', 'name']).where('community_id', '=', communityId).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [Number(row.id), row.name]));
}

/** Distinct contacts with an activity in each bucket of the period (index-only over activities_time_contact). */
export async function activeByBucket(db: Executor, communityId: number, span: Span, week: boolean): Promise<Map<string, number>> {
  const day = utcDay(sql.ref('activity_time'));
  const { rows } = await sql<{ bucket: string; count: number }>`${planned}
    select ${bucketOf(day, span.first, week)}::text as bucket, count(distinct contact_id)::int as count
    from activities
    where community_id = ${communityId} and activity_time >= ${span.from} and activity_time < ${span.to}
    group by 1`.execute(db);
  return new Map(rows.map((row) => [row.bucket, row.count]));
}

/**
 * Distinct contacts with an activity in the period and in the previous one: one distinct read of each period's
 * index range. (Grouping both periods' rows by contact in one pass, with an aggregate per period, took two to
 * three times as long on the bench's 150,000 rows: its hash table outgrew work_mem and spilled.)
 */
export async function activeTotals(db: Executor, communityId: number, span: Span, previous: Span): Promise<{ count: number; previous: number }> {
  const distinctIn = (from: Date, to: Date) => sql`(select count(*) from (
      select distinct contact_id from activities where community_id = ${communityId} and activity_time >= ${from} and activity_time < ${to}
    ) d)`;
  const { rows } = await sql<{ count: number; previous: number }>`${planned}
    select ${distinctIn(span.from, span.to)}::int as count, ${distinctIn(previous.from, span.from)}::int as previous`.execute(db);
  return rows[0] ?? { count: 0, previous: 0 };
}

/**
 * Whether the community has an activity at or after `at`. Its latest activity time, compared here: `max` reads
 * the end of the time index whatever the plan, where `exists (… activity_time >= $2)` on a cached generic plan
 * (the planner guessing a third of the rows match) scanned every activity of every community when none did.
 */
export async function activityFrom(db: Executor, communityId: number, at: Date): Promise<boolean> {
  const { rows } = await sql<{ latest: Date | null }>`
    select max(activity_time) as latest from activities where community_id = ${communityId}`.execute(db);
  const latest = rows[0]?.latest;
  return latest !== null && latest !== undefined && new Date(latest).getTime() >= at.getTime();
}

/** Contacts whose first activity falls in each bucket of the period, and how many in the previous period. */
export async function newByBucket(
  db: Executor,
  communityId: number,
  span: Span,
  previous: Span,
  week: boolean,
): Promise<{ buckets: Map<string, number>; previous: number }> {
  const day = utcDay(sql.ref('first_activity_at'));
  const { rows } = await sql<{ bucket: string | null; count: number }>`${planned}
    select case when first_activity_at >= ${span.from} then ${bucketOf(day, span.first, week)}::text end as bucket, count(*)::int as count
    from contacts
    where community_id = ${communityId} and first_activity_at >= ${previous.from} and first_activity_at < ${span.to}
    group by 1`.execute(db);
  return {
    buckets: new Map(rows.filter((row) => row.bucket !== null).map((row) => [row.bucket!, row.count])),
    previous: rows.find((row) => row.bucket === null)?.count ?? 0,
  };
}

export interface ContactCount {
  id: number;
  name: string;
  avatarUrl: string | null;
  count: number;
  previous: number;
}

export interface OrganizationCount {
  id: number;
  name: string;
  count: number;
  previous: number;
}

/**
 * The most active contacts of the period, and the organizations whose contacts' activity rose most against
 * the previous period (by the increase, then the count). The top contacts come from the period's activities
 * alone; their earlier counts are a probe each of the index by contact. The organizations join both periods'
 * activities to their contacts' organizations (an index-only read of contacts_organization) and count per
 * organization: a few thousand groups, where a count per contact first held one per contact and spilled out
 * of work_mem on the bench's 150,000 activities.
 */
export async function contributors(
  db: Executor,
  communityId: number,
  span: Span,
  previous: Span,
  limit: number,
): Promise<{ contacts: ContactCount[]; organizations: OrganizationCount[] }> {
  const { rows } = await sql<{ kind: 'c' | 'o'; id: string | number; name: string; avatarUrl: string | null; count: number; previous: number }>`${planned}
    with top as (
      select contact_id, count(*)::int as cur
      from activities
      where community_id = ${communityId} and activity_time >= ${span.from} and activity_time < ${span.to}
      group by contact_id
      order by count(*) desc, contact_id
      limit ${limit}
    ),
    orgs as (
      select k.organization_id, count(*) filter (where a.activity_time >= ${span.from})::int as cur, count(*) filter (where a.activity_time < ${span.from})::int as prev
      from activities a
      join contacts k on k.community_id = ${communityId} and k.id = a.contact_id
      where a.community_id = ${communityId} and a.activity_time >= ${previous.from} and a.activity_time < ${span.to} and k.organization_id is not null
      group by k.organization_id
      having count(*) filter (where a.activity_time >= ${span.from}) > count(*) filter (where a.activity_time < ${span.from})
      order by 2 - 3 desc, 2 desc, 1
      limit ${limit}
    )
    select 'c' as kind, t.contact_id as id, k.name, k.avatar_url as "avatarUrl", t.cur as count,
      (select count(*) from activities p
       where p.community_id = ${communityId} and p.contact_id = t.contact_id and p.activity_time >= ${previous.from} and p.activity_time < ${span.from})::int as previous
    from top t join contacts k on k.community_id = ${communityId} and k.id = t.contact_id
    union all
    select 'o', o.organization_id, g.name, null, o.cur, o.prev
    from orgs o join organizations g on g.community_id = ${communityId} and g.id = o.organization_id`.execute(db);
  const contacts = rows.filter((row) => row.kind === 'c').map(({ kind: _, ...row }) => ({ ...row, id: Number(row.id) }));
  const organizations = rows.filter((row) => row.kind === 'o').map(({ kind: _, avatarUrl: __, ...row }) => ({ ...row, id: Number(row.id) }));
  contacts.sort((a, b) => b.count - a.count || a.id - b.id);
  organizations.sort((a, b) => b.count - b.previous - (a.count - a.previous) || b.count - a.count || a.id - b.id);
  return { contacts, organizations };
}

export interface TopicCount {
  id: number;
  name: string;
  count: number;
  previous: number;
}

/** Activities per topic in the period and the previous one (rollup plus changes not folded yet). */
export async function topicCounts(db: Executor, communityId: number, span: Span, previous: Span): Promise<TopicCount[]> {
  const { rows } = await sql<{ id: string | number; name: string; count: number; previous: number }>`${planned}
    select t.id, t.name, x.count, x.previous
    from (
      select topic_id, sum(n) filter (where day >= ${span.first}::date)::int as count, coalesce(sum(n) filter (where day < ${span.first}::date), 0)::int as previous
      from (
        select day, topic_id, activities as n from topic_day_counts
        where community_id = ${communityId} and day between ${previous.first}::date and ${span.last}::date
        union all
        select day, topic_id, delta from topic_day_changes
        where community_id = ${communityId} and day between ${previous.first}::date and ${span.last}::date
      ) d
      group by topic_id
    ) x
    join topics t on t.community_id = ${communityId} and t.id = x.topic_id
    where x.count > 0`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

export interface ScoreBucket {
  scoreId: number;
  name: string;
  bucket: number | null;
  low: number | null;
  high: number | null;
  count: number;
}

/**
 * Each live lead score's stored values in 10 equal buckets between its lowest and highest value (the
 * lowest and highest are probes of lead_scores_sort; the count reads that index's entries of the score).
 */
export async function scoreDistribution(db: Executor, communityId: number): Promise<ScoreBucket[]> {
  const { rows } = await sql<{ scoreId: string | number; name: string; bucket: number | null; low: string | null; high: string | null; count: number }>`
    select d.id as "scoreId", d.name, b.bucket, r.low::text as low, r.high::text as high, coalesce(b.count, 0)::int as count
    from lead_score_definitions d
    cross join lateral (
      select min(s.score) as low, max(s.score) as high from lead_scores s
      where s.community_id = ${communityId} and s.score_id = d.id and s.entity_type = d.entity_type
    ) r
    left join lateral (
      select case when r.high > r.low then least(width_bucket(s.score, r.low, r.high, 10), 10) else 1 end as bucket, count(*) as count
      from lead_scores s
      where s.community_id = ${communityId} and s.score_id = d.id and s.entity_type = d.entity_type
      group by 1
    ) b on true
    where d.community_id = ${communityId} and d.retired_at is null and d.enabled
    order by d.id, b.bucket`.execute(db);
  return rows.map((row) => ({
    scoreId: Number(row.scoreId),
    name: row.name,
    bucket: row.bucket,
    low: row.low === null ? null : Number(row.low),
    high: row.high === null ? null : Number(row.high),
    count: row.count,
  }));
}

/** Communities with changes waiting to be folded, at most `limit`. */
export async function communitiesWithChanges(db: Executor, limit: number): Promise<number[]> {
  const { rows } = await sql<{ communityId: string | number }>`
    select community_id as "communityId" from (
      select distinct community_id from activity_day_changes
      union select distinct community_id from topic_day_changes
    ) c order by 1 limit ${limit}`.execute(db);
  return rows.map((row) => Number(row.communityId));
}

/**
 * Moves a community's waiting changes into the rollups: one statement per rollup, which deletes the changes
 * it reads, so a change is folded once whatever runs beside it. A community deleted meanwhile has no rollup
 * left to fold into: its changes just go.
 */
export async function foldChanges(db: Executor, communityId: number): Promise<number> {
  const days = await sql`
    with moved as (delete from activity_day_changes where community_id = ${communityId} returning day, source_id, activity_type, delta)
    insert into activity_day_counts as t (community_id, day, source_id, activity_type, activities)
    select ${communityId}::bigint, day, source_id, activity_type, sum(delta)
    from moved
    where exists (select 1 from communities c where c.id = ${communityId})
    group by day, source_id, activity_type
    on conflict (community_id, day, source_id, activity_type) do update set activities = t.activities + excluded.activities`.execute(db);
  const topics = await sql`
    with moved as (delete from topic_day_changes where community_id = ${communityId} returning day, topic_id, delta)
    insert into topic_day_counts as t (community_id, day, topic_id, activities)
    select ${communityId}::bigint, day, topic_id, sum(delta)
    from moved
    where exists (select 1 from communities c where c.id = ${communityId})
    group by day, topic_id
    on conflict (community_id, day, topic_id) do update set activities = t.activities + excluded.activities`.execute(db);
  return Number(days.numAffectedRows ?? 0) + Number(topics.numAffectedRows ?? 0);
}
