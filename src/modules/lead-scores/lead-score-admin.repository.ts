import { sql, type SqlBool, type Transaction } from 'kysely';
import { MAX_CANDIDATES, type CommunityTurns } from '../../core/community-turns.ts';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';
import { lockRow } from '../../core/query-fragments.ts';
import type { LeadScoreEntity } from './lead-score.repository.ts';
import type { ScoreRules } from './lead-score-rules.ts';

/** What an admin decides of a definition. */
export interface DefinitionFields {
  name: string;
  description: string | null;
  entityType: LeadScoreEntity;
  enabled: boolean;
  isPrimaryScore: boolean;
  outputType: string;
  /** Null only for a definition made outside the API, which Hearth does not compute. */
  rules: ScoreRules | null;
}

/** A definition as admins see it. `rules` is null for one Hearth does not compute (made with SQL). */
export interface AdminLeadScoreRow extends DefinitionFields {
  id: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  computedAt: Date | null;
  computedVersion: number | null;
  retiredAt: Date | null;
  /** Records holding a score of the definition. */
  scoredCount: number;
}

const adminColumns = sql`
  d.id, d.name, d.description, d.entity_type as "entityType", d.enabled, d.is_primary as "isPrimaryScore", d.output_type as "outputType",
  d.rules, d.version, d.created_at as "createdAt", d.updated_at as "updatedAt", d.computed_at as "computedAt",
  d.computed_version as "computedVersion", d.retired_at as "retiredAt",
  (select count(*) from lead_scores s where s.community_id = d.community_id and s.score_id = d.id)::int as "scoredCount"`;

const rulesJson = (rules: ScoreRules | null) => (rules === null ? null : JSON.stringify(rules));

const fromRow = (row: AdminLeadScoreRow) => ({ ...row, id: Number(row.id) });

export async function adminDefinitions(db: Executor, communityId: number, includeRetired: boolean): Promise<AdminLeadScoreRow[]> {
  const { rows } = await sql<AdminLeadScoreRow>`
    select ${adminColumns} from lead_score_definitions d
    where d.community_id = ${communityId} ${includeRetired ? sql`` : sql`and d.retired_at is null`}
    order by d.id`.execute(db);
  return rows.map(fromRow);
}

export async function adminDefinition(db: Executor, communityId: number, id: number): Promise<AdminLeadScoreRow | undefined> {
  const { rows } = await sql<AdminLeadScoreRow>`
    select ${adminColumns} from lead_score_definitions d where d.community_id = ${communityId} and d.id = ${id}`.execute(db);
  return rows.map(fromRow)[0];
}

/** The definition, locked until the transaction ends. */
export async function lockedDefinition(trx: Transaction<DB>, communityId: number, id: number): Promise<AdminLeadScoreRow | undefined> {
  return (await lockRow(trx, 'lead_score_definitions', communityId, id)) ? adminDefinition(trx, communityId, id) : undefined;
}

/** "ls" in ASCII: the first key of the lock that orders changes to a community's primary scores. */
const PRIMARY_LOCK = 0x6c73;

/**
 * Makes no other live definition of the entity type primary, returning those that were: a new primary
 * score takes the place of the old one. Takes the community's lock first, so two admins cannot both win.
 */
export async function demotePrimary(trx: Transaction<DB>, communityId: number, entityType: LeadScoreEntity, except: number | null): Promise<number[]> {
  await sql`select pg_advisory_xact_lock(${PRIMARY_LOCK}, ${communityId}::int)`.execute(trx);
  const { rows } = await sql<{ id: number }>`
    update lead_score_definitions set is_primary = false
    where community_id = ${communityId} and entity_type = ${entityType} and is_primary and retired_at is null
      ${except === null ? sql`` : sql`and id <> ${except}`}
    returning id`.execute(trx);
  return rows.map((row) => Number(row.id));
}

export async function insertDefinition(trx: Transaction<DB>, communityId: number, fields: DefinitionFields, now: Date): Promise<number> {
  const { rows } = await sql<{ id: number }>`
    insert into lead_score_definitions (community_id, name, description, entity_type, enabled, is_primary, output_type, rules, created_at, updated_at)
    values (${communityId}, ${fields.name}, ${fields.description}, ${fields.entityType}, ${fields.enabled}, ${fields.isPrimaryScore},
      ${fields.outputType}, ${rulesJson(fields.rules)}::jsonb, ${now}, ${now})
    returning id`.execute(trx);
  return Number(rows[0]!.id);
}

