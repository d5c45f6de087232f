import Type from 'typebox';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { ASSOC_TYPE_PATTERN, OBJECT_TYPE_NAME_MAX, TARGET_ENTITIES } from './object-type-admin.service.ts';
import { MAX_RECORDS_PER_UPSERT, OBJECT_NAME_MAX, RECORD_KEY_MAX } from './object-upsert.service.ts';
import { ObjectType } from './object.schemas.ts';

export const NewAssocBody = Type.Object(
  {
    objectAssocType: Type.String({ pattern: ASSOC_TYPE_PATTERN, description: "The association's key within its type: letters, digits, `_`, `-` (1..100)." }),
    targetEntity: Type.Enum([...TARGET_ENTITIES]),
    targetObjectTypeId: Type.Optional(Nullable(Type.String({ description: 'cot_N: required exactly when targetEntity is object.' }))),
  },
  { additionalProperties: false },
);

export const NewObjectTypeBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: OBJECT_TYPE_NAME_MAX, description: 'Unique in the community, whatever its case.' }),
    assocs: Type.Optional(Type.Array(NewAssocBody, { maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const ObjectTypeParams = Type.Object({ id: Type.String({ description: 'cot_N' }) });
export const ObjectTypeAssocParams = Type.Object({ id: Type.String({ description: 'cot_N' }), objectAssocType: Type.String() });

const CustomFieldWrite = Type.Object(
  {
    customFieldId: Type.String({ description: 'cf_N: a custom field of objects (of this type, or of every type).' }),
    customFieldValue: Nullable(
      Type.Object(
        { type: Type.Optional(Type.String()), value: Type.Optional(Type.Unknown()) },
        { additionalProperties: false, description: '`{type, value}`; null (or a null value) clears the field.' },
      ),
    ),
  },
  { additionalProperties: false },
);

const AssociationWrite = Type.Object(
  {
    objectAssocType: Type.String({ description: 'An association of the object type.' }),
    targetId: Type.String({ description: "c_N, o_N or co_N, as the association's target entity says. A merged contact's ID stands for its survivor." }),
  },
  { additionalProperties: false },
);

/** One record of an upsert, and one line of a `hearth objects import` file. */
export const ObjectRecord = Type.Object(
  {
    recordKey: Type.String({ minLength: 1, maxLength: RECORD_KEY_MAX, description: "The object's key within its type: an existing key updates that object." }),
    name: Type.String({ minLength: 1, maxLength: OBJECT_NAME_MAX }),
    customFields: Type.Optional(Type.Array(CustomFieldWrite, { description: 'Values to set (null clears); fields not listed keep their values.' })),
    associations: Type.Optional(
      Type.Array(AssociationWrite, {
        description: "When given, the object's associations become exactly these ([] removes them all); when absent, they stay.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ObjectUpsertBody = Type.Object(
  {
    objectTypeId: Type.String({ description: 'cot_N' }),
    records: Type.Array(ObjectRecord, { minItems: 1, maxItems: MAX_RECORDS_PER_UPSERT }),
  },
  { additionalProperties: false },
);

export const ObjectTypeItem = v2Item(ObjectType);
export const ObjectUpsertResponse = v2Item(
  Type.Object({
    ids: Type.Array(Type.String(), { description: 'co_N of each record, in the order given.' }),
    created: Type.Integer(),
    updated: Type.Integer(),
  }),
);
