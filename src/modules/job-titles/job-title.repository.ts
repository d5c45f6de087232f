import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import { invalidCursor } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';
import { likeLiteral } from '../../core/query-fragments.ts';
import { prospectorTx } from '../prospector/index.ts';

export type JobTitleSort = 'popularity' | 'alphabetical';

export interface JobTitleRow {
  title: string;
  records: number;
}

/** What a community's counts lack: its own contacts' changes, and the global prospector changes past its watermark. */
interface FoldState {
  own: boolean;
  /** The last global change folded into the counts; null: never seeded with the prospector titles. */
  mark: number | null;
  /** The last global change there is (0: none). */
  latest: number;
}

/** One statement of index probes: whether anything is pending. */
async function foldState(db: Executor, communityId: number): Promise<FoldState> {
  const found = await sql<FoldState>`
    select exists (select 1 from job_title_changes where community_id = ${communityId}) as own,
           (select folded_through from job_title_prospector_marks where community_id = ${communityId}) as mark,
           coalesce((select max(id) from prospector_title_changes), 0) as latest`.execute(db);
  return found.rows[0]!;
}

const prospectorBehind = (state: FoldState) => state.mark === null || state.latest > state.mark;

/**
 * Brings the community's title counts up to date (migrations 0013, 0023): the changes its contacts made
 * since are taken out, the global prospector changes past its watermark read (or, the first time, every
 * prospector title counted), both added to the counts, and titles nobody carries any more go. One folder
 * at a time per community (a transaction-scoped advisory lock), so two readers never take the same changes
 * in opposite orders and deadlock.
 */
export async function foldJobTitleChanges(db: Kysely<DB>, communityId: number): Promise<void> {
  // Most reads find nothing to fold: index probes, no transaction.
  const seen = await foldState(db, communityId);
  if (!seen.own && !prospectorBehind(seen)) return;
  const prospectorFolded = await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${FOLD_LOCK}, ${communityId}::int)`.execute(trx);
    let state = await foldState(trx, communityId);
    const withProspector = prospectorBehind(state);
    if (withProspector) {
      // The last ID of the log is read under this lock, so no change below it is still uncommitted
      // (migration 0023 says why).
      await sql`lock table prospector_title_changes in share mode`.execute(trx);
      state = await foldState(trx, communityId);
    }
    if (!state.own && !withProspector) return false;
    const prospector = !withProspector
      ? sql``
      : state.mark === null
        ? sql`union all select title collate "C", records from (${prospectorTx.titleCounts()}) as seed`
        : sql`union all select title, change from prospector_title_changes where id > ${state.mark} and id <= ${state.latest}`;
    await addToCounts(trx, communityId, prospector);
    if (withProspector) {
      await sql`
        insert into job_title_prospector_marks (community_id, folded_through) values (${communityId}, ${state.latest})
        on conflict (community_id) do update set folded_through = excluded.folded_through`.execute(trx);
    }
    return withProspector;
  });
  if (prospectorFolded) await pruneProspectorChanges(db);
}

/**
 * The longest title the list counts, in characters. Pushes take a title of any length, but a text of
 * thousands of characters is not a job title, and the counts' index cannot hold a key past about 2,700
 * bytes: such titles stay on their contacts and are left out of the list (docs/reading.md, "Job titles").
 * Both a contact's +1 and its -1 are left out, so the counts of the other titles stay exact.
 */
const MAX_LISTED_TITLE = 250;

/**
 * Takes the community's own changes out of the log and adds them, with `more` (rows of title and change),
 * to its counts; titles nobody carries any more go. The caller holds the community's fold lock.
 */
async function addToCounts(trx: Executor, communityId: number, more: RawBuilder<unknown>): Promise<void> {
  const folded = await sql<{ title: string }>`
    with taken as (
      delete from job_title_changes where community_id = ${communityId} returning title, change
    ), summed as (
      select title, sum(change)::int as change
      from (select title, change from taken ${more}) as changes
      where char_length(title) <= ${MAX_LISTED_TITLE}
      group by title having sum(change) <> 0
    )
    insert into job_titles (community_id, title, records)
    select ${communityId}, title, change from summed
    on conflict (community_id, title) do update set records = job_titles.records + excluded.records
    returning title`.execute(trx);
  if (folded.rows.length > 0) {
    await sql`delete from job_titles where community_id = ${communityId} and records <= 0 and title = any(${folded.rows.map((row) => row.title)}::text[])`.execute(
      trx,
    );
  }
}

/**
 * Folds the community's own changes into its counts now, in the caller's transaction (the prospector
 * changes wait for the next read, past the watermark as always). Erasure calls it once it has emptied a
 * person's title: the log's entries name every title the person carried, now and before, and a
 * distinctive title identifies its person, so none may stay behind it; a title nobody else carries leaves
 * the counts at once. The counts stay what a read would make them: the fold only happens earlier.
 */
export async function foldOwnJobTitleChanges(trx: Executor, communityId: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(${FOLD_LOCK}, ${communityId}::int)`.execute(trx);
  await addToCounts(trx, communityId, sql``);
}

