import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export async function listCommunityActivityTypes(db: Kysely<DB>, communityId: number) {
  return db
    .selectFrom('activity_types')
    .select(['key as id', 'display_name as displayName', 'category'])
    .where('community_id', '=', communityId)
    .orderBy('key')
    .execute();
}

/** The distinct categories of the community's own types. */
export async function listCommunityCategories(db: Kysely<DB>, communityId: number): Promise<string[]> {
  const rows = await db.selectFrom('activity_types').select('category').distinct().where('community_id', '=', communityId).execute();
  return rows.map((row) => row.category);
}

export async function findCommunityActivityType(db: Kysely<DB>, communityId: number, id: string) {
  return db
    .selectFrom('activity_types')
    .select('key')
    .where('community_id', '=', communityId)
    .where('key', '=', id)
    .executeTakeFirst();
}

export async function insertActivityType(
  db: Kysely<DB>,
  type: { communityId: number; id: string; displayName: string; category: string },
): Promise<void> {
  await db
    .insertInto('activity_types')
    .values({ community_id: type.communityId, key: type.id, display_name: type.displayName, category: type.category })
    .execute();
}
