-- Indexes that let the v2 lists seek instead of sort (measured with EXPLAIN by the engineers who built them):
-- the member-count sort of organizations; the ID order of one object type's objects and of one contact's or
-- organization's website visits; and an activity list of one contact, whose cursor compares
-- (activity_time, id): with the ID in activities_contact_time the comparison is an exact seek.
create index organizations_member_count on organizations (community_id, member_count, id);
create index objects_type_id on objects (community_id, object_type_id, id);
create index website_visits_contact_id on website_visits (community_id, contact_id, id);
create index website_visits_organization_id on website_visits (community_id, organization_id, id);
drop index activities_contact_time;
create index activities_contact_time on activities (community_id, contact_id, activity_time, id);
