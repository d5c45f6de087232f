import { parseCoreId } from '../../core/ids.ts';
import { getQueryOf, listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  CoreIdName,
  CoreSegmentAddBody,
  CoreSegmentAddResult,
  CoreSegmentList,
  CoreSegmentParams,
  CoreStatusList,
  SEGMENT_GET_COLS,
  SEGMENT_LIST_COLS,
  V2SegmentItem,
  V2SegmentPage,
  V2SegmentParams,
  V2SegmentQuery,
  V2SegmentsQuery,
} from './segment.schemas.ts';
import type { SegmentService } from './segment-read.service.ts';

export function segmentRoutes(app: HearthApp, services: { segments: SegmentService }) {
  app.get(
    '/community/v1/segments',
    {
      config: { auth: { all: ['segments:read'] } },
      schema: { operationId: 'listCoreSegments', tags: ['core'], summary: 'List contact segments', response: { 200: CoreSegmentList } },
    },
    async (request) => services.segments.contactSegments(contextOf(request).communityId),
  );

  app.get(
    '/community/v1/segments/:id',
    {
      config: { auth: { all: ['segments:read'] } },
      schema: { operationId: 'getCoreSegment', tags: ['core'], summary: 'Get a contact segment', params: CoreSegmentParams, response: { 200: CoreIdName } },
    },
    async (request) => services.segments.contactSegment(contextOf(request).communityId, parseCoreId('segment', request.params.id)),
  );

  app.get(
    '/community/v1/segments/:id/status',
    {
      config: { auth: { all: ['segments:read'] } },
      schema: {
        operationId: 'listCoreSegmentStatuses',
        tags: ['core'],
        summary: 'List the statuses of a contact segment',
        params: CoreSegmentParams,
        response: { 200: CoreStatusList },
      },
    },
    async (request) => services.segments.statuses(contextOf(request).communityId, parseCoreId('segment', request.params.id)),
  );

  app.post(
    '/community/v1/segments/:id',
    {
      config: { auth: { all: ['segments:write'] } },
      schema: {
        operationId: 'addCoreContactsToSegment',
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
    async (request) => services.segments.addContacts(contextOf(request), parseCoreId('segment', request.params.id), request.body),
  );

  app.get(
    '/api/v2/segments',
    {
      config: { auth: { all: ['segments:read'] }, read: { paged: true, cols: SEGMENT_LIST_COLS } },
      schema: {
        operationId: 'listSegments',
        tags: ['v2'],
        summary: 'List segments',
        description:
          'Segments of every entity type (contact, organization, object) in ID order, keyset paged. `query` keeps those ' +
          'whose name contains it (case-insensitive). `cols=entityCount` adds member counts, `cols=url` the console address.',
        querystring: V2SegmentsQuery,
        response: { 200: V2SegmentPage },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await services.segments.page(contextOf(request).communityId, { ...listQueryOf(request), query: request.query.query })),
    }),
  );

  app.get(
    '/api/v2/segments/:id',
    {
      config: { auth: { all: ['segments:read'] }, read: { id: 'segment', cols: SEGMENT_GET_COLS } },
      schema: {
        operationId: 'getSegment',
        tags: ['v2'],
        summary: 'Get a segment',
        description: 'A segment of any entity type. `cols` takes `entityCount` and `url`.',
        params: V2SegmentParams,
        querystring: V2SegmentQuery,
        response: { 200: V2SegmentItem },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.segments.get(contextOf(request).communityId, getQueryOf(request)),
    }),
  );
}
