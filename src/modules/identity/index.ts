// The face of the identity module: what the rest of the code uses of it. Its other files are private.
export {
  type Identity,
  identityHash,
  identityKey,
  isJunkValue,
  type Normalized,
  normalizeDiscord,
  normalizeEmail,
  normalizeHandle,
} from './identity-values.ts';
export {
  deleteIdentities,
  eraseSourceProfiles,
  findContactsOf,
  findIdentityOwners,
  identitiesOf,
  mergesInto,
  peopleWrites,
  profileKey,
  resolveContactId,
} from './identity.repository.ts';
export { ownerIdsOfPeople, ownersOfPeople, type PersonRef, type PushOrigin, recordPerson, resolvePeople, resolvePerson } from './identity.service.ts';
