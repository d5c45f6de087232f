import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Place } from '../locations/index.ts';
import type { Executor } from '../../core/executor.ts';
import { writeTogether } from '../../core/lookups.ts';
import { topicTx } from '../topics/index.ts';

/**
 * The contacts a source touched since `since` (every one it ever touched when null): those with a source
 * profile or an activity of the source written since then. IDs in ascending order.
 */
export async function touchedContactIds(db: Executor, communityId: number, sourceId: number, since: Date | null): Promise<number[]> {
  const after = (column: string) => (since ? sql`and ${sql.ref(column)} >= ${since}` : sql``);
  const { rows } = await sql<{ id: number }>`
    select sp.contact_id as id from source_profiles sp
    where sp.community_id = ${communityId} and sp.source_id = ${sourceId} ${after('sp.updated_at')}
    union
    select a.contact_id from activities a
    where a.community_id = ${communityId} and a.source_id = ${sourceId} ${after('a.updated_at')}
    order by 1`.execute(db);
  return rows.map((row) => Number(row.id));
}

export interface DerivationState {
  id: number;
  organizationId: number | null;
  companyName: string | null;
  rawLocation: string | null;
  /** No location column is set: the contact has no interpreted location. */
  placeless: boolean;
}

/** What the derivations need of each contact of the batch (anonymized ones are left out). */
export async function derivationStates(db: Executor, communityId: number, contactIds: number[]): Promise<DerivationState[]> {
  const { rows } = await sql<DerivationState>`
    select c.id, c.organization_id as "organizationId", c.company_name as "companyName", c.raw_location as "rawLocation",
      (c.city is null and c.region is null and c.country is null and c.country_code is null and c.world_region is null) as placeless
    from contacts c
    where c.community_id = ${communityId} and c.id = any(${contactIds}::bigint[]) and c.anonymized_at is null`.execute(db);
  return rows;
}

export interface ProfileHints {
  contactId: number;
  companyDomain: string | null;
  companyName: string | null;
  rawLocation: string | null;
  city: string | null;
  region: string | null;
  country: string | null;
}

/** What the contacts' source profiles (of any source) last said, newest first. */
export async function profileHints(db: Executor, communityId: number, contactIds: number[]): Promise<ProfileHints[]> {
  const text = (field: string) => sql<string | null>`case when jsonb_typeof(sp.fields -> ${field}) = 'string' then sp.fields ->> ${field} end`;
  const { rows } = await sql<ProfileHints>`
    select sp.contact_id as "contactId", ${text('companyDomain')} as "companyDomain", ${text('companyName')} as "companyName",
      ${text('rawLocation')} as "rawLocation", ${text('city')} as city, ${text('region')} as region, ${text('country')} as country
    from source_profiles sp
    where sp.community_id = ${communityId} and sp.contact_id = any(${contactIds}::bigint[])
    order by sp.updated_at desc, sp.source_id, sp.external_id`.execute(db);
  return rows.map((row) => ({ ...row, contactId: Number(row.contactId) }));
}

/** The contacts' email identities (match keys), oldest first. */
export async function emailIdentities(db: Executor, communityId: number, contactIds: number[]): Promise<{ contactId: number; value: string }[]> {
  const { rows } = await sql<{ contactId: number; value: string }>`
    select ci.contact_id as "contactId", ci.value from contact_identities ci
    where ci.community_id = ${communityId} and ci.contact_id = any(${contactIds}::bigint[]) and ci.type = 'email'
    order by ci.created_at, ci.value`.execute(db);
  return rows.map((row) => ({ ...row, contactId: Number(row.contactId) }));
}

export interface OrganizationRef {
  id: number;
  name: string;
  primaryDomain: string;
}

