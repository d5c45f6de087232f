-- Buying committees (GET /api/v2/buying-committee-cells, PUT /api/v2/admin/buying-committee).
--
-- A committee's seniorities and departments are unique by key within it, as they are by ID: the title
-- classifier's keys are what place people in them.
create unique index buying_committee_seniorities_key on buying_committee_seniorities (community_id, key);
create unique index buying_committee_departments_key on buying_committee_departments (community_id, key);

-- The prospector companies of an organization are those whose website's registrable domain is the
-- organization's primary domain. The website's host, reversed (`https://www.acme.com/x` → `moc.emca.www`),
-- puts every host under a domain in one range of an index: the host `acme.com` itself, or the hosts that
-- start with `moc.emca.` (compared byte by byte, in the "C" collation). The service checks each company
-- found against the registrable domain proper (organizations/domains.ts).
create function website_reversed_host(website text) returns text
language sql immutable parallel safe
as $$
  select reverse(rtrim(substring(lower(website) from '^\s*(?:[a-z][a-z0-9+.-]*://)?(?:[^@/?#\s]*@)?([^/:?#\s]+)'), '.'))
$$;
create index prospector_companies_reversed_host on prospector_companies (website_reversed_host(primary_website) collate "C");
