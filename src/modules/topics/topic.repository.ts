import { sql, type Transaction } from 'kysely';
import { keysetPage } from '../../db/keyset.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';
import { ChainedWrite, writeTogether, type PlainWrite, type Write } from '../../core/lookups.ts';
import { rollupChangesByStatement } from '../../db/rollup-changes.ts';
import { likeLiteral } from '../../core/query-fragments.ts';

export interface TopicRow {
  id: number;
  name: string;
}

/**
 * Makes `names` the activity's topics: its previous links go, the missing topics are made (unique per
 * community by lower(name); the first spelling stays), and the links are inserted, three statements
 * whatever the number of topics.
 */
export async function replaceActivityTopics(trx: Transaction<DB>, communityId: number, activityId: number, names: string[]): Promise<void> {
  await writeTogether(trx, [await topicsOf(trx, communityId, [{ activityId, names, existed: true }])]);
}

/**
 * Removes the topic links of every activity of the contact (erasure empties their content), and the topics
 * no activity carries any more: a topic can be a word of the person's (a handle, a name).
 */
export async function unlinkContactActivities(trx: Transaction<DB>, communityId: number, contactId: number): Promise<void> {
  const unlinked = await sql<{ topicId: number }>`
    delete from activity_topics at using activities a
    where at.community_id = ${communityId} and a.community_id = ${communityId}
      and at.activity_id = a.id and a.contact_id = ${contactId}
    returning at.topic_id as "topicId"
  `.execute(trx);
  const topicIds = [...new Set(unlinked.rows.map((row) => Number(row.topicId)))];
  if (topicIds.length === 0) return;
  await sql`
    delete from topics t
    where t.community_id = ${communityId} and t.id = any(${topicIds}::bigint[])
      and not exists (select 1 from activity_topics at where at.community_id = t.community_id and at.topic_id = t.id)
  `.execute(trx);
}

/** Only topics some activity still carries are shown: one erased person's words do not linger as topics. */
const linked = sql<boolean>`exists (select 1 from activity_topics at where at.community_id = topics.community_id and at.topic_id = topics.id)`;

function listQuery(db: Executor, communityId: number, prefix: string | null) {
  let query = db.selectFrom('topics').where('community_id', '=', communityId).where(linked);
  if (prefix) query = query.where(sql<boolean>`lower(name) like lower(${`${likeLiteral(prefix)}%`})`);
  return query;
}

export async function findTopic(db: Executor, communityId: number, id: number): Promise<TopicRow | undefined> {
  return db.selectFrom('topics').select(['id', 'name']).where('community_id', '=', communityId).where('id', '=', id).where(linked).executeTakeFirst();
}

/** Alphabetical by lower(name), ties by ID: the order of the index topics_name. */
export async function pageTopics(db: Executor, communityId: number, prefix: string | null, page: { limit: number; after: CursorPosition | null }) {
  const query = listQuery(db, communityId, prefix).select(['id', 'name']);
  return keysetPage(query, { keys: [{ expr: sql`lower(name)` }], id: sql`id`, direction: 'asc', ...page });
}

export async function countTopics(db: Executor, communityId: number, prefix: string | null): Promise<number> {
  const row = await listQuery(db, communityId, prefix)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * replaceActivityTopics for many activities, whatever their number and their topics'; each activity is
 * given once, and says whether it existed before (a new one has none to remove). Removes the links of those
 * that existed and makes their topics (up to two statements; the topics not, when the caller has run
 * topicsMade for their names already), then returns the write of their links, for the caller to run with
 * others (writeTogether).
 */
export async function topicsOf(
  trx: Transaction<DB>,
  communityId: number,
  activities: { activityId: number; names: string[]; existed: boolean }[],
  options: { made?: boolean } = {},
): Promise<Write> {
  const existed = activities.filter((a) => a.existed).map((a) => a.activityId);
  if (existed.length) {
    await sql`delete from activity_topics where community_id = ${communityId} and activity_id = any(${existed}::bigint[])`.execute(trx);
  }
  const links: { activityId: number; key: string }[] = [];
  const byKey = new Map<string, string>();
  for (const { activityId, names } of activities) {
    const keys = new Set<string>();
    for (const name of names) {
      const trimmed = name.trim();
      const key = trimmed.toLowerCase();
      if (!trimmed || keys.has(key)) continue;
      keys.add(key);
      if (!byKey.has(key)) byKey.set(key, trimmed);
      links.push({ activityId, key });
    }
  }
  if (links.length === 0) return null;
  if (!options.made) await makeTopics(trx, communityId, [...byKey.values()]);
  return topicLinks(
    communityId,
    links.map((link) => ({ activityId: link.activityId, name: byKey.get(link.key)! })),
  );
}

/** Makes the topics of `names` that do not exist yet (topicsMade), in a statement of its own. */
export async function makeTopics(trx: Transaction<DB>, communityId: number, names: string[]): Promise<void> {
  await topicsMade(communityId, names)?.execute(trx);
}

/**
 * The write that makes the topics of `names` that do not exist yet: one per community and lowercased name,
 * the first spelling stays (names are trimmed; empty ones are none). Sorted, so concurrent writers take the
 * unique index's locks in one order; the database's lower() decides which names are the same topic, here as
 * in the unique index. It must run in a statement before the one that links to them (topicLinks), which
 * then sees them, and those another transaction made meanwhile.
 */
export function topicsMade(communityId: number, names: string[]): PlainWrite {
  const byKey = new Map<string, string>();
  for (const name of names) {
    const trimmed = name.trim();
    if (trimmed && !byKey.has(trimmed.toLowerCase())) byKey.set(trimmed.toLowerCase(), trimmed);
  }
  if (byKey.size === 0) return null;
  const given = [...byKey.keys()].sort().map((key) => byKey.get(key)!);
  return sql`
    insert into topics (community_id, name)
    select ${communityId}::bigint, t.name from unnest(${given}::text[]) with ordinality as t(name, n)
    order by t.n
    on conflict (community_id, lower(name)) do nothing`;
}

/**
 * The write of links from activities the transaction holds to topics by name (made by topicsMade in an
 * earlier statement, so that this one sees them, and those another transaction committed meanwhile).
 * Links have no foreign keys (migration 0020): each topic is locked against deletion here, once, instead
 * of a check per link. In a transaction that counts its rollup changes in statements
 * (src/db/rollup-changes.ts), it also counts the links it inserted, per day of their activity and topic.
 */
export function topicLinks(communityId: number, links: { activityId: number; name: string }[]): Write {
  if (links.length === 0) return null;
  const inserted = sql`
    insert into activity_topics (community_id, activity_id, topic_id)
    select distinct ${communityId}::bigint, l.activity_id, t.id
    from unnest(${links.map((link) => link.activityId)}::bigint[], ${links.map((link) => link.name)}::text[]) as l(activity_id, name)
    join (
      select id, name from topics
      where community_id = ${communityId} and lower(name) = any(array(select lower(n) from unnest(${[...new Set(links.map((link) => link.name))]}::text[]) as n))
      for key share
    ) t on lower(t.name) = lower(l.name)
    on conflict do nothing
    returning activity_id, topic_id
  `;
  return new ChainedWrite(
    [{ name: 'topic_links_inserted', write: inserted }],
    sql`
      insert into topic_day_changes (community_id, day, topic_id, delta)
      select ${communityId}::bigint, (a.activity_time at time zone 'UTC')::date, l.topic_id, count(*)
      from topic_links_inserted l
      join activities a on a.community_id = ${communityId} and a.id = l.activity_id
      where ${rollupChangesByStatement}
      group by 2, 3`,
  );
}
