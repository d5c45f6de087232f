-- Erasure used to keep a sender's own user ID (`u-4711`) when it held no address; it identifies the person
-- as much as an address does. Profiles of contacts erased before now get the hash every erasure now gives
-- (`erased:` + SHA-256 hex of the ID, as erasedExternalId computes it), so a later push with that ID still
-- finds the anonymized contact.
update source_profiles p
set external_id = 'erased:' || encode(sha256(convert_to(p.external_id, 'UTF8')), 'hex')
from contacts c
where c.community_id = p.community_id
  and c.id = p.contact_id
  and c.anonymized_at is not null
  and p.external_id !~ '^erased:[0-9a-f]{64}$';
