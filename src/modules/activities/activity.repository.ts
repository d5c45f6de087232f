import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface ActivityWrite {
  communityId: number;
  sourceId: number;
  activityType: string;
  externalId: string;
  contactId: number;
  activityTime: Date;
  title: string | null;
  content: string | null;
  contentType: 'text' | 'markdown' | null;
  url: string | null;
  sentiment: string | null;
  parent: { activityType: string | null; externalId: string } | null;
  subSourceId: number | null;
  now: Date;
}

export interface UpsertedActivity {
  id: number;
  /** The contact it belonged to before (to recount that contact's activities). */
  previousContactId: number | null;
  /** The named parent is this activity or one of its replies: it was stored without a parent. */
  parentRefused: boolean;
  /** Activities waiting for this one as their parent that are among its own parents: left unlinked. */
  repliesRefused: number;
}

/**
 * Inserts the activity, or updates it in place when (source, type, id) was pushed before: the latest push
 * wins. Threads never loop: a parent that is the activity itself or one of its replies is not linked, nor
 * is a waiting reply that is one of its parents (pushes that name each other as parents do happen).
 */
export async function upsertActivity(trx: Transaction<DB>, activity: ActivityWrite): Promise<UpsertedActivity> {
  const parentId = activity.parent ? await findParent(trx, activity.communityId, activity.sourceId, activity.parent) : null;
  const result = await sql<{ id: number; previousContactId: number | null }>`
    with previous as (
      select contact_id from activities
      where community_id = ${activity.communityId} and source_id = ${activity.sourceId}
        and activity_type = ${activity.activityType} and external_id = ${activity.externalId}
    )
    insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, title, content,
      content_type, url, sentiment, parent_activity_type, parent_external_id, parent_id, sub_source_id, created_at, updated_at)
    values (${activity.communityId}, ${activity.sourceId}, ${activity.activityType}, ${activity.externalId}, ${activity.contactId},
      ${activity.activityTime}, ${activity.title}, ${activity.content}, ${activity.contentType}, ${activity.url}, ${activity.sentiment},
      ${activity.parent?.activityType ?? null}, ${activity.parent?.externalId ?? null}, ${parentId}, ${activity.subSourceId},
      ${activity.now}, ${activity.now})
    on conflict (community_id, source_id, activity_type, external_id) do update set
      contact_id = excluded.contact_id, activity_time = excluded.activity_time, title = excluded.title,
      content = excluded.content, content_type = excluded.content_type, url = excluded.url, sentiment = excluded.sentiment,
      parent_activity_type = excluded.parent_activity_type, parent_external_id = excluded.parent_external_id,
      parent_id = excluded.parent_id, sub_source_id = excluded.sub_source_id, updated_at = excluded.updated_at
    returning id, (select contact_id from previous) as "previousContactId"`.execute(trx);
  const row = result.rows[0]!;
  let ancestors = await ancestorsOf(trx, activity.communityId, row.id);
  const parentRefused = ancestors.includes(row.id);
  if (parentRefused) {
    await trx.updateTable('activities').set({ parent_id: null }).where('community_id', '=', activity.communityId).where('id', '=', row.id).execute();
    ancestors = [];
  }
  // Replies that arrived before this activity now find their parent.
  const waiting = await sql<{ id: number }>`
    select id from activities
    where community_id = ${activity.communityId} and source_id = ${activity.sourceId}
      and parent_external_id = ${activity.externalId}
      and (parent_activity_type = ${activity.activityType} or parent_activity_type is null)
      and parent_id is null and id <> ${row.id}`.execute(trx);
  const replies = waiting.rows.map((reply) => reply.id).filter((id) => !ancestors.includes(id));
  if (replies.length) {
    await trx.updateTable('activities').set({ parent_id: row.id }).where('community_id', '=', activity.communityId).where('id', 'in', replies).execute();
  }
  return { ...row, parentRefused, repliesRefused: waiting.rows.length - replies.length };
}

/** The activities above this one, following parent links (once each: a loop ends the walk). */
async function ancestorsOf(trx: Transaction<DB>, communityId: number, activityId: number): Promise<number[]> {
  const result = await sql<{ id: number }>`
    with recursive up (id) as (
      select parent_id from activities where community_id = ${communityId} and id = ${activityId} and parent_id is not null
      union
      select a.parent_id from activities a join up on a.community_id = ${communityId} and a.id = up.id where a.parent_id is not null
    )
    select id from up`.execute(trx);
  return result.rows.map((ancestor) => ancestor.id);
}

async function findParent(
  trx: Transaction<DB>,
  communityId: number,
  sourceId: number,
  parent: { activityType: string | null; externalId: string },
): Promise<number | null> {
  let query = trx
    .selectFrom('activities')
    .select('id')
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where('external_id', '=', parent.externalId);
  if (parent.activityType) query = query.where('activity_type', '=', parent.activityType);
  const row = await query.orderBy('id').limit(1).executeTakeFirst();
  return row?.id ?? null;
}

export async function findOrCreateSubSource(trx: Transaction<DB>, communityId: number, sourceId: number, name: string): Promise<number> {
  await trx
    .insertInto('sub_sources')
    .values({ community_id: communityId, source_id: sourceId, name })
    .onConflict((oc) => oc.columns(['community_id', 'source_id', 'name']).doNothing())
    .execute();
  const row = await trx
    .selectFrom('sub_sources')
    .select('id')
    .where('community_id', '=', communityId)
    .where('source_id', '=', sourceId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.id;
}
