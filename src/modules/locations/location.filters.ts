import { col, scalarField, type FilterField } from '../../filters/field-kinds.ts';

/** `location.*` of a list whose base table (by its alias) holds a location in country, region and city. */
export function locationFields(alias: string): FilterField[] {
  return [
    scalarField('location.country', () => col(alias, 'country')),
    scalarField('location.region', () => col(alias, 'region')),
    scalarField('location.city', () => col(alias, 'city')),
  ];
}
