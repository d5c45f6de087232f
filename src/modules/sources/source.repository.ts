import { sql } from 'kysely';
import { keysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';

export interface SourceRow {
  id: number;
  name: string;
  serviceName: string;
  kind: string;
  path: string | null;
  visible: boolean;
  createdAt: Date;
}

const columns = ['id', 'name', 'service_name as serviceName', 'kind', 'path', 'visible', 'created_at as createdAt'] as const;

export async function insertSource(
  db: Executor,
  source: { communityId: number; name: string; serviceName: string; kind: string; path: string | null; confinedToRoot?: boolean },
): Promise<SourceRow> {
  return db
    .insertInto('sources')
    .values({
      community_id: source.communityId,
      name: source.name,
      service_name: source.serviceName,
      kind: source.kind,
      path: source.path,
      confined_to_root: source.confinedToRoot ?? false,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
}

export async function findSourceByName(db: Executor, communityId: number, name: string): Promise<SourceRow | undefined> {
  return db
    .selectFrom('sources')
    .select(columns)
    .where('community_id', '=', communityId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
}

export async function listSources(db: Executor, communityId: number): Promise<SourceRow[]> {
  return db.selectFrom('sources').select(columns).where('community_id', '=', communityId).orderBy('id').execute();
}

export async function pageVisibleSources(db: Executor, communityId: number, page: { direction: 'asc' | 'desc'; limit: number; after: CursorPosition | null }) {
  const query = db
    .selectFrom('sources')
    .select(['id', 'name', 'service_name as serviceName'])
    .where('community_id', '=', communityId)
    .where('visible', '=', true);
  return keysetPage(query, { keys: [], id: sql`id`, ...page });
}

export async function findSource(db: Executor, communityId: number, sourceId: number): Promise<SourceRow | undefined> {
  return db.selectFrom('sources').select(columns).where('community_id', '=', communityId).where('id', '=', sourceId).executeTakeFirst();
}
