-- A token made through the API for a console user (by their session, or by a token of theirs) is held to
-- that user's role: it never grants more than the role does, and the user's removal revokes it
-- (docs/security.md, "Tokens and roles"). A token the operator made at the command line (`hearth token
-- create`, `hearth init`, the first start) names a user too, the one `/api/v2/me` answers, but is held
-- only by its own scopes: its maker is whoever runs `hearth`, whom no role change reaches.
alter table api_tokens add column held_to_role boolean not null default false;

-- Existing tokens: a token with a user is held, unless its audit entry shows it was made by no request (the
-- command line and the first start write with no token). A token whose entry was pruned is held: the rule
-- that cannot tell errs towards the narrower token.
update api_tokens set held_to_role = true where app_user_id is not null;
update api_tokens t
set held_to_role = false
from audit_log a
where a.community_id = t.community_id
  and a.operation = 'token.create'
  and a.token_jti is null
  and a.entity_ids[1] = t.jti
  and t.held_to_role;
