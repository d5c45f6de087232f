import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { Cols, GetQuery, SortedListQuery } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import type { LightFilters } from '../../filters/light-filter.param.ts';
import { segmentTx } from '../segments/index.ts';
import { objectTypeExists } from './object-type.repository.ts';
import * as objects from './object-read.repository.ts';
import type { ObjectRow, ObjectSort } from './object-read.repository.ts';

export interface ObjectListQuery extends SortedListQuery {
  /** Required; optional here so that leaving it out gets its own message. */
  objectTypeId?: number;
  segmentId?: number;
  lightFilter?: string;
}

export function createObjectService(deps: { db: Kysely<DB>; cursors: CursorCodec; filters: LightFilters }) {
  const { db } = deps;

  /** The objects as v2 shows them; their custom fields are loaded for the whole page in one query. */
  async function present(communityId: number, rows: ObjectRow[], cols: Cols) {
    const values = await customFieldTx.customFieldValuesOf(
      db,
      communityId,
      'object',
      rows.map((row) => row.id),
      'all',
    );
    return rows.map((row) => ({
      id: formatId('object', row.id),
      name: row.name,
      ...(cols.names.has('recordKey') ? { recordKey: row.recordKey } : {}),
      customFields: values.get(row.id) ?? {},
    }));
  }

  /** The required object type: malformed 400, unknown or another community's 404. */
  async function objectTypeOf(communityId: number, id: number | undefined): Promise<number> {
    if (id === undefined) throw invalidParameters('objectTypeId is required (cot_<number>; GET /api/v2/object-types lists them)');
    if (!(await objectTypeExists(db, communityId, id))) throw notFound('object_type_not_found', `object type ${formatId('object_type', id)} not found`);
    return id;
  }

  /** An object segment of the listed type; a segment of anything else is a bad segmentId, not a missing one. */
  async function segmentOf(communityId: number, id: number | undefined, objectTypeId: number): Promise<number | null> {
    if (id === undefined) return null;
    const raw = formatId('segment', id);
    const segment = await segmentTx.findSegment(db, communityId, id);
    if (!segment) throw notFound('segment_not_found', `segment ${raw} not found`);
    if (segment.entityType !== 'object' || segment.objectTypeId !== objectTypeId) {
      const what =
        segment.entityType === 'object' ? `a segment of object type ${formatId('object_type', segment.objectTypeId!)}` : `a ${segment.entityType} segment`;
      throw new HearthError('invalid_segment_id', `segment ${raw} is ${what}, not a segment of object type ${formatId('object_type', objectTypeId)}`, {
        invalidIds: [raw],
      });
    }
    return segment.id;
  }

  return {
    /** GET /api/v2/objects: one object type's objects, keyset paged by ID or by name (case-insensitive, ties by ID). */
    async list(communityId: number, query: ObjectListQuery) {
      const { cols, page: pageRequest } = query;
      const sort = query.sort.name as ObjectSort;
      const objectTypeId = await objectTypeOf(communityId, query.objectTypeId);
      const segmentId = await segmentOf(communityId, query.segmentId, objectTypeId);
      const compiled = await deps.filters.compile(communityId, 'object', query.lightFilter);
      const filter = { objectTypeId, segmentId, where: compiled?.where ?? null };
      const binding = {
        community: communityId,
        list: 'objects',
        sort,
        direction: pageRequest.direction,
        filters: { objectTypeId, segmentId, lightFilter: compiled?.expression },
      };
      const page = await pageWithCursor(deps.cursors, binding, pageRequest, (after) =>
        objects.pageObjects(db, communityId, filter, sort, { after, limit: pageRequest.limit, direction: pageRequest.direction }),
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
    async get(communityId: number, { id, cols }: GetQuery) {
      const row = await objects.findObject(db, communityId, id);
      if (!row) throw notFound('object_not_found', `object ${formatId('object', id)} not found`);
      const [object] = await present(communityId, [row], cols);
      return object!;
    },
  };
}

export type ObjectService = ReturnType<typeof createObjectService>;
