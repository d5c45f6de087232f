import { parseId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { AddObjectToSegmentBody, SetObjectFieldsBody } from './object-write.schemas.ts';
import { ObjectItem, ObjectParams } from './object.schemas.ts';
import type { ObjectWriteService } from './object-write.service.ts';

export function objectWriteRoutes(app: HearthApp, services: { objectWrites: ObjectWriteService }) {
  const write = { auth: { all: ['objects:write' as const] } };

  app.patch(
    '/api/v2/objects/:id',
    {
      config: write,
      schema: {
        operationId: 'updateObjectCustomFields',
        tags: ['v2'],
        summary: 'Set custom field values on a custom object',
        description:
          'Each value is checked against its definition: a live object custom field (of this object type when the field names one), ' +
          'each at most once, a value of its type; null clears. Every fault is named in one 400 with `error.invalidIds`, and nothing ' +
          'is written. Answers the object as GET /api/v2/objects/{id} shows it.',
        params: ObjectParams,
        body: SetObjectFieldsBody,
        response: { 200: ObjectItem },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.objectWrites.setCustomFields(contextOf(request), parseId('object', request.params.id), request.body),
    }),
  );

  app.post(
    '/api/v2/objects/:id/segments',
    {
      config: write,
      schema: {
        operationId: 'addObjectToSegment',
        tags: ['v2'],
        summary: 'Add a custom object to a segment',
        description:
          "The segment must be an object segment of the object's type (400 `invalid_segment_id` otherwise). Idempotent. " +
          'Answers the object as GET /api/v2/objects/{id} shows it.',
        params: ObjectParams,
        body: AddObjectToSegmentBody,
        response: { 200: ObjectItem },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.objectWrites.addToSegment(contextOf(request), parseId('object', request.params.id), parseId('segment', request.body.segmentId)),
    }),
  );
}
