import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { orderedPage, type KeysetPage, type ListOrder, type SortKey } from '../../db/keyset.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';
import { eachParent, groupByParent } from '../../core/query-fragments.ts';

/** What narrows the organizations list: its query filters and the compiled lightFilter (base alias `o`). */
export interface OrganizationFilters {
  name: string | null;
  primaryDomain: string | null;
  where: RawBuilder<SqlBool> | null;
}

export interface OrganizationRow {
  id: number;
  name: string;
  primaryDomain: string;
  about: string | null;
  contactsCount: number;
  employees: number | null;
  linkedInUrl: string | null;
  revenueRangeMin: number | null;
  revenueRangeMax: number | null;
  subIndustry: string | null;
  city: string | null;
  region: string | null;
  country: string | null;
}

const columns = [
  'o.id',
  'o.name',
  'o.primary_domain as primaryDomain',
  'o.about',
  'o.member_count as contactsCount',
  'o.employees',
  'o.linkedin_url as linkedInUrl',
  'o.revenue_range_min as revenueRangeMin',
  'o.revenue_range_max as revenueRangeMax',
  'o.sub_industry as subIndustry',
  'o.city',
  'o.region',
  'o.country',
] as const;

function selectOrganizations(db: Executor, communityId: number) {
  return db.selectFrom('organizations as o').where('o.community_id', '=', communityId);
}

function withColumns(query: ReturnType<typeof selectOrganizations>) {
  return query.select(columns);
}

function filtered(db: Executor, communityId: number, filters: OrganizationFilters) {
  let query = selectOrganizations(db, communityId);
  // The lower() comparison lets the index organizations_name find the candidates; the plain one keeps
  // the match exact.
  if (filters.name !== null) query = query.where(sql<string>`lower(o.name)`, '=', sql<string>`lower(${filters.name})`).where('o.name', '=', filters.name);
  if (filters.primaryDomain !== null) query = query.where('o.primary_domain', '=', filters.primaryDomain);
  if (filters.where) query = query.where(filters.where);
  return query;
}

export async function findOrganizationRow(db: Executor, communityId: number, id: number): Promise<OrganizationRow | undefined> {
  return withColumns(selectOrganizations(db, communityId)).where('o.id', '=', id).executeTakeFirst();
}

/** One keyset page of the organizations that pass the filters, in the given order then ID. */
export async function pageOrganizations(
  db: Executor,
  communityId: number,
  filters: OrganizationFilters,
  order: ListOrder,
  page: { direction: 'asc' | 'desc'; limit: number; after: CursorPosition | null },
): Promise<KeysetPage<OrganizationRow>> {
  // Without a lightFilter the statement's text depends only on which filters are given: compiled once.
  const source = {
    db,
    shape: filters.where ? null : 'organizations',
    values: { community: communityId, name: filters.name, primaryDomain: filters.primaryDomain },
    build: (values: { community: number; name: string | null; primaryDomain: string | null }) =>
      withColumns(filtered(db, values.community, { name: values.name, primaryDomain: values.primaryDomain, where: filters.where })),
  };
  return orderedPage(source, order, { ...page, id: sql.ref('o.id') });
}

export async function countOrganizations(db: Executor, communityId: number, filters: OrganizationFilters): Promise<number> {
  const row = await filtered(db, communityId, filters)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The `member_count` sort (contactsCount). */
export const memberCountKey: SortKey = { expr: sql.ref('o.member_count') };

// Per-page loaders: one query for every organization of a page, each organization's rows picked by a
// lateral subquery that reads only its own newest rows through the (community_id, organization_id, ...)
// indexes, whatever the organization's total.

export interface JobOpeningRow {
  organizationId: number;
  jobTitle: string;
  jobDescription: string | null;
  firstSeenAt: Date;
  isClosed: boolean;
  location: string | null;
  url: string | null;
}

export async function recentJobOpeningsOf(db: Executor, communityId: number, ids: readonly number[], limit: number): Promise<Map<number, JobOpeningRow[]>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<JobOpeningRow>`
    select p.id as "organizationId", j.job_title as "jobTitle", j.job_description as "jobDescription",
      j.first_seen_at as "firstSeenAt", j.is_closed as "isClosed", j.location, j.url
    ${eachParent(
      ids,
      sql`
      select * from job_openings f_j
      where f_j.community_id = ${communityId} and f_j.organization_id = p.id
      order by f_j.first_seen_at desc, f_j.id desc
      limit ${limit}`,
      'j',
    )}
    order by p.id, j.first_seen_at desc, j.id desc`.execute(db);
  return groupByParent(rows, (row) => row.organizationId);
}

export interface NewsRow {
  organizationId: number;
  title: string;
  publishedAt: Date;
  category: string | null;
  articleSentence: string | null;
  url: string | null;
}

export async function recentNewsOf(db: Executor, communityId: number, ids: readonly number[], limit: number): Promise<Map<number, NewsRow[]>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<NewsRow>`
    select p.id as "organizationId", n.title, n.published_at as "publishedAt", n.category,
      n.article_sentence as "articleSentence", n.url
    ${eachParent(
      ids,
      sql`
      select * from news_items f_n
      where f_n.community_id = ${communityId} and f_n.organization_id = p.id
      order by f_n.published_at desc, f_n.id desc
      limit ${limit}`,
      'n',
    )}
    order by p.id, n.published_at desc, n.id desc`.execute(db);
  return groupByParent(rows, (row) => row.organizationId);
}

