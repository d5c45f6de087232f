import Type from 'typebox';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';
import { CUSTOM_FIELD_ENTITY_TYPES } from './custom-field.schemas.ts';

export const VALUE_TYPES = ['string', 'url', 'int', 'number', 'date', 'boolean', 'enum'] as const;

const entityTypes = Type.Array(Type.Enum([...CUSTOM_FIELD_ENTITY_TYPES]), {
  minItems: 1,
  maxItems: CUSTOM_FIELD_ENTITY_TYPES.length,
  uniqueItems: true,
  description: 'What the field applies to: contact, organization, object.',
});
const valueType = Type.Enum([...VALUE_TYPES], {
  description: 'string, url (http or https), int, number, date (YYYY-MM-DD), boolean or enum (one of `allowedValues`; with `multivalue`, a multi-select).',
});
const allowedValues = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 500,
  uniqueItems: true,
  description: 'The values an enum field takes, in the order they are offered (required for enum, refused for other types).',
});
const writableBySourceIds = Type.Array(Type.Integer({ minimum: 1 }), {
  maxItems: 100,
  uniqueItems: true,
  description: 'The sources that may write the field through the core pushes (`sourceId` of /api/v2/admin/sources); empty: every source.',
});
const name = Type.String({ minLength: 1, maxLength: 200, description: 'Unique, in any case, among the live fields of each entity type it applies to.' });
const description = Nullable(Type.String({ maxLength: 2000 }));

export const AdminCustomField = component(
  'AdminCustomField',
  Type.Object({
    id: Type.String({ description: 'cf_N' }),
    name: Type.String(),
    entityTypes: Type.Array(Type.String()),
    valueType: Type.String(),
    multivalue: Type.Boolean({ description: 'An enum field that takes several of its values (a multi-select).' }),
    allowedValues: Type.Array(Type.String()),
    keyField: Type.Boolean(),
    description: Nullable(Type.String()),
    objectTypeId: Nullable(Type.String({ description: 'cot_N: the one object type an object field applies to; null: every object type.' })),
    writableBySourceIds: Type.Array(Type.Integer()),
    valueCount: Type.Integer({ description: 'Records holding a value of the field.' }),
    createdAt: Type.String({ format: 'date-time' }),
    retiredAt: Nullable(
      Type.String({ format: 'date-time', description: 'When it was retired: no longer shown, filtered, sorted or written; its values are kept.' }),
    ),
  }),
);

export const NewCustomFieldBody = Type.Object(
  {
    name,
    entityTypes,
    valueType,
    multivalue: Type.Optional(Type.Boolean({ description: 'Only for enum fields (default false).' })),
    allowedValues: Type.Optional(allowedValues),
    keyField: Type.Optional(Type.Boolean({ description: 'Shown among the key fields of a record (default false).' })),
    description: Type.Optional(description),
    objectTypeId: Type.Optional(Type.String({ description: 'cot_N: only for fields that apply to objects.' })),
    writableBySourceIds: Type.Optional(writableBySourceIds),
  },
  { additionalProperties: false },
);

export const CustomFieldChangesBody = Type.Object(
  {
    name: Type.Optional(name),
    description: Type.Optional(description),
    valueType: Type.Optional(valueType),
    multivalue: Type.Optional(Type.Boolean()),
    allowedValues: Type.Optional(allowedValues),
    keyField: Type.Optional(Type.Boolean()),
    writableBySourceIds: Type.Optional(writableBySourceIds),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AdminCustomFieldsQuery = Type.Object(
  { includeRetired: Type.Optional(Type.Boolean({ default: false, description: 'List retired fields too.' })) },
  { additionalProperties: false },
);

export const AdminCustomFieldResponse = v2Item(AdminCustomField);
export const AdminCustomFieldsResponse = v2Item(Type.Array(AdminCustomField));
