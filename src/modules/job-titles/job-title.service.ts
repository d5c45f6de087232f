import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import type { PageRequest } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { foldJobTitleChanges, pageJobTitles, type JobTitleSort } from './job-title.repository.ts';

/** The direction of each sort when the request names none (docs/behaviour.md, Sorting). */
const DEFAULT_DIRECTION: Record<JobTitleSort, 'asc' | 'desc'> = { popularity: 'desc', alphabetical: 'asc' };

export function createJobTitleService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  return {
    /**
     * GET /api/v2/job-titles: the titles the community's contacts and the prospector contacts carry,
     * `value` as stored, counted together. A cursor is bound to its sort, direction and prefix.
     */
    async list(communityId: number, query: { page: PageRequest; sort: JobTitleSort; direction?: 'asc' | 'desc'; query?: string }) {
      const direction = query.direction ?? DEFAULT_DIRECTION[query.sort];
      const prefix = query.query?.trim() || null;
      await foldJobTitleChanges(deps.db, communityId);
      const binding = { community: communityId, list: 'job-titles', sort: query.sort, direction, filters: { query: prefix?.toLowerCase() ?? null } };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) =>
        pageJobTitles(deps.db, communityId, { sort: query.sort, direction, prefix, limit: query.page.limit, after }),
      );
      return { data: page.rows.map((row) => ({ value: row.title })), meta: { nextCursor: page.nextCursor } };
    },
  };
}

export type JobTitleService = ReturnType<typeof createJobTitleService>;
