import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type * as contacts from '../contacts/index.ts';
import { contactTx } from '../contacts/index.ts';
import { type PushOrigin, identityTx } from '../identity/index.ts';
import type { Place } from '../locations/index.ts';
import { locationTx } from '../locations/index.ts';
import { organizationTx } from '../organizations/index.ts';
import { tagTx } from '../tags/index.ts';
import type { ApiUser, PushedPerson } from './pushed-person.ts';

export type PushTarget = PushOrigin;

export interface ResolvedContact {
  contactId: number;
  created: boolean;
  merged: number[];
  /** Identity keys of the push held by a contact marked as another person: not recorded on this one. */
  withheld: string[];
  /** What the push must be told of its person (resolvePerson). */
  warnings: string[];
}

/**
 * The person's contact: found (and merged) by the identity module, or made. Null when the sender's ID
 * leads to a contact anonymized on request: nothing of it may be stored again.
 */
export async function resolveContact(trx: Transaction<DB>, target: PushTarget, person: PushedPerson): Promise<ResolvedContact | null> {
  const resolution = await identityTx.resolvePerson(trx, target, person);
  if (resolution.kind === 'erased') return null;
  if (resolution.kind === 'known') {
    const { contactId, merged, withheld, warnings } = resolution;
    return { contactId, created: false, merged, withheld, warnings };
  }
  const contactId = await contactTx.insertContact(trx, target.communityId, { name: person.names.name }, target.now);
  return { contactId, created: true, merged: [], withheld: [], warnings: [] };
}

/** Writes what the push says onto the contact: fields, organization, location, identities, profile. */
export async function applyPerson(
  trx: Transaction<DB>,
  target: PushTarget,
  contact: ResolvedContact,
  push: { person: PushedPerson; place: Place | null; domain: string | null },
) {
  const { person, place } = push;
  const { communityId, now } = target;
  const current = await contactTx.findContactState(trx, communityId, contact.contactId);
  const fields = personFields({ person, place }, { fullName: current?.fullName ?? null }, contact.created);

  const organization = await findOrCreateOrganization(trx, target, person, push.domain);
  if (organization) {
    fields.organization_id = organization.id;
    fields.company_website = `https://${organization.primaryDomain}`;
    fields.company_name = person.companyName ?? organization.name;
  }

  const [placeBefore] = place ? await locationTx.placesOf(trx, communityId, [contact.contactId]) : [];
  await contactTx.updateContact(trx, communityId, contact.contactId, fields, now);
  if (place && placeBefore) await locationTx.moveMembers(trx, communityId, [placeBefore], [place]);
  await identityTx.recordPerson(trx, target, contact.contactId, person, contact.withheld);
  if (contact.merged.length) await contactTx.refreshActivityStats(trx, communityId, [contact.contactId]);
  // contactsCount of the organizations the contact left and joined.
  const previous = current?.organizationId ?? null;
  if (organization && organization.id !== previous) {
    await organizationTx.refreshMemberCounts(trx, communityId, previous === null ? [organization.id] : [organization.id, previous]);
  }
}

/**
 * The contact fields one push sets: names (`fullName`, else first and last; without them the name falls
 * back, but never to "Unknown" over a contact another push named), the latest non-empty values, phones,
 * the raw location and the place read from it. `made`: this push made the contact.
 */
export function personFields(push: { person: PushedPerson; place: Place | null }, contact: { fullName: string | null }, made: boolean): contacts.ContactFields {
  const { person, place } = push;
  const fields: contacts.ContactFields = {};
  if (person.names.explicit) {
    fields.full_name = person.names.fullName ?? undefined;
    fields.name = person.names.name;
  } else if (!contact.fullName && (person.names.name !== 'Unknown' || made)) {
    fields.name = person.names.name;
  }
  const set = (key: 'username' | 'avatar_url' | 'bio' | 'primary_email' | 'title' | 'role' | 'company_name', value: string | null) => {
    if (value !== null) fields[key] = value;
  };
  set('username', person.username);
  set('avatar_url', person.avatarUrl);
  set('bio', person.bio);
  set('primary_email', person.email);
  set('title', person.title);
  set('role', person.role);
  set('company_name', person.companyName);
  if (person.phones.length) fields.phone_numbers = JSON.stringify(person.phones);
  if (person.location.rawLocation) fields.raw_location = person.location.rawLocation;
  if (place) {
    fields.city = place.city;
    fields.region = place.region;
    fields.country = place.country;
    fields.country_code = place.countryCode;
    fields.world_region = place.worldRegion;
  }
  return fields;
}

/**
 * docs/behaviour.md, Ingestion: from the domain the push implies (PushItem.domain), or else `companyName`,
 * which only links to the one organization of that name, never makes one.
 */
async function findOrCreateOrganization(trx: Transaction<DB>, target: PushTarget, person: PushedPerson, domain: string | null) {
  if (domain) {
    const found = await organizationTx.findOrganizationByDomain(trx, target.communityId, domain);
    if (found) return found;
    return organizationTx.insertOrganization(trx, {
      communityId: target.communityId,
      name: person.companyName ?? organizationNameOf(domain),
      domain,
      sourceId: target.sourceId,
      now: target.now,
    });
  }
  if (person.companyName) return organizationTx.findOnlyOrganizationNamed(trx, target.communityId, person.companyName);
  return undefined;
}

/** "acme.co.uk" -> "Acme": a readable name until someone gives the real one. */
export function organizationNameOf(domain: string): string {
  const label = domain.split('.')[0] ?? domain;
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** Tags of a push: by ID (must exist and be live) or by name (made when missing). Unknown IDs are warnings. */
export async function applyTags(
  trx: Transaction<DB>,
  target: PushTarget,
  entity: { type: 'contact' | 'activity'; id: number },
  refs: ApiUser['tags'],
  warnings: string[],
) {
  if (!refs?.length) return;
  // The schema lets a tag ID come as a number too; the tag service reads IDs as text.
  const given = refs.map((ref) => (ref.type === 'id' ? { type: 'id' as const, id: String(ref.id) } : ref));
  const { tagIds, invalid } = await tagTx.resolveTagRefs(trx, target.communityId, given, entity.type === 'contact' ? 'member' : 'activity');
  for (const ref of invalid) warnings.push(`tag ${ref}: no such live tag; it was not assigned`);
  await tagTx.assignTags(trx, target.communityId, entity.type, entity.id, tagIds);
}
