import type { Clock } from '../../clock.ts';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { conflict, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { PageRequest } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { auditTx } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';
import { MAX_TAG_NAME } from './tag-assignment.service.ts';
import * as tags from './tag.repository.ts';
import { TAG_ENTITY_TYPES, type TagEntityType, type TagRow } from './tag.repository.ts';
import { lockRow } from '../../core/query-fragments.ts';

const MAX_DESCRIPTION = 5000;

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

const tagNotFound = (id: number) => notFound('tag_not_found', `tag ${formatId('tag', id)} not found`);

export function createTagService(deps: { db: Kysely<DB>; cursors: CursorCodec; clock: Clock }) {
  const { db } = deps;

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
        await auditTx.recordWrite(trx, writer, { operation: 'tag.create', entityIds: [formatId('tag', upserted.id)], detail: { name, entityTypes } });
        return upserted;
      });
      return row;
    },

    /** Every tag that is not deleted, in ID order. */
    all(communityId: number): Promise<TagRow[]> {
      return tags.listActiveTags(db, communityId);
    },

    /** Keyset pages of the tags that are not deleted, in ID order. */
    page(communityId: number, request: PageRequest) {
      const binding = { community: communityId, list: 'tags', sort: 'id', direction: request.direction, filters: {} };
      return pageWithCursor(deps.cursors, binding, request, (after) =>
        tags.pageActiveTags(db, communityId, { direction: request.direction, limit: request.limit, after }),
      );
    },

    /** A deleted tag stays readable, with `deletedAt`. */
    async get(communityId: number, id: number): Promise<TagRow> {
      const row = await tags.findTag(db, communityId, id);
      if (!row) throw tagNotFound(id);
      return row;
    },

    /**
     * POST /community/v1/tags/{id}: renames the tag and sets its description (when given; null clears it).
     * A deleted tag is undeleted, without its old assignments (they went with the deletion). Another
     * tag's name, deleted or not, is a 409.
     */
    async update(writer: Writer, id: number, input: { name: string; description?: string | null }): Promise<TagRow> {
      const { communityId } = writer;
      const name = tagName(input.name);
      const description = tagDescription(input.description);
      try {
        const row = await db.transaction().execute(async (trx) => {
          const updated = await tags.updateTag(trx, communityId, id, { name, description });
          if (!updated) throw tagNotFound(id);
          await auditTx.recordWrite(trx, writer, { operation: 'tag.update', entityIds: [formatId('tag', id)], detail: { name } });
          return updated;
        });
        return row;
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
    async remove(writer: Writer, id: number): Promise<TagRow> {
      const { communityId } = writer;
      const row = await db.transaction().execute(async (trx) => {
        // FOR UPDATE conflicts with the FOR KEY SHARE lock that assignments take (tag-assignment.service.ts), so no
        // assignment can slip in between removing the tag's assignments and committing its deletion.
        if (!(await lockRow(trx, 'tags', communityId, id))) throw tagNotFound(id);
        const unassigned = await tags.deleteAssignmentsOfTag(trx, communityId, id);
        await auditTx.recordWrite(trx, writer, { operation: 'tag.delete', entityIds: [formatId('tag', id)], detail: { unassigned } });
        return tags.markTagDeleted(trx, communityId, id, deps.clock.now());
      });
      return row;
    },
  };
}

export type TagService = ReturnType<typeof createTagService>;
