-- Failed console sign-ins per email address, so that repeated failures brake that address's sign-ins on
-- every process sharing the database (docs/security.md). Keyed by the SHA-256 of the lowercased address,
-- as every address typed at sign-in is counted (unknown ones too, so that the brake tells nothing about
-- which addresses exist), and no address is kept in the clear. An instance table: the community is not
-- known before sign-in, and one address may sign in to several.
create table sign_in_failures (
  email_hash text primary key,
  failures integer not null,
  last_failure_at timestamptz not null
);
-- Rows a day old are forgotten; they are found by this index.
create index sign_in_failures_last on sign_in_failures (last_failure_at);
