import { parseId } from '../../core/ids.ts';
import { META_COLS } from '../../http/cols.ts';
import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { TopicParams, TopicResponse, TopicsQuery, TopicsResponse } from './topic.schemas.ts';
import type { TopicService } from './topic.service.ts';

export function topicRoutes(app: HearthApp, services: { topics: TopicService }) {
  app.get(
    '/api/v2/topics',
    {
      config: { auth: { all: ['contacts:read'] }, read: { paged: true, cols: META_COLS } },
      schema: {
        operationId: 'listTopics',
        tags: ['v2'],
        summary: 'List topics extracted from activities',
        description: 'Alphabetical by name (case-insensitive, ties by ID); `query` is a case-insensitive prefix.',
        querystring: TopicsQuery,
        response: { 200: TopicsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await services.topics.list(contextOf(request).communityId, { ...listQueryOf(request), query: request.query.query })),
    }),
  );

  app.get(
    '/api/v2/topics/:id',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: { operationId: 'getTopic', tags: ['v2'], summary: 'Get a topic', params: TopicParams, response: { 200: TopicResponse } },
    },
    async (request) => ({ success: true as const, data: await services.topics.get(contextOf(request).communityId, parseId('topic', request.params.id)) }),
  );
}
