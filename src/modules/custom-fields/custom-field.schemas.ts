import Type from 'typebox';
import { Nullable, v2Definitions, v2Item } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

export const TypedValue = Type.Object({ type: Type.String(), value: Type.Unknown() }, { description: 'A custom field value: `{type, value}`.' });

export const CustomFieldValues = Type.Record(Type.String(), TypedValue, {
  description: 'Custom field values by field ID (`cf_<id>`); only fields with a value appear.',
});

export const CUSTOM_FIELD_ENTITY_TYPES = ['contact', 'organization', 'object'] as const;

/** The v2 custom field definition. */
export const CustomFieldDefinition = component(
  'CustomField',
  Type.Object({
    id: Type.String({ description: 'cf_N' }),
    name: Type.String(),
    entityTypes: Type.Array(Type.String(), { description: 'What the field applies to: contact, organization, object.' }),
    keyField: Type.Boolean(),
    valueType: Type.String({ description: 'string, url, int, number, date, boolean or enum' }),
    sampleValues: Type.Array(TypedValue),
    description: Nullable(Type.String()),
    targetSubTypes: Type.Array(Type.String()),
    providedBy: Type.String({ description: 'Who fills the field: `user` for fields the community defined.' }),
    objectTypeId: Nullable(Type.String({ description: 'cot_N: the object type of a custom object field.' })),
  }),
);

/** `entityType` is checked by the service, so an unknown one is a 400 that names the accepted values. */
export const CustomFieldsQuery = Type.Object(
  { entityType: Type.Optional(Type.String({ description: `Only the fields of one entity type: ${CUSTOM_FIELD_ENTITY_TYPES.join(', ')}.` })) },
  { additionalProperties: false },
);

export const CustomFieldParams = Type.Object({ id: Type.String({ description: 'cf_N' }) });

export const CustomFieldDefinitionItem = v2Item(CustomFieldDefinition);
export const CustomFieldDefinitionList = v2Definitions(CustomFieldDefinition);
