import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { formatId } from '../../http/ids.ts';
import * as objectTypes from './object-type.repository.ts';

export function createObjectTypeService(deps: { db: Kysely<DB> }) {
  return {
    /** GET /api/v2/object-types: every object type in ID order, with its associations. */
    async list(communityId: number) {
      const [types, assocs] = await Promise.all([
        objectTypes.listObjectTypes(deps.db, communityId),
        objectTypes.listObjectTypeAssocs(deps.db, communityId),
      ]);
      const byType = new Map<number, objectTypes.ObjectTypeAssocRow[]>();
      for (const assoc of assocs) byType.set(assoc.objectTypeId, [...(byType.get(assoc.objectTypeId) ?? []), assoc]);
      return types.map((type) => ({
        id: formatId('object_type', type.id),
        name: type.name,
        assocs: (byType.get(type.id) ?? []).map((assoc) => ({
          objectAssocType: assoc.assocType,
          targetEntity: assoc.targetEntity,
          targetObjectTypeId: assoc.targetObjectTypeId === null ? null : formatId('object_type', assoc.targetObjectTypeId),
        })),
      }));
    },
  };
}

export type ObjectTypeService = ReturnType<typeof createObjectTypeService>;
