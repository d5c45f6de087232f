import { parseCustomFieldId, type CustomFieldChanges, type NewCustomField } from '../../modules/custom-fields/index.ts';
import { community, communityWriter, required, table, UsageError, yesNoOption, type Command, type Options } from '../command.ts';

/** A comma-separated list; an empty string is the empty list (`--writers ""`: every source). */
const list = (value: string) => (value.trim() === '' ? [] : value.split(',').map((item) => item.trim()));

function sourceIds(value: string): number[] {
  return list(value).map((item) => {
    if (!/^\d+$/.test(item)) throw new UsageError(`--writers takes source IDs (numbers, as \`hearth source list\` shows), not "${item}"`);
    return Number(item);
  });
}

/** What `add` and `update` read alike. */
function common(values: Options): CustomFieldChanges {
  return {
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values.type !== undefined ? { valueType: values.type } : {}),
    ...(values.values !== undefined ? { allowedValues: list(values.values) } : {}),
    ...(values.multivalue !== undefined ? { multivalue: yesNoOption(values.multivalue, '--multivalue') } : {}),
    ...(values.description !== undefined ? { description: values.description === '' ? null : values.description } : {}),
    ...(values.writers !== undefined ? { writableBySourceIds: sourceIds(values.writers) } : {}),
  };
}

export const customFieldCommand: Command = {
  name: 'custom-field',
  run: {
    async add({ services, values, emit }) {
      const given: NewCustomField = {
        ...common(values),
        name: required(values.name, '--name'),
        entityTypes: list(required(values.entity, '--entity')),
        valueType: required(values.type, '--type'),
        ...(values['object-type'] !== undefined ? { objectTypeId: values['object-type'] } : {}),
      };
      const field = await services.customFieldAdmin.create(await communityWriter({ services, values }), given);
      emit(field, `Defined ${field.id} "${field.name}" (${field.valueType}${field.multivalue ? ', multivalue' : ''}) for ${field.entityTypes.join(', ')}.`);
      return 0;
    },
    async list({ services, values, emit }) {
      const fields = await services.customFieldAdmin.list(await community(services, values.community), values.all ?? false);
      const rows = fields.map((field) => [
        field.id,
        field.name,
        field.entityTypes.join(','),
        `${field.valueType}${field.multivalue ? ' (multi)' : ''}`,
        field.allowedValues.join(', '),
        field.writableBySourceIds.join(',') || 'any',
        String(field.valueCount),
        field.retiredAt ? `retired ${field.retiredAt}` : '',
      ]);
      emit(fields, rows.length ? table(['FIELD', 'NAME', 'FOR', 'TYPE', 'ALLOWED', 'WRITERS', 'VALUES', ''], rows) : '(none)');
      return 0;
    },
    async update({ services, values, args, emit }) {
      const id = parseCustomFieldId(required(args[0], 'the custom field ID (cf_N)'));
      const changes = common(values);
      if (Object.keys(changes).length === 0) throw new UsageError('say what changes: --name, --type, --values, --multivalue, --description or --writers');
      const field = await services.customFieldAdmin.update(await communityWriter({ services, values }), id, changes);
      emit(field, `Changed ${field.id} "${field.name}".`);
      return 0;
    },
    async retire({ services, values, args, emit }) {
      const id = parseCustomFieldId(required(args[0], 'the custom field ID (cf_N)'));
      const field = await services.customFieldAdmin.retire(await communityWriter({ services, values }), id);
      emit(field, `Retired ${field.id} "${field.name}"; its ${field.valueCount} value(s) stay stored.`);
      return 0;
    },
  },
};
