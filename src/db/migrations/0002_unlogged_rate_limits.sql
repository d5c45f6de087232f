-- Rate-limit counters are written on every request. As a logged table each write waited for a WAL flush
-- (about 1.5 ms on the reference machine, more than the rest of a small request); unlogged, it does not.
-- After a crash PostgreSQL empties an unlogged table, which for a counter of the current minute only means
-- that minute's count starts again.
alter table rate_limit_counters set unlogged;
