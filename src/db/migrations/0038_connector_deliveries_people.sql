-- The platform user IDs whose pushes a processed delivery made: an erasure finds the deliveries that name
-- the person and removes their payloads (docs/connectors.md, Privacy).
alter table connector_deliveries add column people text[];
create index connector_deliveries_people on connector_deliveries using gin (people);
-- Times the background step failed on a delivery: one that keeps failing is set aside with its error
-- instead of being tried again ahead of every later delivery.
alter table connector_deliveries add column attempts integer not null default 0;
-- A connector's deliveries waiting to be processed (the metrics count them).
create index connector_deliveries_pending on connector_deliveries (community_id, source_id, id) where processed_at is null;
-- Deliveries whose people are not known: waiting, set aside, or processed before they were kept. An erasure
-- reads them (few: the others are known by `people`).
create index connector_deliveries_unread on connector_deliveries (community_id, source_id, id) where people is null;
