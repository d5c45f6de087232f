import { col, prefixedId, scalarField, timeField } from '../../filters/field-kinds.ts';
import type { ListFields } from '../../filters/field-registry.ts';
import { segmentsField } from '../segments/index.ts';

/** The custom object list's own filterable fields; the list query names objects `ob`. */
export const OBJECT_FILTERS: ListFields = {
  listName: 'objects',
  table: 'objects',
  alias: 'ob',
  fields: [
    scalarField('name', () => col('ob', 'name')),
    scalarField('recordKey', () => col('ob', 'record_key')),
    scalarField('objectTypeId', () => col('ob', 'object_type_id'), { type: 'bigint', item: prefixedId('object_type', 'an object type') }),
    segmentsField('ob', 'object'),
    timeField('createdAt', col('ob', 'created_at')),
    timeField('updatedAt', col('ob', 'updated_at')),
  ],
};
