-- The connectors of Discord, Stack Exchange sites, Hacker News, Reddit and DEV: their sources' kinds.
alter table sources drop constraint if exists sources_kind_check;
alter table sources add constraint sources_kind_check check (kind in ('api', 'file', 'integration', 'github', 'discourse', 'slack', 'discord', 'stackoverflow', 'hackernews', 'reddit', 'devto'));
