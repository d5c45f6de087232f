import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { presentObjectType } from './object-type.presenters.ts';
import * as objectTypes from './object-type.repository.ts';

export function createObjectTypeService(deps: { db: Kysely<DB> }) {
  return {
    /** GET /api/v2/object-types: every object type in ID order, with its associations. */
    async list(communityId: number) {
      const [types, assocs] = await Promise.all([objectTypes.listObjectTypes(deps.db, communityId), objectTypes.listObjectTypeAssocs(deps.db, communityId)]);
      const byType = new Map<number, objectTypes.ObjectTypeAssocRow[]>();
      for (const assoc of assocs) byType.set(assoc.objectTypeId, [...(byType.get(assoc.objectTypeId) ?? []), assoc]);
      return types.map((type) => presentObjectType(type, byType.get(type.id) ?? []));
    },
  };
}

export type ObjectTypeService = ReturnType<typeof createObjectTypeService>;
