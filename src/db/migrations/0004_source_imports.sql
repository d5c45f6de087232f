-- The JSONL files a file source has imported (POST /api/v2/data-available; docs/ingestion.md). A file is
-- known by its content, the SHA-256 of its bytes: a renamed copy is not imported again, and a file changed
-- in place is (its repeated lines update what they made, by the pushes' deduplication keys).
-- A file whose name, size and modification time match an imported one is taken as imported without being
-- read again (rsync's quick check), so a folder of old exports costs a listing, not a read, per run.
-- While a file is being imported, lines_done is its resume point: a job that died continues after it.
create table source_imports (
  community_id bigint not null,
  source_id bigint not null,
  sha256 text not null,
  file_name text not null,
  size bigint not null,
  modified_at timestamptz not null,
  status text not null default 'importing' check (status in ('importing', 'imported')),
  lines_done integer not null default 0,
  -- What the lines done so far did: {users, activities, organizations, warnings, badLines}.
  counts jsonb not null default '{}',
  -- The first bad lines, [{line, reason}] (capped; counts.badLines counts them all).
  bad_lines jsonb not null default '[]',
  job_id bigint,
  started_at timestamptz not null,
  finished_at timestamptz,
  primary key (community_id, source_id, sha256),
  foreign key (community_id, source_id) references sources (community_id, id) on delete cascade
);
create index source_imports_file_name on source_imports (community_id, source_id, file_name);
