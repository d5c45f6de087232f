-- Triggers that run where a community's rows are (docs/scaling.md, "Triggers"). On a Citus cluster a
-- table's triggers run on each of its shards, where a statement trigger's transition table cannot be read
-- by the statements it runs, and PostgreSQL's `on delete set null (column)` keys are refused. So:
--
-- - webhook events and topic unlinking are written by row triggers, each touching only its own
--   community's rows (which a cluster keeps on the same node);
-- - the keys that set one column to null become plain keys, and a row trigger on the referenced table
--   clears the column before its row goes, as the key did.
--
-- Behaviour is unchanged: the same events, in the order of the rows, with the same rules.

-- Webhook events. Each row asks whether its own community has a subscription that wants the kind: one
-- probe of the subscriptions' primary key, where the statement triggers asked all communities once.
drop trigger webhook_events_contacts_inserted on contacts;
drop trigger webhook_events_contacts_updated on contacts;
drop trigger webhook_events_merges_inserted on contact_merges;
drop trigger webhook_events_activities_inserted on activities;
drop trigger webhook_events_organizations_inserted on organizations;
drop trigger webhook_events_memberships_added on segment_memberships;
drop trigger webhook_events_memberships_removed on segment_memberships;
drop trigger webhook_events_tags_assigned on tag_assignments;
drop trigger webhook_events_removals_completed on removal_requests;
drop trigger webhook_events_scores_inserted on lead_scores;
drop trigger webhook_events_scores_updated on lead_scores;
drop trigger webhook_events_jobs_finished on jobs;
drop function webhook_events_contacts_inserted();
drop function webhook_events_contacts_updated();
drop function webhook_events_merges_inserted();
drop function webhook_events_activities_inserted();
drop function webhook_events_organizations_inserted();
drop function webhook_events_memberships_changed();
drop function webhook_events_tags_assigned();
drop function webhook_events_removals_completed();
drop function webhook_events_scores_changed();
drop function webhook_events_jobs_finished();
drop function webhooks_wanted(text);

-- Whether a subscription of `community` (enabled or not: a disabled subscription's events are kept, so
-- that they can be replayed once it is enabled again) wants one of `kinds`.
-- PL/pgSQL, not SQL: Citus cannot plan a SQL function's statement over its parameters.
create function webhooks_wanted(community bigint, kinds text[]) returns boolean language plpgsql stable as $$
begin
  return exists (select 1 from webhook_subscriptions where community_id = community and event_kinds && kinds);
end
$$;

-- Written when updates are wanted too: the update trigger knows a contact created in its own transaction
-- by this event (a push inserts a contact, then writes its fields).
create function webhook_event_contact_inserted() returns trigger language plpgsql as $$
begin
  if webhooks_wanted(new.community_id, array['contact.created', 'contact.updated']) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, occurred_at)
    values (new.community_id, 'contact.created', 'contact', new.id, now());
  end if;
  return null;
end
$$;
create trigger webhook_event_contact_inserted after insert on contacts
  for each row execute function webhook_event_contact_inserted();

-- A contact is updated when what it shows changed (not its counters or model-written texts), once per
-- transaction, and not in the transaction that created it.
create function webhook_event_contact_updated() returns trigger language plpgsql as $$
begin
  if webhooks_wanted(new.community_id, array['contact.updated'])
     and not exists (
       select 1 from webhook_events e
       where e.community_id = new.community_id and e.entity_type = 'contact' and e.entity_id = new.id
         and e.kind in ('contact.created', 'contact.updated') and e.xmin = pg_current_xact_id()::xid) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, occurred_at)
    values (new.community_id, 'contact.updated', 'contact', new.id, now());
  end if;
  return null;
end
$$;
create trigger webhook_event_contact_updated after update on contacts
  for each row
  when ((new.name, new.full_name, new.username, new.avatar_url, new.bio, new.primary_email, new.title, new.role, new.company_name,
         new.company_website, new.organization_id, new.city, new.region, new.country, new.phone_numbers, new.job_history, new.anonymized_at)
        is distinct from
        (old.name, old.full_name, old.username, old.avatar_url, old.bio, old.primary_email, old.title, old.role, old.company_name,
         old.company_website, old.organization_id, old.city, old.region, old.country, old.phone_numbers, old.job_history, old.anonymized_at))
  execute function webhook_event_contact_updated();

create function webhook_event_merge_inserted() returns trigger language plpgsql as $$
begin
  if webhooks_wanted(new.community_id, array['contact.merged']) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, detail, occurred_at)
    values (new.community_id, 'contact.merged', 'contact', new.survivor_id,
            jsonb_build_object('mergedId', new.merged_id, 'reason', new.reason, 'identityType', new.identity_type), now());
  end if;
  return null;
