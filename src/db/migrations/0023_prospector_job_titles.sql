-- Job titles count prospector contacts too (docs/behaviour.md, Record fields): a community's count of a title
-- is how many of its own contacts carry it plus how many prospector contacts do. Prospector contacts are shared
-- by every community, so the combined count is kept per community in job_titles (migration 0013), where
-- popularity pages seek on an index of it; what changes is how prospector titles reach those rows.
--
-- Prospector writes append to one global log, and each community remembers how far into it it has folded
-- (a watermark). The first read of a community's job titles after a change folds its own contacts' changes
-- and the global changes past its watermark into its counts in one transaction (job-title.repository.ts).
-- A community without a watermark (made after this migration, or already there at it) is seeded by that
-- read from an aggregate over prospector_contacts, its watermark then set to the log's last ID.
--
-- Rejected: counting prospector titles in a table of their own and adding the two counts at read time.
-- Popularity orders by the sum, which no index of either table holds, so every page would be a scan of
-- every title; the aggregate has to be per community.

-- One row per title and statement: a trigger sums what one statement did to a title, so a 10,000-record
-- import appends one row per distinct title it changed, not one per record. The ID orders the log; it comes
-- from a sequence without a cache (identities' default), so a row inserted later has a greater ID, which
-- the watermarks rely on.
--
-- IDs are taken when rows are inserted, not when they commit: while one import's rows (ID 7) are not yet
-- committed, a later one's (ID 8) may be, and a reader that moved its watermark to 8 would never fold 7.
-- So whoever reads the log's last ID to move a watermark (a fold, or a seed with its aggregate) first locks
-- this table in SHARE mode. Inserting takes ROW EXCLUSIVE, which conflicts: the lock waits until every
-- transaction that wrote to the log has ended, and holds off new writes until the fold commits. Every
-- change the fold's statements can see then has an ID up to the last one, and every change they cannot
-- see will get a greater one. Imports hold the log only from their upsert's end to their commit, and folds
-- for a few statements, so neither waits long; folds of different communities share the lock.
create table prospector_title_changes (
  id bigint generated always as identity primary key,
  title text collate "C" not null,
  change integer not null
);

-- The watermark of a community: every global change with an ID up to it is in its job_titles.
create table job_title_prospector_marks (
  community_id bigint primary key references communities (id) on delete cascade,
  folded_through bigint not null
);

-- Rows an update leaves with their title cancel out (-1 for the old title, +1 for the same new one), so
-- only real changes are logged. Blank titles are no title, as for contacts (0013).
create function prospector_titles_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into prospector_title_changes (title, change)
    select title, count(*) from new_rows where btrim(title) <> '' group by title;
  elsif tg_op = 'DELETE' then
    insert into prospector_title_changes (title, change)
    select title, -count(*) from old_rows where btrim(title) <> '' group by title;
  else
    insert into prospector_title_changes (title, change)
    select title, sum(change) from (
      select title, -1 as change from old_rows where btrim(title) <> ''
      union all
      select title, 1 from new_rows where btrim(title) <> ''
    ) as moved
    group by title having sum(change) <> 0;
  end if;
  return null;
end
$$;

-- Statement triggers over transition tables: an import's upsert is one statement, and its titles are
-- summed in one insert. (An update trigger with transition tables cannot name columns, hence the
-- cancelling above.) A truncate is not followed: nothing in Hearth truncates prospector data.
create trigger prospector_contacts_titles_inserted after insert on prospector_contacts
  referencing new table as new_rows for each statement execute function prospector_titles_changed();
create trigger prospector_contacts_titles_updated after update on prospector_contacts
  referencing old table as old_rows new table as new_rows for each statement execute function prospector_titles_changed();
create trigger prospector_contacts_titles_deleted after delete on prospector_contacts
  referencing old table as old_rows for each statement execute function prospector_titles_changed();
