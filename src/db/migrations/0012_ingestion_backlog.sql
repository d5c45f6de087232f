-- Each serving process's ingestion backlog per community, reported every few seconds, so that the admin
-- route answers for every process on the database and `hearth ingestion` can read it. A row whose
-- process stopped reporting is ignored once stale (and replaced or deleted by the next report).
create table ingestion_backlog (
  process_id text not null,
  community_id bigint not null references communities (id) on delete cascade,
  queued_pushes integer not null,
  oldest_queued_at timestamptz,
  stored_last_minute integer not null,
  batches_last_minute integer not null,
  reported_at timestamptz not null,
  primary key (community_id, process_id)
);