/** The organizations holding these domains, by domain. */
export async function organizationsByDomain(db: Executor, communityId: number, domains: string[]): Promise<Map<string, OrganizationRef>> {
  if (domains.length === 0) return new Map();
  const { rows } = await sql<OrganizationRef & { domain: string }>`
    select d.domain, o.id, o.name, o.primary_domain as "primaryDomain"
    from organization_domains d
    join organizations o on o.community_id = d.community_id and o.id = d.organization_id
    where d.community_id = ${communityId} and d.domain = any(${domains}::text[])`.execute(db);
  return new Map(rows.map(({ domain, ...organization }) => [domain, { ...organization, id: Number(organization.id) }]));
}

/**
 * Creates the organizations of these domains, in one statement with their domain rows. A domain another
 * writer claimed meanwhile is left to it (the caller looks the domains up again). Returns how many it made.
 */
export async function insertOrganizations(
  trx: Transaction<DB>,
  communityId: number,
  sourceId: number,
  organizations: { domain: string; name: string }[],
  now: Date,
): Promise<number> {
  if (organizations.length === 0) return 0;
  // In domain order, so that concurrent writers take the unique index's locks in one order.
  const sorted = [...organizations].sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  const { rows } = await sql<{ id: number }>`
    with made as (
      insert into organizations (community_id, name, primary_domain, source_id, created_at, updated_at)
      select ${communityId}::bigint, g.name, g.domain, ${sourceId}::bigint, ${now}::timestamptz, ${now}::timestamptz
      from unnest(${sorted.map((o) => o.domain)}::text[], ${sorted.map((o) => o.name)}::text[]) with ordinality as g(domain, name, n)
      order by g.n
      on conflict (community_id, primary_domain) do nothing
      returning id, primary_domain
    )
    insert into organization_domains (community_id, domain, organization_id)
    select ${communityId}::bigint, made.primary_domain, made.id from made
    on conflict do nothing
    returning organization_id as id`.execute(trx);
  return rows.length;
}

/** For each of these names (lowercased) held by exactly one organization of the community: that one. */
export async function onlyOrganizationsNamed(db: Executor, communityId: number, names: string[]): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const { rows } = await sql<{ key: string; id: number }>`
    select lower(o.name) as key, min(o.id) as id from organizations o
    where o.community_id = ${communityId} and lower(o.name) = any(${names}::text[])
    group by lower(o.name) having count(*) = 1`.execute(db);
  return new Map(rows.map((row) => [row.key, Number(row.id)]));
}

/**
 * Links contacts without an organization to one, as a push would: organization, company website, and the
 * company name when the contact has none. A contact that got an organization meanwhile keeps it. Returns
 * the links made.
 */
export async function linkOrganizations(
  trx: Transaction<DB>,
  communityId: number,
  links: { contactId: number; organizationId: number }[],
  now: Date,
): Promise<{ contactId: number; organizationId: number }[]> {
  if (links.length === 0) return [];
  const { rows } = await sql<{ contactId: number; organizationId: number }>`
    update contacts c set
      organization_id = o.id,
      company_website = 'https://' || o.primary_domain,
      company_name = coalesce(c.company_name, o.name),
      updated_at = ${now}::timestamptz
    from unnest(${links.map((l) => l.contactId)}::bigint[], ${links.map((l) => l.organizationId)}::bigint[]) as l(contact_id, organization_id)
    join organizations o on o.community_id = ${communityId} and o.id = l.organization_id
    where c.community_id = ${communityId} and c.id = l.contact_id and c.organization_id is null and c.anonymized_at is null
    returning c.id as "contactId", c.organization_id as "organizationId"`.execute(trx);
  return rows.map((row) => ({ contactId: Number(row.contactId), organizationId: Number(row.organizationId) }));
}

/**
 * Sets the location of contacts that have none. A contact that got one meanwhile keeps it. Returns the
 * contacts whose location was set (the caller moves their location member counts).
 */
