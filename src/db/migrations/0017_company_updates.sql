-- Job openings and news items get a key of their own within their organization or custom object: an
-- import or a feed that brings an item again updates it instead of adding it twice. Openings also
-- remember when they were last seen, so a careers board that stops listing one can mark it closed. The
-- lists seek on (time, id) within one parent.
alter table job_openings add column item_key text, add column last_seen_at timestamptz;
update job_openings set item_key = 'job-' || id, last_seen_at = first_seen_at;
alter table job_openings alter column item_key set not null, alter column last_seen_at set not null;
create unique index job_openings_organization_key on job_openings (community_id, organization_id, item_key) where organization_id is not null;
create unique index job_openings_object_key on job_openings (community_id, object_id, item_key) where object_id is not null;
drop index job_openings_organization;
drop index job_openings_object;
create index job_openings_organization on job_openings (community_id, organization_id, first_seen_at, id);
create index job_openings_object on job_openings (community_id, object_id, first_seen_at, id);

alter table news_items add column item_key text;
update news_items set item_key = 'news-' || id;
alter table news_items alter column item_key set not null;
create unique index news_items_organization_key on news_items (community_id, organization_id, item_key) where organization_id is not null;
create unique index news_items_object_key on news_items (community_id, object_id, item_key) where object_id is not null;
drop index news_items_organization;
drop index news_items_object;
create index news_items_organization on news_items (community_id, organization_id, published_at, id);
create index news_items_object on news_items (community_id, object_id, published_at, id);