end
$$;
create trigger webhook_event_merge_inserted after insert on contact_merges
  for each row execute function webhook_event_merge_inserted();

-- Activities and organizations: `entity_type` and the kind come from the trigger's arguments.
create function webhook_event_created() returns trigger language plpgsql as $$
begin
  if webhooks_wanted(new.community_id, array[tg_argv[0]]) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, occurred_at)
    values (new.community_id, tg_argv[0], tg_argv[1], new.id, now());
  end if;
  return null;
end
$$;
create trigger webhook_event_activity_inserted after insert on activities
  for each row execute function webhook_event_created('activity.created', 'activity');
create trigger webhook_event_organization_inserted after insert on organizations
  for each row execute function webhook_event_created('organization.created', 'organization');

-- Reads the segment, then writes the event: an `insert … select` run by a trigger on a cluster's shard would
-- be a distributed query nested in another.
create function webhook_event_membership_changed() returns trigger language plpgsql as $$
declare
  m segment_memberships;
  segment_entity text;
begin
  m := case when tg_op = 'INSERT' then new else old end;
  if webhooks_wanted(m.community_id, array['segment.membership.changed']) then
    select g.entity_type into segment_entity from segments g where g.community_id = m.community_id and g.id = m.segment_id;
    if found then
      insert into webhook_events (community_id, kind, entity_type, entity_id, detail, occurred_at)
      values (m.community_id, 'segment.membership.changed', segment_entity, m.entity_id,
              jsonb_build_object('segmentId', m.segment_id, 'change', case when tg_op = 'INSERT' then 'added' else 'removed' end), now());
    end if;
  end if;
  return null;
end
$$;
create trigger webhook_event_membership_added after insert on segment_memberships
  for each row execute function webhook_event_membership_changed();
create trigger webhook_event_membership_removed after delete on segment_memberships
  for each row execute function webhook_event_membership_changed();

create function webhook_event_tag_assigned() returns trigger language plpgsql as $$
begin
  if webhooks_wanted(new.community_id, array['tag.assigned']) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, detail, occurred_at)
    values (new.community_id, 'tag.assigned', new.entity_type, new.entity_id, jsonb_build_object('tagId', new.tag_id), now());
  end if;
  return null;
end
$$;
create trigger webhook_event_tag_assigned after insert on tag_assignments
  for each row execute function webhook_event_tag_assigned();

-- A removal reports its request and when it completed: never the address or anything erased.
create function webhook_event_removal_completed() returns trigger language plpgsql as $$
begin
  if webhooks_wanted(new.community_id, array['removal.completed']) then
    insert into webhook_events (community_id, kind, detail, occurred_at)
    values (new.community_id, 'removal.completed', jsonb_build_object('requestId', new.id), now());
  end if;
  return null;
end
$$;
create trigger webhook_event_removal_completed after update on removal_requests
  for each row when (new.status = 'completed' and old.status <> 'completed')
  execute function webhook_event_removal_completed();

-- A score that changed value (a percentile moving because others' scores moved is not reported).
create function webhook_event_score_changed() returns trigger language plpgsql as $$
begin
  if webhooks_wanted(new.community_id, array['lead_score.changed']) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, detail, occurred_at)
    values (new.community_id, 'lead_score.changed', new.entity_type, new.entity_id,
            jsonb_build_object('scoreId', new.score_id, 'score', new.score,
                               'previousScore', case when tg_op = 'UPDATE' then to_jsonb(old.score) else null end), now());
  end if;
  return null;
end
$$;
create trigger webhook_event_score_inserted after insert on lead_scores
  for each row execute function webhook_event_score_changed();
create trigger webhook_event_score_updated after update on lead_scores
  for each row when (new.score <> old.score) execute function webhook_event_score_changed();

create function webhook_event_job_finished() returns trigger language plpgsql as $$
begin
  if webhooks_wanted(new.community_id, array['job.finished']) then
    insert into webhook_events (community_id, kind, detail, occurred_at)
    values (new.community_id, 'job.finished',
            jsonb_build_object('jobId', new.id, 'kind', new.kind, 'status', new.status, 'attempts', new.attempts), now());
  end if;
  return null;
end
$$;
create trigger webhook_event_job_finished after update on jobs
  for each row when (new.status in ('completed', 'failed') and old.status not in ('completed', 'failed'))
  execute function webhook_event_job_finished();

