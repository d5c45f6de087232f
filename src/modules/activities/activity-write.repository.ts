import { sql, type Transaction } from 'kysely';
import { writeCtes, type PlainWrite, type Write } from '../../core/lookups.ts';
import { rollupChangesByStatement } from '../../db/rollup-changes.ts';
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
  /** The sender's ID the push came with (the user's `id` in its source); null when no push named one. */
  senderId: string | null;
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
  // The contact it had is read first, by a statement of its own: a Citus coordinator may run a CTE that
  // reads it after the insert beside it (a subquery in RETURNING it refuses outright).
  const previous = await trx
    .selectFrom('activities')
    .select('contact_id')
    .where('community_id', '=', activity.communityId)
    .where('source_id', '=', activity.sourceId)
    .where('activity_type', '=', activity.activityType)
    .where('external_id', '=', activity.externalId)
    .executeTakeFirst();
  const result = await sql<{ id: number }>`
    with upserted as (
      insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, title, content,
        content_type, url, sentiment, parent_activity_type, parent_external_id, parent_id, sub_source_id, sender_id, created_at, updated_at)
      values (${activity.communityId}, ${activity.sourceId}, ${activity.activityType}, ${activity.externalId}, ${activity.contactId},
        ${activity.activityTime}, ${activity.title}, ${activity.content}, ${activity.contentType}, ${activity.url}, ${activity.sentiment},
        ${activity.parent?.activityType ?? null}, ${activity.parent?.externalId ?? null}, ${parentId}, ${activity.subSourceId},
        ${activity.senderId}, ${activity.now}, ${activity.now})
      on conflict (community_id, source_id, activity_type, external_id) do update set
        contact_id = excluded.contact_id, sender_id = excluded.sender_id, activity_time = excluded.activity_time, title = excluded.title,
        content = excluded.content, content_type = excluded.content_type, url = excluded.url, sentiment = excluded.sentiment,
        parent_activity_type = excluded.parent_activity_type, parent_external_id = excluded.parent_external_id,
        parent_id = excluded.parent_id, sub_source_id = excluded.sub_source_id, updated_at = excluded.updated_at
      returning id, source_id, activity_type, activity_time, xmax = 0 as inserted
    ),
    ${newActivitiesCounted(activity.communityId, 'upserted')}
    select id from upserted`.execute(trx);
  const row = { id: result.rows[0]!.id, previousContactId: previous?.contact_id ?? null };
  let ancestors = await ancestorsOf(trx, activity.communityId, row.id);
  const parentRefused = ancestors.includes(row.id);
  if (parentRefused) {
    await trx.updateTable('activities').set({ parent_id: null }).where('community_id', '=', activity.communityId).where('id', '=', row.id).execute();
    ancestors = [];
  }
  // Replies that arrived before this activity now find their parent.
  // Those that named its type and those that named none: two probes of the index of waiting replies.
  const waiting = await sql<{ id: number }>`
    select id from activities
    where community_id = ${activity.communityId} and source_id = ${activity.sourceId} and parent_activity_type = ${activity.activityType}
      and parent_external_id = ${activity.externalId} and parent_id is null and id <> ${row.id}
    union all
    select id from activities
    where community_id = ${activity.communityId} and source_id = ${activity.sourceId} and parent_activity_type is null
      and parent_external_id = ${activity.externalId} and parent_id is null and id <> ${row.id}`.execute(trx);
  const replies = waiting.rows.map((reply) => reply.id).filter((id) => !ancestors.includes(id));
  if (replies.length) {
    await trx.updateTable('activities').set({ parent_id: row.id }).where('community_id', '=', activity.communityId).where('id', 'in', replies).execute();
  }
  return { ...row, parentRefused, repliesRefused: waiting.rows.length - replies.length };
}

/**
 * The CTE that counts the activities an upsert inserted (`upserted`: its RETURNING, with `source_id`,
 * `activity_type`, `activity_time` and `inserted`, which is `xmax = 0`: a row the insert made has none, one
 * the conflict updated has the updater's) into the rollups' change table, in a transaction that counts them
 * in statements (src/db/rollup-changes.ts). An updated row is the update trigger's to count.
 */
