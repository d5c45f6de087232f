import { parseCoreId, parseId } from '../../core/ids.ts';
import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { CoreTag, CoreTagList, CoreTagParams, NewTagBody, UpdateTagBody, V2TagItem, V2TagPage, V2TagParams, V2TagsQuery } from './tag.schemas.ts';
import { coreTag, v2Tag } from './tag.presenters.ts';
import type { TagService } from './tag.service.ts';

export function tagRoutes(app: HearthApp, services: { tags: TagService }) {
  const write = { auth: { all: ['tags:write' as const] } };
  const reader = { auth: { all: ['contacts:read' as const] } };

  app.post(
    '/community/v1/tags',
    {
      config: write,
      schema: {
        operationId: 'createCoreTag',
        tags: ['core'],
        summary: 'Create a tag',
        description:
          'Returns the existing tag when one has the same name (trimmed, case-insensitive): undeleted if it was ' +
          'deleted, and allowing the given entity types as well as its own.',
        body: NewTagBody,
        response: { 200: CoreTag },
      },
    },
    async (request) => coreTag(await services.tags.create(contextOf(request), request.body)),
  );

  app.get(
    '/community/v1/tags',
    {
      config: reader,
      schema: { operationId: 'listCoreTags', tags: ['core'], summary: 'List tags (deleted ones left out)', response: { 200: CoreTagList } },
    },
    async (request) => ({ labels: (await services.tags.all(contextOf(request).communityId)).map(coreTag) }),
  );

  app.get(
    '/community/v1/tags/:id',
    {
      config: reader,
      schema: {
        operationId: 'getCoreTag',
        tags: ['core'],
        summary: 'Get a tag',
        description: 'A deleted tag stays readable, with `deletedAt`.',
        params: CoreTagParams,
        response: { 200: CoreTag },
      },
    },
    async (request) => coreTag(await services.tags.get(contextOf(request).communityId, parseCoreId('tag', request.params.id))),
  );

  app.post(
    '/community/v1/tags/:id',
    {
      config: write,
      schema: {
        operationId: 'updateCoreTag',
        tags: ['core'],
        summary: 'Update a tag',
        description:
          'Sets the name and, when given, the description (null clears it). Undeletes a deleted tag, without its ' +
          'old assignments. The name of another tag is a 409.',
        params: CoreTagParams,
        body: UpdateTagBody,
        response: { 200: CoreTag },
      },
    },
    async (request) => coreTag(await services.tags.update(contextOf(request), parseCoreId('tag', request.params.id), request.body)),
  );

  app.delete(
    '/community/v1/tags/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteCoreTag',
        tags: ['core'],
        summary: 'Delete a tag',
        description: 'Soft delete: the tag is removed from every contact, organization and activity. Answers the deleted tag.',
        params: CoreTagParams,
        response: { 200: CoreTag },
      },
    },
    async (request) => coreTag(await services.tags.remove(contextOf(request), parseCoreId('tag', request.params.id))),
  );

  app.get(
    '/api/v2/tags',
    {
      config: { ...reader, read: { paged: true } },
      schema: {
        operationId: 'listTags',
        tags: ['v2'],
        summary: 'List tags',
        description: 'Keyset paging in ID order; deleted tags are left out.',
        querystring: V2TagsQuery,
        response: { 200: V2TagPage },
      },
    },
    async (request) => {
      const page = await services.tags.page(contextOf(request).communityId, listQueryOf(request).page);
      return { success: true as const, data: page.rows.map(v2Tag), meta: { nextCursor: page.nextCursor } };
    },
  );

  app.get(
    '/api/v2/tags/:id',
    {
      config: reader,
      schema: {
        operationId: 'getTag',
        tags: ['v2'],
        summary: 'Get a tag',
        description: 'A deleted tag stays readable, with `deletedAt`.',
        params: V2TagParams,
        response: { 200: V2TagItem },
      },
    },
    async (request) => ({ success: true as const, data: v2Tag(await services.tags.get(contextOf(request).communityId, parseId('tag', request.params.id))) }),
  );
}