/**
 * Deletes the global changes every community has folded. Outside a fold's transaction: deleting takes the
 * log in a mode its SHARE lock conflicts with, and two folds upgrading at once would deadlock. One pruner
 * at a time (the others skip: the next fold prunes what they would have), so concurrent deletes of the
 * same rows never wait on each other.
 */
async function pruneProspectorChanges(db: Kysely<DB>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const locked = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${PRUNE_LOCK}) as locked`.execute(trx);
    if (!locked.rows[0]?.locked) return;
    await sql`delete from prospector_title_changes where id <= (select min(folded_through) from job_title_prospector_marks)`.execute(trx);
  });
}

/** The first key of pg_advisory_xact_lock(int, int) for folding job titles ("jt" in ASCII). */
const FOLD_LOCK = 0x6a74;
/** The key of pg_try_advisory_xact_lock(bigint) for pruning the global prospector title changes ("jtp"). */
const PRUNE_LOCK = 0x6a7470;

/**
 * One page of the community's job titles. Popularity: by count in `direction`, ties by title ascending.
 * Alphabetical: by title (as stored, byte order) in `direction`; a title is listed once, so its count never
 * breaks a tie. Positions are `[records, title]` and `[title]`.
 */
export async function pageJobTitles(
  db: Kysely<DB>,
  communityId: number,
  request: { sort: JobTitleSort; direction: 'asc' | 'desc'; prefix: string | null; limit: number; after: CursorPosition | null },
): Promise<{ rows: JobTitleRow[]; next: CursorPosition | null }> {
  const { sort, direction, prefix, limit, after } = request;
  // Lowercased by the database's own collation: "C" lowercases only ASCII letters.
  const matching = prefix ? sql`and lower(title collate "default") like ${`${likeLiteral(prefix.toLowerCase())}%`}` : sql``;
  let seek = sql``;
  let order;
  if (sort === 'popularity') {
    if (after && (after.length !== 2 || typeof after[0] !== 'string' || typeof after[1] !== 'string'))
      throw invalidCursor('cursor does not fit this list; start again without it');
    const [records, title] = (after ?? []) as string[];
    // Count in the asked direction, then title ascending: descending counts are kept negated (migration
    // 0013), so either way a page is one row comparison on an index.
    const count = direction === 'desc' ? sql`(-records)` : sql`records`;
    if (after) seek = sql`and (${count}, title) > (${direction === 'desc' ? -Number(records) : Number(records)}, ${title})`;
    order = sql`${count}, title`;
  } else {
    if (after && (after.length !== 1 || typeof after[0] !== 'string')) throw invalidCursor('cursor does not fit this list; start again without it');
    if (after) seek = direction === 'desc' ? sql`and title < ${after[0]}` : sql`and title > ${after[0]}`;
    order = direction === 'desc' ? sql`title desc` : sql`title asc`;
  }
  const found = await sql<JobTitleRow>`
    select title, records from job_titles
    where community_id = ${communityId} ${matching} ${seek}
    order by ${order}
    limit ${limit + 1}`.execute(db);
  const rows = found.rows.slice(0, limit);
  const last = rows.at(-1);
  const next = found.rows.length > limit && last ? (sort === 'popularity' ? [String(last.records), last.title] : [last.title]) : null;
  return { rows, next };
}
