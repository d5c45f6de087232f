import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import type { LeadScoreEntity } from './lead-score.repository.ts';
import type { FitRule, ScoreRules } from './lead-score-rules.ts';

/**
 * The scoring SQL (docs/lead-scores.md): one statement computes the scores and key factors of a set of
 * contacts or organizations from their activities and fields. It reads the tables of other modules
 * (contacts, organizations, activities, tags, custom field values) and writes only lead_scores.
 */

/** Which records a computation covers: some IDs (the background step), an ID range (a chunk of a full recompute), or all. */
export type ScoreTargets = { ids: readonly number[] } | { after: number; through: number | null } | 'all';

/** What the rules name, looked up when a computation starts. */
export interface Resolved {
  /** `sourceId:name` → sub-source ID; a rule whose sub-source does not exist (yet) matches nothing. */
  subSources: Map<string, number>;
  sourceNames: Map<number, string>;
  /** Titles of the records with their seniority (the title classifier's), for titleSeniority rules. */
  titles: { titles: string[]; seniorities: string[] };
}

export interface Computation {
  communityId: number;
  entityType: LeadScoreEntity;
  rules: ScoreRules;
  now: Date;
  targets: ScoreTargets;
  resolved: Resolved;
}

/** How many key factors a score keeps: its largest contributions. */
export const KEY_FACTORS = 5;

const DAY_SECONDS = 86_400;

export const subSourceKey = (sourceId: number, name: string) => `${sourceId}:${name}`;

function targetFilter(column: RawBuilder<unknown>, targets: ScoreTargets): RawBuilder<SqlBool> {
  if (targets === 'all') return sql<SqlBool>`true`;
  if ('ids' in targets) return sql<SqlBool>`${column} = any(${[...targets.ids]}::bigint[])`;
  return targets.through === null
    ? sql<SqlBool>`${column} > ${targets.after}::bigint`
    : sql<SqlBool>`${column} > ${targets.after}::bigint and ${column} <= ${targets.through}::bigint`;
}

/**
 * The records scored, with the fields fit rules read, under the same column names for both entities. Staff
 * contacts (console users no source knows) are not scored: storeScores removes a score they had.
 */
function targetRows({ communityId, entityType, targets }: Computation) {
  return entityType === 'contact'
    ? sql`select c.id, c.name, c.title, c.country_code, c.country, c.organization_id as org_id
          from contacts c where c.community_id = ${communityId} and c.anonymized_at is null and not c.staff and ${targetFilter(sql`c.id`, targets)}`
    : sql`select o.id, o.name, null::text as title, null::text as country_code, o.country, o.id as org_id
          from organizations o where o.community_id = ${communityId} and ${targetFilter(sql`o.id`, targets)}`;
}

/** The weight rules that can match, numbered, with the label of their key factor. */
function weightRows(computation: Computation) {
  const { rules, resolved } = computation;
  return rules.weights.flatMap((rule, n) => {
    const subSourceId = rule.subSource === null ? null : (resolved.subSources.get(subSourceKey(rule.sourceId!, rule.subSource)) ?? undefined);
    if (subSourceId === undefined) return [];
    const source = rule.sourceId === null ? '' : ` on ${resolved.sourceNames.get(rule.sourceId) ?? `source ${rule.sourceId}`}`;
    const label = `Activity: ${rule.activityType}${source}${rule.subSource === null ? '' : ` / ${rule.subSource}`}`;
    return [{ n, activity_type: rule.activityType, source_id: rule.sourceId, sub_source_id: subSourceId, weight: rule.weight, label }];
  });
}

/**
 * The activities of the records: a contact's own (read by the contact IDs themselves, not joined to the
 * targets: over a whole community that is one scan aggregated by hash, where a join sorted every activity);
 * an organization's, those of its contacts.
 */
