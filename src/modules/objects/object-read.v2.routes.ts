import { parseOptionalId } from '../../core/ids.ts';
import { getQueryOf, sortedListQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  OBJECT_GET_COLS,
  OBJECT_LIST_COLS,
  OBJECT_SORT,
  ObjectItem,
  ObjectPage,
  ObjectParams,
  ObjectQuery,
  ObjectsQuery,
  ObjectTypeList,
} from './object.schemas.ts';
import type { ObjectTypeService } from './object-type.service.ts';
import type { ObjectService } from './object-read.service.ts';

export function objectRoutes(app: HearthApp, services: { objectTypes: ObjectTypeService; objects: ObjectService }) {
  const auth = { all: ['objects:read' as const] };

  app.get(
    '/api/v2/object-types',
    {
      config: { auth },
      schema: {
        operationId: 'listObjectTypes',
        tags: ['v2'],
        summary: 'List custom object types',
        description: 'Every object type in ID order, with its associations to contacts, organizations or other object types. Not paged.',
        response: { 200: ObjectTypeList },
      },
    },
    async (request) => ({ success: true as const, data: await services.objectTypes.list(contextOf(request).communityId) }),
  );

  app.get(
    '/api/v2/objects',
    {
      config: { auth, read: { paged: true, cols: OBJECT_LIST_COLS, sort: OBJECT_SORT } },
      schema: {
        operationId: 'listObjects',
        tags: ['v2'],
        summary: 'List custom objects of one type',
        description:
          'Keyset paged, by `id` (default) or `name` (case-insensitive, ties by ID). `objectTypeId` is required; ' +
          '`segmentId` keeps the members of an object segment of that type. Every object carries its custom field values.',
        querystring: ObjectsQuery,
        response: { 200: ObjectPage },
      },
    },
    async (request) => {
      const { objectTypeId, segmentId, lightFilter } = request.query;
      const query = {
        ...sortedListQueryOf(request),
        objectTypeId: parseOptionalId('object_type', objectTypeId),
        segmentId: parseOptionalId('segment', segmentId),
        lightFilter,
      };
      return { success: true as const, ...(await services.objects.list(contextOf(request).communityId, query)) };
    },
  );

  app.get(
    '/api/v2/objects/:id',
    {
      config: { auth, read: { id: 'object', cols: OBJECT_GET_COLS } },
      schema: {
        operationId: 'getObject',
        tags: ['v2'],
        summary: 'Get a custom object',
        description: '`cols` takes `recordKey`.',
        params: ObjectParams,
        querystring: ObjectQuery,
        response: { 200: ObjectItem },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.objects.get(contextOf(request).communityId, getQueryOf(request)),
    }),
  );
}
