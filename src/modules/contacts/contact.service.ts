import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { notFound } from '../../http/errors.ts';
import { formatId, parseId } from '../../http/ids.ts';
import { resolveContactId } from '../identity/identity.repository.ts';
import { findContactState } from './contact.repository.ts';

export function createContactService(deps: { db: Kysely<DB> }) {
  return {
    /**
     * GET /api/v2/contacts/{id}. A merged contact's ID answers with its survivor. Without `cols` a contact
     * is its always-returned fields (decisions.md §7); the opt-in columns come with the read API.
     */
    async get(communityId: number, id: string) {
      const key = parseId('contact', id);
      const live = await resolveContactId(deps.db, communityId, key);
      const contact = live === null ? undefined : await findContactState(deps.db, communityId, live);
      if (live === null || !contact) throw notFound('contact_not_found', `no contact ${id}`);
      return { id: formatId('contact', live), name: contact.name };
    },
  };
}

export type ContactService = ReturnType<typeof createContactService>;
