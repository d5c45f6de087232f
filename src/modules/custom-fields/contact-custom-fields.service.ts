import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { HearthError, notFound } from '../../core/errors.ts';
import { ID_PREFIXES, parseKey } from '../../core/ids.ts';
import * as fields from './contact-custom-fields.repository.ts';

/** `destinationSourceId` as the core takes it: the source's integer ID, or `sig_N`. */
function parseSourceId(raw: string): number {
  const text = raw.trim();
  const key = parseKey(text.startsWith(ID_PREFIXES.provider) ? text.slice(ID_PREFIXES.provider.length) : text);
  if (key === null) {
    throw new HearthError('invalid_source_id', `destinationSourceId ${JSON.stringify(raw)} is not a valid source ID (expected an integer or sig_<number>)`);
  }
  return key;
}

export function createContactCustomFieldService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    /**
     * GET /community/v1/members/customFields: the contact custom fields, `[{id, name, type, multivalue,
     * values}]`. With `destinationSourceId`, only the fields that source may write; the source must be one
     * of the community's (404 otherwise).
     */
    async listCore(communityId: number, query: { destinationSourceId?: string }) {
      let sourceId: number | null = null;
      if (query.destinationSourceId !== undefined) {
        sourceId = parseSourceId(query.destinationSourceId);
        if (!(await fields.sourceExists(db, communityId, sourceId))) {
          throw notFound('source_not_found', `source ${query.destinationSourceId} not found`);
        }
      }
      return fields.listContactCustomFields(db, communityId, sourceId);
    },
  };
}

export type ContactCustomFieldService = ReturnType<typeof createContactCustomFieldService>;
