import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB } from '../../db/schema.ts';
import { conflict, invalidParameters } from '../../core/errors.ts';
import { ACTIVITY_TYPE_CATALOG, categoryDisplayName, type ActivityTypeEntry } from './activity-type-catalog.ts';
import * as activityTypes from './activity-type.repository.ts';
import { auditTx } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';

const BUILTIN_IDS = new Set(ACTIVITY_TYPE_CATALOG.map((entry) => entry.id));
const TYPE_ID = /^[a-z][a-z0-9_]{0,63}$/;

export function createActivityTypeService(deps: { db: Kysely<DB> }) {
  return {
    /** The catalog, then the community's own types. */
    async list(communityId: number): Promise<ActivityTypeEntry[]> {
      const own = await activityTypes.listCommunityActivityTypes(deps.db, communityId);
      return [...ACTIVITY_TYPE_CATALOG, ...own];
    },

    /** GET /api/v2/activity-categories: every category the catalog or one of the community's types uses, by ID. */
    async categories(communityId: number): Promise<{ id: string; name: string; value: string }[]> {
      const own = await activityTypes.listCommunityCategories(deps.db, communityId);
      const values = new Set([...ACTIVITY_TYPE_CATALOG.map((entry) => entry.category), ...own]);
      return [...values].sort().map((value) => ({ id: `cat_${value}`, name: categoryDisplayName(value), value }));
    },

    /** Whether pushes may use the type: the catalog's, or the community's own. */
    async accepts(communityId: number, id: string): Promise<boolean> {
      return BUILTIN_IDS.has(id) || (await activityTypes.findCommunityActivityType(deps.db, communityId, id)) !== undefined;
    },

    async add(writer: Writer, input: { id: string; displayName: string; category?: string }): Promise<ActivityTypeEntry> {
      const id = input.id.trim();
      const displayName = input.displayName.trim();
      if (!TYPE_ID.test(id)) {
        throw invalidParameters(`activity type id "${id}" must be lowercase letters, digits and underscores, starting with a letter`);
      }
      if (!displayName) throw invalidParameters('an activity type needs a display name');
      if (BUILTIN_IDS.has(id)) throw conflict(`"${id}" is a built-in activity type`);
      const entry = { id, displayName, category: input.category?.trim() || 'other' };
      try {
        await deps.db.transaction().execute(async (trx) => {
          await activityTypes.insertActivityType(trx, { communityId: writer.communityId, ...entry });
          await auditTx.recordWrite(trx, writer, { operation: 'activity_type.add', entityIds: [id], detail: entry });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`activity type "${id}" already exists`);
        throw error;
      }
      return entry;
    },
  };
}

export type ActivityTypeService = ReturnType<typeof createActivityTypeService>;
