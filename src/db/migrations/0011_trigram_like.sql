-- `like` filters are case-insensitive substring searches (`content ilike '%word%'`). A trigram index
-- answers them without reading every activity's text: a hundred OR-ed clauses on 200,000 activities went
-- from half a minute to well under a second (docs/performance.md). pg_trgm ships with PostgreSQL's contrib
-- package and with Hearth's embedded database; a server without it (or a role that may not create it)
-- keeps working without the index, and the filter service then limits how many `like` clauses a filter
-- may hold (filters/validate.ts).
do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
    create extension if not exists pg_trgm;
    create index if not exists activities_content_trgm on activities using gin (content gin_trgm_ops);
  end if;
exception
  when insufficient_privilege then
    raise notice 'pg_trgm is not installed (no privilege to create it): like filters run without a trigram index';
end
$$;
