import { sql } from 'kysely';
import { col, numberField, prefixedId, scalarField, textArrayField, timeField } from '../../filters/field-kinds.ts';
import type { ListFields } from '../../filters/field-registry.ts';

/** The prospector contact list's own filterable fields; the list query names contacts `pc`. */
export const PROSPECTOR_CONTACT_FILTERS: ListFields = {
  listName: 'prospector contacts',
  table: 'prospector_contacts',
  alias: 'pc',
  shared: true,
  fields: [
    scalarField('name', () => col('pc', 'name')),
    scalarField('fullName', () => col('pc', 'full_name')),
    scalarField('title', () => col('pc', 'title')),
    scalarField('seniority', () => col('pc', 'seniority')),
    scalarField('role', () => col('pc', 'role')),
    scalarField('linkedInHandle', () => col('pc', 'linkedin_handle')),
    numberField('linkedInFollowerCount', () => col('pc', 'linkedin_follower_count')),
    textArrayField('skills', col('pc', 'skills')),
    scalarField('location.city', () => col('pc', 'city')),
    scalarField('location.region', () => col('pc', 'region')),
    scalarField('location.country', () => col('pc', 'country')),
    // The company's name, read by the primary key of the contact's company.
    scalarField('companyName', () => sql`(select f_pco.name from prospector_companies f_pco where f_pco.id = pc.company_id)`),
    scalarField('companyId', () => col('pc', 'company_id'), { type: 'bigint', item: prefixedId('prospector_company', 'a prospector company') }),
    timeField('lastOrgChange', col('pc', 'last_org_change_at')),
  ],
};
