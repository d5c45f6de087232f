import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { catalogName } from './activity-type-catalog.ts';

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
  return db.selectFrom('activity_types').select('key').where('community_id', '=', communityId).where('key', '=', id).executeTakeFirst();
}

export async function insertActivityType(db: Kysely<DB>, type: { communityId: number; id: string; displayName: string; category: string }): Promise<void> {
  await db
    .insertInto('activity_types')
    .values({ community_id: type.communityId, key: type.id, display_name: type.displayName, category: type.category })
    .execute();
}

/** Display names of activity types as the community knows them: its own types, then the catalog's. */
export async function activityTypeNames(db: Kysely<DB>, communityId: number, keys: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (keys.length === 0) return names;
  const own = await db
    .selectFrom('activity_types')
    .select(['key', 'display_name as displayName'])
    .where('community_id', '=', communityId)
    .where('key', 'in', keys)
    .execute();
  for (const row of own) names.set(row.key, row.displayName);
  for (const key of keys) if (!names.has(key)) names.set(key, catalogName(key));
  return names;
}
