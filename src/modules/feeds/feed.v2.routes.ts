import { contextOf, type HearthApp } from '../../http/types.ts';
import { FeedFetchResponse, FeedParams, FeedResponse, FeedsResponse, NewFeedBody } from './feed.schemas.ts';
import { parseFeedId, type FeedService } from './feed.service.ts';

export function feedRoutes(app: HearthApp, services: { feeds: FeedService }) {
  app.post(
    '/api/v2/admin/feeds',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'createFeed',
        tags: ['admin'],
        summary: 'Give an organization or custom object a careers board or a news feed',
        description: 'Fetched at once, then every `intervalMinutes` (a failed fetch is tried again sooner, backing off up to the interval).',
        body: NewFeedBody,
        response: { 201: FeedResponse },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await services.feeds.add(contextOf(request), request.body) }),
  );

  app.get(
    '/api/v2/admin/feeds',
    {
      config: { auth: { all: ['admin'] } },
      schema: { operationId: 'listFeeds', tags: ['admin'], summary: 'List feeds with their last fetch', response: { 200: FeedsResponse } },
    },
    async (request) => ({ success: true as const, data: await services.feeds.list(contextOf(request).communityId) }),
  );

  app.get(
    '/api/v2/admin/feeds/:id',
    {
      config: { auth: { all: ['admin'] } },
      schema: { operationId: 'getFeed', tags: ['admin'], summary: 'Get a feed', params: FeedParams, response: { 200: FeedResponse } },
    },
    async (request) => ({ success: true as const, data: await services.feeds.get(contextOf(request).communityId, parseFeedId(request.params.id)) }),
  );

  app.delete(
    '/api/v2/admin/feeds/:id',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'deleteFeed',
        tags: ['admin'],
        summary: 'Remove a feed (what it brought stays)',
        params: FeedParams,
        response: { 200: FeedResponse },
      },
    },
    async (request) => {
      const context = contextOf(request);
      const id = parseFeedId(request.params.id);
      const feed = await services.feeds.get(context.communityId, id);
      await services.feeds.remove(context, id);
      return { success: true as const, data: feed };
    },
  );

  app.post(
    '/api/v2/admin/feeds/:id/fetch',
    {
      config: { auth: { all: ['admin'] } },
      schema: { operationId: 'fetchFeed', tags: ['admin'], summary: 'Fetch a feed now (as a job)', params: FeedParams, response: { 202: FeedFetchResponse } },
    },
    async (request, reply) =>
      reply.code(202).send({ success: true as const, data: await services.feeds.fetchNow(contextOf(request), parseFeedId(request.params.id)) }),
  );
}