/** A change of what computes the score (its rules, or enabling it) makes a new version, to recompute. */
export async function updateDefinition(
  trx: Transaction<DB>,
  communityId: number,
  id: number,
  fields: DefinitionFields,
  newVersion: boolean,
  now: Date,
): Promise<number> {
  const { rows } = await sql<{ version: number }>`
    update lead_score_definitions set name = ${fields.name}, description = ${fields.description}, enabled = ${fields.enabled},
      is_primary = ${fields.isPrimaryScore}, output_type = ${fields.outputType}, rules = ${rulesJson(fields.rules)}::jsonb,
      version = version + ${newVersion ? 1 : 0}, updated_at = ${now}
    where community_id = ${communityId} and id = ${id}
    returning version`.execute(trx);
  return rows[0]!.version;
}

/** Retired: no longer shown, computed, filtered or sorted by; its scores are removed. */
export async function retireDefinition(trx: Transaction<DB>, communityId: number, id: number, now: Date): Promise<void> {
  await sql`
    update lead_score_definitions set retired_at = ${now}, enabled = false, is_primary = false, updated_at = ${now}
    where community_id = ${communityId} and id = ${id}`.execute(trx);
  await sql`delete from lead_scores where community_id = ${communityId} and score_id = ${id}`.execute(trx);
}

/** Records that a full recompute of `version` finished. */
export async function markComputed(db: Executor, communityId: number, id: number, version: number, now: Date): Promise<void> {
  await sql`
    update lead_score_definitions set computed_version = ${version}, computed_at = ${now}
    where community_id = ${communityId} and id = ${id} and version = ${version}`.execute(db);
}

export interface ComputedDefinition {
  id: number;
  entityType: LeadScoreEntity;
  rules: ScoreRules;
  version: number;
  computedAt: Date | null;
}

/** The definitions Hearth computes in a community: live, enabled, with rules. */
export async function computedDefinitions(db: Executor, communityId: number): Promise<ComputedDefinition[]> {
  const { rows } = await sql<ComputedDefinition>`
    select id, entity_type as "entityType", rules, version, computed_at as "computedAt" from lead_score_definitions
    where community_id = ${communityId} and enabled and retired_at is null and rules is not null order by id`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/**
 * Computed definitions last computed in full (or changed, if never computed) before `before`, for which no
 * daily recompute was asked since then: each is marked asked at `now`. The communities with such
 * definitions take turns (core/community-turns.ts).
 */
export async function takeStaleDefinitions(
  db: Executor,
  before: Date,
  now: Date,
  limit: number,
  turns: CommunityTurns,
): Promise<{ communityId: number; id: number; version: number }[]> {
  const stale = sql<SqlBool>`enabled and retired_at is null and rules is not null
    and coalesce(computed_at, updated_at) < ${before} and (refresh_asked_at is null or refresh_asked_at < ${before})`;
  const candidates = async () => {
    const { rows } = await sql<{ communityId: number }>`
      select distinct community_id as "communityId" from lead_score_definitions where ${stale} limit ${MAX_CANDIDATES}`.execute(db);
    return rows.map((row) => Number(row.communityId));
  };
  return turns.claim(candidates, limit, async (communityId, wanted) => {
    const { rows } = await sql<{ communityId: number; id: number; version: number }>`
        update lead_score_definitions d set refresh_asked_at = ${now}
        from (
          select community_id, id from lead_score_definitions
          where community_id = ${communityId} and ${stale}
          order by coalesce(computed_at, updated_at) limit ${wanted}
          for update skip locked
        ) s
        where d.community_id = ${communityId} and d.community_id = s.community_id and d.id = s.id
        returning d.community_id as "communityId", d.id, d.version`.execute(db);
    return rows.map((row) => ({ communityId: Number(row.communityId), id: Number(row.id), version: row.version }));
  });
}

/** Which of the rules' references do not exist in the community (live, and for the entity type where that applies). */
export async function missingReferences(
  db: Executor,
  communityId: number,
  entityType: LeadScoreEntity,
  refs: { sourceIds: number[]; tagIds: number[]; customFieldIds: number[] },
): Promise<{ sourceIds: number[]; tagIds: number[]; customFieldIds: number[] }> {
  const { rows } = await sql<{ sourceIds: number[]; tagIds: number[]; customFieldIds: number[] }>`
    select
      array(select x from unnest(${refs.sourceIds}::bigint[]) x
        where not exists (select 1 from sources s where s.community_id = ${communityId} and s.id = x)) as "sourceIds",
      array(select x from unnest(${refs.tagIds}::bigint[]) x
        where not exists (select 1 from tags t where t.community_id = ${communityId} and t.id = x and t.deleted_at is null)) as "tagIds",
      array(select x from unnest(${refs.customFieldIds}::bigint[]) x
        where not exists (select 1 from custom_fields f where f.community_id = ${communityId} and f.id = x and f.deleted_at is null
          and ${entityType} = any(f.entity_types))) as "customFieldIds"`.execute(db);
  const row = rows[0]!;
  return { sourceIds: row.sourceIds.map(Number), tagIds: row.tagIds.map(Number), customFieldIds: row.customFieldIds.map(Number) };
}
