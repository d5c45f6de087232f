import { contextOf, type HearthApp } from '../../http/types.ts';
import { NewSegmentBody, NoContent, RenameSegmentBody, SegmentContactParams, SegmentIdName } from './segment-write.schemas.ts';
import { V2SegmentParams } from './segment.schemas.ts';
import type { SegmentWriteService } from './segment-write.service.ts';

export function segmentWriteRoutes(app: HearthApp, services: { segmentWrites: SegmentWriteService }) {
  const write = { auth: { all: ['segments:write' as const] } };

  app.post(
    '/api/v2/segments',
    {
      config: write,
      schema: {
        operationId: 'createSegment',
        tags: ['v2'],
        summary: 'Create a segment',
        description:
          'A contact (default), organization or object segment; an object segment names its object type (`objectTypeId`). ' +
          'The name is trimmed; a name that another segment of the same entity type has (ignoring case) is a 409 `conflict`. Answers 201.',
        body: NewSegmentBody,
        response: { 201: SegmentIdName },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await services.segmentWrites.create(contextOf(request), request.body) }),
  );

  app.patch(
    '/api/v2/segments/:id',
    {
      config: write,
      schema: {
        operationId: 'renameSegment',
        tags: ['v2'],
        summary: 'Rename a segment',
        description:
          'Sets the name (trimmed); the ID, entity type, description and members stay. A name that another segment of the same ' +
          'entity type has (ignoring case) is a 409 `conflict`.',
        params: V2SegmentParams,
        body: RenameSegmentBody,
        response: { 200: SegmentIdName },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.segmentWrites.rename(contextOf(request), request.params.id, request.body),
    }),
  );

  app.delete(
    '/api/v2/segments/:id/contacts/:contactId',
    {
      config: write,
      schema: {
        operationId: 'removeContactFromSegment',
        tags: ['v2'],
        summary: 'Remove a contact from a segment',
        description:
          'Takes the contact out of the contact segment and answers 204. Idempotent: a contact that is not in the segment ' +
          'answers 204 too, and nothing is written. An unknown segment, or one that holds organizations or objects, is a 404 ' +
          "`segment_not_found`; an unknown contact a 404 `contact_not_found`. A merged contact's ID stands for its survivor.",
        params: SegmentContactParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await services.segmentWrites.removeContact(contextOf(request), request.params.id, request.params.contactId);
      return reply.code(204).send(null);
    },
  );
}
