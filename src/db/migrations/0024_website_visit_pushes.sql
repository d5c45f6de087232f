-- Website visits pushed by a source (POST /community/v1/source/{id}/website-visits): which source sent each,
-- and the visitor's anonymous ID when the visit is not a known contact's yet. A visit is stored once: the
-- same visitor, page and time pushed again (a retried request) is the same visit.
alter table website_visits add column source_id bigint;
alter table website_visits add column anonymous_id text;
alter table website_visits add foreign key (community_id, source_id) references sources (community_id, id) on delete cascade;
create unique index website_visits_once on website_visits
  (community_id, coalesce(contact_id, 0), coalesce(anonymous_id, ''), url, visit_time);
create index website_visits_anonymous on website_visits (community_id, anonymous_id) where anonymous_id is not null;
