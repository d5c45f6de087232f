import { parseId } from '../../core/ids.ts';
import { META_COLS } from '../../http/cols.ts';
import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { LocationParams, LocationResponse, LocationsQuery, LocationsResponse } from './location.schemas.ts';
import type { LocationService } from './location.service.ts';

export function locationRoutes(app: HearthApp, services: { locations: LocationService }) {
  app.get(
    '/api/v2/locations',
    {
      config: { auth: { all: ['contacts:read'] }, read: { paged: true, cols: META_COLS } },
      schema: {
        operationId: 'listLocations',
        tags: ['v2'],
        summary: 'List locations of one type, aggregated from contacts',
        description: 'Sorted by member count descending, ties by ID; locations without members are left out.',
        querystring: LocationsQuery,
        response: { 200: LocationsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await services.locations.list(contextOf(request).communityId, { ...listQueryOf(request), locationType: request.query.locationType })),
    }),
  );

  app.get(
    '/api/v2/locations/:id',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: { operationId: 'getLocation', tags: ['v2'], summary: 'Get a location', params: LocationParams, response: { 200: LocationResponse } },
    },
    async (request) => ({ success: true as const, data: await services.locations.get(contextOf(request).communityId, parseId('location', request.params.id)) }),
  );
}
