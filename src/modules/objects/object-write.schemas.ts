import Type from 'typebox';

/** Custom field values one PATCH may set (ours: the interface sets no limit). */
export const MAX_OBJECT_FIELD_WRITES = 100;

export const ObjectFieldWrite = Type.Object(
  {
    customFieldId: Type.String({ description: 'cf_N: a live object custom field, of this object type when the field names one.' }),
    customFieldValue: Type.Union(
      [
        Type.Object(
          {
            type: Type.String({ description: "The field's value type (string, url, int, number, date, boolean, enum)." }),
            value: Type.Unknown({ description: 'A value of that type; null clears the field.' }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'null clears the field.' },
    ),
  },
  { additionalProperties: false },
);

export const SetObjectFieldsBody = Type.Object(
  {
    customFields: Type.Array(ObjectFieldWrite, {
      minItems: 1,
      maxItems: MAX_OBJECT_FIELD_WRITES,
      description: `1..${MAX_OBJECT_FIELD_WRITES} values, each field at most once.`,
    }),
  },
  { additionalProperties: false },
);

export const AddObjectToSegmentBody = Type.Object(
  { segmentId: Type.String({ description: "s_N: an object segment of the object's type." }) },
  { additionalProperties: false },
);
