import Type from 'typebox';

export const TypedValue = Type.Object({ type: Type.String(), value: Type.Unknown() }, { description: 'A custom field value: `{type, value}`.' });

export const CustomFieldValues = Type.Record(Type.String(), TypedValue, {
  description: 'Custom field values by field ID (`cf_<id>`); only fields with a value appear.',
});