function activityRows({ communityId, entityType, rules, now, targets }: Computation, types: string[]) {
  const since = new Date(now.getTime() - rules.lookbackDays * DAY_SECONDS * 1000);
  const filter = sql`a.activity_time > ${since} and a.activity_type = any(${types}::text[])`;
  return entityType === 'contact'
    ? sql`select a.contact_id as entity_id, a.activity_type, a.source_id, a.sub_source_id, a.activity_time
          from activities a where a.community_id = ${communityId} and ${targetFilter(sql`a.contact_id`, targets)} and ${filter}`
    : sql`select t.id as entity_id, a.activity_type, a.source_id, a.sub_source_id, a.activity_time
          from t join contacts m on m.community_id = ${communityId} and m.organization_id = t.id and m.anonymized_at is null and not m.staff
          join activities a on a.community_id = ${communityId} and a.contact_id = m.id where ${filter}`;
}

/** One select per fit rule: the records it matches, with its points and what its key factor says. */
function fitRow(computation: Computation, rule: FitRule, n: number) {
  const { communityId, entityType, resolved } = computation;
  const head = (label: RawBuilder<unknown> | string, value: RawBuilder<unknown>) =>
    sql`select t.id as entity_id, ${n}::int as n, ${rule.points}::float8 as points, ${label}::text as label, ${value}::text as value`;
  switch (rule.field) {
    case 'titleSeniority':
      return sql`${head('Title seniority', sql`s.seniority`)}
        from t join unnest(${resolved.titles.titles}::text[], ${resolved.titles.seniorities}::text[]) as s(title, seniority) on s.title = t.title
        where s.seniority = any(${rule.values}::text[])`;
    case 'organizationSize':
      return sql`${head('Organization size', sql`o.employees || ' employees'`)}
        from t join organizations o on o.community_id = ${communityId} and o.id = t.org_id
        where o.employees is not null and (${rule.min}::int is null or o.employees >= ${rule.min}::int) and (${rule.max}::int is null or o.employees <= ${rule.max}::int)`;
    case 'country':
      return sql`${head('Country', sql`coalesce(t.country, t.country_code)`)}
        from t where upper(t.country_code) = any(${rule.values.map((value) => value.toUpperCase())}::text[])
          or lower(t.country) = any(${rule.values.map((value) => value.toLowerCase())}::text[])`;
    case 'tag':
      return sql`${head('Tag', sql`tg.name`)}
        from t join tag_assignments ta on ta.community_id = ${communityId} and ta.entity_type = ${entityType} and ta.entity_id = t.id and ta.tag_id = ${rule.tagId}::bigint
        join tags tg on tg.community_id = ${communityId} and tg.id = ta.tag_id and tg.deleted_at is null`;
    case 'customField':
      return sql`${head(sql`'Custom field: ' || cf.name`, sql`x.matched`)}
        from t join custom_field_values v on v.community_id = ${communityId} and v.entity_type = ${entityType} and v.entity_id = t.id and v.custom_field_id = ${rule.customFieldId}::bigint
        join custom_fields cf on cf.community_id = ${communityId} and cf.id = v.custom_field_id and cf.deleted_at is null
        cross join lateral (
          select string_agg(e.value, ', ' order by e.value) as matched
          from jsonb_array_elements_text(case jsonb_typeof(v.value -> 'value') when 'array' then v.value -> 'value' else jsonb_build_array(v.value -> 'value') end) as e(value)
          where e.value = any(${rule.values}::text[])
        ) x
        where x.matched is not null`;
  }
}

/**
 * The CTEs that end in `scored (entity_id, name, score, key_factors)`: one row per record of the targets.
 * Sums are float8 and rounded once, at the end, to 2 decimals (numeric `round`: half away from zero), as
 * are the strengths of key factors.
 */
