import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { keysetPage, type SortKey } from '../../db/keyset.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';

export interface ActivityRow {
  id: number;
  type: string;
  activityTime: Date;
  contactId: number;
  /** Selected only when asked for: it may be long. */
  content?: string | null;
  isUserInitiated: boolean;
  sentiment: string | null;
  sourceId: number;
  subSourceId: number | null;
}

/** The filters of GET /api/v2/activities, already resolved to keys. */
export interface ActivityFilters {
  contactId: number | null;
  organizationId: number | null;
  /** Inclusive bounds on activity_time, as PostgreSQL reads a timestamptz. */
  startDate: string | null;
  endDate: string | null;
  /** A compiled lightFilter about `a`. */
  where: RawBuilder<SqlBool> | null;
}

export type ActivitySort = 'id' | 'activityTime';

function filtered(db: Executor, communityId: number, filters: ActivityFilters) {
  let query = db.selectFrom('activities as a').where('a.community_id', '=', communityId);
  if (filters.contactId !== null) query = query.where('a.contact_id', '=', filters.contactId);
  if (filters.organizationId !== null) {
    const organizationId = filters.organizationId;
    query = query.where('a.contact_id', 'in', (eb) =>
      eb.selectFrom('contacts as oc').select('oc.id').where('oc.community_id', '=', communityId).where('oc.organization_id', '=', organizationId),
    );
  }
  if (filters.startDate !== null) query = query.where(sql<SqlBool>`a.activity_time >= ${filters.startDate}::timestamptz`);
  if (filters.endDate !== null) query = query.where(sql<SqlBool>`a.activity_time <= ${filters.endDate}::timestamptz`);
  if (filters.where) query = query.where(filters.where);
  return query;
}

function selectRows(db: Executor, communityId: number, filters: ActivityFilters, withContent: boolean) {
  return filtered(db, communityId, filters)
    .select([
      'a.id',
      'a.activity_type as type',
      'a.activity_time as activityTime',
      'a.contact_id as contactId',
      'a.is_user_initiated as isUserInitiated',
      'a.sentiment',
      'a.source_id as sourceId',
      'a.sub_source_id as subSourceId',
    ])
    .$if(withContent, (query) => query.select('a.content'));
}

const NO_FILTERS: ActivityFilters = { contactId: null, organizationId: null, startDate: null, endDate: null, where: null };

/**
 * One keyset page. By activityTime the order is (activity_time, id), the order of the index activities_time_contact
 * (or, with a contact, of activities_contact_time).
 */
export async function pageActivities(
  db: Executor,
  communityId: number,
  filters: ActivityFilters,
  page: { sort: ActivitySort; direction: 'asc' | 'desc'; limit: number; after: CursorPosition | null; withContent: boolean },
) {
  const keys: SortKey[] = page.sort === 'activityTime' ? [{ expr: sql`a.activity_time` }] : [];
  const query = selectRows(db, communityId, filters, page.withContent);
  const result = await keysetPage(query, { keys, id: sql`a.id`, direction: page.direction, limit: page.limit, after: page.after });
  return { ...result, rows: result.rows as ActivityRow[] };
}

export async function countActivities(db: Executor, communityId: number, filters: ActivityFilters): Promise<number> {
  const row = await filtered(db, communityId, filters)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The activities with these IDs, in no particular order; IDs of other communities are not found. */
export async function findActivities(db: Executor, communityId: number, ids: readonly number[], withContent: boolean): Promise<ActivityRow[]> {
  if (ids.length === 0) return [];
  const rows = await selectRows(db, communityId, NO_FILTERS, withContent)
    .where(sql<SqlBool>`a.id = any(${[...ids]}::bigint[])`)
    .execute();
  return rows as ActivityRow[];
}

export interface ThreadCounts {
  replyCount: number;
  participantCount: number;
}

/**
 * Replies (at every depth) and distinct participants of each activity, for a page's IDs in one recursive
 * query over activities_parent. UNION, not UNION ALL: a thread whose parent links form a cycle (two
 * pushes naming each other as parent) then ends instead of looping, each activity counted once per root.
 */
export async function threadCounts(db: Executor, communityId: number, ids: readonly number[]): Promise<Map<number, ThreadCounts>> {
  if (ids.length === 0) return new Map();
  const result = await sql<{ id: number; replies: string | number; participants: string | number }>`
    with recursive thread (root, id, contact_id) as (
      select a.id, a.id, a.contact_id from activities a
      where a.community_id = ${communityId} and a.id = any(${[...ids]}::bigint[])
      union
      select t.root, r.id, r.contact_id from thread t
      join activities r on r.community_id = ${communityId} and r.parent_id = t.id and r.parent_id is not null
    )
    select root as id, count(*) - 1 as replies, count(distinct contact_id) as participants
    from thread group by root`.execute(db);
  return new Map(result.rows.map((row) => [Number(row.id), { replyCount: Number(row.replies), participantCount: Number(row.participants) }]));
}

/** Source names by source ID. */
export async function sourceNames(db: Executor, communityId: number, sourceIds: readonly number[]): Promise<Map<number, string>> {
  if (sourceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('sources')
    .select(['id', 'name'])
    .where('community_id', '=', communityId)
    .where(sql<SqlBool>`id = any(${[...sourceIds]}::bigint[])`)
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** Sub-source names by sub-source ID. */
export async function subSourceNames(db: Executor, communityId: number, subSourceIds: readonly number[]): Promise<Map<number, string>> {
  if (subSourceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('sub_sources')
    .select(['id', 'name'])
    .where('community_id', '=', communityId)
    .where(sql<SqlBool>`id = any(${[...subSourceIds]}::bigint[])`)
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
