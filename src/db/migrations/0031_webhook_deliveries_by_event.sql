-- The deliveries of an event, found by the event: deleting events (a prune, an erasure) deletes their
-- deliveries by this foreign key, which without an index reads every delivery once per event deleted.
create index webhook_deliveries_event on webhook_deliveries (community_id, event_id);