function newActivitiesCounted(communityId: number, upserted: string) {
  return sql`activities_counted as (
      insert into activity_day_changes (community_id, day, source_id, activity_type, delta)
      select ${communityId}::bigint, (u.activity_time at time zone 'UTC')::date, u.source_id, u.activity_type, count(*)
      from ${sql.table(upserted)} u
      where u.inserted and ${rollupChangesByStatement}
      group by 2, 3, 4
    )`;
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

/**
 * upsertActivity for many activities in one statement, parents left to threadLinks. Each key (source,
 * type, id) is given once. Returns, in the order given, each row's ID and the contact it belonged to before
 * (null when it is new). `alongside`: writes of the caller's that run in the same statement (each a
 * data-modifying statement without a WITH of its own, independent of the activities), which saves them a
 * round trip. An activity's contact is an ID, or `{ made: k }`: the k-th (from 1) of the contacts that
 * `madeContacts` inserts in the same statement (an insert of contacts without a WITH of its own, returning
 * their IDs, handed out in its rows' order, as contactInserts makes it); their IDs come back in that order,
 * those no activity names included.
 */
export async function upsertActivities(
  trx: Transaction<DB>,
  communityId: number,
  activities: (Omit<ActivityWrite, 'communityId' | 'now' | 'contactId'> & { contactId: number | { made: number } })[],
  now: Date,
  alongside: Write[] = [],
  madeContacts: PlainWrite = null,
): Promise<{ activities: { id: number; previousContactId: number | null }[]; madeContactIds: number[] }> {
  if (activities.length === 0) return { activities: [], madeContactIds: [] };
  const kept = alongside.filter((write) => write !== null);
  const others = writeCtes(
    kept,
    kept.map((_, index) => `alongside_${index}`),
  ).map((cte) => sql`, ${cte}`);
  const column = <T>(pick: (activity: (typeof activities)[number]) => T) => activities.map(pick);
  const given = (contact: number | { made: number }) => (typeof contact === 'number' ? contact : null);
  const made = (contact: number | { made: number }) => (typeof contact === 'number' ? null : contact.made);
  // Without new contacts the statement keeps the shape it always had (no contact CTE to plan).
  const contactOf = madeContacts ? sql`coalesce(t.given_contact_id, (select m.id from made_ids m where m.k = t.made_k))` : sql`t.given_contact_id`;
  const result = await sql<{ n: string; id: number; previousContactId: number | null; madeContactIds: number[] | null }>`
    with ${madeContacts ? sql`made_contacts as (${madeContacts}), made_ids as (select id, row_number() over (order by id) as k from made_contacts), ` : sql``}input as (
      -- With the contact each activity had before (all of the statement sees the table as it was), by one
      -- index probe per row.
      select t.*, ${contactOf} as contact_id, (
        select a.contact_id from activities a
        where a.community_id = ${communityId} and a.source_id = t.source_id and a.activity_type = t.activity_type and a.external_id = t.external_id
      ) as previous_contact_id
      from unnest(
        ${column((a) => a.sourceId)}::bigint[], ${column((a) => a.activityType)}::text[], ${column((a) => a.externalId)}::text[],
        ${column((a) => given(a.contactId))}::bigint[], ${column((a) => made(a.contactId))}::bigint[], ${column((a) => a.activityTime)}::timestamptz[],
        ${column((a) => a.title)}::text[], ${column((a) => a.content)}::text[], ${column((a) => a.contentType)}::text[], ${column((a) => a.url)}::text[],
        ${column((a) => a.sentiment)}::text[], ${column((a) => a.parent?.activityType ?? null)}::text[],
        ${column((a) => a.parent?.externalId ?? null)}::text[], ${column((a) => a.subSourceId)}::bigint[], ${column((a) => a.senderId)}::text[]
      ) with ordinality as t(source_id, activity_type, external_id, given_contact_id, made_k, activity_time, title, content, content_type, url,
        sentiment, parent_activity_type, parent_external_id, sub_source_id, sender_id, n)
    ),
    upserted as (
      insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, title, content,
        content_type, url, sentiment, parent_activity_type, parent_external_id, parent_id, sub_source_id, sender_id, created_at, updated_at)
      select ${communityId}, source_id, activity_type, external_id, contact_id, activity_time, title, content, content_type, url,
        sentiment, parent_activity_type, parent_external_id, null, sub_source_id, sender_id, ${now}, ${now}
      from input order by n
      on conflict (community_id, source_id, activity_type, external_id) do update set
        contact_id = excluded.contact_id, sender_id = excluded.sender_id, activity_time = excluded.activity_time, title = excluded.title,
        content = excluded.content, content_type = excluded.content_type, url = excluded.url, sentiment = excluded.sentiment,
        parent_activity_type = excluded.parent_activity_type, parent_external_id = excluded.parent_external_id,
        parent_id = null, sub_source_id = excluded.sub_source_id, updated_at = excluded.updated_at
      returning id, source_id, activity_type, external_id, activity_time, xmax = 0 as inserted
    ),
    ${newActivitiesCounted(communityId, 'upserted')}${sql.join(others, sql``)}
    select i.n, u.id, i.previous_contact_id as "previousContactId",
      -- Every new contact's ID, once (on the first row): they include those that no activity names.
      ${madeContacts ? sql`case when i.n = 1 then (select array_agg(id order by id) from made_contacts) end` : sql`null::bigint[]`} as "madeContactIds"
    from input i
    join upserted u on u.source_id = i.source_id and u.activity_type = i.activity_type and u.external_id = i.external_id`.execute(trx);
  const byOrdinal = new Map(result.rows.map((row) => [Number(row.n), row]));
  return {
    activities: activities.map((_, index) => {
      const row = byOrdinal.get(index + 1)!;
      return { id: Number(row.id), previousContactId: row.previousContactId === null ? null : Number(row.previousContactId) };
    }),
    madeContactIds: (byOrdinal.get(1)!.madeContactIds ?? []).map(Number),
  };
}

/**
 * The write that links threads around these activities as upsertActivity does one by one: each to the
 * parent it names (the first activity with that ID in its source), and replies that were waiting for one of
 * them. It returns the IDs it linked, for threadLoops; the caller runs it with its other last writes
 * (writeTogether), which saves a batch a round trip.
 */
export function threadLinks(
  communityId: number,
  activities: { id: number; sourceId: number; activityType: string; externalId: string; parent: { activityType: string | null; externalId: string } | null }[],
): Write {
  if (activities.length === 0) return null;
  const activityIds = activities.map((a) => a.id);
  return sql`
    with batch as (
      -- The batch's activities as the caller has them (reading them back from the table costs more).
      select * from unnest(
        ${activityIds}::bigint[], ${activities.map((a) => a.sourceId)}::bigint[], ${activities.map((a) => a.activityType)}::text[],
        ${activities.map((a) => a.externalId)}::text[], ${activities.map((a) => a.parent?.activityType ?? null)}::text[],
        ${activities.map((a) => a.parent?.externalId ?? null)}::text[]
      ) as b(id, source_id, activity_type, external_id, parent_activity_type, parent_external_id)
    ),
    links as materialized (
      -- Each activity of the batch to the parent it names: by its key when the type is named (one probe of the
      -- unique index; an "or" of both cases in one condition made PostgreSQL read every activity of the
      -- source for each reply), else the first activity of the source with that ID (no index has the ID
      -- without the type: such a lookup reads the source's activities). Materialized, so that each lookup
      -- runs once, not again for the filter below.
      select b.id, case
        when b.parent_activity_type is not null then (
          select p.id from activities p
          where p.community_id = ${communityId} and p.source_id = b.source_id and p.activity_type = b.parent_activity_type
            and p.external_id = b.parent_external_id)
        else (
          select p.id from activities p
          where p.community_id = ${communityId} and p.source_id = b.source_id and p.external_id = b.parent_external_id
          order by p.id limit 1)
      end as parent_id
      from batch b where b.parent_external_id is not null
      union all
      -- and each reply that was waiting for an activity of the batch to it: those that named its type, and those
      -- that named none (two probes of the index of waiting replies rather than a read of all of them).
      select r.id, b.id from batch b
      cross join lateral (
        select r.id from activities r
        where r.community_id = ${communityId} and r.source_id = b.source_id and r.parent_activity_type = b.activity_type
          and r.parent_external_id = b.external_id and r.parent_id is null
        union all
        select r.id from activities r
        where r.community_id = ${communityId} and r.source_id = b.source_id and r.parent_activity_type is null
          and r.parent_external_id = b.external_id and r.parent_id is null
      ) r
      where r.id <> b.id and r.id <> all(${activityIds}::bigint[])
    ),
    chosen as (select distinct on (id) id, parent_id from links where parent_id is not null order by id, parent_id)
    update activities a set parent_id = c.parent_id from chosen c
    where a.community_id = ${communityId} and a.id = c.id
    returning a.id`;
}

/**
 * Whether links just made (threadLinks' IDs) closed a loop; the caller then starts over one activity at a
 * time, where each loop is refused and reported.
 */
export async function threadLoops(trx: Transaction<DB>, communityId: number, linkedIds: number[]): Promise<boolean> {
  if (linkedIds.length === 0) return false;
  const loops = await sql<{ id: number }>`
    with recursive up (start, id) as (
      select a.id, a.parent_id from activities a
      where a.community_id = ${communityId} and a.id = any(${linkedIds}::bigint[]) and a.parent_id is not null
      union
      select up.start, a.parent_id from activities a join up on a.community_id = ${communityId} and a.id = up.id
      where a.parent_id is not null and up.id <> up.start
    )
    select start as id from up where id = start limit 1`.execute(trx);
  return loops.rows.length > 0;
}

/** findOrCreateSubSource for many names of one community: IDs by `source\0name`. */
export async function findOrCreateSubSources(trx: Transaction<DB>, communityId: number, wanted: { sourceId: number; name: string }[]) {
  const ids = new Map<string, number>();
  if (wanted.length === 0) return ids;
  const sourceIds = wanted.map((w) => w.sourceId);
  const names = wanted.map((w) => w.name);
  await sql`
    insert into sub_sources (community_id, source_id, name)
    select ${communityId}, t.source_id, t.name from unnest(${sourceIds}::bigint[], ${names}::text[]) as t(source_id, name)
    order by t.source_id, t.name
    on conflict (community_id, source_id, name) do nothing`.execute(trx);
  const rows = await sql<{ id: number; sourceId: number; name: string }>`
    select s.id, s.source_id as "sourceId", s.name from sub_sources s
    join unnest(${sourceIds}::bigint[], ${names}::text[]) as t(source_id, name) on s.source_id = t.source_id and s.name = t.name
    where s.community_id = ${communityId}`.execute(trx);
  for (const row of rows.rows) ids.set(`${row.sourceId}\u0000${row.name}`, Number(row.id));
  return ids;
}
