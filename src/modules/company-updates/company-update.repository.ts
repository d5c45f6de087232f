import { sql, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';
import { keysetPage } from '../../db/keyset.ts';

/** The organization or custom object whose job openings or news a list or an item is about. */
export type Parent = { kind: 'organization'; id: number } | { kind: 'object'; id: number };

export interface ListFilter {
  parent: Parent;
  /** A boolean fragment about the row (`j` or `n`), from the lightFilter. */
  where: RawBuilder<SqlBool> | null;
}

interface Page {
  direction: 'asc' | 'desc';
  limit: number;
  after: CursorPosition | null;
}

function jobOpenings(db: Executor, communityId: number, filter: ListFilter) {
  let query = db.selectFrom('job_openings as j').where('j.community_id', '=', communityId);
  query = filter.parent.kind === 'organization' ? query.where('j.organization_id', '=', filter.parent.id) : query.where('j.object_id', '=', filter.parent.id);
  return filter.where ? query.where(filter.where) : query;
}

function newsItems(db: Executor, communityId: number, filter: ListFilter) {
  let query = db.selectFrom('news_items as n').where('n.community_id', '=', communityId);
  query = filter.parent.kind === 'organization' ? query.where('n.organization_id', '=', filter.parent.id) : query.where('n.object_id', '=', filter.parent.id);
  return filter.where ? query.where(filter.where) : query;
}

/** One page of a parent's job openings by when they were first seen, ties by ID. */
export function pageJobOpenings(db: Executor, communityId: number, filter: ListFilter, page: Page) {
  const query = jobOpenings(db, communityId, filter).select([
    'j.id',
    'j.job_title as jobTitle',
    'j.location',
    'j.job_description as jobDescription',
    'j.first_seen_at as firstSeenAt',
    'j.is_closed as isClosed',
    'j.url',
  ]);
  return keysetPage(query, { keys: [{ expr: sql`j.first_seen_at` }], id: sql`j.id`, ...page });
}

export async function countJobOpenings(db: Executor, communityId: number, filter: ListFilter): Promise<number> {
  const row = await jobOpenings(db, communityId, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One page of a parent's news items by when they were published, ties by ID. */
export function pageNews(db: Executor, communityId: number, filter: ListFilter, page: Page) {
  const query = newsItems(db, communityId, filter).select([
    'n.id',
    'n.title',
    'n.category',
    'n.article_sentence as articleSentence',
    'n.published_at as publishedAt',
  ]);
  return keysetPage(query, { keys: [{ expr: sql`n.published_at` }], id: sql`n.id`, ...page });
}

export async function countNews(db: Executor, communityId: number, filter: ListFilter): Promise<number> {
  const row = await newsItems(db, communityId, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Which of the IDs are organizations, and which custom objects, of the community. */
export async function existingParents(db: Executor, communityId: number, organizationIds: number[], objectIds: number[]) {
  const [organizations, objects] = await Promise.all([
    organizationIds.length
      ? sql<{ id: string }>`select id from organizations where community_id = ${communityId} and id = any(${organizationIds}::bigint[])`.execute(db)
      : { rows: [] },
    objectIds.length
      ? sql<{ id: string }>`select id from objects where community_id = ${communityId} and id = any(${objectIds}::bigint[])`.execute(db)
      : { rows: [] },
  ]);
  return { organizations: new Set(organizations.rows.map((row) => Number(row.id))), objects: new Set(objects.rows.map((row) => Number(row.id))) };
}

export interface JobOpeningInput {
  parent: Parent;
  key: string;
  jobTitle: string;
  jobDescription: string | null;
  location: string | null;
  url: string | null;
  /** When the opening was first seen, if the source knows; else the time of the write. */
  firstSeenAt: Date | null;
  isClosed: boolean;
  /** The feed that brought it (modules/feeds), or null for an import. */
  feedId?: number | null;
}

export interface Written {
  added: number;
  changed: number;
}

/**
 * Runs one write per kind of parent the items have (the parent's column differs, and so does the unique
 * index an upsert names), and counts what was added and what changed.
 */
async function perParentKind<T extends { parent: Parent }>(
  items: T[],
  write: (mine: T[], column: ReturnType<typeof sql.ref>) => Promise<{ added: boolean; changed: boolean }[]>,
): Promise<Written> {
  const rows: { added: boolean; changed: boolean }[] = [];
  for (const kind of ['organization', 'object'] as const) {
    const mine = items.filter((item) => item.parent.kind === kind);
    if (mine.length) rows.push(...(await write(mine, sql.ref(kind === 'organization' ? 'organization_id' : 'object_id'))));
  }
  return { added: rows.filter((row) => row.added).length, changed: rows.filter((row) => !row.added && row.changed).length };
}

/**
 * Adds the openings, or updates those the parent already has under the same key: the latest values win,
 * `firstSeenAt` keeps the earliest time known, `lastSeenAt` becomes `now`. Per kind of parent, a read of the
 * rows as they were, then one upsert that compares with them. The rows are read by a statement of their
 * own (times as text, to the microsecond) and handed back as values: a Citus coordinator may run a CTE that reads them after the insert beside
 * it, and refuses a subquery in an insert's RETURNING.
 */
export async function upsertJobOpenings(trx: Transaction<DB>, communityId: number, items: JobOpeningInput[], now: Date): Promise<Written> {
  return perParentKind(items, async (mine, column) => {
    const before = await sql<Record<string, unknown>>`
      select j.${column} as parent_id, j.item_key, j.job_title, j.job_description, j.location, j.url, j.first_seen_at::text, j.is_closed
      from job_openings j
      join unnest(${mine.map((item) => item.parent.id)}::bigint[], ${mine.map((item) => item.key)}::text[]) as g(parent_id, item_key)
        on j.community_id = ${communityId} and j.${column} = g.parent_id and j.item_key = g.item_key`.execute(trx);
    const written = await sql<{ added: boolean; changed: boolean }>`
      with given as (
        select * from unnest(
          ${mine.map((item) => item.parent.id)}::bigint[], ${mine.map((item) => item.key)}::text[], ${mine.map((item) => item.jobTitle)}::text[],
          ${mine.map((item) => item.jobDescription)}::text[], ${mine.map((item) => item.location)}::text[], ${mine.map((item) => item.url)}::text[],
          ${mine.map((item) => item.firstSeenAt?.toISOString() ?? null)}::timestamptz[], ${mine.map((item) => item.isClosed)}::boolean[],
          ${mine.map((item) => item.feedId ?? null)}::bigint[]
        ) as g(parent_id, item_key, job_title, job_description, location, url, first_seen_at, is_closed, feed_id)
      ), before as (
        select * from jsonb_to_recordset(${JSON.stringify(before.rows)}::jsonb) as b(parent_id bigint, item_key text, job_title text,
          job_description text, location text, url text, first_seen_at timestamptz, is_closed boolean)
      ), written as (
        insert into job_openings as j (community_id, ${column}, item_key, job_title, job_description, location, url, first_seen_at, last_seen_at, is_closed, feed_id)
        select ${communityId}, parent_id, item_key, job_title, job_description, location, url, coalesce(first_seen_at, ${now}), ${now}, is_closed, feed_id from given
        on conflict (community_id, ${column}, item_key) where ${column} is not null do update set
          job_title = excluded.job_title, job_description = excluded.job_description, location = excluded.location, url = excluded.url,
          first_seen_at = least(j.first_seen_at, excluded.first_seen_at), last_seen_at = excluded.last_seen_at, is_closed = excluded.is_closed,
          feed_id = coalesce(excluded.feed_id, j.feed_id)
        returning (xmax = 0) as added, j.${column} as parent_id, j.item_key, j.job_title, j.job_description, j.location, j.url, j.first_seen_at, j.is_closed
      )
      select w.added, not exists (
        select 1 from before b where b.parent_id = w.parent_id and b.item_key = w.item_key and b.job_title = w.job_title
          and b.job_description is not distinct from w.job_description and b.location is not distinct from w.location
          and b.url is not distinct from w.url and b.first_seen_at = w.first_seen_at and b.is_closed = w.is_closed
      ) as changed
      from written w`.execute(trx);
    return written.rows;
  });
}

/** A news item as an import or a feed (modules/feeds) gives it. */
export interface NewsItem {
  key: string;
  title: string;
  category: string | null;
  articleSentence: string | null;
  url: string | null;
  publishedAt: Date;
}

/** A news item and where it is stored. */
export interface NewsInput extends NewsItem {
  parent: Parent;
  /** The feed that brought it (modules/feeds), or null for an import. */
  feedId?: number | null;
}

/**
 * Adds the news items, or updates those the parent already has under the same key (the latest values win);
 * what was there is read first, as for job openings.
 */
export async function upsertNews(trx: Transaction<DB>, communityId: number, items: NewsInput[]): Promise<Written> {
  return perParentKind(items, async (mine, column) => {
    const before = await sql<Record<string, unknown>>`
      select n.${column} as parent_id, n.item_key, n.title, n.category, n.article_sentence, n.url, n.published_at::text
      from news_items n
      join unnest(${mine.map((item) => item.parent.id)}::bigint[], ${mine.map((item) => item.key)}::text[]) as g(parent_id, item_key)
        on n.community_id = ${communityId} and n.${column} = g.parent_id and n.item_key = g.item_key`.execute(trx);
    const written = await sql<{ added: boolean; changed: boolean }>`
      with given as (
        select * from unnest(
          ${mine.map((item) => item.parent.id)}::bigint[], ${mine.map((item) => item.key)}::text[], ${mine.map((item) => item.title)}::text[],
          ${mine.map((item) => item.category)}::text[], ${mine.map((item) => item.articleSentence)}::text[], ${mine.map((item) => item.url)}::text[],
          ${mine.map((item) => item.publishedAt.toISOString())}::timestamptz[], ${mine.map((item) => item.feedId ?? null)}::bigint[]
        ) as g(parent_id, item_key, title, category, article_sentence, url, published_at, feed_id)
      ), before as (
        select * from jsonb_to_recordset(${JSON.stringify(before.rows)}::jsonb) as b(parent_id bigint, item_key text, title text,
          category text, article_sentence text, url text, published_at timestamptz)
      ), written as (
        insert into news_items as n (community_id, ${column}, item_key, title, category, article_sentence, url, published_at, feed_id)
        select ${communityId}, parent_id, item_key, title, category, article_sentence, url, published_at, feed_id from given
        on conflict (community_id, ${column}, item_key) where ${column} is not null do update set
          title = excluded.title, category = excluded.category, article_sentence = excluded.article_sentence, url = excluded.url,
          published_at = excluded.published_at, feed_id = coalesce(excluded.feed_id, n.feed_id)
        returning (xmax = 0) as added, n.${column} as parent_id, n.item_key, n.title, n.category, n.article_sentence, n.url, n.published_at
      )
      select w.added, not exists (
        select 1 from before b where b.parent_id = w.parent_id and b.item_key = w.item_key and b.title = w.title and b.category is not distinct from w.category
          and b.article_sentence is not distinct from w.article_sentence and b.url is not distinct from w.url and b.published_at = w.published_at
      ) as changed
      from written w`.execute(trx);
    return written.rows;
  });
}

/** Marks closed the open openings a feed brought that its latest answer no longer lists; how many. */
export async function closeOpeningsNotListed(trx: Transaction<DB>, communityId: number, feedId: number, listed: string[]): Promise<number> {
  const closed = await sql`
    update job_openings set is_closed = true
    where community_id = ${communityId} and feed_id = ${feedId} and not is_closed and item_key <> all(${listed}::text[])`.execute(trx);
  return Number(closed.numAffectedRows ?? 0);
}
