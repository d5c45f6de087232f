import { col, numberField, prefixedId, scalarField, textArrayField } from '../../filters/field-kinds.ts';
import type { ListFields } from '../../filters/field-registry.ts';

/** The prospector company list's own filterable fields; the list query names companies `pco`. */
export const PROSPECTOR_COMPANY_FILTERS: ListFields = {
  listName: 'prospector companies',
  table: 'prospector_companies',
  alias: 'pco',
  shared: true,
  fields: [
    scalarField('name', () => col('pco', 'name')),
    numberField('employees', () => col('pco', 'employees')),
    numberField('raised', () => col('pco', 'raised')),
    // The NAICS code as GET /api/v2/industries names it: naics_<code>.
    scalarField('industry', () => col('pco', 'industry_code'), { type: 'bigint', item: prefixedId('industry', 'an industry') }),
    scalarField('subIndustry', () => col('pco', 'sub_industry')),
    textArrayField('technologies', col('pco', 'technologies')),
    scalarField('location.address', () => col('pco', 'address')),
    scalarField('location.city', () => col('pco', 'city')),
    scalarField('location.state', () => col('pco', 'state')),
    scalarField('location.country', () => col('pco', 'country')),
    scalarField('location.countryCode', () => col('pco', 'country_code')),
    numberField('revenueRange.min', () => col('pco', 'revenue_min')),
    numberField('revenueRange.max', () => col('pco', 'revenue_max')),
    numberField('score', () => col('pco', 'score')),
  ],
};
