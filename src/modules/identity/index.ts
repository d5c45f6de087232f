// The face of the identity module: what the rest of the code uses of it. Its other files are private.
export { erasedExternalId, type Identity, identityHash, identityKey, type IdentityType, isErasedExternalId, isJunkValue, type Normalized, normalizeDiscord, normalizeEmail, normalizeHandle } from './identity-values.ts';
export { findIdentityOwners, findProfileOwner, insertIdentities, lockContacts, mergeContacts, resolveContactId, upsertSourceProfile } from './identity.repository.ts';
