import type { Transaction } from 'kysely';
import type { Lookup } from '../../core/lookups.ts';
import type { DB } from '../../db/schema.ts';
import { RetryTransaction } from '../../db/transaction.ts';
import { locationTx } from '../locations/index.ts';
import { identityKey, type Identity } from './identity-values.ts';
import * as identities from './identity.repository.ts';
import * as merges from './contact-merge.repository.ts';
import { formatId } from '../../core/ids.ts';

/** Where what a push says of a person comes from. */
export interface PushOrigin {
  communityId: number;
  sourceId: number;
  now: Date;
}

/** Who a push says a person is: the sender's ID in its source, and the strong identities it names. */
export interface PersonIdentity {
  externalId: string;
  identities: Identity[];
}

export type Resolution =
  /** The sender's ID leads to a contact anonymized on request: nothing of the push may be stored. */
  | { kind: 'erased' }
  /** Nobody known: the caller makes the contact. */
  | { kind: 'unknown' }
  /**
   * The person's contact, after merging into it (oldest first) every other contact the push showed to be them.
   * `withheld`: identity keys (identityKey) of the push held by a contact marked as another person (a merge
   * of the two was undone): the caller must not record them on this contact; `warnings` says so.
   */
  | { kind: 'known'; contactId: number; merged: number[]; withheld: string[]; warnings: string[] };

/**
 * Finds the person's contact, in the order docs/ingestion.md gives (One person, one contact): the same
 * sender ID in the same source, then any strong identity. When the push names identities of several
 * contacts, they merge into the oldest, each merge recorded with the identity that showed it, except
 * contacts marked as two people (never-merge pairs): the push then goes to the contact its sender's ID
 * leads to (else the holder of its strongest identity) and the contacts it may merge with, and the
 * identities held on the other side stay there. A contact that vanished under us (merged by a concurrent
 * push) makes the whole transaction start over.
 */
export async function resolvePerson(trx: Transaction<DB>, origin: PushOrigin, person: PersonIdentity): Promise<Resolution> {
  const { communityId, sourceId, now } = origin;
  const profile = await identities.findProfileOwner(trx, communityId, sourceId, person.externalId);
  if (profile?.anonymized) return { kind: 'erased' };
  const profileOwner = profile?.contactId ?? null;
  const owners = await identities.findIdentityOwners(trx, communityId, person.identities);
  const candidates = [...new Set([...(profileOwner === null ? [] : [profileOwner]), ...owners.map((owner) => owner.contactId)])];
  if (candidates.length === 0) return { kind: 'unknown' };

  const locked = await identities.lockContacts(trx, communityId, candidates);
  if (locked.length !== candidates.length) throw new RetryTransaction();
  const byAge = [...locked].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
  const apart = await merges.neverMergePairs(trx, communityId, candidates);
  const pushed = (link: { type: string; value: string }) => person.identities.find((known) => known.type === link.type && known.value === link.value);
  const { kept, barred } = keepApart(byAge, apart, profileOwner ?? firstHolder(person, owners));
  const [survivor, ...others] = kept;
  // Location member counts: the merged contacts leave theirs; the survivor may take a location from them.
  const placesBefore = others.length
    ? await locationTx.placesOf(
        trx,
        communityId,
        kept.map((contact) => contact.id),
      )
    : [];
  // What tied the push to the survivor, named in each merge's reason: a merge must say why the two are one person.
  const survivorLinks = owners
    .filter((owner) => owner.contactId === survivor!.id)
    .map((owner) => pushed(owner))
    .filter((known) => known !== undefined)
    .map((known) => `${known.type} "${known.display}"`);
  if (profileOwner === survivor!.id) survivorLinks.unshift(`the sender's ID "${person.externalId}"`);
  const survivorSide = `together with ${survivorLinks.join(', ')}, held by the surviving contact`;
  for (const other of others) {
    const link = owners.find((owner) => owner.contactId === other.id);
    const identity = link ? (pushed(link) ?? null) : null;
    const reason = identity
      ? `a push from source ${sourceId} named ${identity.type} "${identity.display}", held by this contact, ${survivorSide}`
      : `a push from source ${sourceId} came with the sender's ID "${person.externalId}", already linked to this contact, ${survivorSide}`;
    await merges.mergeContacts(trx, { communityId, survivorId: survivor!.id, mergedId: other.id, reason, identity, sourceId, by: null, now });
  }
  if (others.length) await locationTx.moveMembers(trx, communityId, placesBefore, await locationTx.placesOf(trx, communityId, [survivor!.id]));
  const withheld = owners.filter((owner) => barred.has(owner.contactId));
  const warnings = withheld.length
    ? [
        keptApartWarning(
          withheld.map((owner) => pushed(owner)!),
          [...barred],
          survivor!.id,
        ),
      ]
    : [];
  return {
    kind: 'known',
    contactId: survivor!.id,
    merged: others.map((other) => other.id),
    withheld: withheld.map((owner) => identityKey(owner as Pick<Identity, 'type' | 'value'>)),
    warnings,
  };
}

/** What a push is told when identities it names stay with contacts marked as another person. */
function keptApartWarning(withheld: Identity[], barred: number[], storedOn: number): string {
  const one = withheld.length === 1;
  const named = withheld.map((known) => `${known.type} "${known.display}"`).join(', ');
  const others = barred.map((id) => formatId('contact', id)).join(', ');
  const contact = formatId('contact', storedOn);
  return (
    `${named} belong${one ? 's' : ''} to ${others}, marked as another person than ${contact} (a merge of the two was undone): ` +
    `the push was stored on ${contact} and ${one ? 'that identity was' : 'those identities were'} left where ${one ? 'it is' : 'they are'}`
  );
}

