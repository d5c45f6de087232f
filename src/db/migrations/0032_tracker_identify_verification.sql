-- Verified identify calls of the website tracker (docs/security.md, "The website tracker").
--
-- A tracker key is public, so an identify call made with it alone proves nothing: anyone could claim any
-- address for their own browser. Each tracker now has a secret, shown to the admin once (when the tracker
-- is made, or its key or secret rotated), which the site's backend uses to sign the address it identifies
-- (hex HMAC-SHA256 of the lower-cased address). The secret is kept as it is: verifying an HMAC needs it, and
-- whoever can read this column can already read and write every visit. Trackers made before this migration
-- have none until an admin rotates their secret.
alter table website_trackers
  add column identify_secret text,
  add column identify_secret_created_at timestamptz,
  -- The old behaviour, for a site that cannot sign: unsigned identify calls link visits like signed ones.
  add column allow_unverified_identify boolean not null default false;

-- Whether the site signed the identify call that made this row. Rows from before this migration came from
-- unsigned calls. An unsigned call (where the tracker allows them) never replaces a signed one.
alter table website_visitors add column verified boolean not null default false;

-- Unsigned identify calls of a tracker that does not allow them: kept apart, per source, and linked to no
-- contact and no visit. A removal request for the address deletes them.
create table website_unverified_visitors (
  community_id bigint not null,
  source_id bigint not null,
  anonymous_id text not null,
  email text not null,
  identified_at timestamptz not null,
  primary key (community_id, source_id, anonymous_id),
  foreign key (community_id, source_id) references sources (community_id, id) on delete cascade
);
create index website_unverified_visitors_email on website_unverified_visitors (community_id, email);
