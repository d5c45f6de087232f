import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { conflict, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, parseCoreId, parseId } from '../../core/ids.ts';
import { recordWrite } from '../audit/audit.repository.ts';
import type { Writer } from '../../core/writer.ts';
import { MAX_TAG_NAME } from './tag.assignments.ts';
import * as tags from './tag.repository.ts';
import { TAG_ENTITY_TYPES, type TagEntityType, type TagRow } from './tag.repository.ts';
import { lockRow } from '../../core/query-fragments.ts';

// The service API that ingestion and the bulk updates call inside their own transactions.
export { assignTags, resolveTagRefs, unassignTags, type TagRef } from './tag.assignments.ts';

const MAX_DESCRIPTION = 5000;

/** Which family asks: core takes `l_N` or the bare number, v2 only `l_N`. */
type Family = 'core' | 'v2';

export function coreTag(row: TagRow) {
  return {
    id: formatId('tag', row.id),
    name: row.name,
    description: row.description,
    entityTypes: row.entityTypes as TagEntityType[],
    createdAt: row.createdAt.toISOString(),
    ...(row.deletedAt ? { deletedAt: row.deletedAt.toISOString() } : {}),
  };
}

/** The v2 family names what a tag applies to in its own words; the core family keeps `member` and `company`. */
const V2_ENTITY_TYPE = { member: 'contact', company: 'organization', activity: 'activity' } as const satisfies Record<TagEntityType, string>;
export const V2_TAG_ENTITY_TYPES = TAG_ENTITY_TYPES.map((type) => V2_ENTITY_TYPE[type]);

export function v2Tag(row: TagRow) {
  return {
    ...coreTag(row),
    entityTypes: (row.entityTypes as TagEntityType[]).map((type) => V2_ENTITY_TYPE[type]),
    deletedAt: row.deletedAt ? row.deletedAt.toISOString() : null,
  };
}

function tagName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalidParameters('a tag needs a name that is not blank');
  if (name.length > MAX_TAG_NAME) throw invalidParameters(`a tag name is at most ${MAX_TAG_NAME} characters (this one has ${name.length})`);
  return name;
}

/** Blank descriptions are stored as none. Undefined stays undefined (the description is left as it is). */
function tagDescription(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const description = raw.trim();
  if (description.length > MAX_DESCRIPTION) {
    throw invalidParameters(`a tag description is at most ${MAX_DESCRIPTION} characters (this one has ${description.length})`);
  }
  return description || null;
}

function parseTagId(family: Family, raw: string): number {
  return family === 'core' ? parseCoreId('tag', raw) : parseId('tag', raw);
}

const tagNotFound = (raw: string) => notFound('tag_not_found', `tag ${raw} not found`);

export function createTagService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  const { db } = deps;

  async function find(communityId: number, family: Family, rawId: string): Promise<TagRow> {
    const row = await tags.findTag(db, communityId, parseTagId(family, rawId));
    if (!row) throw tagNotFound(rawId);
    return row;
  }

  return {
    /**
     * POST /community/v1/tags. A tag whose name matches (trimmed, case-insensitive) is returned instead of
     * a new one: undeleted if it was deleted, and allowing the requested entity types besides its own.
     */
    async create(writer: Writer, input: { name: string; description?: string | null; entityTypes: TagEntityType[] }) {
      const name = tagName(input.name);
      const description = tagDescription(input.description) ?? null;
      const entityTypes = TAG_ENTITY_TYPES.filter((type) => input.entityTypes.includes(type));
      const row = await db.transaction().execute(async (trx) => {
        const upserted = await tags.upsertTagByName(trx, writer.communityId, { name, description, entityTypes });
        await recordWrite(trx, writer, { operation: 'tag.create', entityIds: [formatId('tag', upserted.id)], detail: { name, entityTypes } });
        return upserted;
      });
      return coreTag(row);
    },

    /** GET /community/v1/tags: every tag that is not deleted, in ID order. */
    async listCore(communityId: number) {
      return { labels: (await tags.listActiveTags(db, communityId)).map(coreTag) };
    },

    /** GET /api/v2/tags: keyset pages of the tags that are not deleted, in ID order. */
    async listV2(communityId: number, query: { limit: number; cursor?: string; direction: 'asc' | 'desc' }) {
      const binding = { community: communityId, list: 'tags', sort: 'id', direction: query.direction, filters: {} };
      const after = query.cursor ? deps.cursors.decode(query.cursor, binding) : null;
      const page = await tags.pageActiveTags(db, communityId, { direction: query.direction, limit: query.limit, after });
      return {
        data: page.rows.map(v2Tag),
        meta: { nextCursor: page.next ? deps.cursors.encode(binding, page.next) : null },
      };
    },

    /** A deleted tag stays readable, with `deletedAt`. */
    async getCore(communityId: number, rawId: string) {
      return coreTag(await find(communityId, 'core', rawId));
    },

    async getV2(communityId: number, rawId: string) {
      return v2Tag(await find(communityId, 'v2', rawId));
    },

    /**
     * POST /community/v1/tags/{id}: renames the tag and sets its description (when given; null clears it).
     * A deleted tag is undeleted, without its old assignments (they went with the deletion). Another
     * tag's name, deleted or not, is a 409.
     */
    async update(writer: Writer, rawId: string, input: { name: string; description?: string | null }) {
      const { communityId } = writer;
      const id = parseCoreId('tag', rawId);
      const name = tagName(input.name);
      const description = tagDescription(input.description);
      try {
        const row = await db.transaction().execute(async (trx) => {
          const updated = await tags.updateTag(trx, communityId, id, { name, description });
          if (!updated) throw tagNotFound(rawId);
          await recordWrite(trx, writer, { operation: 'tag.update', entityIds: [formatId('tag', id)], detail: { name } });
          return updated;
        });
        return coreTag(row);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const other = await tags.findTagByName(db, communityId, name);
        const which = other ? `tag ${formatId('tag', other.id)}${other.deletedAt ? ' (deleted)' : ''}` : 'another tag';
        throw conflict(`${which} is already named "${other?.name ?? name}"; tag names are unique, ignoring case`);
      }
    },

    /**
     * DELETE /community/v1/tags/{id}: soft delete. In one transaction the tag is removed from every
     * contact, organization and activity and marked deleted. Deleting a deleted tag changes nothing.
     */
    async remove(writer: Writer, rawId: string) {
      const { communityId } = writer;
      const id = parseCoreId('tag', rawId);
      const row = await db.transaction().execute(async (trx) => {
        // FOR UPDATE conflicts with the FOR KEY SHARE lock that assignments take (tag.assignments.ts), so no
        // assignment can slip in between removing the tag's assignments and committing its deletion.
        if (!(await lockRow(trx, 'tags', communityId, id))) throw tagNotFound(rawId);
        const unassigned = await tags.deleteAssignmentsOfTag(trx, communityId, id);
        await recordWrite(trx, writer, { operation: 'tag.delete', entityIds: [formatId('tag', id)], detail: { unassigned } });
        return tags.markTagDeleted(trx, communityId, id);
      });
      return coreTag(row);
    },
  };
}

export type TagService = ReturnType<typeof createTagService>;
