import { sql } from 'kysely';
import type { Executor } from '../../core/executor.ts';

export interface ResearchFreshness {
  /** A model's answer written before this is written again. */
  staleBefore: Date;
  /** A failed attempt before this is tried again. */
  retryBefore: Date;
  /** Every answer the model writes, whatever its watermark (an operator's full refresh). */
  all: boolean;
}

export interface DuePair {
  organizationId: number;
  promptId: number;
}

/**
 * The (organization, live prompt) pairs the model should answer: organizations with something to go on
 * (contacts, or a description), without an imported answer (an admin's answer is never overwritten), whose
 * model answer is missing, older than the prompt's text, than a change to the organization or than its
 * contacts' latest activity, stale, or a failed attempt (no input hash) from a while ago.
 */
export async function duePairs(db: Executor, communityId: number, freshness: ResearchFreshness, limit?: number): Promise<DuePair[]> {
  const { rows } = await sql<DuePair>`
    select o.id as "organizationId", p.id as "promptId"
    from research_prompts p
    join organizations o on o.community_id = p.community_id and (o.member_count > 0 or o.about is not null)
    left join research_answers r on r.community_id = o.community_id and r.organization_id = o.id and r.prompt_id = p.id
    where p.community_id = ${communityId} and p.retired_at is null
      and (r.organization_id is null or (r.origin = 'model' and (
        ${freshness.all}
        or (r.input_hash is null and r.generated_at < ${freshness.retryBefore})
        or (r.input_hash is not null and (p.updated_at > r.generated_at or o.updated_at > r.generated_at or r.generated_at < ${freshness.staleBefore}
          or exists (select 1 from contacts c where c.community_id = o.community_id and c.organization_id = o.id and c.latest_activity_at > r.generated_at))))))
    order by o.id, p.id
    ${limit === undefined ? sql`` : sql`limit ${limit}`}`.execute(db);
  return rows.map((row) => ({ organizationId: Number(row.organizationId), promptId: Number(row.promptId) }));
}

export interface OrganizationFacts {
  name: string;
  domain: string;
  about: string | null;
  employees: number | null;
  industry: string | null;
  location: { city: string | null; region: string | null; country: string | null };
  revenueRange: { min: number | null; max: number | null } | null;
  /** Its contacts' titles, the most held first (erased contacts have none). */
  contactTitles: { title: string; contacts: number }[];
  /** The topics of its contacts' activities of the last 90 days, the most frequent first. */
  activityTopics: { topic: string; activities: number }[];
  jobOpenings: { title: string; location: string | null; firstSeen: string }[];
  news: { title: string; published: string; category: string | null }[];
}

const TITLES = 25;
const TOPICS = 15;
const OPENINGS = 10;
const NEWS = 5;
const TOPIC_DAYS = 90;

/** The facts of a batch of organizations, by ID: four statements whatever the batch's size. */
export async function organizationFacts(db: Executor, communityId: number, ids: number[], now: Date): Promise<Map<number, OrganizationFacts>> {
  const facts = new Map<number, OrganizationFacts>();
  if (ids.length === 0) return facts;
  const list = sql`${ids}::bigint[]`;
  const topicsFrom = new Date(now.getTime() - TOPIC_DAYS * 86_400_000);
  const [organizations, titles, topics, updates] = await Promise.all([
    sql<{
      id: number;
      name: string;
      domain: string;
      about: string | null;
      employees: number | null;
      industry: string | null;
      city: string | null;
      region: string | null;
      country: string | null;
      min: number | null;
      max: number | null;
    }>`
      select id, name, primary_domain as domain, about, employees, sub_industry as industry, city, region, country,
        revenue_range_min as min, revenue_range_max as max
      from organizations where community_id = ${communityId} and id = any(${list})`.execute(db),
    sql<{ id: number; title: string; n: number }>`
      select organization_id as id, title, n from (
        select organization_id, title, count(*)::int as n, row_number() over (partition by organization_id order by count(*) desc, title) as rank
        from contacts where community_id = ${communityId} and organization_id = any(${list}) and anonymized_at is null and title is not null and title <> ''
        group by organization_id, title) t
      where rank <= ${TITLES} order by organization_id, n desc, title`.execute(db),
    sql<{ id: number; topic: string; n: number }>`
      select id, topic, n from (
        select c.organization_id as id, t.name as topic, count(*)::int as n,
          row_number() over (partition by c.organization_id order by count(*) desc, t.name) as rank
        from contacts c
        join activities a on a.community_id = c.community_id and a.contact_id = c.id and a.activity_time > ${topicsFrom} and a.activity_time <= ${now}
        join activity_topics l on l.community_id = a.community_id and l.activity_id = a.id
        join topics t on t.community_id = l.community_id and t.id = l.topic_id
        where c.community_id = ${communityId} and c.organization_id = any(${list}) and c.anonymized_at is null
        group by c.organization_id, t.name) x
      where rank <= ${TOPICS} order by id, n desc, topic`.execute(db),
    sql<{ id: number; kind: string; title: string; location: string | null; category: string | null; at: Date }>`
      select id, kind, title, location, category, at from (
        select organization_id as id, 'job' as kind, job_title as title, location, null as category, first_seen_at as at,
          row_number() over (partition by organization_id order by first_seen_at desc, id desc) as rank
        from job_openings where community_id = ${communityId} and organization_id = any(${list}) and not is_closed
      ) j where rank <= ${OPENINGS}
      union all
      select id, kind, title, location, category, at from (
        select organization_id as id, 'news' as kind, title, null as location, category, published_at as at,
          row_number() over (partition by organization_id order by published_at desc, id desc) as rank
        from news_items where community_id = ${communityId} and organization_id = any(${list})
      ) n where rank <= ${NEWS}
      order by id, kind, at desc`.execute(db),
  ]);
  for (const row of organizations.rows) {
    facts.set(Number(row.id), {
      name: row.name,
      domain: row.domain,
      about: row.about,
      employees: row.employees,
      industry: row.industry,
      location: { city: row.city, region: row.region, country: row.country },
      revenueRange: row.min === null && row.max === null ? null : { min: row.min, max: row.max },
      contactTitles: [],
      activityTopics: [],
      jobOpenings: [],
      news: [],
    });
  }
  for (const row of titles.rows) facts.get(Number(row.id))?.contactTitles.push({ title: row.title, contacts: Number(row.n) });
  for (const row of topics.rows) facts.get(Number(row.id))?.activityTopics.push({ topic: row.topic, activities: Number(row.n) });
  const day = (date: Date) => new Date(date).toISOString().slice(0, 10);
  for (const row of updates.rows) {
    const organization = facts.get(Number(row.id));
    if (row.kind === 'job') organization?.jobOpenings.push({ title: row.title, location: row.location, firstSeen: day(row.at) });
    else organization?.news.push({ title: row.title, published: day(row.at), category: row.category });
  }
  return facts;
}

