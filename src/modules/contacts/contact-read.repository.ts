import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { orderedPage, type ListOrder, type SortKey } from '../../db/keyset.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';
import { eachParent, groupByParent } from '../../core/query-fragments.ts';
import { READ_SELECTION } from './contact-columns.ts';

/** What narrows a contact list: the query filters and the compiled lightFilter (which names `c`). */
export interface ContactFilters {
  organizationId?: number;
  segmentId?: number;
  where?: RawBuilder<SqlBool>;
}

/**
 * Every contact list and count is composed here. Lists show the community's members: they leave out the staff
 * contacts made for console users that no source knows (docs/console.md, "Console users are not members"), a
 * condition on the row that each of their index scans reads anyway. `who` also gives every contact, or the
 * staff alone, for countContacts.
 */
function contactsOf(db: Executor, communityId: number, filters: ContactFilters, who: 'members' | 'staff' | 'all' = 'members') {
  let query = db.selectFrom('contacts as c').where('c.community_id', '=', communityId);
  if (who === 'members') query = query.where(sql<SqlBool>`not c.staff`);
  // The staff's IDs first, from their own small index (contacts_staff), then the filters on those rows alone:
  // a plain `c.staff` lets PostgreSQL test it on every row the filters match.
  if (who === 'staff') {
    query = query.where(sql<SqlBool>`c.id = any(array(select s.id from contacts s where s.community_id = ${communityId} and s.staff))`);
  }
  if (filters.organizationId !== undefined) query = query.where('c.organization_id', '=', filters.organizationId);
  if (filters.segmentId !== undefined) {
    const segmentId = filters.segmentId;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('segment_memberships as m')
          .select(sql`1`.as('one'))
          .where('m.community_id', '=', communityId)
          .where('m.segment_id', '=', segmentId)
          .whereRef('m.entity_id', '=', 'c.id'),
      ),
    );
  }
  if (filters.where) query = query.where(filters.where);
  return query;
}

// The table's columns a read shows, under their v2 names (contact-columns.ts).
const columns = READ_SELECTION;

export async function pageContacts(
  db: Executor,
  communityId: number,
  filters: ContactFilters,
  order: ListOrder,
  page: { direction: 'asc' | 'desc'; limit: number; after: CursorPosition | null },
) {
  // Without a lightFilter the statement's text depends only on which filters are given: compiled once.
  const source = {
    db,
    shape: filters.where ? null : 'contacts',
    values: { community: communityId, organization: filters.organizationId, segment: filters.segmentId },
    build: (values: { community: number; organization?: number; segment?: number }) =>
      contactsOf(db, values.community, { organizationId: values.organization, segmentId: values.segment, where: filters.where }).select(columns),
  };
  return orderedPage(source, order, { ...page, id: sql.ref('c.id') });
}

export type ContactRow = Awaited<ReturnType<typeof pageContacts>>['rows'][number];

/**
 * How many members the filters match: every contact they match less the staff they match. Counting the
 * members alone would read every matching row of the table for its `staff`, where a count of all contacts
 * is often answered from an index alone (contacts_organization, or any on community_id); the staff are few,
 * found through their own index (contacts_staff, migration 0045).
 */
