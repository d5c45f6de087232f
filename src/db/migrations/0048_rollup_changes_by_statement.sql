-- The statements that insert activities and topic links may count them into the rollups' change tables
-- themselves, grouped by day and key, in a transaction that sets `hearth.rollup_changes` to 'statement'
-- (src/db/rollup-changes.ts; docs/stats.md, "How they are computed"). The insert triggers then stay silent:
-- a push's activity and its topic links cost one grouped insert in the statements that write them, not one
-- trigger call and change row each. Elsewhere (any other transaction, rows inserted by hand) the triggers
-- count them as before. Deletes and updates are always counted by their triggers.
drop trigger activity_rollup_inserted on activities;
create trigger activity_rollup_inserted after insert on activities
  for each row when (current_setting('hearth.rollup_changes', true) is distinct from 'statement')
  execute function activity_rollup_changed();

drop trigger topic_rollup_inserted on activity_topics;
create trigger topic_rollup_inserted after insert on activity_topics
  for each row when (current_setting('hearth.rollup_changes', true) is distinct from 'statement')
  execute function topic_rollup_changed();
