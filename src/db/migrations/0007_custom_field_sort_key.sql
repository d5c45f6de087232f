-- A custom field value can be far longer than a btree entry may be (2,704 bytes), so indexing the whole
-- value for `sort=cf_<id>` made long values fail to store (found by the ingestion fuzz test). The sort key is
-- the value itself for numbers and booleans, and the first 200 characters of text (and of the JSON text of
-- a multi-select): values alike in their first 200 characters sort by record ID.
create function custom_field_sort_key(value jsonb) returns jsonb language sql immutable parallel safe as $$
  select case jsonb_typeof(value -> 'value')
    when 'number' then value -> 'value'
    when 'boolean' then value -> 'value'
    when 'string' then to_jsonb(left(value ->> 'value', 200))
    else to_jsonb(left((value -> 'value')::text, 200))
  end
$$;

drop index custom_field_values_sort;
create index custom_field_values_sort on custom_field_values (community_id, custom_field_id, entity_type, custom_field_sort_key(value), entity_id);
