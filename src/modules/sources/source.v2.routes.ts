import { formatId } from '../../core/ids.ts';
import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { AdminSourceResponse, AdminSourcesResponse, NewSourceBody, ProvidersQuery, ProvidersResponse } from './source.schemas.ts';
import type { SourceRow } from './source.repository.ts';
import type { SourceService } from './source.service.ts';

export function sourceRoutes(app: HearthApp, services: { sources: SourceService }) {
  app.get(
    '/api/v2/providers',
    {
      config: { auth: { all: ['contacts:read'] }, read: { paged: true } },
      schema: {
        operationId: 'listProviders',
        tags: ['v2'],
        summary: 'List signal providers (the visible sources)',
        description: 'Keyset paging in ID order; `direction=desc` walks from the newest.',
        querystring: ProvidersQuery,
        response: { 200: ProvidersResponse },
      },
    },
    async (request) => ({ success: true as const, ...(await services.sources.pageProviders(contextOf(request).communityId, listQueryOf(request).page)) }),
  );

  app.get(
    '/api/v2/admin/sources',
    {
      config: { auth: { all: ['admin'] } },
      schema: { operationId: 'listSources', tags: ['admin'], summary: 'List every source', response: { 200: AdminSourcesResponse } },
    },
    async (request) => ({ success: true as const, data: (await services.sources.list(contextOf(request).communityId)).map(adminSource) }),
  );

  app.post(
    '/api/v2/admin/sources',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'createSource',
        tags: ['admin'],
        summary: 'Create a source',
        description:
          'An API source by default. A file source (`kind: "file"`) takes `path`, a folder under the folder the operator set ' +
          'in `HEARTH_FILE_SOURCE_ROOT` (absolute, or relative to it; links are resolved and must stay under it). Without that ' +
          'setting file sources are made with the CLI only. A refused path is a 400 that says the same whether or not it exists.',
        body: NewSourceBody,
        response: { 201: AdminSourceResponse },
      },
    },
    async (request, reply) => {
      const source = await services.sources.create(contextOf(request), request.body);
      return reply.code(201).send({ success: true as const, data: adminSource(source) });
    },
  );
}

function adminSource(source: SourceRow) {
  return {
    id: formatId('provider', source.id),
    sourceId: source.id,
    name: source.name,
    kind: source.kind,
    path: source.path,
    visible: source.visible,
    createdAt: source.createdAt.toISOString(),
  };
}
