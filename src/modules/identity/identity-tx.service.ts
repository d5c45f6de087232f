// What other modules do with identity inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { ownerIdsOfPeople, ownersOfPeople, recordPerson, resolvePeople, resolvePerson } from './identity.service.ts';
import {
  deleteIdentities,
  eraseSourceProfiles,
  findContactsOf,
  findIdentityOwners,
  identitiesOf,
  lockContacts,
  peopleWrites,
  profileKey,
} from './identity.repository.ts';
import { clearNeverMerge, findLiveMerge, mergeContacts, mergesInto, resolveContactId, unmergeContacts } from './contact-merge.repository.ts';

export const identityTx = {
  clearNeverMerge,
  findLiveMerge,
  lockContacts,
  mergeContacts,
  unmergeContacts,
  deleteIdentities,
  eraseSourceProfiles,
  findContactsOf,
  findIdentityOwners,
  identitiesOf,
  mergesInto,
  peopleWrites,
  profileKey,
  resolveContactId,
  ownerIdsOfPeople,
  ownersOfPeople,
  recordPerson,
  resolvePeople,
  resolvePerson,
};
export type IdentityTxService = typeof identityTx;
