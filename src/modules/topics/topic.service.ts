import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../http/cursor.ts';
import { invalidParameters, notFound } from '../../http/errors.ts';
import { formatId, parseId } from '../../http/ids.ts';
import * as topics from './topic.repository.ts';

/** `cols` of lists with no opt-in record columns: only the meta column `recordCount`; anything else is a 400 naming it. */
export function metaColumns(cols: string | undefined): { recordCount: boolean } {
  const names = (cols ?? '').split(',').map((name) => name.trim()).filter((name) => name.length > 0);
  const unknown = names.filter((name) => name !== 'recordCount');
  if (unknown.length) throw invalidParameters(`unknown cols ${unknown.map((name) => `"${name}"`).join(', ')}; the one accepted column is recordCount`);
  return { recordCount: names.includes('recordCount') };
}

export function createTopicService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  return {
    /** GET /api/v2/topics: alphabetical (case-insensitive, ties by ID); `query` a case-insensitive prefix. */
    async list(communityId: number, query: { limit: number; cursor?: string; query?: string; cols?: string }) {
      const cols = metaColumns(query.cols);
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
