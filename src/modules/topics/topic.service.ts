import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { META_COLS, parseCols } from '../../http/cols.ts';
import { notFound } from '../../core/errors.ts';
import { formatId, parseId } from '../../core/ids.ts';
import * as topics from './topic.repository.ts';

export function createTopicService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  return {
    /** GET /api/v2/topics: alphabetical (case-insensitive, ties by ID); `query` a case-insensitive prefix. */
    async list(communityId: number, query: { limit: number; cursor?: string; query?: string; cols?: string }) {
      const cols = parseCols(query.cols, META_COLS);
      const prefix = query.query?.trim().toLowerCase() || null;
      const binding = { community: communityId, list: 'topics', sort: 'name', direction: 'asc' as const, filters: { query: prefix } };
      const after = query.cursor ? deps.cursors.decode(query.cursor, binding) : null;
      const page = await topics.pageTopics(deps.db, communityId, prefix, { limit: query.limit, after });
      return {
        data: page.rows.map((row) => ({ id: formatId('topic', row.id), name: row.name })),
        meta: {
          nextCursor: page.next ? deps.cursors.encode(binding, page.next) : null,
          ...(cols.recordCount ? { recordCount: await topics.countTopics(deps.db, communityId, prefix) } : {}),
        },
      };
    },

    async get(communityId: number, id: string) {
      const row = await topics.findTopic(deps.db, communityId, parseId('topic', id));
      if (!row) throw notFound('topic_not_found', `no topic ${id}`);
      return { id: formatId('topic', row.id), name: row.name };
    },
  };
}

export type TopicService = ReturnType<typeof createTopicService>;
