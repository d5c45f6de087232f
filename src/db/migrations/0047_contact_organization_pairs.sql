-- The statistics' rising organizations (docs/stats.md) count a period's activities by their contacts'
-- organizations: tens of thousands of pairs of contact and organization, which a read of the contacts' table
-- took from every page of it. The index on organizations now holds each contact's ID as well, so the pairs
-- come from the index alone; it serves what it served before (the contacts of an organization) as it did.
create index contacts_organization_pairs on contacts (community_id, organization_id) include (id);
drop index contacts_organization;
alter index contacts_organization_pairs rename to contacts_organization;
