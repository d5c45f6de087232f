-- Sorting a list by a lead score or a custom field reads the records that have one in the order of these
-- indexes, seeking past the cursor's position (src/db/keyset.ts, orderedPage), so a page costs what its
-- rows cost however many records the community holds.
create index lead_scores_sort on lead_scores (community_id, score_id, entity_type, score, entity_id);
create index custom_field_values_sort on custom_field_values (community_id, custom_field_id, entity_type, (value -> 'value'), entity_id);
