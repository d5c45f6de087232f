-- Merges a person can undo (docs/ingestion.md, "Merging by hand, and undoing a merge").
--
-- A merge keeps what the merged contact brought (`snapshot`: its row, and the natural keys of every row it
-- had in the tables a merge moves), who made it when it was made by hand (`merged_by`), and when and by whom
-- it was undone. An undone merge stays in the history; a contact merged, brought back and merged again has
-- one row per merge, so the key takes the time, and only a merge not undone leads a merged ID to its survivor.
alter table contact_merges add column merged_by text;
alter table contact_merges add column snapshot jsonb;
alter table contact_merges add column unmerged_at timestamptz;
alter table contact_merges add column unmerged_by text;
alter table contact_merges drop constraint contact_merges_pkey;
alter table contact_merges add primary key (community_id, merged_id, merged_at);
create unique index contact_merges_live on contact_merges (community_id, merged_id) where unmerged_at is null;

-- The sender's ID (the user's `id` in its source) that a push of the activity or identity came with: what an
-- undone merge reads to give what arrived after the merge to the contact whose source profile sent it.
alter table activities add column sender_id text;
alter table contact_identities add column sender_id text;

-- Pairs of contacts that are not one person: an undone merge marks its pair, and ingestion never merges
-- them again. Each pair is kept twice, once from each side, so that a merge moves a side's marks as it moves
-- its other rows (by the column naming the contact).
create table contact_never_merge (
  community_id bigint not null,
  contact_id bigint not null,
  other_id bigint not null,
  reason text not null,
  created_at timestamptz not null default now(),
  primary key (community_id, contact_id, other_id),
  check (contact_id <> other_id)
);
alter table contact_never_merge add foreign key (community_id, contact_id) references contacts (community_id, id) on delete cascade;
alter table contact_never_merge add foreign key (community_id, other_id) references contacts (community_id, id) on delete cascade;

-- An undone merge tells subscribers, as a merge does.
create function webhook_event_merge_undone() returns trigger language plpgsql as $$
begin
  if old.unmerged_at is null and new.unmerged_at is not null and webhooks_wanted(new.community_id, array['contact.unmerged']) then
    insert into webhook_events (community_id, kind, entity_type, entity_id, detail, occurred_at)
    values (new.community_id, 'contact.unmerged', 'contact', new.survivor_id,
            jsonb_build_object('mergedId', new.merged_id), now());
  end if;
  return null;
end
$$;
create trigger webhook_event_merge_undone after update on contact_merges
  for each row execute function webhook_event_merge_undone();
