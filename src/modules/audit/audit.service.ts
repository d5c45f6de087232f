import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { pointInTime } from '../../core/durations.ts';
import { formatId } from '../../core/ids.ts';
import type { PageRequest } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { deleteEntriesBefore, pageAuditEntries, recordWrite, type AuditFilter } from './audit.repository.ts';

/** The filters of `GET /api/v2/admin/audit-log` and `hearth audit`, as given. */
export interface AuditQuery {
  operation?: string;
  actor?: string;
  tokenId?: string;
  entityId?: string;
  /** An ISO 8601 date-time, or an ISO 8601 duration back from now (`P7D`, `PT1H`). */
  since?: string;
  until?: string;
}

export interface AuditEntry {
  id: number;
  communityId: number;
  at: Date;
  actor: string;
  tokenId: string | null;
  operation: string;
  entityIds: string[];
  detail: unknown;
}

/** Reads the audit log; the writes themselves record into it (audit.repository.ts `recordWrite`). */
export function createAuditService(deps: { db: Kysely<DB>; clock: Clock; cursors: CursorCodec }) {
  function filterOf(communityId: number | null, query: AuditQuery): AuditFilter {
    return {
      communityId,
      operation: query.operation,
      actor: query.actor,
      tokenId: query.tokenId,
      entityId: query.entityId,
      since: query.since === undefined ? undefined : pointInTime('since', query.since, deps.clock.now()),
      until: query.until === undefined ? undefined : pointInTime('until', query.until, deps.clock.now()),
    };
  }

  return {
    /** GET /api/v2/admin/audit-log: newest first, keyset paged behind a cursor bound to the filters. */
    async page(communityId: number, query: AuditQuery, request: PageRequest) {
      const filter = filterOf(communityId, query);
      // The cursor binds the filters as given: a duration is re-read against the clock of each page.
      const binding = { community: communityId, list: 'audit-log', sort: 'at', direction: 'desc' as const, filters: { ...query } };
      const page = await pageWithCursor(deps.cursors, binding, request, (after) => pageAuditEntries(deps.db, filter, { after, limit: request.limit }));
      return {
        data: page.rows.map(present),
        meta: { nextCursor: page.nextCursor },
      };
    },

    /**
     * `hearth audit prune --before WHEN`: deletes older entries, in one transaction with an `audit.prune`
     * entry in each community that lost some, so that a prune is itself on the record.
     */
    async prune(communityId: number | null, before: string, actor: string): Promise<{ before: Date; deleted: number }> {
      const cutoff = pointInTime('before', before, deps.clock.now());
      const counts = await deps.db.transaction().execute(async (trx) => {
        const deleted = await deleteEntriesBefore(trx, communityId, cutoff);
        for (const [community, count] of deleted) {
          await recordWrite(
            trx,
            { communityId: community, actor, tokenId: null },
            { operation: 'audit.prune', entityIds: [], detail: { before: cutoff.toISOString(), deleted: count } },
          );
        }
        return deleted;
      });
      return { before: cutoff, deleted: [...counts.values()].reduce((sum, count) => sum + count, 0) };
    },

    /** The newest `limit` entries of one community or of all (`hearth audit`), each naming its community. */
    async latest(communityId: number | null, query: AuditQuery, limit: number) {
      const { rows } = await pageAuditEntries(deps.db, filterOf(communityId, query), { after: null, limit });
      return rows.map((entry) => ({ ...present(entry), communityId: formatId('community', entry.communityId) }));
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;

function present(entry: AuditEntry) {
  return {
    id: formatId('audit_entry', entry.id),
    at: entry.at.toISOString(),
    actor: entry.actor,
    tokenId: entry.tokenId,
    operation: entry.operation,
    entityIds: entry.entityIds,
    detail: entry.detail,
  };
}
