import { formatId } from '../../core/ids.ts';
import type { ObjectTypeAssocRow, ObjectTypeRow } from './object-type.repository.ts';

/** An object type as v2 shows it (docs/reading.md, Definitions). */
export function presentObjectType(type: ObjectTypeRow, assocs: readonly ObjectTypeAssocRow[]) {
  return {
    id: formatId('object_type', type.id),
    name: type.name,
    assocs: assocs.map((assoc) => ({
      objectAssocType: assoc.assocType,
      targetEntity: assoc.targetEntity,
      targetObjectTypeId: assoc.targetObjectTypeId === null ? null : formatId('object_type', assoc.targetObjectTypeId),
    })),
  };
}
