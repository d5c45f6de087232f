import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';
import { jsonRow } from '../../core/json-rows.ts';
import type { Lookup, Write } from '../../core/lookups.ts';

export async function findOrganizationByDomain(db: Executor, communityId: number, domain: string) {
  return db
    .selectFrom('organization_domains as d')
    .innerJoin('organizations as o', (join) => join.onRef('o.community_id', '=', 'd.community_id').onRef('o.id', '=', 'd.organization_id'))
    .select(['o.id', 'o.name', 'o.primary_domain as primaryDomain'])
    .where('d.community_id', '=', communityId)
    .where('d.domain', '=', domain)
    .executeTakeFirst();
}

/** The organization with this name, when exactly one organization of the community has it. */
export async function findOnlyOrganizationNamed(db: Executor, communityId: number, name: string) {
  const rows = await db
    .selectFrom('organizations')
    .select(['id', 'name', 'primary_domain as primaryDomain'])
    .where('community_id', '=', communityId)
    .where(sql<string>`lower(name)`, '=', name.trim().toLowerCase())
    .limit(2)
    .execute();
  return rows.length === 1 ? rows[0]! : undefined;
}

/**
 * Creates the organization of a domain. A concurrent push creating the same one makes this fail with a
 * unique violation; the caller retries and finds it.
 */
export async function insertOrganization(
  trx: Transaction<DB>,
  organization: { communityId: number; name: string; domain: string; sourceId: number | null; now: Date },
) {
  const made = await insertOrganizations(trx, organization.communityId, [organization], organization.now);
  return made.get(organization.domain)!;
}

/**
 * Moves organizations' contact counts by what a batch changed (joined +1, left -1), without counting, as
 * one write (writeTogether): the contacts that moved are locked by the caller, and concurrent changes add
 * up in the row.
 */
export function memberCountChanges(communityId: number, deltas: Map<number, number>): Write {
  const changed = [...deltas].filter(([, delta]) => delta !== 0);
  if (changed.length === 0) return null;
  return sql`
    update organizations o set member_count = o.member_count + d.delta
    from unnest(${changed.map(([id]) => id)}::bigint[], ${changed.map(([, delta]) => delta)}::int[]) as d(id, delta)
    where o.community_id = ${communityId} and o.id = d.id`;
}

/** Recounts the contacts of organizations (contactsCount), after contacts joined or left them; members only, not staff. */
export async function refreshMemberCounts(trx: Transaction<DB>, communityId: number, organizationIds: number[]) {
  if (organizationIds.length === 0) return;
  await sql`
    update organizations o set member_count = (
      select count(*) from contacts c where c.community_id = o.community_id and c.organization_id = o.id and not c.staff
    )
    where o.community_id = ${communityId} and o.id = any(${organizationIds}::bigint[])`.execute(trx);
}

export async function findOrganization(db: Executor, communityId: number, organizationId: number) {
  return db
    .selectFrom('organizations')
    .select(['id', 'name', 'primary_domain as primaryDomain'])
    .where('community_id', '=', communityId)
    .where('id', '=', organizationId)
    .executeTakeFirst();
}