export interface ResearchResultRow {
  organizationId: number;
  promptId: string;
  answer: string;
  isPrimaryPrompt: boolean;
  promptName: string;
}

/**
 * `researchResults`: the answers to the community's live research prompts (modules/insights), imported or
 * written by a model; a retired prompt's answers, and a model's failed attempts, are not shown. The
 * primary prompt first, then by prompt key.
 */
export async function researchResultsOf(db: Executor, communityId: number, ids: readonly number[]): Promise<Map<number, ResearchResultRow[]>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<ResearchResultRow>`
    select r.organization_id as "organizationId", p.key as "promptId", r.answer, p.is_primary as "isPrimaryPrompt", p.name as "promptName"
    from research_answers r
    join research_prompts p on p.community_id = r.community_id and p.id = r.prompt_id and p.retired_at is null
    where r.community_id = ${communityId} and r.organization_id = any(${[...ids]}::bigint[]) and r.answer is not null
    order by r.organization_id, p.is_primary desc, p.key`.execute(db);
  return groupByParent(rows, (row) => row.organizationId);
}

export interface TopContactRow {
  organizationId: number;
  id: number;
  name: string;
}

/**
 * The contacts of each organization with the most activities (ties by ID). Anonymized contacts are left
 * out: an erased person's shell is nobody to reach out to; so are staff contacts, not members.
 */
export async function topContactsOf(db: Executor, communityId: number, ids: readonly number[], limit: number): Promise<Map<number, TopContactRow[]>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<TopContactRow>`
    select p.id as "organizationId", c.id, c.name
    ${eachParent(
      ids,
      sql`
      select f_c.id, f_c.name, f_c.activity_count_all from contacts f_c
      where f_c.community_id = ${communityId} and f_c.organization_id = p.id and f_c.anonymized_at is null and not f_c.staff
      order by f_c.activity_count_all desc, f_c.id
      limit ${limit}`,
      'c',
    )}
    order by p.id, c.activity_count_all desc, c.id`.execute(db);
  return groupByParent(rows, (row) => row.organizationId);
}

/**
 * How `surgingTopics` decides (docs/reading.md): among the activities of an organization's contacts, a
 * topic surges when at least SURGE_MIN_ACTIVITIES of the last 28 days carry it and its share of those
 * days' activities is at least SURGE_LIFT times its share of the 84 days before. Shares before are
 * smoothed by one activity ((topic + 1) / (all + 1)): a topic never seen before can surge, but only against
 * a baseline, and a short history cannot make one. The strongest rises first (then the most activities,
 * then the name), at most `limit`.
 */
export const SURGE_WINDOW_DAYS = 28;
export const SURGE_BASELINE_DAYS = 84;
export const SURGE_MIN_ACTIVITIES = 3;
export const SURGE_LIFT = 2;

export async function surgingTopicsOf(db: Executor, communityId: number, ids: readonly number[], now: Date, limit: number): Promise<Map<number, string[]>> {
  if (ids.length === 0) return new Map();
  const day = 86_400_000;
  const recentFrom = new Date(now.getTime() - SURGE_WINDOW_DAYS * day);
  const baseFrom = new Date(recentFrom.getTime() - SURGE_BASELINE_DAYS * day);
  const { rows } = await sql<{ organizationId: number; name: string }>`
    with acts as (
      select c.organization_id as org, a.id, a.activity_time > ${recentFrom} as recent
      from contacts c
      join activities a on a.community_id = c.community_id and a.contact_id = c.id
        and a.activity_time > ${baseFrom} and a.activity_time <= ${now}
      where c.community_id = ${communityId} and c.organization_id = any(${[...ids]}::bigint[]) and c.anonymized_at is null
    ), totals as (
      select org, count(*) filter (where recent) as recent_n, count(*) filter (where not recent) as base_n from acts group by org
    ), per_topic as (
      select acts.org, l.topic_id, count(*) filter (where recent) as recent, count(*) filter (where not recent) as base
      from acts join activity_topics l on l.community_id = ${communityId} and l.activity_id = acts.id
      group by acts.org, l.topic_id
    ), ranked as (
      select p.org, t.name, row_number() over (
          partition by p.org
          order by (p.recent::float8 / tt.recent_n) / ((p.base + 1)::float8 / (tt.base_n + 1)) desc, p.recent desc, lower(t.name), t.id
        ) as n
      from per_topic p
      join totals tt on tt.org = p.org
      join topics t on t.community_id = ${communityId} and t.id = p.topic_id
      where p.recent >= ${SURGE_MIN_ACTIVITIES}
        and (p.recent::float8 / tt.recent_n) >= ${SURGE_LIFT} * ((p.base + 1)::float8 / (tt.base_n + 1))
    )
    select org as "organizationId", name from ranked where n <= ${limit} order by org, n`.execute(db);
  const byOrganization = new Map<number, string[]>();
  for (const row of rows) {
    const names = byOrganization.get(Number(row.organizationId)) ?? [];
    names.push(row.name);
    byOrganization.set(Number(row.organizationId), names);
  }
  return byOrganization;
}
