import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { TechProductImportBody, TechProductImportResponse, TechProductsQuery, TechProductsResponse } from './tech-product.schemas.ts';
import type { TechProductService } from './tech-product.service.ts';

export function techProductRoutes(app: HearthApp, services: { techProducts: TechProductService }) {
  app.get(
    '/api/v2/tech-stack-products',
    {
      config: { auth: { all: ['organizations:read'] }, read: { paged: true } },
      schema: {
        operationId: 'listTechStackProducts',
        tags: ['v2'],
        summary: 'List technographic products',
        description: 'The catalog shipped with Hearth and what admins added, by product name (case-insensitive, ties by ID).',
        querystring: TechProductsQuery,
        response: { 200: TechProductsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await services.techProducts.list(contextOf(request).communityId, { page: listQueryOf(request).page, query: request.query.query })),
    }),
  );

  app.post(
    '/api/v2/admin/tech-products',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'importTechProducts',
        tags: ['admin'],
        summary: 'Add products to the technographic catalog, or change their vendor',
        description:
          'Up to 10,000 products; one already in the catalog (by name, in any case) gets the vendor given. All or nothing: a 400 names every fault. The catalog is shared by every community of the server.',
        body: TechProductImportBody,
        response: { 200: TechProductImportResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.techProducts.import(contextOf(request), request.body.products) }),
  );
}
