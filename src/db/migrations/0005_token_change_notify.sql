-- Hearth processes keep the token rows they have read in memory, and drop them when a token changes. Any
-- change (a revocation by the CLI, the HTTP admin routes or a hand-written UPDATE; a deleted row) notifies
-- every listening process from the database itself, at commit, so none can miss one.
create function api_tokens_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('hearth_tokens_changed', coalesce(old.jti, new.jti));
  return null;
end
$$;

create trigger api_tokens_changed after update or delete on api_tokens
  for each row execute function api_tokens_changed();
