import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { keysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';

export interface WebsiteVisitRow {
  id: number;
  visitTime: Date;
  url: string;
  contactId: number | null;
  organizationId: number | null;
}

export interface WebsiteVisitFilter {
  contactId: number | null;
  organizationId: number | null;
  /** A boolean fragment about `w`, the website_visits row. */
  where: RawBuilder<SqlBool> | null;
}

const columns = ['w.id', 'w.visit_time as visitTime', 'w.url', 'w.contact_id as contactId', 'w.organization_id as organizationId'] as const;

// The base table is `w`: the alias the lightFilter compiler writes its fragments against.
function listQuery(db: Executor, communityId: number, filter: WebsiteVisitFilter) {
  let query = db.selectFrom('website_visits as w').where('w.community_id', '=', communityId);
  if (filter.contactId !== null) query = query.where('w.contact_id', '=', filter.contactId);
  if (filter.organizationId !== null) query = query.where('w.organization_id', '=', filter.organizationId);
  if (filter.where) query = query.where(filter.where);
  return query;
}

/** One page in ID order. */
export async function pageWebsiteVisits(
  db: Executor,
  communityId: number,
  filter: WebsiteVisitFilter,
  page: { limit: number; after: CursorPosition | null },
) {
  const query = listQuery(db, communityId, filter).select(columns);
  return keysetPage(query, { keys: [], id: sql`w.id`, direction: 'asc', ...page });
}

export async function countWebsiteVisits(db: Executor, communityId: number, filter: WebsiteVisitFilter): Promise<number> {
  const row = await listQuery(db, communityId, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