-- Topic links go with their activity or topic (migration 0020 explains why they have no foreign keys).
drop trigger activities_unlink_topics on activities;
drop trigger topics_unlink_activities on topics;
drop function unlink_deleted_activities();
drop function unlink_deleted_topics();

create function unlink_deleted_activity() returns trigger language plpgsql as $$
begin
  delete from activity_topics where community_id = old.community_id and activity_id = old.id;
  return null;
end
$$;
create trigger activity_unlink_topics after delete on activities
  for each row execute function unlink_deleted_activity();

-- Runs after the topic's row is deleted, so it also removes a link committed by a writer that held the
-- topic's lock while the topic's deletion waited for it.
create function unlink_deleted_topic() returns trigger language plpgsql as $$
begin
  delete from activity_topics where community_id = old.community_id and topic_id = old.id;
  return null;
end
$$;
create trigger topic_unlink_activities after delete on topics
  for each row execute function unlink_deleted_topic();

-- Keys that cleared one column when their row went: plain keys now, and the referenced table's trigger
-- clears the column first. Its arguments name the referencing table and column.
create function clear_references() returns trigger language plpgsql as $$
begin
  execute format('update %I set %I = null where community_id = $1 and %I = $2', tg_argv[0], tg_argv[1], tg_argv[1])
    using old.community_id, old.id;
  return old;
end
$$;

alter table api_tokens drop constraint api_tokens_community_id_app_user_id_fkey,
  add constraint api_tokens_community_id_app_user_id_fkey foreign key (community_id, app_user_id) references app_users (community_id, id);
create trigger api_tokens_clear_app_user before delete on app_users
  for each row execute function clear_references('api_tokens', 'app_user_id');

alter table organizations drop constraint organizations_community_id_source_id_fkey,
  add constraint organizations_community_id_source_id_fkey foreign key (community_id, source_id) references sources (community_id, id);
create trigger organizations_clear_source before delete on sources
  for each row execute function clear_references('organizations', 'source_id');

alter table contact_identities drop constraint contact_identities_community_id_source_id_fkey,
  add constraint contact_identities_community_id_source_id_fkey foreign key (community_id, source_id) references sources (community_id, id);
create trigger contact_identities_clear_source before delete on sources
  for each row execute function clear_references('contact_identities', 'source_id');

alter table contacts drop constraint contacts_community_id_organization_id_fkey,
  add constraint contacts_community_id_organization_id_fkey foreign key (community_id, organization_id) references organizations (community_id, id);
create trigger contacts_clear_organization before delete on organizations
  for each row execute function clear_references('contacts', 'organization_id');

alter table activities drop constraint activities_community_id_sub_source_id_fkey,
  add constraint activities_community_id_sub_source_id_fkey foreign key (community_id, sub_source_id) references sub_sources (community_id, id);
create trigger activities_clear_sub_source before delete on sub_sources
  for each row execute function clear_references('activities', 'sub_source_id');

alter table segment_memberships drop constraint segment_memberships_community_id_status_id_fkey,
  add constraint segment_memberships_community_id_status_id_fkey foreign key (community_id, status_id) references segment_statuses (community_id, id);
create trigger segment_memberships_clear_status before delete on segment_statuses
  for each row execute function clear_references('segment_memberships', 'status_id');

alter table app_users drop constraint app_users_contact,
  add constraint app_users_contact foreign key (community_id, contact_id) references contacts (community_id, id);
create trigger app_users_clear_contact before delete on contacts
  for each row execute function clear_references('app_users', 'contact_id');

-- Token and tracker key changes are announced by their writers, on their own connection, at commit
-- (core/listened-cache.ts): a trigger on a cluster's worker notifies no Hearth process.
drop trigger api_tokens_changed on api_tokens;
drop function api_tokens_changed();
drop trigger website_trackers_changed on website_trackers;
drop function website_trackers_changed();

-- The prospector's import logs how job titles' counts moved in the statement that writes the contacts
-- (prospector-contact.repository.ts): its table is shared by all communities, a reference table on a
-- cluster, where a trigger would run on every node's copy.
drop trigger prospector_contacts_titles_inserted on prospector_contacts;
drop trigger prospector_contacts_titles_updated on prospector_contacts;
drop trigger prospector_contacts_titles_deleted on prospector_contacts;
drop function prospector_titles_changed();

-- A time as the API writes it (2026-11-29T07:00:00Z), for texts an update composes. Immutable, which
-- to_char is not declared to be (it reads the locale's settings, which this pattern does not use): a Citus
-- cluster runs no function that is not immutable inside CASE or COALESCE of an update.
create function utc_timestamp_text(t timestamptz) returns text language plpgsql immutable as $$
begin
  return to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
end
$$;
