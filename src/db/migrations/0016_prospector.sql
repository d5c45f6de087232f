-- Prospector data (GET /api/v2/prospector-companies, /prospector-contacts; POST /api/v2/admin/prospector/*):
-- reference data shared by every community, so no community_id (design.md). Imports upsert by a stable
-- key, and every sort and the filters that can use one read an index.

-- The key of an imported company: its registrable domain (organizations' rule, modules/organizations/
-- domains.ts). Null only for a row written some other way; null keys never conflict.
alter table prospector_companies add column primary_domain text;
create unique index prospector_companies_domain on prospector_companies (primary_domain);

-- The key of an imported contact: the LinkedIn profile id as identity matching keys it (lowercased).
create unique index prospector_contacts_linkedin on prospector_contacts (linkedin_handle);

-- Technologies and skills match in any case: the lowercased array, for a GIN index that `any`, `all` and
-- `none` read. Immutable, so it can be indexed.
create function lower_text_array(text[]) returns text[] language sql immutable parallel safe
  as $$ select array(select lower(v) from unnest($1) as v) $$;

-- Sorts (docs/behaviour.md, Sorting): each list's order is (key, id); a nullable key's rows without a value
-- are read by `key is null` on the same index.
create index prospector_companies_name on prospector_companies (lower(name), id);
create index prospector_companies_employees on prospector_companies (employees, id);
create index prospector_companies_raised on prospector_companies (raised, id);
create index prospector_companies_score on prospector_companies (score, id);

create index prospector_contacts_name on prospector_contacts (lower(name), id);
create index prospector_contacts_title on prospector_contacts (lower(title), id);
create index prospector_contacts_followers on prospector_contacts (linkedin_follower_count, id);
create index prospector_contacts_org_change on prospector_contacts (last_org_change_at, id);
create index prospector_contacts_seniority on prospector_contacts (lower(seniority), id);
create index prospector_contacts_role on prospector_contacts (lower(role), id);

-- Filters.
create index prospector_companies_industry on prospector_companies (industry_code, id);
create index prospector_companies_country_code on prospector_companies (country_code, id);
create index prospector_companies_technologies on prospector_companies using gin (lower_text_array(technologies));
create index prospector_contacts_skills on prospector_contacts using gin (lower_text_array(skills));
drop index prospector_contacts_company;
create index prospector_contacts_company on prospector_contacts (company_id, id);
