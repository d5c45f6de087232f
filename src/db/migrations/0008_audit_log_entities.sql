-- The audit log is asked "who changed this record?" (`hearth audit --entity c_12`): a GIN index answers
-- `entity_ids @> array[...]` without reading the community's whole log.
create index audit_log_entity_ids on audit_log using gin (entity_ids);
