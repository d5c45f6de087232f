import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { HearthError, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import { normalizeEmail, normalizeHandle, type Identity, type Normalized } from '../identity/index.ts';
import { identityTx } from '../identity/index.ts';
import * as lookup from './contact-lookup.repository.ts';

export interface LookupQuery {
  email?: string;
  twitter?: string;
  github?: string;
  linkedin?: string;
}

const invalid = (detail: string) => new HearthError('invalid_parameters', detail, { coreReason: 'invalid-request-parameters' });

export function createContactLookupService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const contactUrl = (id: number) => `${deps.publicUrl}/contacts/${formatId('contact', id)}`;
  // Members only: a console user's staff contact is nobody a lookup of the community finds (docs/console.md).
  const contactsHolding = async (communityId: number, identities: Identity[]) =>
    lookup.membersAmong(deps.db, communityId, [
      ...new Set((await identityTx.findIdentityOwners(deps.db, communityId, identities)).map((owner) => owner.contactId)),
    ]);

  return {
    /** GET /community/v1/members: the contacts holding any of the given identities; 404 when none does. */
    async lookup(communityId: number, query: LookupQuery) {
      const given = Object.entries(query).filter(([, value]) => value !== undefined) as [keyof LookupQuery, string][];
      if (given.length === 0) throw invalid('give at least one of email, twitter, github, linkedin');
      const identities: Identity[] = given.map(([name, value]) => {
        const result: Normalized = name === 'email' ? normalizeEmail(value) : normalizeHandle(name, value);
        if (!result.ok) throw invalid(`${name}: ${result.reason}`);
        return result.identity;
      });
      const ids = await contactsHolding(communityId, identities);
      if (ids.length === 0) throw notFound('contact_not_found', 'no contact has these identities');
      const rows = await lookup.loadLookupRows(deps.db, communityId, ids);
      return rows.contacts.map((contact) => {
        // The interface declares these fields strings, and clients concatenate them: no value is "" here, not null.
        const handle = (type: string) => rows.identities.find((identity) => identity.contactId === contact.id && identity.type === type)?.display ?? '';
        return {
          fullName: contact.fullName ?? contact.name,
          avatar: contact.avatar ?? '',
          bio: contact.bio ?? '',
          organization: contact.organizationName ?? contact.companyName ?? '',
          title: contact.title ?? '',
          first_seen: contact.firstSeen.toISOString(),
          last_active: contact.lastActive?.toISOString() ?? '',
          url: contactUrl(contact.id),
          twitter: handle('twitter'),
          github: handle('github'),
          linkedin: handle('linkedin'),
          discord: handle('discord'),
          youtube: '',
          common_room_member_url: contactUrl(contact.id),
          activities_count: contact.activitiesCount,
          segments: rows.segments.filter((row) => row.contactId === contact.id).map((row) => ({ id: row.id, name: row.name })),
          custom_fields: rows.customFields
            .filter((row) => row.contactId === contact.id)
            .map((row) => ({ name: row.name, type: row.type, value: (row.value as { value?: unknown } | null)?.value ?? null })),
          location: {
            city: contact.city,
            region: contact.region,
            country: contact.country,
            countryCode: contact.countryCode,
            worldRegion: contact.worldRegion,
          },
          member_tags: rows.tags.filter((row) => row.contactId === contact.id).map((row) => ({ id: formatId('tag', row.id), name: row.name })),
        };
      });
    },

    /** GET /community/v1/user/{email}: the IDs of the contacts with this email; none is `{ids: []}`. */
    async idsByEmail(communityId: number, email: string) {
      const result = normalizeEmail(email);
      if (!result.ok) throw invalid(`email: ${result.reason}`);
      return { ids: await contactsHolding(communityId, [result.identity]) };
    },
  };
}

export type ContactLookupService = ReturnType<typeof createContactLookupService>;
