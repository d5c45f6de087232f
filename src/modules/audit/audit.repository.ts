import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { keysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import { writeTogether, type Write } from '../../core/lookups.ts';
import type { Writer } from '../../core/writer.ts';

export interface AuditRecord {
  /** What was done, `<entity>.<verb>`: `contact.push`, `segment.rename`, `contacts.bulk_update`, ... */
  operation: string;
  /** Every record the write created or changed, as the API names them (`c_12`, `s_3`, `l_7`, ...). */
  entityIds: string[];
  /** What the IDs alone do not say: the change's parameters, counts, the job it enqueued. */
  detail?: Record<string, unknown>;
}

/** Records one write. Call it inside the write's own transaction, after the write. */
export async function recordWrite(trx: Kysely<DB>, writer: Writer, record: AuditRecord): Promise<void> {
  await recordWrites(trx, [{ writer, record }]);
}

export interface AuditFilter {
  /** Null: every community (the CLI). */
  communityId: number | null;
  /** Exact, or a prefix when it ends in `*` (`segment.*`). */
  operation?: string;
  actor?: string;
  tokenId?: string;
  /** Entries that touched this record. */
  entityId?: string;
  since?: Date;
  until?: Date;
}

/** Newest first: by time, then ID. */
export function pageAuditEntries(db: Kysely<DB>, filter: AuditFilter, page: { after: CursorPosition | null; limit: number }) {
  let query = db
    .selectFrom('audit_log as a')
    .select(['a.community_id as communityId', 'a.id', 'a.at', 'a.actor', 'a.token_jti as tokenId', 'a.operation', 'a.entity_ids as entityIds', 'a.detail']);
  if (filter.communityId !== null) query = query.where('a.community_id', '=', filter.communityId);
  if (filter.operation !== undefined) {
    query = filter.operation.endsWith('*')
      ? query.where(sql<boolean>`starts_with(a.operation, ${filter.operation.slice(0, -1)})`)
      : query.where('a.operation', '=', filter.operation);
  }
  if (filter.actor !== undefined) query = query.where('a.actor', '=', filter.actor);
  if (filter.tokenId !== undefined) query = query.where('a.token_jti', '=', filter.tokenId);
  if (filter.entityId !== undefined) query = query.where(sql<boolean>`a.entity_ids @> array[${filter.entityId}]::text[]`);
  if (filter.since !== undefined) query = query.where('a.at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('a.at', '<=', filter.until);
  return keysetPage(query, {
    keys: [{ expr: sql.ref('a.at') }],
    id: sql.ref('a.id'),
    direction: 'desc',
    after: page.after,
    limit: page.limit,
  });
}

/** Deletes the entries older than `before` (of one community, or of all) and answers how many each community lost. */
export async function deleteEntriesBefore(trx: Kysely<DB>, communityId: number | null, before: Date): Promise<Map<number, number>> {
  let query = trx.deleteFrom('audit_log').where('at', '<', before);
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  const rows = await query.returning('community_id as communityId').execute();
  const counts = new Map<number, number>();
  for (const row of rows) counts.set(row.communityId, (counts.get(row.communityId) ?? 0) + 1);
  return counts;
}

/** recordWrite for many entries in one statement, in the order given. */
export async function recordWrites(trx: Kysely<DB>, entries: { writer: Writer; record: AuditRecord }[]): Promise<void> {
  await writeTogether(trx, [auditEntries(entries)]);
}

/**
 * The entries of recordWrites as one write (writeTogether). They travel as one JSON parameter, so the
 * statement's text is the same for any number of them.
 */
export function auditEntries(entries: { writer: Writer; record: AuditRecord }[]): Write {
  if (entries.length === 0) return null;
  const rows = entries.map(({ writer, record }) => ({
    communityId: writer.communityId,
    actor: writer.actor,
    tokenId: writer.tokenId,
    operation: record.operation,
    entityIds: [...new Set(record.entityIds)],
    detail: record.detail ?? {},
  }));
  return sql`
    insert into audit_log (community_id, actor, token_jti, operation, entity_ids, detail)
    select (e.v ->> 'communityId')::bigint, e.v ->> 'actor', e.v ->> 'tokenId', e.v ->> 'operation',
      array(select id from jsonb_array_elements_text(e.v -> 'entityIds') with ordinality as i(id, k) order by i.k), e.v -> 'detail'
    from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) with ordinality as e(v, n)
    order by e.n`;
}
