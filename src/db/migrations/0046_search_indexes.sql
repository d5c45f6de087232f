-- Search everywhere (docs/reading.md, "Search"): GET /api/v2/search finds contacts, organizations and segments
-- as a person types. Exact and prefix matches read these btree indexes (text_pattern_ops, so that `like 'ab%'`
-- uses them whatever the database's collation); word-prefix and substring matches read the trigram indexes
-- below, where the engine has pg_trgm.
--
-- A name is compared by its key, as merge suggestions compare full names: lower case, common accents taken off,
-- each run of spaces and ASCII punctuation one space (src/modules/merge-suggestions/match-keys.ts, nameKeySql,
-- writes the same expression; the planner matches it to these indexes by its text).
create index contacts_search_name on contacts (
  community_id,
  (btrim(regexp_replace(lower(case when name ~ '[^\x01-\x7f]' then translate(name, 'ÀÁÂÃÄÅàáâãäåĀāĂăĄąÇçĆćČčĎďÈÉÊËèéêëĒēĖėĘęĚěÌÍÎÏìíîïĪīĮįŁłÑñŃńŇňÒÓÔÕÖØòóôõöøŌōŐőŔŕŘřŚśŠšŞşŤťÙÚÛÜùúûüŪūŮůŰűÝýÿŹźŻżŽž', 'AAAAAAaaaaaaAaAaAaCcCcCcDdEEEEeeeeEeEeEeEeIIIIiiiiIiIiLlNnNnNnOOOOOOooooooOoOoRrRrSsSsSsTtUUUUuuuuUuUuUuYyyZzZzZz') else name end), '[[:space:][:punct:]]+', ' ', 'g'))) text_pattern_ops
);
create index organizations_search_name on organizations (
  community_id,
  (btrim(regexp_replace(lower(case when name ~ '[^\x01-\x7f]' then translate(name, 'ÀÁÂÃÄÅàáâãäåĀāĂăĄąÇçĆćČčĎďÈÉÊËèéêëĒēĖėĘęĚěÌÍÎÏìíîïĪīĮįŁłÑñŃńŇňÒÓÔÕÖØòóôõöøŌōŐőŔŕŘřŚśŠšŞşŤťÙÚÛÜùúûüŪūŮůŰűÝýÿŹźŻżŽž', 'AAAAAAaaaaaaAaAaAaCcCcCcDdEEEEeeeeEeEeEeEeIIIIiiiiIiIiLlNnNnNnOOOOOOooooooOoOoRrRrSsSsSsTtUUUUuuuuUuUuUuYyyZzZzZz') else name end), '[[:space:][:punct:]]+', ' ', 'g'))) text_pattern_ops
);
-- Contacts most active first: a short query walks them until it has enough matches (a few dozen rows for
-- "a", where an index of names would hand over thousands to rank).
create index contacts_search_activity on contacts (community_id, activity_count_all desc, id);
-- Emails and handles as people write them (the display value: `Jane.Doe@gmail.com`, not the match key
-- `janedoe@gmail.com`), in lower case.
create index contact_identities_search on contact_identities (community_id, lower(display_value) text_pattern_ops);
-- Usernames a source knows a person by (Slack, Discourse, …): the `username` of the profile it pushed. A
-- profile's fields are kept as the source sent them, of any length, and a btree entry has a size limit: the
-- index holds the first 200 characters, as many as a query may have.
create index source_profiles_search_username on source_profiles (community_id, left(lower(fields ->> 'username'), 200) text_pattern_ops);
create index organization_domains_search on organization_domains (community_id, domain text_pattern_ops);
-- Word-prefix and substring matches of names ("smith" finds "Jane Smith"): trigram indexes of the same keys. A
-- server without pg_trgm (or a role that may not create it) keeps exact and prefix matches only, as
-- docs/reading.md says; the service looks for these indexes before it uses them.
do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    create index if not exists contacts_search_name_trgm on contacts using gin (
      (btrim(regexp_replace(lower(case when name ~ '[^\x01-\x7f]' then translate(name, 'ÀÁÂÃÄÅàáâãäåĀāĂăĄąÇçĆćČčĎďÈÉÊËèéêëĒēĖėĘęĚěÌÍÎÏìíîïĪīĮįŁłÑñŃńŇňÒÓÔÕÖØòóôõöøŌōŐőŔŕŘřŚśŠšŞşŤťÙÚÛÜùúûüŪūŮůŰűÝýÿŹźŻżŽž', 'AAAAAAaaaaaaAaAaAaCcCcCcDdEEEEeeeeEeEeEeEeIIIIiiiiIiIiLlNnNnNnOOOOOOooooooOoOoRrRrSsSsSsTtUUUUuuuuUuUuUuYyyZzZzZz') else name end), '[[:space:][:punct:]]+', ' ', 'g'))) gin_trgm_ops
    );
    create index if not exists organizations_search_name_trgm on organizations using gin (
      (btrim(regexp_replace(lower(case when name ~ '[^\x01-\x7f]' then translate(name, 'ÀÁÂÃÄÅàáâãäåĀāĂăĄąÇçĆćČčĎďÈÉÊËèéêëĒēĖėĘęĚěÌÍÎÏìíîïĪīĮįŁłÑñŃńŇňÒÓÔÕÖØòóôõöøŌōŐőŔŕŘřŚśŠšŞşŤťÙÚÛÜùúûüŪūŮůŰűÝýÿŹźŻżŽž', 'AAAAAAaaaaaaAaAaAaCcCcCcDdEEEEeeeeEeEeEeEeIIIIiiiiIiIiLlNnNnNnOOOOOOooooooOoOoRrRrSsSsSsTtUUUUuuuuUuUuUuYyyZzZzZz') else name end), '[[:space:][:punct:]]+', ' ', 'g'))) gin_trgm_ops
    );
  end if;
end
$$;
