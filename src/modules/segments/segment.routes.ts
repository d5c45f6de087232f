import { contextOf, type HearthApp } from '../../http/types.ts';
import type { Services } from '../../services.ts';
import { CoreSegmentAddBody, CoreSegmentAddResult, CoreSegmentList, CoreSegmentParams, CoreStatusList } from './segment.schemas.ts';

export function segmentRoutes(app: HearthApp, services: Services) {
  app.get(
    '/community/v1/segments',
    {
      config: { auth: { all: ['segments:read'] } },
      schema: { tags: ['core'], summary: 'List contact segments', response: { 200: CoreSegmentList } },
    },
    async (request) => services.segments.listCore(contextOf(request).communityId),
  );

  app.get(
    '/community/v1/segments/:id/status',
    {
      config: { auth: { all: ['segments:read'] } },
      schema: { tags: ['core'], summary: 'List the statuses of a contact segment', params: CoreSegmentParams, response: { 200: CoreStatusList } },
    },
    async (request) => services.segments.statusesCore(contextOf(request).communityId, request.params.id),
  );

  app.post(
    '/community/v1/segments/:id',
    {
      config: { auth: { all: ['segments:write'] } },
      schema: {
        tags: ['core'],
        summary: 'Add existing contacts to a segment',
        description:
          'Finds contacts by one kind of identity (normalized as ingestion does) and adds them to the segment. ' +
          'Idempotent. Values that are malformed or that no contact holds are listed in `notFound`.',
        params: CoreSegmentParams,
        body: CoreSegmentAddBody,
        response: { 200: CoreSegmentAddResult },
      },
    },
    async (request) => services.segments.addContactsCore(contextOf(request).communityId, request.params.id, request.body),
  );
}