export function scoredRows(computation: Computation): RawBuilder<unknown> {
  const { rules, now } = computation;
  const weights = weightRows(computation);
  const types = [...new Set(weights.map((weight) => weight.activity_type))];
  const activityCap = rules.activityCap;
  const scoreCap = rules.scoreCap;
  const contributions = weights.length
    ? sql`
      w as (select * from jsonb_to_recordset(${JSON.stringify(weights)}::jsonb) as w(n int, activity_type text, source_id bigint, sub_source_id bigint, weight float8, label text)),
      a as (${activityRows(computation, types)}),
      g as (
        select a.entity_id, coalesce(w3.n, w2.n, w1.n) as n, count(*)::int as cnt,
          sum(coalesce(w3.weight, w2.weight, w1.weight)
            * power(0.5::float8, greatest(0::float8, extract(epoch from (${now}::timestamptz - a.activity_time))::float8 / ${DAY_SECONDS}) / ${rules.halfLifeDays}::float8)) as contribution,
          max(a.activity_time) as latest
        from a
        left join w w3 on w3.activity_type = a.activity_type and w3.source_id = a.source_id and w3.sub_source_id = a.sub_source_id
        left join w w2 on w2.activity_type = a.activity_type and w2.source_id = a.source_id and w2.sub_source_id is null
        left join w w1 on w1.activity_type = a.activity_type and w1.source_id is null
        where coalesce(w3.n, w2.n, w1.n) is not null
        group by 1, 2
      ),
      activity_factors as (
        select g.entity_id, w.label, '×' || g.cnt || ', latest ' || to_char(g.latest at time zone 'UTC', 'YYYY-MM-DD') as value, g.contribution as strength
        from g join w on w.n = g.n
      ),`
    : sql`
      g as (select null::bigint as entity_id, null::float8 as contribution where false),
      activity_factors as (select null::bigint as entity_id, null::text as label, null::text as value, null::float8 as strength where false),`;
  const fit = rules.fit.length
    ? sql.join(
        rules.fit.map((rule, n) => fitRow(computation, rule, n)),
        sql` union all `,
      )
    : sql`select null::bigint as entity_id, null::int as n, null::float8 as points, null::text as label, null::text as value where false`;
  return sql`
    t as (${targetRows(computation)}),
    ${contributions}
    f as (${fit}),
    ga as (select entity_id, sum(contribution) as activity from g group by entity_id),
    fa as (select entity_id, sum(points) as fit from f group by entity_id),
    s as (
      select t.id as entity_id, t.name, coalesce(ga.activity, 0) as activity, coalesce(fa.fit, 0) as fit,
        least(${activityCap}::float8, coalesce(ga.activity, 0)) as capped
      from t left join ga on ga.entity_id = t.id left join fa on fa.entity_id = t.id
    ),
    factors as (
      select entity_id, label, value, strength from activity_factors
      union all select entity_id, label, value, points from f
      union all select entity_id, 'Activity cap', ${String(activityCap)}, capped - activity from s where capped < activity
      union all select entity_id, 'Score cap', ${String(scoreCap)}, ${scoreCap}::float8 - (capped + fit) from s where ${scoreCap}::float8 < capped + fit
    ),
    kf as (
      select entity_id, jsonb_agg(jsonb_build_object('label', label, 'value', value, 'strength', strength) order by r) as key_factors
      from (
        select entity_id, label, value, round(strength::numeric, 2) as strength,
          row_number() over (partition by entity_id order by abs(strength) desc, label, value) as r
        from factors
      ) x
      where r <= ${KEY_FACTORS} and strength <> 0
      group by entity_id
    ),
    scored as (
      select s.entity_id, s.name, round(least(${scoreCap}::float8, s.capped + s.fit)::numeric, 2) as score, coalesce(kf.key_factors, '[]'::jsonb) as key_factors
      from s left join kf on kf.entity_id = s.entity_id
    )`;
}

