import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { parseCols, type Cols } from '../../http/cols.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, parseId } from '../../core/ids.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { parseSort } from '../../http/sort.ts';
import { customFieldValuesOf } from '../custom-fields/custom-field.repository.ts';
import type { FilterService } from '../filter-fields/filter.service.ts';
import { findSegment } from '../segments/segment.repository.ts';
import { objectTypeExists } from './object-type.repository.ts';
import * as objects from './object.repository.ts';
import { OBJECT_SORTS, type ObjectRow, type ObjectSort } from './object.repository.ts';

/** Opt-in columns of custom objects (decisions.md §7). */
export const OBJECT_COLS = ['recordKey'] as const;
export const OBJECT_SORT_OPTIONS = { fixed: OBJECT_SORTS, default: 'id' };

export interface ObjectListQuery {
  objectTypeId?: string;
  segmentId?: string;
  limit: number;
  cursor?: string;
  sort?: string;
  direction: 'asc' | 'desc';
  cols?: string;
  lightFilter?: string;
}

export function createObjectService(deps: { db: Kysely<DB>; cursors: CursorCodec; filters: FilterService }) {
  const { db } = deps;

  /** The objects as v2 shows them; their custom fields are loaded for the whole page in one query. */
  async function present(communityId: number, rows: ObjectRow[], cols: Cols) {
    const values = await customFieldValuesOf(db, communityId, 'object', rows.map((row) => row.id), 'all');
    return rows.map((row) => ({
      id: formatId('object', row.id),
      name: row.name,
      ...(cols.names.has('recordKey') ? { recordKey: row.recordKey } : {}),
      customFields: values.get(row.id) ?? {},
    }));
  }

  /** The required object type: malformed 400, unknown or another community's 404. */
  async function objectTypeOf(communityId: number, raw: string | undefined): Promise<number> {
    if (raw === undefined) throw invalidParameters('objectTypeId is required (cot_<number>; GET /api/v2/object-types lists them)');
    const id = parseId('object_type', raw);
    if (!(await objectTypeExists(db, communityId, id))) throw notFound('object_type_not_found', `object type ${raw} not found`);
    return id;
  }

  /** An object segment of the listed type; a segment of anything else is a bad segmentId, not a missing one. */
  async function segmentOf(communityId: number, raw: string | undefined, objectTypeId: number): Promise<number | null> {
    if (raw === undefined) return null;
    const segment = await findSegment(db, communityId, parseId('segment', raw));
    if (!segment) throw notFound('segment_not_found', `segment ${raw} not found`);
    if (segment.entityType !== 'object' || segment.objectTypeId !== objectTypeId) {
      const what = segment.entityType === 'object' ? `a segment of object type ${formatId('object_type', segment.objectTypeId!)}` : `a ${segment.entityType} segment`;
      throw new HearthError('invalid', 'invalid_segment_id', `segment ${raw} is ${what}, not a segment of object type ${formatId('object_type', objectTypeId)}`, {
        invalidIds: [raw],
      });
    }
    return segment.id;
  }

  return {
    /** GET /api/v2/objects: one object type's objects, keyset paged by ID or by name (case-insensitive, ties by ID). */
    async list(communityId: number, query: ObjectListQuery) {
      const cols = parseCols(query.cols, { optIn: OBJECT_COLS, recordCount: true });
      const sort = parseSort(query.sort, OBJECT_SORT_OPTIONS).name as ObjectSort;
      const objectTypeId = await objectTypeOf(communityId, query.objectTypeId);
      const segmentId = await segmentOf(communityId, query.segmentId, objectTypeId);
      const compiled = await deps.filters.compile(communityId, 'object', query.lightFilter);
      const filter = { objectTypeId, segmentId, where: compiled?.where ?? null };
      const binding = {
        community: communityId,
        list: 'objects',
        sort,
        direction: query.direction,
        filters: { objectTypeId, segmentId, lightFilter: compiled?.expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, query.cursor, (after) =>
        objects.pageObjects(db, communityId, filter, sort, { after, limit: query.limit, direction: query.direction }),
      );
      return {
        data: await present(communityId, page.rows, cols),
        meta: {
          nextCursor: page.nextCursor,
          ...(cols.recordCount ? { recordCount: await objects.countObjects(db, communityId, filter) } : {}),
        },
      };
    },

    /** GET /api/v2/objects/{id}. */
    async get(communityId: number, rawId: string, query: { cols?: string }) {
      const cols = parseCols(query.cols, { optIn: OBJECT_COLS });
      const row = await objects.findObject(db, communityId, parseId('object', rawId));
      if (!row) throw notFound('object_not_found', `object ${rawId} not found`);
      const [object] = await present(communityId, [row], cols);
      return object!;
    },
  };
}

export type ObjectService = ReturnType<typeof createObjectService>;
