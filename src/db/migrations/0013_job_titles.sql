-- Job titles (GET /api/v2/job-titles): how many contacts of a community carry each title, kept up to date
-- without a scan per request. Titles compare as stored, byte by byte ("C"), so the order is the same on
-- every server whatever its locale.
create table job_titles (
  community_id bigint not null references communities (id) on delete cascade,
  title text collate "C" not null,
  records integer not null,
  primary key (community_id, title)
);
-- Popularity in both directions: ties by title ascending either way (docs/behaviour.md, Sorting), which one
-- index scanned backwards cannot give. The descending order is kept as (-records, title), so that a page
-- seeks with one row comparison.
create index job_titles_popular on job_titles (community_id, (-records), title);
create index job_titles_unpopular on job_titles (community_id, records, title);
create index job_titles_prefix on job_titles (community_id, lower(title collate "default") text_pattern_ops);

-- What changed since the counts were last brought up to date: one row per title a contact gained (+1) or
-- lost (-1). Writers only append here, so concurrent pushes never wait for each other on a popular
-- title's count; a reader of job titles folds the changes into job_titles first.
create table job_title_changes (
  community_id bigint not null,
  id bigint generated always as identity,
  title text collate "C" not null,
  change integer not null,
  primary key (community_id, id)
);

create function job_title_changed() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' and btrim(old.title) <> '' then
    insert into job_title_changes (community_id, title, change) values (old.community_id, old.title, -1);
  end if;
  if tg_op <> 'DELETE' and btrim(new.title) <> '' then
    insert into job_title_changes (community_id, title, change) values (new.community_id, new.title, 1);
  end if;
  return null;
end
$$;

-- The conditions are checked without calling the function: an update that leaves the title alone (most
-- of ingestion's) costs nothing more.
create trigger contacts_job_title_inserted after insert on contacts
  for each row when (new.title is not null) execute function job_title_changed();
create trigger contacts_job_title_updated after update of title on contacts
  for each row when (old.title is distinct from new.title) execute function job_title_changed();
create trigger contacts_job_title_deleted after delete on contacts
  for each row when (old.title is not null) execute function job_title_changed();

insert into job_titles (community_id, title, records)
select community_id, title, count(*) from contacts where btrim(title) <> '' group by community_id, title;
