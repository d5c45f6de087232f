import { sql } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import type { PlainWrite } from '../../core/lookups.ts';
import type { LeadScoreEntity } from './lead-score.repository.ts';

export interface Mark {
  entityType: LeadScoreEntity;
  entityId: number;
}

/**
 * Marks records whose scores are to be computed again, as one write a caller can run with its others
 * (writeTogether): ingestion adds it to the last statement of a batch, so scoring costs a push no
 * statement of its own. Nothing is marked in a community without a computed, enabled definition. A record
 * marked again gets a new `mark`, so that a background step computing it meanwhile leaves the new mark.
 */
export function scoringMarks(communityId: number, marks: readonly Mark[]): PlainWrite {
  if (marks.length === 0) return null;
  return sql`
    insert into lead_score_dirty (community_id, entity_type, entity_id)
    select ${communityId}, m.entity_type, m.entity_id
    from unnest(${marks.map((mark) => mark.entityType)}::text[], ${marks.map((mark) => mark.entityId)}::bigint[]) as m(entity_type, entity_id)
    where exists (
      select 1 from lead_score_definitions d
      where d.community_id = ${communityId} and d.enabled and d.retired_at is null and d.rules is not null
    )
    on conflict (community_id, entity_type, entity_id) do update set mark = excluded.mark`;
}

/** scoringMarks, run by itself (writers other than ingestion, in their own transactions). */
export async function markForScoring(db: Executor, communityId: number, marks: readonly Mark[]): Promise<void> {
  const write = scoringMarks(communityId, marks);
  if (write) await write.execute(db);
}

/** Communities with marks waiting, at most `limit`. */
export async function markedCommunities(db: Executor, limit: number): Promise<number[]> {
  const { rows } = await sql<{ communityId: number }>`
    select distinct community_id as "communityId" from lead_score_dirty limit ${limit}`.execute(db);
  return rows.map((row) => Number(row.communityId));
}

/** The oldest marks of a community, with their `mark` (clearMarks removes only those). */
export async function takeMarks(db: Executor, communityId: number, limit: number): Promise<(Mark & { mark: number })[]> {
  const { rows } = await sql<{ entityType: LeadScoreEntity; entityId: number; mark: number }>`
    select entity_type as "entityType", entity_id as "entityId", mark from lead_score_dirty
    where community_id = ${communityId} order by mark limit ${limit}`.execute(db);
  return rows.map((row) => ({ entityType: row.entityType, entityId: Number(row.entityId), mark: Number(row.mark) }));
}

/** Removes the marks that were computed, unless a record was marked again since (its `mark` changed). */
export async function clearMarks(db: Executor, communityId: number, marks: readonly (Mark & { mark: number })[]): Promise<void> {
  if (marks.length === 0) return;
  await sql`
    delete from lead_score_dirty d
    using unnest(${marks.map((mark) => mark.entityType)}::text[], ${marks.map((mark) => mark.entityId)}::bigint[], ${marks.map((mark) => mark.mark)}::bigint[])
      as m(entity_type, entity_id, mark)
    where d.community_id = ${communityId} and d.entity_type = m.entity_type and d.entity_id = m.entity_id and d.mark = m.mark`.execute(db);
}

/** The marks of a community, all of them (its last computed definition was retired or disabled). */
export async function dropMarks(db: Executor, communityId: number): Promise<void> {
  await sql`delete from lead_score_dirty where community_id = ${communityId}`.execute(db);
}
