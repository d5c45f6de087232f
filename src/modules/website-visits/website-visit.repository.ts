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
export async function pageWebsiteVisits(db: Executor, communityId: number, filter: WebsiteVisitFilter, page: { limit: number; after: CursorPosition | null }) {
  const query = listQuery(db, communityId, filter).select(columns);
  return keysetPage(query, { keys: [], id: sql`w.id`, direction: 'asc', ...page });
}

export async function countWebsiteVisits(db: Executor, communityId: number, filter: WebsiteVisitFilter): Promise<number> {
  const row = await listQuery(db, communityId, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The contacts that `ids` name now: a contact's own ID, or the survivor of a merge it was part of. */
export async function currentContacts(db: Executor, communityId: number, ids: number[]): Promise<Map<number, { id: number; organizationId: number | null }>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<{ given: number; id: number; organizationId: number | null }>`
    select g.id as given, c.id, c.organization_id as "organizationId"
    from unnest(${ids}::bigint[]) as g(id)
    left join contact_merges m on m.community_id = ${communityId} and m.merged_id = g.id and m.unmerged_at is null
    join contacts c on c.community_id = ${communityId} and c.id = coalesce(m.survivor_id, g.id) and c.anonymized_at is null`.execute(db);
  return new Map(
    rows.map((row) => [Number(row.given), { id: Number(row.id), organizationId: row.organizationId === null ? null : Number(row.organizationId) }]),
  );
}

/** The contacts holding these email identities (normalized values), with their organizations. */
export async function contactsByEmail(
  db: Executor,
  communityId: number,
  emails: string[],
): Promise<Map<string, { id: number; organizationId: number | null }>> {
  if (emails.length === 0) return new Map();
  const { rows } = await sql<{ value: string; id: number; organizationId: number | null }>`
    select i.value, c.id, c.organization_id as "organizationId"
    from contact_identities i
    join contacts c on c.community_id = i.community_id and c.id = i.contact_id and c.anonymized_at is null
    where i.community_id = ${communityId} and i.type = 'email' and i.value = any(${emails}::text[])
    order by i.value, c.id`.execute(db);
  const found = new Map<string, { id: number; organizationId: number | null }>();
  for (const row of rows) {
    if (!found.has(row.value)) found.set(row.value, { id: Number(row.id), organizationId: row.organizationId === null ? null : Number(row.organizationId) });
  }
  return found;
}

export interface NewVisit {
  url: string;
  visitTime: Date;
  contactId: number | null;
  anonymousId: string | null;
  organizationId: number | null;
}

/**
 * Stores visits; one already stored (same visitor, page and time) is kept as it is. Their IDs, in order.
 * The IDs are read by a statement of their own after the insert: a statement's snapshot does not show a row
 * that another push of the same visit committed while it ran, so reading them inside the insert could miss it.
 */
export async function insertVisits(db: Executor, communityId: number, sourceId: number, visits: NewVisit[], now: Date): Promise<number[]> {
  if (visits.length === 0) return [];
  if (visits.length === 1) return [await insertVisit(db, communityId, sourceId, visits[0]!, now)];
  const input = sql`unnest(
    ${visits.map((v) => v.url)}::text[], ${visits.map((v) => v.visitTime.toISOString())}::timestamptz[],
    ${visits.map((v) => v.contactId)}::bigint[], ${visits.map((v) => v.anonymousId)}::text[], ${visits.map((v) => v.organizationId)}::bigint[]
  ) with ordinality as t(url, visit_time, contact_id, anonymous_id, organization_id, n)`;
  await sql`
    insert into website_visits (community_id, source_id, url, visit_time, contact_id, anonymous_id, organization_id, created_at)
    select distinct on (coalesce(contact_id, 0), coalesce(anonymous_id, ''), url, visit_time)
      ${communityId}::bigint, ${sourceId}::bigint, url, visit_time, contact_id, anonymous_id, organization_id, ${now}::timestamptz
    from ${input} order by coalesce(contact_id, 0), coalesce(anonymous_id, ''), url, visit_time, n
    on conflict (community_id, coalesce(contact_id, 0), coalesce(anonymous_id, ''), url, visit_time) do nothing`.execute(db);
  const { rows } = await sql<{ n: number; id: number }>`
    select t.n, w.id
    from ${input}
    join website_visits w on w.community_id = ${communityId} and coalesce(w.contact_id, 0) = coalesce(t.contact_id, 0)
      and coalesce(w.anonymous_id, '') = coalesce(t.anonymous_id, '') and w.url = t.url and w.visit_time = t.visit_time
    order by t.n`.execute(db);
  if (rows.length !== visits.length) throw new Error(`website visits: ${visits.length} stored, ${rows.length} found again`);
  return rows.map((row) => Number(row.id));
}

export interface Visitor {
  /** The contact the site identified this browser as; null until Hearth knows the address. */
  contactId: number | null;
  organizationId: number | null;
  /** The normalized address the site gave (identify), kept to find the contact later. */
  email: string | null;
}

/** The identified browsers among these anonymous IDs, with their contacts (a merge moved them to the survivor). */
export async function visitorsOf(db: Executor, communityId: number, anonymousIds: string[]): Promise<Map<string, Visitor>> {
  if (anonymousIds.length === 0) return new Map();
  const { rows } = await sql<{ anonymousId: string; contactId: number | null; organizationId: number | null; email: string | null }>`
    select v.anonymous_id as "anonymousId", c.id as "contactId", c.organization_id as "organizationId", v.email
    from website_visitors v
    left join contacts c on c.community_id = v.community_id and c.id = v.contact_id and c.anonymized_at is null
    where v.community_id = ${communityId} and v.anonymous_id = any(${anonymousIds}::text[])`.execute(db);
  const id = (value: number | null) => (value === null ? null : Number(value));
  return new Map(rows.map((row) => [row.anonymousId, { contactId: id(row.contactId), organizationId: id(row.organizationId), email: row.email }]));
}

/**
 * Records what the site said of a browser, in one statement whatever the address: the contact that holds
 * it (if any) is looked up inside the statement, the visitor row is written, and the browser's visits
 * without a contact become that contact's. So a call about a known address and one about an unknown address
 * run the same statement over the same indexes, and differ only in the rows of the caller's own browser.
 * Nothing is written for an address on the suppression list (`suppressed`: its identity's type and hash). An
 * unsigned call never replaces what a signed one recorded.
 */
export async function identifyVisitor(
  db: Executor,
  communityId: number,
  visitor: { anonymousId: string; email: string; verified: boolean; suppressed: { type: string; hash: string } },
  now: Date,
): Promise<number> {
  const { rows } = await sql<{ linked: number }>`
    with contact as (
      select c.id, c.organization_id
      from contact_identities i
      join contacts c on c.community_id = i.community_id and c.id = i.contact_id and c.anonymized_at is null
      where i.community_id = ${communityId} and i.type = 'email' and i.value = ${visitor.email}
      order by c.id
      limit 1
    ), visitor as (
      insert into website_visitors (community_id, anonymous_id, contact_id, email, verified, identified_at)
      select ${communityId}, ${visitor.anonymousId}, (select id from contact), ${visitor.email}, ${visitor.verified}, ${now}
      where not exists (
        select 1 from suppressions s
        where s.community_id = ${communityId} and s.identity_type = ${visitor.suppressed.type} and s.value_hash = ${visitor.suppressed.hash})
      on conflict (community_id, anonymous_id) do update
        set contact_id = excluded.contact_id, email = excluded.email, verified = excluded.verified, identified_at = excluded.identified_at
        where excluded.verified or not website_visitors.verified
      returning anonymous_id, contact_id
    ), linked as (
      update website_visits w
      set contact_id = v.contact_id, organization_id = coalesce(w.organization_id, (select organization_id from contact))
      from visitor v
      where w.community_id = ${communityId} and w.anonymous_id = v.anonymous_id and w.contact_id is null and v.contact_id is not null
        and not exists (
          select 1 from website_visits o
          where o.community_id = w.community_id and o.contact_id = v.contact_id and o.anonymous_id = w.anonymous_id
            and o.url = w.url and o.visit_time = w.visit_time)
      returning 1
    )
    select count(*)::int as linked from linked`.execute(db);
  return Number(rows[0]?.linked ?? 0);
}

/**
 * An unsigned identify call of a tracker that does not allow them: kept apart, per source and browser, and
 * linked to nothing. Nothing is written for an address on the suppression list.
 */
export async function holdUnverifiedVisitor(
  db: Executor,
  communityId: number,
  visitor: { sourceId: number; anonymousId: string; email: string; suppressed: { type: string; hash: string } },
  now: Date,
): Promise<void> {
  await sql`
    insert into website_unverified_visitors (community_id, source_id, anonymous_id, email, identified_at)
    select ${communityId}, ${visitor.sourceId}, ${visitor.anonymousId}, ${visitor.email}, ${now}
    where not exists (
      select 1 from suppressions s
      where s.community_id = ${communityId} and s.identity_type = ${visitor.suppressed.type} and s.value_hash = ${visitor.suppressed.hash})
    on conflict (community_id, source_id, anonymous_id) do update set email = excluded.email, identified_at = excluded.identified_at`.execute(db);
}

/**
 * Gives browsers their contacts: the visitor rows, and every visit of theirs that had no contact yet (its
 * organization, when it had none, becomes the contact's). A visit the contact already has under the same
 * anonymous ID, page and time stays the only one.
 */
export async function linkVisits(
  db: Executor,
  communityId: number,
  links: { anonymousId: string; contactId: number; organizationId: number | null }[],
): Promise<number> {
  if (links.length === 0) return 0;
  const input = sql`unnest(${links.map((l) => l.anonymousId)}::text[], ${links.map((l) => l.contactId)}::bigint[], ${links.map((l) => l.organizationId)}::bigint[])
    as t(anonymous_id, contact_id, organization_id)`;
  await sql`
    update website_visitors v set contact_id = t.contact_id
    from ${input}
    where v.community_id = ${communityId} and v.anonymous_id = t.anonymous_id`.execute(db);
  const result = await sql`
    update website_visits w set contact_id = t.contact_id, organization_id = coalesce(w.organization_id, t.organization_id)
    from ${input}
    where w.community_id = ${communityId} and w.anonymous_id = t.anonymous_id and w.contact_id is null
      and not exists (
        select 1 from website_visits o
        where o.community_id = w.community_id and o.contact_id = t.contact_id and o.anonymous_id = w.anonymous_id
          and o.url = w.url and o.visit_time = w.visit_time)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * One visit (a tracker's page view): a plain insert, and a read of the stored one only when it was there
 * already. The set-based statement above costs the database several times as much for a single row
 * (docs/performance.md, the tracker figure).
 */
async function insertVisit(db: Executor, communityId: number, sourceId: number, visit: NewVisit, now: Date): Promise<number> {
  const inserted = await sql<{ id: number }>`
    insert into website_visits (community_id, source_id, url, visit_time, contact_id, anonymous_id, organization_id, created_at)
    values (${communityId}, ${sourceId}, ${visit.url}, ${visit.visitTime}, ${visit.contactId}, ${visit.anonymousId}, ${visit.organizationId}, ${now})
    on conflict (community_id, coalesce(contact_id, 0), coalesce(anonymous_id, ''), url, visit_time) do nothing
    returning id`.execute(db);
  if (inserted.rows[0]) return Number(inserted.rows[0].id);
  const { rows } = await sql<{ id: number }>`
    select id from website_visits
    where community_id = ${communityId} and coalesce(contact_id, 0) = coalesce(${visit.contactId}::bigint, 0)
      and coalesce(anonymous_id, '') = coalesce(${visit.anonymousId}::text, '') and url = ${visit.url} and visit_time = ${visit.visitTime}`.execute(db);
  return Number(rows[0]!.id);
}