/** A company of the shared prospector data, with what an organization takes from it. */
export async function findProspectorCompany(db: Executor, companyId: number) {
  return db
    .selectFrom('prospector_companies')
    .select([
      'id',
      'name',
      'description',
      'primary_domain as primaryDomain',
      'primary_website as primaryWebsite',
      'sub_industry as subIndustry',
      'industry_code as industryCode',
      'employees',
      'revenue_min as revenueMin',
      'revenue_max as revenueMax',
      'linkedin_handles as linkedinHandles',
      'city',
      'state',
      'country',
    ])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

export async function updateOrganizationFromProspector(
  trx: Transaction<DB>,
  communityId: number,
  organizationId: number,
  company: NonNullable<Awaited<ReturnType<typeof findProspectorCompany>>>,
  now: Date,
) {
  await trx
    .updateTable('organizations')
    .set({
      name: company.name,
      about: company.description,
      sub_industry: company.subIndustry,
      industry_code: company.industryCode,
      employees: company.employees,
      revenue_range_min: company.revenueMin,
      revenue_range_max: company.revenueMax,
      linkedin_url: company.linkedinHandles[0] ? `https://www.linkedin.com/company/${company.linkedinHandles[0]}` : null,
      city: company.city,
      region: company.state,
      country: company.country,
      prospector_company_id: company.id,
      updated_at: now,
    })
    .where('community_id', '=', communityId)
    .where('id', '=', organizationId)
    .execute();
}

/** An organization as ingestion links contacts to it. */
export type FoundOrganization = { id: number; name: string; primaryDomain: string };

/** By lowercased name: how many organizations have it (up to 2) and the organization when exactly one does. */
export type OrganizationsNamed = Map<string, { count: number; organization: FoundOrganization | null }>;

/** findOrganizationByDomain for many domains, as a lookup (readTogether): the organizations found, by domain. */
export function organizationsByDomains(communityId: number, domains: string[]): Lookup<Map<string, FoundOrganization>> {
  return {
    rows: domains.length
      ? sql`select d.domain, o.id, o.name, o.primary_domain as "primaryDomain"
          from organization_domains d join organizations o on o.community_id = d.community_id and o.id = d.organization_id
          where d.community_id = ${communityId} and d.domain = any(${domains}::text[])`
      : null,
    read: (rows) => new Map(rows.map((json) => organizationByDomainRow(json)).map(({ domain, ...organization }) => [domain, organization])),
  };
}

/**
 * For findOnlyOrganizationNamed over many names, as a lookup (readTogether): by lowercased name, how many
 * organizations have it (up to 2: more is as ambiguous) and the organization when exactly one does.
 */
export function organizationsNamed(communityId: number, names: string[]): Lookup<OrganizationsNamed> {
  const keys = [...new Set(names.map((name) => name.trim().toLowerCase()))];
  return {
    rows: keys.length
      ? sql`select k.key, o.id, o.name, o.primary_domain as "primaryDomain"
          from unnest(${keys}::text[]) as k(key)
          cross join lateral (
            select id, name, primary_domain from organizations where community_id = ${communityId} and lower(name) = k.key order by id limit 2
          ) o`
      : null,
    read(rows) {
      const found: OrganizationsNamed = new Map();
      for (const json of rows) {
        const { key, ...organization } = organizationByNameRow(json);
        const entry = found.get(key);
        found.set(key, entry ? { count: entry.count + 1, organization: null } : { count: 1, organization });
      }
      return found;
    },
  };
}

const organizationByDomainRow = jsonRow('organization by domain', { domain: 'string', id: 'integer', name: 'string', primaryDomain: 'string' });
const organizationByNameRow = jsonRow('organization by name', { key: 'string', id: 'integer', name: 'string', primaryDomain: 'string' });

/**
 * Organizations for domains that have none, each with its domain, in one statement (one round trip): the
 * organizations made, by domain.
 */
export async function insertOrganizations(
  trx: Transaction<DB>,
  communityId: number,
  organizations: { name: string; domain: string; sourceId: number | null }[],
  now: Date,
) {
  const made = new Map<string, { id: number; name: string; primaryDomain: string }>();
  if (organizations.length === 0) return made;
  // The domains' rows take the IDs from the organizations' RETURNING; their foreign key is checked at the
  // end of the statement, when the organizations exist.
  const rows = await sql<{ id: number; name: string; primaryDomain: string }>`
    with made as (
      insert into organizations (community_id, name, primary_domain, source_id, created_at, updated_at)
      select ${communityId}, t.name, t.domain, t.source_id, ${now}, ${now}
      from unnest(${organizations.map((o) => o.name)}::text[], ${organizations.map((o) => o.domain)}::text[],
        ${organizations.map((o) => o.sourceId)}::bigint[]) with ordinality as t(name, domain, source_id, n)
      order by t.n
      returning id, name, primary_domain),
    domains as (
      insert into organization_domains (community_id, domain, organization_id)
      select ${communityId}, primary_domain, id from made)
    select id, name, primary_domain as "primaryDomain" from made`.execute(trx);
  for (const row of rows.rows) made.set(row.primaryDomain, row);
  return made;
}
