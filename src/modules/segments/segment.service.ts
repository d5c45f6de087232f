import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { parseCols, type Cols } from '../../http/cols.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, parseCoreId, parseId } from '../../core/ids.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { recordWrite } from '../audit/audit.repository.ts';
import type { Writer } from '../../core/writer.ts';
import { normalizeEmail, normalizeHandle, type Normalized } from '../identity/identity-values.ts';
import { findIdentityOwners } from '../identity/identity.repository.ts';
import * as segments from './segment.repository.ts';
import type { SegmentRef } from './segment.repository.ts';

export type SocialType = 'email' | 'twitter' | 'github' | 'linkedin';

/** Values one core segment add may name. */
export const MAX_SEGMENT_ADD_VALUES = 1000;

/**
 * The identity a value names, by its match key; null for a junk or malformed value. `normalizeEmail` may
 * answer with another type (a GitHub no-reply address names a GitHub user), which is then looked up.
 */
function identityOf(socialType: SocialType, value: string): { type: string; value: string } | null {
  const normalized: Normalized = socialType === 'email' ? normalizeEmail(value) : normalizeHandle(socialType, value);
  return normalized.ok ? { type: normalized.identity.type, value: normalized.identity.value } : null;
}

/** The core family addresses contact segments only; any other ID answers as if it did not exist. */
function contactSegment(segment: SegmentRef | undefined, rawId: string): SegmentRef {
  if (!segment) throw notFound('segment_not_found', `segment ${rawId} not found`);
  if (segment.entityType !== 'contact') {
    throw notFound('segment_not_found', `segment ${rawId} is an ${segment.entityType} segment; these routes take contact segments`);
  }
  return segment;
}

/** Opt-in columns of v2 segments (decisions.md §7); `url` is the trailing field. */
export const SEGMENT_COLS = ['entityCount', 'url'] as const;

export function createSegmentService(deps: { db: Kysely<DB>; cursors: CursorCodec; publicUrl: string }) {
  const { db } = deps;

  /** v2 segments with the opt-in columns `cols` names, loaded for all of them at once. */
  async function presentV2(communityId: number, rows: SegmentRef[], cols: Cols) {
    const counts = cols.names.has('entityCount') ? await segments.memberCounts(db, communityId, rows.map((row) => row.id)) : null;
    return rows.map((row) => {
      const id = formatId('segment', row.id);
      return {
        id,
        name: row.name,
        entityType: row.entityType as 'contact' | 'organization' | 'object',
        ...(counts ? { entityCount: counts.get(row.id) ?? 0 } : {}),
        ...(cols.names.has('url') ? { url: `${deps.publicUrl}/segments/${id}` } : {}),
      };
    });
  }

  return {
    /** GET /api/v2/segments: every segment in ID order; `query` is a case-insensitive substring of the name. */
    async listV2(communityId: number, query: { limit: number; cursor?: string; cols?: string; query?: string }) {
      const cols = parseCols(query.cols, { optIn: SEGMENT_COLS, recordCount: true });
      const nameQuery = query.query || null;
      const binding = { community: communityId, list: 'segments', sort: 'id', direction: 'asc' as const, filters: { query: nameQuery } };
      const page = await pageWithCursor(deps.cursors, binding, query.cursor, (after) =>
        segments.pageSegments(db, communityId, nameQuery, { limit: query.limit, after }),
      );
      return {
        data: await presentV2(communityId, page.rows, cols),
        meta: {
          nextCursor: page.nextCursor,
          ...(cols.recordCount ? { recordCount: await segments.countSegments(db, communityId, nameQuery) } : {}),
        },
      };
    },

    /** GET /api/v2/segments/{id}: a segment of any entity type. */
    async getV2(communityId: number, rawId: string, query: { cols?: string }) {
      const cols = parseCols(query.cols, { optIn: SEGMENT_COLS });
      const row = await segments.findSegment(db, communityId, parseId('segment', rawId));
      if (!row) throw notFound('segment_not_found', `segment ${rawId} not found`);
      const [segment] = await presentV2(communityId, [row], cols);
      return segment!;
    },

    /** GET /community/v1/segments: the contact segments, `[{id, name}]` in ID order. */
    listCore(communityId: number) {
      return segments.listContactSegments(db, communityId);
    },

    /** GET /community/v1/segments/{id}: one contact segment, `{id, name}`. */
    async getCore(communityId: number, rawId: string) {
      const segment = contactSegment(await segments.findSegment(db, communityId, parseCoreId('segment', rawId)), rawId);
      return { id: segment.id, name: segment.name };
    },

    /** GET /community/v1/segments/{id}/status: the statuses of a contact segment, in their order. */
    async statusesCore(communityId: number, rawId: string) {
      const segment = contactSegment(await segments.findSegment(db, communityId, parseCoreId('segment', rawId)), rawId);
      return segments.listStatuses(db, communityId, segment.id);
    },

    /**
     * POST /community/v1/segments/{id}: adds existing contacts, found by one kind of identity, to a contact
     * segment. `value` is a comma-separated list; each value is matched by its normalized match key, and a
     * junk or malformed value, or one that no contact holds, is listed in `notFound`. Idempotent: contacts
     * already in the segment are listed in `added` again (their status is set when `statusId` is given).
     */
    async addContactsCore(writer: Writer, rawId: string, input: { socialType: SocialType; value: string; statusId?: number | null }) {
      const { communityId } = writer;
      const segmentId = parseCoreId('segment', rawId);
      const values = [...new Set(input.value.split(',').map((value) => value.trim()).filter(Boolean))];
      if (values.length === 0) throw invalidParameters(`value names no ${input.socialType} values (expected a comma-separated list)`);
      if (values.length > MAX_SEGMENT_ADD_VALUES) {
        throw invalidParameters(`value names ${values.length} values; one request takes at most ${MAX_SEGMENT_ADD_VALUES}`);
      }
      const statusId = input.statusId ?? null;
      if (statusId !== null && (!Number.isSafeInteger(statusId) || statusId < 0)) {
        throw new HearthError('invalid', 'invalid_status_id', `statusId ${statusId} is not a valid status ID (expected an integer)`);
      }
      const identities = values.map((value) => identityOf(input.socialType, value));

      return db.transaction().execute(async (trx) => {
        const segment = contactSegment(await segments.lockSegment(trx, communityId, segmentId), rawId);
        if (statusId !== null && !(await segments.lockStatus(trx, communityId, segment.id, statusId))) {
          throw new HearthError('invalid', 'invalid_status_id', `status ${statusId} is not a status of segment ${segment.id}`);
        }
        const found = await findIdentityOwners(
          trx,
          communityId,
          identities.filter((identity) => identity !== null),
        );
        const owner = new Map(found.map((row) => [`${row.type}:${row.value}`, row.contactId]));
        const added = new Set<number>();
        const notFoundValues: string[] = [];
        values.forEach((value, index) => {
          const identity = identities[index];
          const contactId = identity ? owner.get(`${identity.type}:${identity.value}`) : undefined;
          if (contactId === undefined) notFoundValues.push(value);
          else added.add(contactId);
        });
        await segments.addMemberships(trx, communityId, segment.id, [...added], statusId);
        await recordWrite(trx, writer, {
          operation: 'segment.add_contacts',
          entityIds: [formatId('segment', segment.id), ...[...added].map((id) => formatId('contact', id))],
          detail: { statusId, notFound: notFoundValues.length },
        });
        return { added: [...added].map((id) => formatId('contact', id)), notFound: notFoundValues };
      });
    },
  };
}

export type SegmentService = ReturnType<typeof createSegmentService>;
