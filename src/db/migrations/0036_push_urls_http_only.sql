-- Pushes keep a person's avatarUrl and an activity's url only when they are http or https URLs; anything
-- else is dropped with a warning (docs/ingestion.md). This drops the addresses stored before that rule
-- whose scheme is another (javascript:, data:, vbscript:, ...) or that have none, from the contacts, the
-- activities and the source profiles that keep what each source sent. The scheme is read as a browser
-- reads it: leading spaces and control characters skipped, tabs and line breaks anywhere ignored, letters in
-- any case. Contacts and activities are marked updated, so that a client reading changes since a time
-- sees them; a profile is not (it is not served, and a newer one would be read again by data-available).
create function pushed_url_kept(url text) returns boolean language sql immutable as $$
  select regexp_replace(url, '[\t\n\r]', '', 'g') ~* '^[\x01-\x20]*https?:'
$$;

update contacts set avatar_url = null, updated_at = now()
where avatar_url is not null and not pushed_url_kept(avatar_url);

update activities set url = null, updated_at = now()
where url is not null and not pushed_url_kept(url);

update source_profiles set fields = fields - 'avatarUrl'
where jsonb_typeof(fields -> 'avatarUrl') = 'string' and btrim(fields ->> 'avatarUrl') <> '' and not pushed_url_kept(fields ->> 'avatarUrl');

drop function pushed_url_kept(text);
