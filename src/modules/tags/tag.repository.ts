import { sql, type Transaction } from 'kysely';
import { keysetPage } from '../../db/keyset.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';

/** What a tag may be assigned to, in the order they are shown. */
export const TAG_ENTITY_TYPES = ['member', 'activity', 'company'] as const;
export type TagEntityType = (typeof TAG_ENTITY_TYPES)[number];

export interface TagRow {
  id: number;
  name: string;
  description: string | null;
  entityTypes: string[];
  createdAt: Date;
  deletedAt: Date | null;
}

const columns = ['id', 'name', 'description', 'entity_types as entityTypes', 'created_at as createdAt', 'deleted_at as deletedAt'] as const;

/**
 * Tag names match trimmed and case-insensitively: the unique index `tags_name` is on
 * `(community_id, lower(btrim(name)))`. Callers pass names already trimmed; lowering happens in SQL so that
 * lookups use exactly the index's notion of equal.
 */
const sameName = (name: string) => sql<boolean>`lower(btrim(name)) = lower(btrim(${name}))`;

/**
 * `entity_types` plus `added`, in the canonical order, without duplicates. An expression over the two
 * arrays, not a subquery: Citus cannot run a subquery in an upsert's update.
 */
const mergedEntityTypes = (current: ReturnType<typeof sql>, added: ReturnType<typeof sql>) =>
  sql<string[]>`array_remove(array[${sql.join(
    TAG_ENTITY_TYPES.map((type) => sql`case when ${sql.lit(type)} = any(${current} || ${added}) then ${sql.lit(type)} end`),
  )}]::text[], null)`;