/**
 * Computes and stores the scores of the targets for one definition, in one statement: changed scores
 * are written, unchanged ones left alone, and those of records no longer scored (gone, erased) among the
 * targets removed. With `percentiles` (the targets are every record of the community) the percentiles
 * are computed and written by the same statement; otherwise a new record's percentile is 0 and a changed
 * one keeps its old percentile until refreshPercentiles.
 */
export async function storeScores(db: Executor, scoreId: number, computation: Computation, percentiles = false): Promise<{ changed: number; removed: number }> {
  const { communityId, entityType, now, targets } = computation;
  const percentile = percentiles ? sql`round((percent_rank() over (order by score) * 100)::numeric, 2)` : sql`0`;
  const { rows } = await sql<{ changed: number; removed: number }>`
    with ${scoredRows(computation)},
    upserted as (
      insert into lead_scores (community_id, score_id, entity_type, entity_id, score, percentile, key_factors, computed_at)
      select ${communityId}, ${scoreId}, ${entityType}, entity_id, score, ${percentile}, key_factors, ${now} from scored
      on conflict (community_id, score_id, entity_type, entity_id) do update
        set score = excluded.score, key_factors = excluded.key_factors, computed_at = excluded.computed_at
          ${percentiles ? sql`, percentile = excluded.percentile` : sql``}
        where lead_scores.score <> excluded.score or lead_scores.key_factors <> excluded.key_factors
          ${percentiles ? sql`or lead_scores.percentile <> excluded.percentile` : sql``}
      returning 1
    ),
    removed as (
      delete from lead_scores l
      where l.community_id = ${communityId} and l.score_id = ${scoreId} and l.entity_type = ${entityType} and ${targetFilter(sql`l.entity_id`, targets)}
        and not exists (select 1 from t where t.id = l.entity_id)
      returning 1
    )
    select (select count(*) from upserted)::int as changed, (select count(*) from removed)::int as removed`.execute(db);
  return rows[0]!;
}

/**
 * Percentiles of one definition's scores in the community: `100 × percent_rank()` over the scores, rounded
 * to 2 decimals: the share of the other scored records with a strictly lower score. Equal scores share a
 * percentile; the lowest is 0, the highest 100 (0 when only one record is scored). Only changed rows are written.
 */