export async function setPlaces(trx: Transaction<DB>, communityId: number, places: { contactId: number; place: Place }[], now: Date): Promise<number[]> {
  if (places.length === 0) return [];
  const column = (pick: (place: Place) => string | null) => places.map((entry) => pick(entry.place));
  const { rows } = await sql<{ id: number }>`
    update contacts c set
      city = p.city, region = p.region, country = p.country, country_code = p.country_code, world_region = p.world_region,
      updated_at = ${now}::timestamptz
    from unnest(
      ${places.map((entry) => entry.contactId)}::bigint[], ${column((p) => p.city)}::text[], ${column((p) => p.region)}::text[],
      ${column((p) => p.country)}::text[], ${column((p) => p.countryCode)}::text[], ${column((p) => p.worldRegion)}::text[]
    ) as p(contact_id, city, region, country, country_code, world_region)
    where c.community_id = ${communityId} and c.id = p.contact_id and c.anonymized_at is null
      and c.city is null and c.region is null and c.country is null and c.country_code is null and c.world_region is null
    returning c.id`.execute(trx);
  return rows.map((row) => Number(row.id));
}

export interface UntopicedActivity {
  id: number;
  /** As text: a Date would drop the microseconds, and the keyset and the recheck need the exact value. */
  updatedAt: string;
  title: string | null;
  content: string | null;
  contentType: 'text' | 'markdown' | null;
}

/**
 * One page of the source's activities written since `since` that have text but no topic, in (updated_at,
 * id) order after `after`.
 */
export async function activitiesWithoutTopics(
  db: Executor,
  communityId: number,
  sourceId: number,
  page: { since: Date | null; after: [string, number] | null; limit: number },
): Promise<UntopicedActivity[]> {
  const since = page.since ? sql`and a.updated_at >= ${page.since}` : sql``;
  const after = page.after ? sql`and (a.updated_at, a.id) > (${page.after[0]}::timestamptz, ${page.after[1]}::bigint)` : sql``;
  const { rows } = await sql<UntopicedActivity>`
    select a.id, a.updated_at::text as "updatedAt", a.title, a.content, a.content_type as "contentType"
    from activities a
    where a.community_id = ${communityId} and a.source_id = ${sourceId} ${since} ${after}
      and (a.title is not null or a.content is not null)
      and not exists (select 1 from activity_topics t where t.community_id = a.community_id and t.activity_id = a.id)
    order by a.updated_at, a.id
    limit ${page.limit}`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/**
 * Links activities to topics (made when missing: one per community and lowercased name, the first spelling
 * stays), in three statements for the whole batch. Each activity is linked only if it is as it was read
 * (same `updatedAt`), has no topic yet, and its contact is not anonymized; the share locks on the activity
 * and its contact make a concurrent re-push or erasure wait for this transaction, or this one for it (and
 * then see what it did), so topics of erased or replaced text are never linked. Returns how many
 * activities got topics.
 */
export async function addActivityTopics(
  trx: Transaction<DB>,
  communityId: number,
  read: { id: number; updatedAt: string }[],
  links: { activityId: number; name: string }[],
): Promise<number> {
  if (links.length === 0) return 0;
  const { rows: live } = await sql<{ id: number }>`
    select a.id from activities a
    join unnest(${read.map((r) => r.id)}::bigint[], ${read.map((r) => r.updatedAt)}::text[]) as r(id, updated_at) on r.id = a.id
    join contacts c on c.community_id = a.community_id and c.id = a.contact_id
    where a.community_id = ${communityId} and a.updated_at = r.updated_at::timestamptz and c.anonymized_at is null
      and not exists (select 1 from activity_topics x where x.community_id = a.community_id and x.activity_id = a.id)
    order by a.id
    for share of a, c`.execute(trx);
  const liveIds = new Set(live.map((row) => Number(row.id)));
  const kept = links.filter((link) => liveIds.has(link.activityId));
  if (kept.length === 0) return 0;
  await topicTx.makeTopics(
    trx,
    communityId,
    kept.map((link) => link.name),
  );
  await writeTogether(trx, [topicTx.topicLinks(communityId, kept)]);
  return liveIds.size;
}
