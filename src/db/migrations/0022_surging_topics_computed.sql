-- `surgingTopics` is computed when asked for, from the activities of an organization's contacts
-- (organization-read.repository.ts, surgingTopicsOf); nothing ever wrote this column.
alter table organizations drop column surging_topics;
