import { col, numberField, scalarField } from '../../filters/field-kinds.ts';
import type { ListFields } from '../../filters/field-registry.ts';
import { locationFields } from '../locations/index.ts';
import { segmentsField } from '../segments/index.ts';
import { tagsField } from '../tags/index.ts';

/** The organization list's own filterable fields; the list query names organizations `o`. */
export const ORGANIZATION_FILTERS: ListFields = {
  listName: 'organizations',
  table: 'organizations',
  alias: 'o',
  fields: [
    scalarField('name', () => col('o', 'name')),
    scalarField('primaryDomain', () => col('o', 'primary_domain')),
    tagsField('o', 'organization'),
    segmentsField('o', 'organization'),
    numberField('contactsCount', () => col('o', 'member_count')),
    numberField('employees', () => col('o', 'employees')),
    ...locationFields('o'),
  ],
};
