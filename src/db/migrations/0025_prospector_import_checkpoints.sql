-- Where a `hearth prospector import` of a file got to: written in the transaction of each chunk it commits,
-- so the checkpoint and the records it counts commit together, and a run that was interrupted (Ctrl-C,
-- kill -9, a lost connection) is continued from the end of its last committed chunk by the same command.
-- Prospector data is shared by every community, and so is this: no community_id (design.md).
create table prospector_import_checkpoints (
  -- The file's identity and what it holds: the kind, the file's size and a hash of its first bytes
  -- (src/cli/prospector-import.ts). The path is not part of it, so a file that was moved or copied resumes.
  file_key text primary key,
  kind text not null check (kind in ('companies', 'contacts')),
  path text not null,
  -- Where the next chunk starts: the byte just past the last committed record, and that record's line.
  byte_offset bigint not null check (byte_offset >= 0),
  line integer not null check (line >= 0),
  -- What the committed chunks did, so a resumed run reports the whole file.
  records integer not null default 0,
  added integer not null default 0,
  changed integer not null default 0,
  unchanged integer not null default 0,
  chunks integer not null default 0,
  started_at timestamptz not null,
  updated_at timestamptz not null
);