export async function countContacts(db: Executor, communityId: number, filters: ContactFilters): Promise<number> {
  const count = (who: 'staff' | 'all') => contactsOf(db, communityId, filters, who).select((eb) => eb.fn.countAll<number>().as('n'));
  const row = await db.selectNoFrom(sql<number>`(${count('all')}) - (${count('staff')})`.as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** One contact, staff too: the console links to a user's own contact (`/api/v2/me`). */
export async function findContact(db: Executor, communityId: number, id: number): Promise<ContactRow | undefined> {
  return db.selectFrom('contacts as c').select(columns).where('c.community_id', '=', communityId).where('c.id', '=', id).executeTakeFirst();
}

/** Sort keys by name: `latest_activity` puts contacts without activity last in both directions. */
export const CONTACT_SORT_KEYS: Record<string, SortKey[]> = {
  id: [],
  name: [{ expr: sql`lower(c.name)` }],
  latest_activity: [{ expr: sql.ref('c.latest_activity_at'), nullable: true }],
};

/**
 * Activity counts of each contact over the windows (days back from `now`, activity_time in (now − days, now]),
 * one index range per contact over activities_contact_time, reading at most the longest window.
 */
export async function activityWindows(
  db: Executor,
  communityId: number,
  ids: readonly number[],
  now: Date,
  windows: Readonly<Record<string, number>>,
): Promise<Map<number, Record<string, number>>> {
  const byContact = new Map<number, Record<string, number>>();
  const entries = Object.entries(windows);
  if (ids.length === 0 || entries.length === 0) return byContact;
  const longest = Math.max(...entries.map(([, days]) => days));
  const since = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
  const counts = entries.map(([name, days]) => sql`count(*) filter (where a.activity_time > ${since(days)}::timestamptz)::int as ${sql.ref(name)}`);
  const rows = await sql<Record<string, number> & { contactId: number }>`
    select a.contact_id as "contactId", ${sql.join(counts)}
    from activities a
    where a.community_id = ${communityId} and a.contact_id = any(${[...ids]}::bigint[])
      and a.activity_time > ${since(longest)}::timestamptz and a.activity_time <= ${now.toISOString()}::timestamptz
    group by a.contact_id`.execute(db);
  for (const { contactId, ...row } of rows.rows) byContact.set(contactId, row);
  return byContact;
}

/** Each contact's identities as profiles `{type, value}` (the value as first seen), by type then value. */
export async function profilesOf(db: Executor, communityId: number, ids: readonly number[]) {
  const byContact = new Map<number, { type: string; value: string }[]>();
  if (ids.length === 0) return byContact;
  const rows = await db
    .selectFrom('contact_identities')
    .select(['contact_id as contactId', 'type', 'display_value as value'])
    .where('community_id', '=', communityId)
    .where('contact_id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .orderBy('contact_id')
    .orderBy('type')
    .orderBy('display_value')
    .execute();
  for (const { contactId, ...profile } of rows) byContact.set(contactId, [...(byContact.get(contactId) ?? []), profile]);
  return byContact;
}

/** Custom objects associated with each contact, through object types' contact associations. */
export async function connectedObjectsOf(db: Executor, communityId: number, ids: readonly number[]) {
  const byContact = new Map<number, { id: number; name: string; objectType: string }[]>();
  if (ids.length === 0) return byContact;
  const rows = await sql<{ contactId: number; id: number; name: string; objectType: string }>`
    select distinct oa.target_id as "contactId", ob.id, ob.name, ot.name as "objectType"
    from object_associations oa
    join object_type_assocs ta on ta.community_id = oa.community_id and ta.id = oa.assoc_id and ta.target_entity = 'contact'
    join objects ob on ob.community_id = oa.community_id and ob.id = oa.object_id
    join object_types ot on ot.community_id = ob.community_id and ot.id = ob.object_type_id
    where oa.community_id = ${communityId} and oa.target_id = any(${[...ids]}::bigint[])
    order by oa.target_id, ob.id`.execute(db);
  for (const { contactId, ...object } of rows.rows) byContact.set(contactId, [...(byContact.get(contactId) ?? []), object]);
  return byContact;
}

/** Website visits of each contact since `since`: how many, and the most visited pages (at most `pages`). */
export async function recentVisitsOf(db: Executor, communityId: number, ids: readonly number[], since: Date, pages: number) {
  const byContact = new Map<number, { visits: number; pages: { url: string; numVisits: number }[] }>();
  if (ids.length === 0) return byContact;
  const rows = await sql<{ contactId: number; url: string; numVisits: number }>`
    select v.contact_id as "contactId", v.url, count(*)::int as "numVisits"
    from website_visits v
    where v.community_id = ${communityId} and v.contact_id = any(${[...ids]}::bigint[]) and v.visit_time > ${since.toISOString()}::timestamptz
    group by v.contact_id, v.url
    order by v.contact_id, count(*) desc, v.url`.execute(db);
  for (const { contactId, url, numVisits } of rows.rows) {
    const entry = byContact.get(contactId) ?? { visits: 0, pages: [] };
    entry.visits += numVisits;
    if (entry.pages.length < pages) entry.pages.push({ url, numVisits });
    byContact.set(contactId, entry);
  }
  return byContact;
}

/** The IDs of each contact's latest activities (at most `per`), newest first, one index probe per contact. */
export async function latestActivityIdsOf(db: Executor, communityId: number, ids: readonly number[], per: number) {
  const byContact = new Map<number, number[]>();
  if (ids.length === 0) return byContact;
  const rows = await sql<{ contactId: number; id: number }>`
    select p.id as "contactId", l.id
    ${eachParent(
      ids,
      sql`
      select a.id, a.activity_time from activities a
      where a.community_id = ${communityId} and a.contact_id = p.id
      order by a.activity_time desc, a.id desc limit ${per}`,
      'l',
    )}
    order by p.id, l.activity_time desc, l.id desc`.execute(db);
  for (const [contactId, latest] of groupByParent(rows.rows, (row) => row.contactId))
    byContact.set(
      contactId,
      latest.map((row) => row.id),
    );
  return byContact;
}
