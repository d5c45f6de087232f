import { contextOf, type HearthApp } from '../../http/types.ts';
import { v2SearchResults } from './search.presenters.ts';
import { SearchQuery, SearchResults } from './search.schemas.ts';
import type { SearchService } from './search.service.ts';

export function searchRoutes(app: HearthApp, services: { search: SearchService }) {
  app.get(
    '/api/v2/search',
    {
      config: { auth: { any: ['contacts:read', 'organizations:read', 'segments:read'] } },
      schema: {
        operationId: 'search',
        tags: ['v2'],
        summary: 'Search contacts, organizations and segments',
        description:
          'Finds, as a person types, contacts by name, email or handle (GitHub, X/Twitter, LinkedIn and Discord identities, ' +
          'and the usernames sources know people by), organizations by name or domain, and segments by name. Case and common ' +
          'accents do not matter. Each kind is ranked exact matches first, then names or values that start with the query, ' +
          'then names with a word that does ("smith" finds "Jane Smith"), then, from 3 characters, names that hold it; ties go ' +
          'to the most active contacts and the organizations with the most members. Each kind is searched only when the caller ' +
          'may read it (contacts:read, organizations:read, segments:read); the others are empty. Staff (console users) are not ' +
          'found.',
        querystring: SearchQuery,
        response: { 200: SearchResults },
      },
    },
    async (request) => {
      const { query, limit } = request.query;
      return { success: true as const, data: v2SearchResults(await services.search.search(contextOf(request), query, limit)) };
    },
  );
}
