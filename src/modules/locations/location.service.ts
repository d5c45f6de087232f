import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { META_COLS, parseCols } from '../../http/cols.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, parseId } from '../../core/ids.ts';
import * as locations from './location.repository.ts';

function present(row: locations.LocationRow) {
  return { id: formatId('location', row.id), name: row.name, type: row.type, city: row.city, region: row.region, country: row.country };
}

export function createLocationService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  return {
    /** GET /api/v2/locations: one type's locations with members, by member count descending, ties by ID. */
    async list(communityId: number, query: { locationType?: string; limit: number; cursor?: string; cols?: string }) {
      const type = query.locationType;
      if (!type || !(locations.LOCATION_TYPES as readonly string[]).includes(type)) {
        throw invalidParameters(
          `${type ? `locationType "${type}" is not one of` : 'locationType is required; one of'} ${locations.LOCATION_TYPES.join(', ')}`,
        );
      }
      const locationType = type as locations.LocationType;
      const cols = parseCols(query.cols, META_COLS);
      const binding = { community: communityId, list: 'locations', sort: 'member_count', direction: 'desc' as const, filters: { locationType } };
      const after = query.cursor ? deps.cursors.decode(query.cursor, binding) : null;
      const page = await locations.pageLocations(deps.db, communityId, locationType, { limit: query.limit, after });
      return {
        data: page.rows.map(present),
        meta: {
          nextCursor: page.next ? deps.cursors.encode(binding, page.next) : null,
          ...(cols.recordCount ? { recordCount: await locations.countLocations(deps.db, communityId, locationType) } : {}),
        },
      };
    },

    async get(communityId: number, id: string) {
      const key = parseId('location', id);
      const row = await locations.findLocation(deps.db, communityId, key);
      if (!row) throw notFound('location_not_found', `no location ${id}`);
      return present(row);
    },
  };
}

export type LocationService = ReturnType<typeof createLocationService>;
