import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';
import { keysetPage, type SortKey } from '../../db/keyset.ts';

/** Sorts of GET /api/v2/prospector-contacts (docs/behaviour.md, Sorting; docs/reading.md, Prospector data). */
export const CONTACT_SORTS = ['id', 'name', 'title', 'linkedInFollowers', 'lastOrgChange', 'seniority', 'role'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

/** Each sort's keys, in the order of its index (migration 0016): (key, id). Text ignores case. */
const SORT_KEYS: Record<ContactSort, SortKey[]> = {
  id: [],
  name: [{ expr: sql`lower(pc.name)` }],
  title: [{ expr: sql`lower(pc.title)`, nullable: true }],
  linkedInFollowers: [{ expr: sql`pc.linkedin_follower_count`, nullable: true }],
  lastOrgChange: [{ expr: sql`pc.last_org_change_at`, nullable: true }],
  seniority: [{ expr: sql`lower(pc.seniority)`, nullable: true }],
  role: [{ expr: sql`lower(pc.role)`, nullable: true }],
};

export interface ContactRow {
  id: number;
  name: string;
  fullName: string | null;
  avatarUrl: string | null;
  companyId: number | null;
  title: string | null;
  role: string | null;
  seniority: string | null;
  linkedInHandle: string | null;
  linkedInFollowerCount: number | null;
  city: string | null;
  region: string | null;
  country: string | null;
  skills: string[];
}

const columns = [
  'pc.id',
  'pc.name',
  'pc.full_name as fullName',
  'pc.avatar_url as avatarUrl',
  'pc.company_id as companyId',
  'pc.title',
  'pc.role',
  'pc.seniority',
  'pc.linkedin_handle as linkedInHandle',
  'pc.linkedin_follower_count as linkedInFollowerCount',
  'pc.city',
  'pc.region',
  'pc.country',
  'pc.skills',
] as const;

// The base table is `pc`: the alias the lightFilter compiler writes its fragments against.
function listQuery(db: Executor, where: RawBuilder<SqlBool> | null) {
  const query = db.selectFrom('prospector_contacts as pc');
  return where ? query.where(where) : query;
}

export async function pageContacts(
  db: Executor,
  where: RawBuilder<SqlBool> | null,
  sort: ContactSort,
  page: { direction: 'asc' | 'desc'; limit: number; after: CursorPosition | null },
) {
  return keysetPage(listQuery(db, where).select(columns), { keys: SORT_KEYS[sort], id: sql`pc.id`, ...page });
}

export async function countContacts(db: Executor, where: RawBuilder<SqlBool> | null): Promise<number> {
  const row = await listQuery(db, where)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * How many prospector contacts carry each title (a blank one is none), as `(title, records)`: where a
 * community's job titles start from (modules/job-titles). A statement fragment, so the caller folds it in.
 */
export function titleCounts(): RawBuilder<{ title: string; records: number }> {
  return sql`select title, count(*)::int as records from prospector_contacts where btrim(title) <> '' group by title`;
}

export async function findContact(db: Executor, id: number): Promise<ContactRow | undefined> {
  return listQuery(db, null).select(columns).where('pc.id', '=', id).executeTakeFirst();
}

/** A contact as an import writes it: every column, keyed by its LinkedIn handle. */
export interface ContactValues {
  linkedin_handle: string;
  name: string;
  full_name: string;
  avatar_url: string | null;
  company_id: number | null;
  title: string | null;
  role: string | null;
  seniority: string | null;
  linkedin_follower_count: number | null;
  skills: string[];
  city: string | null;
  region: string | null;
  country: string | null;
  /** ISO 8601. */
  last_org_change_at: string | null;
}

/** The key of pg_advisory_xact_lock(bigint) that one transaction at a time holds to write prospector contacts ("pc"). */
const WRITE_LOCK = 0x7063;

const WRITTEN = [
  'name',
  'full_name',
  'avatar_url',
  'company_id',
  'title',
  'role',
  'seniority',
  'linkedin_follower_count',
  'skills',
  'city',
  'region',
  'country',
  'last_org_change_at',
] as const;

/**
 * Inserts the contacts, or replaces every column of those whose LinkedIn handle is known; a contact whose
 * columns are all as given is left alone. One statement over the JSON of every record, which also logs how
 * the count of each job title moved (`prospector_title_changes`, folded into each community's job titles:
 * docs/architecture.md, "Job titles"); blank titles are no title. Returns how many were added and how many changed.
 *
 * In the caller's transaction, which it makes the only one writing prospector contacts until it ends: the
 * titles the log takes away are then those the statement's snapshot shows, the ones it replaces.
 */
export async function upsertContacts(db: Executor, contacts: ContactValues[]): Promise<{ added: number; changed: number }> {
  await sql`select pg_advisory_xact_lock(${WRITE_LOCK})`.execute(db);
  const list = (names: readonly string[], prefix = '') => sql.raw(names.map((name) => `${prefix}${name}`).join(', '));
  const result = await sql<{ added: number; changed: number }>`
    with given as (
      select * from jsonb_to_recordset(${JSON.stringify(contacts)}::jsonb) as g(
        linkedin_handle text, name text, full_name text, avatar_url text, company_id bigint, title text, role text,
        seniority text, linkedin_follower_count integer, skills text[], city text, region text, country text,
        last_org_change_at timestamptz)
    ), previous as (
      select linkedin_handle, title from prospector_contacts where linkedin_handle in (select linkedin_handle from given)
    ), written as (
      insert into prospector_contacts (linkedin_handle, ${list(WRITTEN)})
      select linkedin_handle, ${list(WRITTEN)} from given
      on conflict (linkedin_handle) do update set ${sql.raw(WRITTEN.map((name) => `${name} = excluded.${name}`).join(', '))}
      where (${list(WRITTEN, 'prospector_contacts.')}) is distinct from (${list(WRITTEN, 'excluded.')})
      returning linkedin_handle, title, (xmax = 0) as added
    ), titles_moved as (
      insert into prospector_title_changes (title, change)
      select title, sum(change) from (
        select p.title, -1 as change from written w join previous p on p.linkedin_handle = w.linkedin_handle
        where not w.added and btrim(p.title) <> ''
        union all
        select title, 1 from written where btrim(title) <> ''
      ) as moved
      group by title having sum(change) <> 0
    )
    select count(*) filter (where added)::int as added, count(*) filter (where not added)::int as changed from written`.execute(db);
  return result.rows[0]!;
}
