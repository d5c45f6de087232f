-- A file source made over the API may import only from a folder under HEARTH_FILE_SOURCE_ROOT, checked
-- again at each import (a link under the root may come to lead out of it; the root may be changed); one
-- made with the CLI is the operator's choice and may read any folder.
alter table sources add column if not exists confined_to_root boolean not null default false;

-- File sources made before this rule: confined unless the audit log shows the CLI made them. One whose
-- entry was pruned is taken as made over the API: the safe side, as nothing else tells the two apart.
update sources s set confined_to_root = true
where s.kind = 'file'
  and not exists (
    select 1 from audit_log a
    where a.community_id = s.community_id
      and a.operation = 'source.create'
      and a.entity_ids @> array['sig_' || s.id::text]
      and a.actor like 'cli:%'
  );

-- A bad line's reason once quoted the start of a line that is not JSON, which could be any file's bytes.
-- What was stored so quoted keeps only its verdict.
update source_imports
set bad_lines = regexp_replace(bad_lines::text, '"reason": "not JSON: (?:[^"\\]|\\.)*"', '"reason": "not JSON"', 'g')::jsonb
where bad_lines::text like '%"reason": "not JSON: %';

update jobs
set result = regexp_replace(result::text, '"reason": "not JSON: (?:[^"\\]|\\.)*"', '"reason": "not JSON"', 'g')::jsonb
where kind = 'source.import' and result::text like '%"reason": "not JSON: %';
