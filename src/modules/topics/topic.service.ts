import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { ListQuery } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import * as topics from './topic.repository.ts';

export function createTopicService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  return {
    /** GET /api/v2/topics: alphabetical (case-insensitive, ties by ID); `query` a case-insensitive prefix. */
    async list(communityId: number, query: ListQuery & { query?: string }) {
      const prefix = query.query?.trim().toLowerCase() || null;
      const binding = { community: communityId, list: 'topics', sort: 'name', direction: 'asc' as const, filters: { query: prefix } };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) =>
        topics.pageTopics(deps.db, communityId, prefix, { limit: query.page.limit, after }),
      );
      return {
        data: page.rows.map((row) => ({ id: formatId('topic', row.id), name: row.name })),
        meta: {
          nextCursor: page.nextCursor,
          ...(query.cols.recordCount ? { recordCount: await topics.countTopics(deps.db, communityId, prefix) } : {}),
        },
      };
    },

    async get(communityId: number, id: number) {
      const row = await topics.findTopic(deps.db, communityId, id);
      if (!row) throw notFound('topic_not_found', `no topic ${formatId('topic', id)}`);
      return { id: formatId('topic', row.id), name: row.name };
    },
  };
}

export type TopicService = ReturnType<typeof createTopicService>;
