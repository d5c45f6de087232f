import Type from 'typebox';
import { Cursor, Limit, Nullable, PageMeta, v2Item, v2Page } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

export const Location = component(
  'Location',
  Type.Object({
    id: Type.String({ description: 'loc_N' }),
    name: Type.String({ description: 'e.g. "Austin, Texas, United States", "Texas, United States", "United States", "North America"' }),
    type: Type.Enum(['city', 'country', 'country_region', 'world_region']),
    city: Nullable(Type.String()),
    region: Nullable(Type.String()),
    country: Nullable(Type.String()),
  }),
);

/** `locationType` is checked by the service, so a missing or unknown one is a 400 that names the accepted values. */
export const LocationsQuery = Type.Object(
  {
    locationType: Type.Optional(Type.String({ description: 'Required: city, country, country_region or world_region.' })),
    limit: Limit,
    cursor: Type.Optional(Cursor),
    cols: Type.Optional(Type.String({ description: 'Comma-separated meta columns: `recordCount`.' })),
  },
  { additionalProperties: false },
);

export const LocationParams = Type.Object({ id: Type.String() });

export const LocationResponse = v2Item(Location);
export const LocationsResponse = v2Page(Location, PageMeta);
