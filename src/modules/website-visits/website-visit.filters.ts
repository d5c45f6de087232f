import { col, prefixedId, scalarField, TEXT_OPS, timeField } from '../../filters/field-kinds.ts';
import type { ListFields } from '../../filters/field-registry.ts';

/** The website visit list's own filterable fields; the list query names website visits `w`. */
export const WEBSITE_VISIT_FILTERS: ListFields = {
  listName: 'website visits',
  table: 'website_visits',
  alias: 'w',
  fields: [
    scalarField('url', () => col('w', 'url'), { ops: { stringFilter: TEXT_OPS.stringFilter } }),
    scalarField('contactId', () => col('w', 'contact_id'), { type: 'bigint', item: prefixedId('contact', 'a contact') }),
    scalarField('organizationId', () => col('w', 'organization_id'), { type: 'bigint', item: prefixedId('organization', 'an organization') }),
    timeField('visitTime', col('w', 'visit_time')),
  ],
};
