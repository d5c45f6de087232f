import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';
import { jsonRow } from '../../core/json-rows.ts';
import type { Lookup, PlainWrite } from '../../core/lookups.ts';
import { WRITTEN_COLUMNS, type ContactFields } from './contact-columns.ts';

/**
 * A new contact. `staff` makes it a console user's contact that no source knows (docs/console.md, "Console
 * users are not members"): left out of lists, counts and scores until a source profile points at it.
 */
export async function insertContact(
  trx: Transaction<DB>,
  communityId: number,
  fields: ContactFields & { name: string },
  now: Date,
  options: { staff?: boolean } = {},
) {
  const row = await trx
    .insertInto('contacts')
    .values({ community_id: communityId, ...fields, staff: options.staff ?? false, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateContact(trx: Transaction<DB>, communityId: number, contactId: number, fields: ContactFields, now: Date) {
  await trx
    .updateTable('contacts')
    .set({ ...fields, updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', contactId)
    .execute();
}

/** What ingestion and the contact get need to know of a contact's current state. */
export async function findContactState(db: Executor, communityId: number, contactId: number) {
  return db
    .selectFrom('contacts')
    .select(['name', 'full_name as fullName', 'organization_id as organizationId', 'anonymized_at as anonymizedAt'])
    .where('community_id', '=', communityId)
    .where('id', '=', contactId)
    .executeTakeFirst();
}

/** Recounts a contact's activities and their first and latest times (one index range scan). */
export async function refreshActivityStats(trx: Transaction<DB>, communityId: number, contactIds: number[]) {
  if (contactIds.length === 0) return;
  await sql`
    update contacts c set
      activity_count_all = s.count, first_activity_at = s.first, latest_activity_at = s.latest
    from (
      select ids.id, count(a.id)::int as count, min(a.activity_time) as first, max(a.activity_time) as latest
      from unnest(${contactIds}::bigint[]) as ids(id)
      left join activities a on a.community_id = ${communityId} and a.contact_id = ids.id
      group by ids.id
    ) s
    where c.community_id = ${communityId} and c.id = s.id`.execute(trx);
}

/**
 * New contacts in one statement, each written once with everything the run knows of it: its name, the
 * fields its pushes set (as contactUpdates takes them) and what its activities add. Every field is in the
 * statement whether a row sets it or not, so the text is the same for every batch and its prepared plan
 * serves them all. Rows are inserted in the order of `rows`, so the sequence hands out ascending IDs in
 * that order: the k-th row's ID is the k-th smallest the statement returns. A write, for the caller to run
 * by itself (insertContacts) or inside its own statement (as ingestion's activities upsert does).
 */
export function contactInserts(communityId: number, rows: { name: string; fields: ContactFields; added?: AddedActivities }[], now: Date): PlainWrite {
  if (rows.length === 0) return null;
  const columns = [...WRITTEN_COLUMNS].filter(([column]) => column !== 'name');
  const values = columns.map(([column, type]) => {
    // A field no push set takes the column's default (all null but the phones' empty list).
    const fallback = column === 'phone_numbers' ? sql`'[]'::jsonb` : sql`null`;
    return sql`case when e.r -> 'f' ? ${column} then (e.r -> 'f' ->> ${column})::${sql.raw(type)} else ${fallback} end`;
  });
  const input = rows.map((row) => ({ name: row.name, f: row.fields, count: row.added?.count ?? 0, first: row.added?.first, latest: row.added?.latest }));
  return sql`
    insert into contacts (community_id, name, ${sql.join(columns.map(([column]) => sql.ref(column)))},
      activity_count_all, first_activity_at, latest_activity_at, created_at, updated_at)
    select ${communityId}, coalesce(e.r -> 'f' ->> 'name', e.r ->> 'name'), ${sql.join(values)},
      (e.r ->> 'count')::int, (e.r ->> 'first')::timestamptz, (e.r ->> 'latest')::timestamptz, ${now}, ${now}
    from jsonb_array_elements(${JSON.stringify(input)}::jsonb) with ordinality as e(r, n)
    order by e.n
    returning id`;
}

/** contactInserts run by itself: the new contacts' IDs, in the order of `rows`. */
export async function insertContacts(
  trx: Transaction<DB>,
  communityId: number,
  rows: { name: string; fields: ContactFields; added?: AddedActivities }[],
  now: Date,
): Promise<number[]> {
  const write = contactInserts(communityId, rows, now);
  if (write === null) return [];
  const result = await sql<{ id: number }>`${write}`.execute(trx);
  return result.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

/** What ingestion reads of a contact it is about to write, with where it lives. */
export interface LockedContactState {
  fullName: string | null;
  organizationId: number | null;
  city: string | null;
  region: string | null;
  country: string | null;
  worldRegion: string | null;
}

/**
 * findContactState for the contacts `ids` selects (SQL of one column, `contact_id`), as a lookup that shares
 * its statement with others (readTogether), locking them in ID order (as merges lock them, so the two cannot
 * deadlock). A contact missing from the answer is gone (erased, or merged).
 */
export function lockedContactStates(communityId: number, ids: RawBuilder<unknown> | null): Lookup<Map<number, LockedContactState>> {
  return {
    rows:
      ids === null
        ? null
        : sql`
          select id, full_name as "fullName", organization_id as "organizationId", city, region, country, world_region as "worldRegion"
          from contacts
          where community_id = ${communityId} and id in (${ids})
          order by id
          for update`,
    read: (rows) =>
      new Map(
        rows.map((json) => {
          const { id, ...state } = lockedContactRow(json);
          return [id, state];
        }),
      ),
  };
}

const lockedContactRow = jsonRow('locked contact', {
  id: 'integer',
  fullName: 'string or null',
  organizationId: 'integer or null',
  city: 'string or null',
  region: 'string or null',
  country: 'string or null',
  worldRegion: 'string or null',
});

/**
 * Activities new to a contact (none of them existed before): added to its count and its first and latest
 * times without reading its activities. One that moved or changed its time needs refreshActivityStats.
 */
export interface AddedActivities {
  count: number;
  first: Date;
  latest: Date;
}

/**
 * updateContact for many contacts, as one write (writeTogether): each row sets the fields it names and
 * leaves the others as they are (a field given as null is set to null), and adds the activities it was
 * given.
 */
export function contactUpdates(communityId: number, rows: { id: number; fields: ContactFields; added?: AddedActivities }[], now: Date): PlainWrite {
  if (rows.length === 0) return null;
  const columns = [...WRITTEN_COLUMNS].filter(([column]) => rows.some((row) => column in row.fields));
  const assignments = columns.map(([column, type]) => {
    const value = sql`(u.f ->> ${column})::${sql.raw(type)}`;
    return sql`${sql.ref(column)} = case when u.f ? ${column} then ${value} else c.${sql.ref(column)} end`;
  });
  // least() and greatest() skip nulls: a contact without activities yet takes the added ones' times.
  if (rows.some((row) => row.added)) {
    assignments.push(
      sql`activity_count_all = c.activity_count_all + coalesce(u.count, 0)`,
      sql`first_activity_at = least(c.first_activity_at, u.first)`,
      sql`latest_activity_at = greatest(c.latest_activity_at, u.latest)`,
    );
  }
  const input = rows.map((row) => ({ id: row.id, f: row.fields, count: row.added?.count, first: row.added?.first, latest: row.added?.latest }));
  // The IDs again as an array: the planner cannot count a recordset's rows (it assumes 100), and against a
  // table of a few thousand contacts a batch's plan then scanned every contact of the table to hash-join
  // them, which a first backfill paid at every batch; an array of IDs makes it probe the primary key.
  return sql`
    update contacts c set ${sql.join([...assignments, sql`updated_at = ${now}`])}
    from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as u(id bigint, f jsonb, count int, first timestamptz, latest timestamptz)
    where c.community_id = ${communityId} and c.id = any(${rows.map((row) => row.id)}::bigint[]) and c.id = u.id`;
}