export async function refreshPercentiles(db: Executor, communityId: number, scoreId: number, entityType: LeadScoreEntity): Promise<number> {
  if (!db.isTransaction) return db.transaction().execute((trx) => refreshPercentiles(trx, communityId, scoreId, entityType));
  // Joined in a nested loop, the ranked scores are computed again for every row: hours at 100,000, where a
  // hash join takes a second. PostgreSQL chooses the nested loop when its statistics of lead_scores
  // predate the scores (a first recompute inserts them all), so it is ruled out for this statement.
  const { rows } = await sql<{ before: string }>`select current_setting('enable_nestloop') as before, set_config('enable_nestloop', 'off', true)`.execute(db);
  const result = await sql`
    update lead_scores l set percentile = p.percentile
    from (
      select entity_id, round((percent_rank() over (order by score) * 100)::numeric, 2) as percentile
      from lead_scores where community_id = ${communityId} and score_id = ${scoreId} and entity_type = ${entityType}
    ) p
    where l.community_id = ${communityId} and l.score_id = ${scoreId} and l.entity_type = ${entityType}
      and l.entity_id = p.entity_id and l.percentile <> p.percentile`.execute(db);
  await sql`select set_config('enable_nestloop', ${rows[0]!.before}, true)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export interface DryRunRow {
  entityId: number;
  name: string;
  score: number;
  percentile: number;
  keyFactors: { label: string; value: string; strength: number }[];
  total: number;
  nonZero: number;
}

/** The top records a definition would score, with percentiles among every record it would score; nothing stored. */
export async function dryRunScores(db: Executor, computation: Computation, limit: number): Promise<DryRunRow[]> {
  const { rows } = await sql<DryRunRow>`
    with ${scoredRows(computation)},
    ranked as (
      select entity_id, name, score, key_factors, round((percent_rank() over (order by score) * 100)::numeric, 2) as percentile,
        count(*) over () as total, count(*) filter (where score <> 0) over () as non_zero
      from scored
    )
    select entity_id as "entityId", name, score, percentile, key_factors as "keyFactors", total::int as total, non_zero::int as "nonZero"
    from ranked order by score desc, entity_id limit ${limit}`.execute(db);
  return rows.map((row) => ({ ...row, entityId: Number(row.entityId) }));
}

/** The distinct titles of the targets (contacts), for the title classifier. */
export async function titlesOf(db: Executor, communityId: number, targets: ScoreTargets): Promise<string[]> {
  const { rows } = await sql<{ title: string }>`
    select distinct c.title from contacts c
    where c.community_id = ${communityId} and c.title is not null and c.anonymized_at is null and ${targetFilter(sql`c.id`, targets)}`.execute(db);
  return rows.map((row) => row.title);
}

/** Sub-sources and sources the weight rules name. */
export async function namesOf(db: Executor, communityId: number, rules: ScoreRules): Promise<Pick<Resolved, 'subSources' | 'sourceNames'>> {
  const sourceIds = [...new Set(rules.weights.flatMap((weight) => (weight.sourceId === null ? [] : [weight.sourceId])))];
  const subSources = new Map<string, number>();
  const sourceNames = new Map<number, string>();
  if (sourceIds.length === 0) return { subSources, sourceNames };
  const sources = await sql<{ id: number; name: string }>`
    select id, name from sources where community_id = ${communityId} and id = any(${sourceIds}::bigint[])`.execute(db);
  for (const row of sources.rows) sourceNames.set(Number(row.id), row.name);
  const wanted = rules.weights.filter((weight) => weight.subSource !== null);
  if (wanted.length) {
    const found = await sql<{ id: number; sourceId: number; name: string }>`
      select s.id, s.source_id as "sourceId", s.name from sub_sources s
      join unnest(${wanted.map((weight) => weight.sourceId!)}::bigint[], ${wanted.map((weight) => weight.subSource!)}::text[]) as r(source_id, name)
        on s.source_id = r.source_id and s.name = r.name
      where s.community_id = ${communityId}`.execute(db);
    for (const row of found.rows) subSources.set(subSourceKey(Number(row.sourceId), row.name), Number(row.id));
  }
  return { subSources, sourceNames };
}

/** Organizations of the given contacts (their scores come from their contacts' activities). */
export async function organizationsOf(db: Executor, communityId: number, contactIds: readonly number[]): Promise<number[]> {
  if (contactIds.length === 0) return [];
  const { rows } = await sql<{ id: number }>`
    select distinct organization_id as id from contacts
    where community_id = ${communityId} and id = any(${[...contactIds]}::bigint[]) and organization_id is not null`.execute(db);
  return rows.map((row) => Number(row.id));
}

/** Where the chunks of a full recompute end: every `size`-th record ID of the entity (members, for contacts), in order. */
export async function chunkEnds(db: Executor, communityId: number, entityType: LeadScoreEntity, size: number): Promise<{ ends: number[]; total: number }> {
  const table = entityType === 'contact' ? sql`contacts` : sql`organizations`;
  const { rows } = await sql<{ id: number; total: number }>`
    select id, total::int as total from (
      select id, row_number() over (order by id) as n, count(*) over () as total from ${table}
      where community_id = ${communityId} ${entityType === 'contact' ? sql`and not staff` : sql``}
    ) x where n % ${size} = 0 or n = total order by id`.execute(db);
  return { ends: rows.map((row) => Number(row.id)), total: rows[0] ? Number(rows[0].total) : 0 };
}

/** Fresh statistics of lead_scores, after a full recompute wrote a definition's rows (the plans of the reads that follow depend on them). */
export async function analyzeScores(db: Executor): Promise<void> {
  await sql`analyze lead_scores`.execute(db);
}
