import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { ListQuery } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import * as locations from './location.repository.ts';

function present(row: locations.LocationRow) {
  return { id: formatId('location', row.id), name: row.name, type: row.type, city: row.city, region: row.region, country: row.country };
}

export function createLocationService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  return {
    /** GET /api/v2/locations: one type's locations with members, by member count descending, ties by ID. */
    async list(communityId: number, query: ListQuery & { locationType?: string }) {
      const type = query.locationType;
      if (!type || !(locations.LOCATION_TYPES as readonly string[]).includes(type)) {
        throw invalidParameters(`${type ? `locationType "${type}" is not one of` : 'locationType is required; one of'} ${locations.LOCATION_TYPES.join(', ')}`);
      }
      const locationType = type as locations.LocationType;
      const { cols } = query;
      const binding = { community: communityId, list: 'locations', sort: 'member_count', direction: 'desc' as const, filters: { locationType } };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) =>
        locations.pageLocations(deps.db, communityId, locationType, { limit: query.page.limit, after }),
      );
      return {
        data: page.rows.map(present),
        meta: {
          nextCursor: page.nextCursor,
          ...(cols.recordCount ? { recordCount: await locations.countLocations(deps.db, communityId, locationType) } : {}),
        },
      };
    },

    async get(communityId: number, id: number) {
      const row = await locations.findLocation(deps.db, communityId, id);
      if (!row) throw notFound('location_not_found', `no location ${formatId('location', id)}`);
      return present(row);
    },
  };
}

export type LocationService = ReturnType<typeof createLocationService>;
