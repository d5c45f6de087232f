-- Console users are not members (docs/console.md, "Console users are not members"). `/api/v2/me` gives each
-- app user a contact, so that the console can link to "you"; a contact made for that alone is staff: it is
-- left out of every contact list, count, segment count, organization's contacts and lead score. It becomes
-- a member for good the moment a source knows the person: a source profile pointing at it (a push, a batch,
-- a connector, an import, or a merge bringing one along), which the row triggers below see, whatever the path.
alter table contacts add column staff boolean not null default false;

-- Staff contacts are few (the console's users): their own small index, from which the counts subtract them
-- (contact counts and segment member counts), so that a count of all contacts stays an index-only scan.
create index contacts_staff on contacts (community_id, id) where staff;

-- The contacts made for app users so far that no source knows.
update contacts c set staff = true
where exists (select 1 from app_users u where u.community_id = c.community_id and u.contact_id = c.id)
  and not exists (select 1 from source_profiles p where p.community_id = c.community_id and p.contact_id = c.id);

-- Their scores go: a staff contact is not scored (the next recompute would remove them too).
delete from lead_scores s
where s.entity_type = 'contact'
  and exists (select 1 from contacts c where c.community_id = s.community_id and c.id = s.entity_id and c.staff);

-- A source profile makes its contact a member. Subscribers hear of the member then, as `contact.created`:
-- they were not told of the staff contact (below).
create function contact_member_by_source() returns trigger language plpgsql as $$
begin
  update contacts set staff = false where community_id = new.community_id and id = new.contact_id and staff;
  if found and webhooks_wanted(new.community_id, array['contact.created', 'contact.updated']) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, occurred_at)
    values (new.community_id, 'contact.created', 'contact', new.contact_id, now());
  end if;
  return null;
end
$$;
create trigger contact_member_by_source_inserted after insert on source_profiles
  for each row execute function contact_member_by_source();
create trigger contact_member_by_source_moved after update of contact_id on source_profiles
  for each row when (new.contact_id is distinct from old.contact_id) execute function contact_member_by_source();

-- No `contact.created` or `contact.updated` for a staff contact: webhooks describe the community's members.
create or replace function webhook_event_contact_inserted() returns trigger language plpgsql as $$
begin
  if not new.staff and webhooks_wanted(new.community_id, array['contact.created', 'contact.updated']) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, occurred_at)
    values (new.community_id, 'contact.created', 'contact', new.id, now());
  end if;
  return null;
end
$$;

create or replace function webhook_event_contact_updated() returns trigger language plpgsql as $$
begin
  if not new.staff and webhooks_wanted(new.community_id, array['contact.updated'])
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
