import { sql, type SqlBool } from 'kysely';
import type { SideSort } from '../../db/keyset.ts';
import type { Executor } from '../../core/executor.ts';

export type LeadScoreEntity = 'contact' | 'organization';

export interface LeadScoreDefinitionRow {
  id: number;
  name: string;
  enabled: boolean;
  entityType: string;
  isPrimaryScore: boolean;
  outputType: string;
}

const definitionColumns = ['id', 'name', 'enabled', 'entity_type as entityType', 'is_primary as isPrimaryScore', 'output_type as outputType'] as const;

export async function listDefinitions(db: Executor, communityId: number): Promise<LeadScoreDefinitionRow[]> {
  return db
    .selectFrom('lead_score_definitions')
    .select(definitionColumns)
    .where('community_id', '=', communityId)
    .where('retired_at', 'is', null)
    .orderBy('id')
    .execute();
}

export async function findDefinition(db: Executor, communityId: number, id: number): Promise<LeadScoreDefinitionRow | undefined> {
  return db
    .selectFrom('lead_score_definitions')
    .select(definitionColumns)
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .where('retired_at', 'is', null)
    .executeTakeFirst();
}

/** IDs of the community's live (not retired) lead score definitions for an entity. */
export async function definitionIds(db: Executor, communityId: number, entityType: LeadScoreEntity): Promise<number[]> {
  const rows = await db
    .selectFrom('lead_score_definitions')
    .select('id')
    .where('community_id', '=', communityId)
    .where('entity_type', '=', entityType)
    .where('retired_at', 'is', null)
    .execute();
  return rows.map((row) => row.id);
}

export interface StoredScore {
  scoreId: number;
  score: number;
  percentile: number;
  keyFactors: unknown;
}

/** The stored scores of each record, by record ID, of enabled definitions, in definition order. */
export async function scoresOf(db: Executor, communityId: number, entityType: LeadScoreEntity, ids: readonly number[]): Promise<Map<number, StoredScore[]>> {
  const byRecord = new Map<number, StoredScore[]>();
  if (ids.length === 0) return byRecord;
  const rows = await db
    .selectFrom('lead_scores as s')
    .innerJoin('lead_score_definitions as d', (join) => join.onRef('d.community_id', '=', 's.community_id').onRef('d.id', '=', 's.score_id'))
    .select(['s.entity_id as entityId', 's.score_id as scoreId', 's.score', 's.percentile', 's.key_factors as keyFactors'])
    .where('s.community_id', '=', communityId)
    .where('s.entity_type', '=', entityType)
    .where('s.entity_id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .where('d.enabled', '=', true)
    .orderBy('s.entity_id')
    .orderBy('s.score_id')
    .execute();
  for (const { entityId, ...score } of rows) byRecord.set(entityId, [...(byRecord.get(entityId) ?? []), score]);
  return byRecord;
}

/**
 * `sort=ls_<id>`: records with that score in score order (the seek runs on lead_scores_sort), then those
 * without one. `alias` is the list's base table.
 */
export function leadScoreSort(communityId: number, entityType: LeadScoreEntity, alias: string, scoreId: number): SideSort {
  const on = sql<SqlBool>`f_ls.community_id = ${communityId} and f_ls.score_id = ${scoreId}::bigint
    and f_ls.entity_type = ${entityType}::text and f_ls.entity_id = ${sql.ref(`${alias}.id`)}`;
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    join: (query) => (query as any).innerJoin(sql`lead_scores`.as('f_ls'), (join: any) => join.on(on)),
    missing: sql<SqlBool>`not exists (select 1 from lead_scores f_ls where ${on})`,
    value: sql.ref('f_ls.score'),
    sideId: sql.ref('f_ls.entity_id'),
  };
}