/** The contact that holds the first of the push's identities, which come in the matching order (email, GitHub, ...). */
function firstHolder(person: PersonIdentity, owners: { type: string; value: string; contactId: number }[]): number {
  for (const known of person.identities) {
    const owner = owners.find((held) => held.type === known.type && held.value === known.value);
    if (owner) return owner.contactId;
  }
  return owners[0]!.contactId;
}

/**
 * The contacts a push may merge, oldest first: the one it goes to (`anchor`), then each other candidate,
 * oldest first, that is marked never-merge with none of those kept before it. The rest are barred.
 */
export function keepApart<T extends { id: number }>(byAge: T[], apart: { contactId: number; otherId: number }[], anchor: number) {
  if (apart.length === 0) return { kept: byAge, barred: new Set<number>() };
  const isApart = (a: number, b: number) => apart.some((pair) => pair.contactId === a && pair.otherId === b);
  const kept = byAge.filter((contact) => contact.id === anchor);
  const barred = new Set<number>();
  for (const contact of byAge) {
    if (contact.id === anchor) continue;
    if (kept.some((other) => isApart(contact.id, other.id))) barred.add(contact.id);
    else kept.push(contact);
  }
  kept.sort((a, b) => byAge.indexOf(a) - byAge.indexOf(b));
  return { kept, barred };
}

/**
 * Records what the push said of who the person is on their contact: the identities it does not hold yet
 * (but those `withheld`, keys resolvePerson gave), and the source's profile (the sender's ID, with the fields
 * the source last pushed).
 */
export async function recordPerson(
  trx: Transaction<DB>,
  origin: PushOrigin,
  contactId: number,
  person: PersonIdentity & { profile: Record<string, unknown> },
  withheld: string[] = [],
): Promise<void> {
  const { communityId, sourceId, now } = origin;
  const recorded = withheld.length ? person.identities.filter((known) => !withheld.includes(identityKey(known))) : person.identities;
  await identities.insertIdentities(trx, communityId, contactId, { sourceId, senderId: person.externalId }, recorded);
  await identities.upsertSourceProfile(trx, { communityId, sourceId, externalId: person.externalId, contactId, fields: person.profile, now });
}

/** A contact that resolvePeople found (ID known) or that the caller makes (ID set by the caller). */
export interface PersonRef {
  id: number | null;
  /** The position of the first person that needs the contact made; -1 for a contact that exists. */
  madeBy: number;
  /** The name to make it with. */
  name: string;
}

/** What resolvePeople reads of these people, as a lookup (readTogether). */
export function ownersOfPeople(communityId: number, people: (PersonIdentity & { sourceId: number })[]): Lookup<identities.Owners> {
  return identities.ownersOf(
    communityId,
    people,
    people.flatMap((person) => person.identities),
  );
}

/** The SQL of the IDs of the contacts that ownersOfPeople finds, for a lookup that locks them (readTogether). */
export function ownerIdsOfPeople(communityId: number, people: (PersonIdentity & { sourceId: number })[]) {
  return identities.ownerIds(
    communityId,
    people,
    people.flatMap((person) => person.identities),
  );
}

/**
 * resolvePerson for many people in order, without writing, from what ownersOfPeople read: each person's
 * contact, found by the same rules against what the database holds and what the people before them
 * showed (a person named twice gets one contact), or a new one to make. Null for a person the caller must
 * not store: one with an identity in `suppressed` (keys), or whose sender's ID leads to an erased contact.
 * Stops before the first person whose identities point at two contacts (a merge, for resolvePerson): the
 * result is shorter than `people` then.
 */
export function resolvePeople(
  people: (PersonIdentity & { sourceId: number; names: { name: string } })[],
  suppressed: Set<string>,
  { profiles, identities: owners }: identities.Owners,
): (PersonRef | null)[] {
  const existing = new Map<number, PersonRef>();
  const existingRef = (contactId: number) => {
    let ref = existing.get(contactId);
    if (!ref) existing.set(contactId, (ref = { id: contactId, madeBy: -1, name: '' }));
    return ref;
  };
  const byProfile = new Map<string, PersonRef>();
  for (const [key, owner] of profiles) if (!owner.anonymized) byProfile.set(key, existingRef(owner.contactId));
  const byIdentity = new Map<string, PersonRef>();
  for (const owner of owners) byIdentity.set(identityKey(owner as Pick<Identity, 'type' | 'value'>), existingRef(owner.contactId));

  const resolved: (PersonRef | null)[] = [];
  for (const [index, person] of people.entries()) {
    const profile = identities.profileKey(person.sourceId, person.externalId);
    const keys = person.identities.map((known) => identityKey(known));
    if (keys.some((key) => suppressed.has(key)) || profiles.get(profile)?.anonymized) {
      resolved.push(null);
      continue;
    }
    const candidates = new Set<PersonRef>();
    const owner = byProfile.get(profile);
    if (owner) candidates.add(owner);
    for (const key of keys) {
      const held = byIdentity.get(key);
      if (held) candidates.add(held);
    }
    if (candidates.size > 1) break;
    const contact = candidates.size === 1 ? [...candidates][0]! : { id: null, madeBy: index, name: person.names.name };
    byProfile.set(profile, contact);
    for (const key of keys) byIdentity.set(key, contact);
    resolved.push(contact);
  }
  return resolved;
}
