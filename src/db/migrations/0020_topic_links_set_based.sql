-- Topic links without row-by-row foreign-key checks. Every link an activity gets was one check
-- against activities and one against topics, each a query of its own inside PostgreSQL: for a batch of
-- 1,000 pushed activities with three topics each, 6,000 checks, about a fifth of the database's time for
-- the batch. The links keep the same guarantees by other means:
--
-- - A link is only ever written by a statement that reads its topic from `topics` and locks it against
--   deletion (`for key share`, once per topic and statement, not once per link), for an activity the same
--   transaction holds (it has just written it, or locked it).
-- - What the cascades did, these statement triggers do: when activities or topics go (one by one, or by a
--   cascade from a contact, a source or a community), their links go in the same statement, in one
--   set-based delete.
alter table activity_topics drop constraint activity_topics_community_id_activity_id_fkey;
alter table activity_topics drop constraint activity_topics_community_id_topic_id_fkey;

create function unlink_deleted_activities() returns trigger language plpgsql as $$
begin
  delete from activity_topics l using gone g where l.community_id = g.community_id and l.activity_id = g.id;
  return null;
end
$$;
create trigger activities_unlink_topics after delete on activities
  referencing old table as gone for each statement execute function unlink_deleted_activities();

-- Its delete runs on a snapshot taken after the topics' rows were deleted, so it also removes a link
-- committed by a writer that held the topic's lock while the topic's deletion waited for it.
create function unlink_deleted_topics() returns trigger language plpgsql as $$
begin
  delete from activity_topics l using gone g where l.community_id = g.community_id and l.topic_id = g.id;
  return null;
end
$$;
create trigger topics_unlink_activities after delete on topics
  referencing old table as gone for each statement execute function unlink_deleted_topics();
