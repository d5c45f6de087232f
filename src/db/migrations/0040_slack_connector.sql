-- Slack's connector: its sources are of kind 'slack'.
alter table sources drop constraint if exists sources_kind_check;
alter table sources add constraint sources_kind_check check (kind in ('api', 'file', 'integration', 'github', 'discourse', 'slack'));