export async function findTag(db: Executor, communityId: number, id: number): Promise<TagRow | undefined> {
  return db.selectFrom('tags').select(columns).where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

export async function findTagByName(db: Executor, communityId: number, name: string): Promise<TagRow | undefined> {
  return db.selectFrom('tags').select(columns).where('community_id', '=', communityId).where(sameName(name)).executeTakeFirst();
}

/** Active (not deleted) tags in ID order. */
export async function listActiveTags(db: Executor, communityId: number): Promise<TagRow[]> {
  return db.selectFrom('tags').select(columns).where('community_id', '=', communityId).where('deleted_at', 'is', null).orderBy('id').execute();
}

export async function pageActiveTags(db: Executor, communityId: number, page: { direction: 'asc' | 'desc'; limit: number; after: CursorPosition | null }) {
  const query = db.selectFrom('tags').select(columns).where('community_id', '=', communityId).where('deleted_at', 'is', null);
  return keysetPage(query, { keys: [], id: sql`id`, ...page });
}

/**
 * Creates the tag, or, when a tag of that name exists (deleted or not), returns it undeleted and allowing
 * `entityTypes` as well as the types it allowed before. One statement, so concurrent callers agree.
 */
export async function upsertTagByName(
  db: Executor,
  communityId: number,
  tag: { name: string; description: string | null; entityTypes: string[] },
): Promise<TagRow> {
  return db
    .insertInto('tags')
    .values({ community_id: communityId, name: tag.name, description: tag.description, entity_types: tag.entityTypes })
    .onConflict((oc) =>
      oc.expression(sql`community_id, lower(btrim(name))`).doUpdateSet({
        deleted_at: null,
        entity_types: mergedEntityTypes(sql.ref('tags.entity_types'), sql.ref('excluded.entity_types')),
      }),
    )
    .returning(columns)
    .executeTakeFirstOrThrow();
}

/** Renames the tag, sets its description when one is given (null clears it), and undeletes it. */
export async function updateTag(
  db: Executor,
  communityId: number,
  id: number,
  change: { name: string; description?: string | null },
): Promise<TagRow | undefined> {
  return db
    .updateTable('tags')
    .set({
      name: change.name,
      ...(change.description === undefined ? {} : { description: change.description }),
      deleted_at: null,
    })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
}

/** Marks the tag deleted at `now`; a tag already deleted keeps its first deletion time. */
export async function markTagDeleted(trx: Transaction<DB>, communityId: number, id: number, now: Date): Promise<TagRow> {
  return trx
    .updateTable('tags')
    .set({ deleted_at: sql`coalesce(deleted_at, ${now})` })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirstOrThrow();
}

/** Removes the tag from every contact, organization and activity; returns how many assignments went. */
export async function deleteAssignmentsOfTag(trx: Transaction<DB>, communityId: number, tagId: number): Promise<number> {
  const result = await trx.deleteFrom('tag_assignments').where('community_id', '=', communityId).where('tag_id', '=', tagId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Tags among `ids` that exist, are not deleted and allow `entityType`. */
export async function findAssignableTagIds(db: Executor, communityId: number, ids: number[], entityType: TagEntityType): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('tags')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', '=', sql<number>`any(${ids}::bigint[])`)
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`${entityType} = any(entity_types)`)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * For each of `names` (trimmed), the tag of that name, if any: its ID, whether it is deleted, and whether it
 * allows `entityType`. Returned in the order of `names`, `null` where no tag has the name.
 */
export async function matchTagNames(
  db: Executor,
  communityId: number,
  names: string[],
  entityType: TagEntityType,
): Promise<({ id: number; usable: boolean } | null)[]> {
  if (names.length === 0) return [];
  const result = await sql<{ ord: number; id: number | null; usable: boolean | null }>`
    select u.ord, t.id, (t.deleted_at is null and ${entityType} = any(t.entity_types)) as usable
    from unnest(${names}::text[]) with ordinality as u(name, ord)
    left join tags t on t.community_id = ${communityId} and lower(btrim(t.name)) = lower(btrim(u.name))
    order by u.ord
  `.execute(db);
  return result.rows.map((row) => (row.id === null ? null : { id: row.id, usable: row.usable === true }));
}

/**
 * Creates each missing tag of `names` allowing `entityType`, and undeletes and extends existing ones, in
 * one statement. Names equal after trimming and lowering are written once, in name order, so that two
 * transactions writing the same tags lock them in the same order.
 */
export async function ensureTagsByName(db: Executor, communityId: number, names: string[], entityType: TagEntityType): Promise<void> {
  if (names.length === 0) return;
  await sql`
    insert into tags as t (community_id, name, entity_types)
    select ${communityId}, n.name, array[${entityType}]::text[]
    from (
      select distinct on (lower(btrim(name))) name from unnest(${names}::text[]) as u(name)
      order by lower(btrim(name)), name
    ) n
    order by lower(btrim(n.name))
    on conflict (community_id, lower(btrim(name))) do update set
      deleted_at = null,
      entity_types = ${mergedEntityTypes(sql.ref('t.entity_types'), sql.ref('excluded.entity_types'))}
  `.execute(db);
}

/** Assigns the tags that exist and are active; already assigned ones are left as they are. */
export async function insertAssignments(
  db: Executor,
  communityId: number,
  entityType: 'contact' | 'organization' | 'activity',
  entityId: number,
  tagIds: number[],
): Promise<void> {
  if (tagIds.length === 0) return;
  // FOR KEY SHARE: a concurrent delete of the tag (which locks it FOR UPDATE) either waits for this
  // transaction, and then removes these assignments too, or goes first, and then the tag is skipped here.
  await sql`
    insert into tag_assignments (community_id, tag_id, entity_type, entity_id)
    select ${communityId}, t.id, ${entityType}, ${entityId}
    from unnest(${tagIds}::bigint[]) as u(id)
    join tags t on t.community_id = ${communityId} and t.id = u.id
    where t.deleted_at is null
    order by t.id
    for key share of t
    on conflict do nothing
  `.execute(db);
}

export async function deleteAssignments(
  db: Executor,
  communityId: number,
  entityType: 'contact' | 'organization' | 'activity',
  entityId: number,
  tagIds: number[],
): Promise<void> {
  if (tagIds.length === 0) return;
  await db
    .deleteFrom('tag_assignments')
    .where('community_id', '=', communityId)
    .where('entity_type', '=', entityType)
    .where('entity_id', '=', entityId)
    .where('tag_id', '=', sql<number>`any(${tagIds}::bigint[])`)
    .execute();
}

/** The live tags of each record, by record ID, in tag ID order (the `tags` column of v2 records). */
export async function tagIdsOf(
  db: Executor,
  communityId: number,
  entityType: 'contact' | 'organization' | 'activity',
  ids: readonly number[],
): Promise<Map<number, number[]>> {
  const byRecord = new Map<number, number[]>();
  if (ids.length === 0) return byRecord;
  const rows = await db
    .selectFrom('tag_assignments as ta')
    .innerJoin('tags as t', (join) => join.onRef('t.community_id', '=', 'ta.community_id').onRef('t.id', '=', 'ta.tag_id'))
    .select(['ta.entity_id as entityId', 'ta.tag_id as tagId'])
    .where('ta.community_id', '=', communityId)
    .where('ta.entity_type', '=', entityType)
    .where('ta.entity_id', '=', sql<number>`any(${[...ids]}::bigint[])`)
    .where('t.deleted_at', 'is', null)
    .orderBy('ta.entity_id')
    .orderBy('ta.tag_id')
    .execute();
  for (const row of rows) byRecord.set(row.entityId, [...(byRecord.get(row.entityId) ?? []), row.tagId]);
  return byRecord;
}
