-- The statistics rollups' triggers (migration 0044) in the form a trigger takes on a Citus cluster
-- (docs/scaling.md, "Triggers"): what it needs is read into variables first, and written with
-- `insert … values`. An `insert … select` run by a trigger on a shard would be a distributed query nested in
-- another, which Citus refuses: every topic link inserted or deleted there would fail. Same changes counted.
create or replace function activity_rollup_changed() returns trigger language plpgsql as $$
declare
  old_day date;
  new_day date;
  link record;
begin
  if tg_op = 'INSERT' then
    insert into activity_day_changes (community_id, day, source_id, activity_type, delta)
    values (new.community_id, (new.activity_time at time zone 'UTC')::date, new.source_id, new.activity_type, 1);
  elsif tg_op = 'DELETE' then
    insert into activity_day_changes (community_id, day, source_id, activity_type, delta)
    values (old.community_id, (old.activity_time at time zone 'UTC')::date, old.source_id, old.activity_type, -1);
  else
    old_day := (old.activity_time at time zone 'UTC')::date;
    new_day := (new.activity_time at time zone 'UTC')::date;
    insert into activity_day_changes (community_id, day, source_id, activity_type, delta)
    values (old.community_id, old_day, old.source_id, old.activity_type, -1),
           (new.community_id, new_day, new.source_id, new.activity_type, 1);
    -- Its topics' links move to the new day with it.
    if old_day <> new_day then
      for link in select topic_id from activity_topics where community_id = new.community_id and activity_id = new.id loop
        insert into topic_day_changes (community_id, day, topic_id, delta)
        values (new.community_id, old_day, link.topic_id, -1), (new.community_id, new_day, link.topic_id, 1);
      end loop;
    end if;
  end if;
  return null;
end
$$;

-- A link deleted with its activity (activity_unlink_topics) finds no activity any more: the activity's own
-- delete trigger counted it before, as a BEFORE trigger, while the links were still there.
create or replace function topic_rollup_changed() returns trigger language plpgsql as $$
declare
  link activity_topics;
  linked_at timestamptz;
begin
  if tg_op = 'INSERT' then link := new; else link := old; end if;
  select activity_time into linked_at from activities where community_id = link.community_id and id = link.activity_id;
  if found then
    insert into topic_day_changes (community_id, day, topic_id, delta)
    values (link.community_id, (linked_at at time zone 'UTC')::date, link.topic_id, case when tg_op = 'INSERT' then 1 else -1 end);
  end if;
  return null;
end
$$;

create or replace function activity_topics_rollup_deleting() returns trigger language plpgsql as $$
declare
  link record;
begin
  for link in select topic_id from activity_topics where community_id = old.community_id and activity_id = old.id loop
    insert into topic_day_changes (community_id, day, topic_id, delta)
    values (old.community_id, (old.activity_time at time zone 'UTC')::date, link.topic_id, -1);
  end loop;
  return old;
end
$$;
