-- Lead scores defined by admins and computed by Hearth (docs/lead-scores.md).
--
-- `rules` holds how a definition computes (weights per activity type, half-life, fit rules, caps). A
-- definition without rules (made with SQL before this migration, or for scores imported from elsewhere)
-- is never computed: its stored values are left as they are.
alter table lead_score_definitions
  add column description text,
  add column rules jsonb,
  add column version integer not null default 1,
  add column updated_at timestamptz not null default now(),
  add column computed_version integer,
  add column computed_at timestamptz,
  -- When the job worker's background step last enqueued the daily full recompute (at most once a day,
  -- even when that job keeps failing).
  add column refresh_asked_at timestamptz,
  add column retired_at timestamptz;

-- One primary score per entity type among live definitions: keep the oldest where SQL made several.
update lead_score_definitions d set is_primary = false
where d.is_primary and exists (
  select 1 from lead_score_definitions e
  where e.community_id = d.community_id and e.entity_type = d.entity_type and e.is_primary and e.id < d.id
);
create unique index lead_score_definitions_primary on lead_score_definitions (community_id, entity_type)
  where is_primary and retired_at is null;

-- Contacts and organizations whose scores are to be computed again: ingestion and the other writers add
-- them (one set-based statement per batch), the background step of the job worker takes them. `mark`
-- changes at every new marking, so the step removes only the marks it computed: one made meanwhile stays.
create sequence lead_score_marks;
create table lead_score_dirty (
  community_id bigint not null,
  entity_type text not null check (entity_type in ('contact', 'organization')),
  entity_id bigint not null,
  mark bigint not null default nextval('lead_score_marks'),
  primary key (community_id, entity_type, entity_id)
);
