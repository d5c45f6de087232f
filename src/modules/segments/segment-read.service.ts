import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { Cols, GetQuery, ListQuery } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { auditTx } from '../audit/index.ts';
import type { Writer } from '../../core/writer.ts';
import { normalizeEmail, normalizeHandle, type Normalized } from '../identity/index.ts';
import { identityTx } from '../identity/index.ts';
import * as segments from './segment-read.repository.ts';
import type { SegmentRef } from './segment-read.repository.ts';

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
function contactSegment(segment: SegmentRef | undefined, id: number): SegmentRef {
  if (!segment) throw notFound('segment_not_found', `segment ${id} not found`);
  if (segment.entityType !== 'contact') {
    throw notFound('segment_not_found', `segment ${id} is an ${segment.entityType} segment; these routes take contact segments`);
  }
  return segment;
}

export function createSegmentService(deps: { db: Kysely<DB>; cursors: CursorCodec; publicUrl: string }) {
  const { db } = deps;

  /** Segments with the opt-in columns `cols` names, loaded for all of them at once. */
  async function present(communityId: number, rows: SegmentRef[], cols: Cols) {
    const counts = cols.names.has('entityCount')
      ? await segments.memberCounts(
          db,
          communityId,
          rows.map((row) => row.id),
        )
      : null;
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
    /** Every segment, of any entity type, in ID order; `query` is a case-insensitive substring of the name. */
    async page(communityId: number, query: ListQuery & { query?: string }) {
      const { cols } = query;
      const nameQuery = query.query || null;
      const binding = { community: communityId, list: 'segments', sort: 'id', direction: 'asc' as const, filters: { query: nameQuery } };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) =>
        segments.pageSegments(db, communityId, nameQuery, { limit: query.page.limit, after }),
      );
      return {
        data: await present(communityId, page.rows, cols),
        meta: {
          nextCursor: page.nextCursor,
          ...(cols.recordCount ? { recordCount: await segments.countSegments(db, communityId, nameQuery) } : {}),
        },
      };
    },

    /** A segment of any entity type. */
    async get(communityId: number, { id, cols }: GetQuery) {
      const row = await segments.findSegment(db, communityId, id);
      if (!row) throw notFound('segment_not_found', `segment ${formatId('segment', id)} not found`);
      const [segment] = await present(communityId, [row], cols);
      return segment!;
    },

    /** The contact segments, `[{id, name}]` in ID order. */
    contactSegments(communityId: number) {
      return segments.listContactSegments(db, communityId);
    },

    /** One contact segment, `{id, name}`. */
    async contactSegment(communityId: number, id: number) {
      const segment = contactSegment(await segments.findSegment(db, communityId, id), id);
      return { id: segment.id, name: segment.name };
    },

    /** The statuses of a contact segment, in their order. */
    async statuses(communityId: number, id: number) {
      const segment = contactSegment(await segments.findSegment(db, communityId, id), id);
      return segments.listStatuses(db, communityId, segment.id);
    },

    /**
     * Adds existing contacts, found by one kind of identity, to a contact
     * segment. `value` is a comma-separated list; each value is matched by its normalized match key, and a
     * junk or malformed value, or one that no contact holds, is listed in `notFound`. Idempotent: contacts
     * already in the segment are listed in `added` again (their status is set when `statusId` is given).
     */
    async addContacts(writer: Writer, segmentId: number, input: { socialType: SocialType; value: string; statusId?: number | null }) {
      const { communityId } = writer;
      const values = [
        ...new Set(
          input.value
            .split(',')
            .map((value) => value.trim())
            .filter(Boolean),
        ),
      ];
      if (values.length === 0) throw invalidParameters(`value names no ${input.socialType} values (expected a comma-separated list)`);
      if (values.length > MAX_SEGMENT_ADD_VALUES) {
        throw invalidParameters(`value names ${values.length} values; one request takes at most ${MAX_SEGMENT_ADD_VALUES}`);
      }
      const statusId = input.statusId ?? null;
      if (statusId !== null && (!Number.isSafeInteger(statusId) || statusId < 0)) {
        throw new HearthError('invalid_status_id', `statusId ${statusId} is not a valid status ID (expected an integer)`);
      }
      const identities = values.map((value) => identityOf(input.socialType, value));

      return db.transaction().execute(async (trx) => {
        const segment = contactSegment(await segments.lockSegment(trx, communityId, segmentId), segmentId);
        if (statusId !== null && !(await segments.lockStatus(trx, communityId, segment.id, statusId))) {
          throw new HearthError('invalid_status_id', `status ${statusId} is not a status of segment ${segment.id}`);
        }
        const found = await identityTx.findIdentityOwners(
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
        await auditTx.recordWrite(trx, writer, {
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
