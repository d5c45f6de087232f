import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { formatId } from '../../core/ids.ts';
import type { PageRequest } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { searchWords } from '../../core/query-fragments.ts';
import { pageIndustries } from './industry.repository.ts';

export function createIndustryService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  return {
    /** GET /api/v2/industries: the NAICS 2022 codes, `query` words found in the name in any order and case. */
    async list(communityId: number, query: { page: PageRequest; query?: string }) {
      const words = searchWords(query.query);
      // The list is the same for every community; a cursor is still one community's, as every other.
      const binding = { community: communityId, list: 'industries', sort: 'code', direction: 'asc' as const, filters: { words } };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) => pageIndustries(deps.db, { words, limit: query.page.limit, after }));
      return {
        data: page.rows.map((row) => ({ id: formatId('industry', row.code), code: row.code, name: row.name })),
        meta: { nextCursor: page.nextCursor },
      };
    },
  };
}

export type IndustryService = ReturnType<typeof createIndustryService>;