export interface PromptText {
  id: number;
  key: string;
  prompt: string;
}

export async function promptTexts(db: Executor, communityId: number, ids: number[]): Promise<Map<number, PromptText>> {
  if (ids.length === 0) return new Map();
  const { rows } =
    await sql<PromptText>`select id, key, prompt from research_prompts where community_id = ${communityId} and id = any(${ids}::bigint[])`.execute(db);
  return new Map(rows.map((row) => [Number(row.id), { ...row, id: Number(row.id) }]));
}

/** The stored input hashes of model answers, by `organization:prompt`. */
export async function answerHashes(db: Executor, communityId: number, pairs: DuePair[]): Promise<Map<string, string>> {
  if (pairs.length === 0) return new Map();
  const { rows } = await sql<{ organizationId: number; promptId: number; hash: string }>`
    select r.organization_id as "organizationId", r.prompt_id as "promptId", r.input_hash as hash
    from research_answers r
    join unnest(${pairs.map((pair) => pair.organizationId)}::bigint[], ${pairs.map((pair) => pair.promptId)}::bigint[]) as v(o, p)
      on r.organization_id = v.o and r.prompt_id = v.p
    where r.community_id = ${communityId} and r.origin = 'model' and r.input_hash is not null`.execute(db);
  return new Map(rows.map((row) => [`${row.organizationId}:${row.promptId}`, row.hash]));
}

export interface AnswerWrite {
  organizationId: number;
  promptId: number;
  /**
   * The model's answer; null keeps the stored one: unchanged (`inputHash` is the stored hash), or the
   * model failed (`inputHash` null: tried again later; an earlier answer stays shown, a first one is none).
   */
  answer: string | null;
  inputHash: string | null;
}

/**
 * Stores a batch of the model's answers in one statement. An answer imported meanwhile wins (the model
 * never overwrites an admin's answer), and a prompt retired meanwhile gets none.
 */
export async function writeAnswers(db: Executor, communityId: number, writes: AnswerWrite[], now: Date): Promise<void> {
  if (writes.length === 0) return;
  await sql`
    insert into research_answers as r (community_id, organization_id, prompt_id, answer, origin, input_hash, generated_at)
    select ${communityId}, v.o, v.p, v.answer, 'model', v.hash, ${now}
    from unnest(
      ${writes.map((write) => write.organizationId)}::bigint[], ${writes.map((write) => write.promptId)}::bigint[],
      ${writes.map((write) => write.answer)}::text[], ${writes.map((write) => write.inputHash)}::text[]
    ) as v(o, p, answer, hash)
    join research_prompts p on p.community_id = ${communityId} and p.id = v.p and p.retired_at is null
    join organizations o on o.community_id = ${communityId} and o.id = v.o
    on conflict (community_id, organization_id, prompt_id) do update
      set answer = coalesce(excluded.answer, r.answer), input_hash = excluded.input_hash, generated_at = excluded.generated_at
      where r.origin = 'model'`.execute(db);
}

/** How many answers the model wrote that show now. */
export async function modelAnswers(db: Executor, communityId: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from research_answers r join research_prompts p on p.community_id = r.community_id and p.id = r.prompt_id and p.retired_at is null
    where r.community_id = ${communityId} and r.origin = 'model' and r.answer is not null`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
