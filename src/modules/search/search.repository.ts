/**
 * The SQL of search. It reads contacts, their identities and source profiles, organizations and their
 * domains, and segments, read-only: one statement per kind and stage, so that a keystroke costs a few index
 * reads (migration 0046) however large the community, rather than a call into each module per record.
 *
 * Each kind is read in two stages. The first finds exact and prefix matches (every field at once): exact ones
 * by equality; prefix ones through btree ranges, or, for contacts when a prefix starts hundreds of them, by a
 * walk of the most active contacts. The second, run only when the first found fewer than the limit and the
 * trigram indexes exist, finds names with a word that starts with the query and, from SUBSTRING_FROM
 * characters, names that hold it anywhere. A tier orders the matches (0 exact, 1 prefix, 2 word-prefix,
 * 3 substring), then activity (contacts) or members (organizations), then the ID.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { nameKeySql } from '../merge-suggestions/index.ts';
import { SUBSTRING_FROM, type SearchTerms } from './search-rules.ts';

export interface ContactHit {
  id: number;
  name: string;
  avatarUrl: string | null;
  field: 'name' | 'email' | 'handle';
  value: string;
  platform: string | null;
  tier: number;
}

export interface OrganizationHit {
  id: number;
  name: string;
  domain: string;
  field: 'name' | 'domain';
  value: string;
  tier: number;
}

export interface SegmentHit {
  id: number;
  name: string;
  entityType: 'contact' | 'organization' | 'object';
}

/** Whether migration 0046 could make the trigram indexes of names (the engine had pg_trgm). */
export async function hasNameTrigrams(db: Kysely<DB>): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`select to_regclass('contacts_search_name_trgm') is not null as present`.execute(db);
  return rows[0]?.present ?? false;
}

const contactKey = nameKeySql('c.name');
const organizationKey = nameKeySql('o.name');

/** The rows of contacts, most active first, that a prefix search walks before it reads the indexes of names and values instead. */
export const WALK = 3_000;

/**
 * The field a contact matches by with a prefix (an exact match included): its name, else an email or handle
 * identity, else a source profile's username. No row when it matches none.
 */
function prefixMatchOf(terms: SearchTerms, communityId: number) {
  const { name, text } = terms;
  // starts_with, not the ranges: these rows are one contact's, read by its ID, and a range here would lead
  // the planner to the index of every value that starts so.
  return sql`lateral (
      select field, value, platform from (
        select 'name' as field, c.name as value, null::text as platform, 0 as rank
        where ${name.exact} <> '' and starts_with(${contactKey}, ${name.exact})
        union all
        select case when i.type = 'email' then 'email' else 'handle' end, i.display_value,
          case when i.type = 'email' then null else i.type end, case when i.type = 'email' then 1 else 2 end
        from contact_identities i
        where i.community_id = ${communityId} and i.contact_id = c.id and ${text.exact} <> '' and starts_with(lower(i.display_value), ${text.exact})
        union all
        select 'handle', p.fields ->> 'username', s.service_name, 3
        from source_profiles p
        join sources s on s.community_id = p.community_id and s.id = p.source_id
        where p.community_id = ${communityId} and p.contact_id = c.id and ${text.exact} <> ''
          and starts_with(lower(p.fields ->> 'username'), ${text.exact})
      ) f
      order by rank
      limit 1
    ) m`;
}

/** Exact matches of contacts (tier 0): name key, email or handle, source profile username, equal to the query. */
export async function contactExactMatches(db: Kysely<DB>, communityId: number, terms: SearchTerms, limit: number): Promise<ContactHit[]> {
  const { name, text } = terms;
  const { rows } = await sql<ContactHit>`
    select c.id, c.name, c.avatar_url as "avatarUrl", m.field, m.value, m.platform, 0 as tier
    from (
      select distinct on (contact_id) contact_id, field, value, platform
      from (
        select c.id as contact_id, 'name' as field, c.name as value, null::text as platform, 0 as rank
        from contacts c
        where c.community_id = ${communityId} and ${contactKey} = ${name.exact} and ${name.exact} <> ''
        union all
        select i.contact_id, case when i.type = 'email' then 'email' else 'handle' end, i.display_value,
          case when i.type = 'email' then null else i.type end, case when i.type = 'email' then 1 else 2 end
        from contact_identities i
        where i.community_id = ${communityId} and lower(i.display_value) = ${text.exact}
        union all
        select p.contact_id, 'handle', p.fields ->> 'username', s.service_name, 3
        from source_profiles p
        join sources s on s.community_id = p.community_id and s.id = p.source_id
        where p.community_id = ${communityId} and left(lower(p.fields ->> 'username'), 200) = ${text.exact} and lower(p.fields ->> 'username') = ${text.exact}
      ) u
      order by contact_id, rank
    ) m
    join contacts c on c.community_id = ${communityId} and c.id = m.contact_id
    where c.anonymized_at is null and not c.staff
    order by c.activity_count_all desc, c.id
    limit ${limit}`.execute(db);
  return rows;
}

/**
 * Prefix matches among the WALK most active contacts, most active first. When it finds `limit` of them, they
 * are the community's `limit` most active prefix matches (the walk is in that order), however many contacts
 * match: a short query ("a") costs a few dozen rows instead of every name that starts with it.
 */
export async function contactPrefixWalk(db: Kysely<DB>, communityId: number, terms: SearchTerms, limit: number): Promise<ContactHit[]> {
  // Staff (console users made contacts) are not members of the community: never found here.
  const { rows } = await sql<ContactHit>`
    select c.id, c.name, c.avatar_url as "avatarUrl", m.field, m.value, m.platform, 1 as tier
    from (
      select id, name, avatar_url, activity_count_all, anonymized_at, staff from contacts
      where community_id = ${communityId}
      order by activity_count_all desc, id
      limit ${sql.lit(WALK)}
    ) c
    join ${prefixMatchOf(terms, communityId)} on true
    where c.anonymized_at is null and not c.staff
    order by c.activity_count_all desc, c.id
    limit ${limit}`.execute(db);
  return rows;
}

/** How many contacts a prefix may start (in any one field) for the indexes to hand them all over to be ranked. */
export const CANDIDATES = 500;

/**
 * Prefix matches of contacts through the indexes of names and values, most active first; null when the
 * prefix starts more than `cap` names (or emails, or usernames) of the community: ranking them all would
 * cost more than walking the most active contacts (contactPrefixWalk).
 */
export async function contactPrefixMatches(
  db: Kysely<DB>,
  communityId: number,
  terms: SearchTerms,
  limit: number,
  cap: number | null,
): Promise<ContactHit[] | null> {
  const { name, text } = terms;
  const most = cap === null ? sql`` : sql`limit ${sql.lit(cap + 1)}`;
  const { rows } = await sql<ContactHit & { truncated: boolean }>`
    with n as materialized (
      select c.id from contacts c
      where c.community_id = ${communityId} and ${contactKey} ~>=~ ${name.from} and ${contactKey} ~<~ ${name.to}
      ${most}
    ), i as materialized (
      select i.contact_id as id from contact_identities i
      where i.community_id = ${communityId} and lower(i.display_value) ~>=~ ${text.from} and lower(i.display_value) ~<~ ${text.to}
      ${most}
    ), p as materialized (
      select p.contact_id as id from source_profiles p
      where p.community_id = ${communityId}
        and left(lower(p.fields ->> 'username'), 200) ~>=~ ${text.from} and left(lower(p.fields ->> 'username'), 200) ~<~ ${text.to}
      ${most}
    ), t as (
      select ${cap === null ? sql`false` : sql`greatest((select count(*) from n), (select count(*) from i), (select count(*) from p)) > ${sql.lit(cap)}`} as truncated
    ), found as (select id from n union select id from i union select id from p)
    (
      select c.id, c.name, c.avatar_url as "avatarUrl", m.field, m.value, m.platform, 1 as tier, false as truncated
      from (
        select c.id, c.name, c.avatar_url, c.activity_count_all
        from found
        join contacts c on c.community_id = ${communityId} and c.id = found.id
        where c.anonymized_at is null and not c.staff and not (select truncated from t)
        order by c.activity_count_all desc, c.id
        limit ${limit}
      ) c
      join ${prefixMatchOf(terms, communityId)} on true
      order by c.activity_count_all desc, c.id
    )
    union all
    select null, null, null, null, null, null, null, true from t where truncated`.execute(db);
  if (rows.some((row) => row.truncated)) return null;
  return rows.map(({ truncated: _truncated, ...hit }) => hit);
}

/** Names with a word that starts with the query (and, from SUBSTRING_FROM characters, that hold it), but the contacts already found. */
export async function contactNameMatches(db: Kysely<DB>, communityId: number, terms: SearchTerms, limit: number, found: number[]): Promise<ContactHit[]> {
  const { name } = terms;
  const pattern = terms.nameLength >= SUBSTRING_FROM ? name.substring : name.wordPrefix;
  const { rows } = await sql<ContactHit>`
    select c.id, c.name, c.avatar_url as "avatarUrl", 'name' as field, c.name as value, null::text as platform,
      case when ' ' || ${contactKey} like ${name.wordPrefix} then 2 else 3 end as tier
    from contacts c
    where c.community_id = ${communityId} and ${contactKey} like ${pattern}
      and not (${contactKey} ~>=~ ${name.from} and ${contactKey} ~<~ ${name.to})
      and c.id <> all(${found}::bigint[]) and c.anonymized_at is null and not c.staff
    order by tier, c.activity_count_all desc, c.id
    limit ${limit}`.execute(db);
  return rows;
}

/** Exact and prefix matches of organizations: name, and any of their domains. */
export async function organizationPrefixMatches(db: Kysely<DB>, communityId: number, terms: SearchTerms, limit: number): Promise<OrganizationHit[]> {
  const { name, domain } = terms;
  const { rows } = await sql<OrganizationHit>`
    select o.id, o.name, o.primary_domain as domain, m.field, m.value, m.tier
    from (
      select distinct on (organization_id) organization_id, tier, field, value
      from (
        select o.id as organization_id, case when ${organizationKey} = ${name.exact} then 0 else 1 end as tier,
          'name' as field, o.name as value, 0 as rank
        from organizations o
        where o.community_id = ${communityId} and ${organizationKey} ~>=~ ${name.from} and ${organizationKey} ~<~ ${name.to}
        union all
        select d.organization_id, case when d.domain = ${domain.exact} then 0 else 1 end, 'domain', d.domain, 1
        from organization_domains d
        where d.community_id = ${communityId} and d.domain ~>=~ ${domain.from} and d.domain ~<~ ${domain.to}
      ) u
      order by organization_id, tier, rank
    ) m
    join organizations o on o.community_id = ${communityId} and o.id = m.organization_id
    order by m.tier, o.member_count desc, o.id
    limit ${limit}`.execute(db);
  return rows;
}

/** Organization names with a word that starts with the query (or that hold it), but those already found. */
export async function organizationNameMatches(
  db: Kysely<DB>,
  communityId: number,
  terms: SearchTerms,
  limit: number,
  found: number[],
): Promise<OrganizationHit[]> {
  const { name } = terms;
  const pattern = terms.nameLength >= SUBSTRING_FROM ? name.substring : name.wordPrefix;
  const { rows } = await sql<OrganizationHit>`
    select o.id, o.name, o.primary_domain as domain, 'name' as field, o.name as value,
      case when ' ' || ${organizationKey} like ${name.wordPrefix} then 2 else 3 end as tier
    from organizations o
    where o.community_id = ${communityId} and ${organizationKey} like ${pattern}
      and not (${organizationKey} ~>=~ ${name.from} and ${organizationKey} ~<~ ${name.to})
      and o.id <> all(${found}::bigint[])
    order by tier, o.member_count desc, o.id
    limit ${limit}`.execute(db);
  return rows;
}

/** Segments by name, every tier in one statement: a community has dozens of segments, not thousands. */
export async function segmentMatches(db: Kysely<DB>, communityId: number, terms: SearchTerms, limit: number): Promise<SegmentHit[]> {
  const { name } = terms;
  const key = nameKeySql('s.name');
  const pattern = terms.nameLength >= SUBSTRING_FROM ? name.substring : name.wordPrefix;
  const { rows } = await sql<SegmentHit>`
    select id, name, "entityType" from (
      select s.id, s.name, s.entity_type as "entityType",
        case when ${key} = ${name.exact} then 0 when ${key} ~>=~ ${name.from} and ${key} ~<~ ${name.to} then 1
          when ' ' || ${key} like ${name.wordPrefix} then 2 else 3 end as tier
      from segments s
      where s.community_id = ${communityId} and ${name.exact} <> ''
        and (${key} ~>=~ ${name.from} and ${key} ~<~ ${name.to} or ${key} like ${pattern})
    ) m
    order by tier, lower(name), id
    limit ${limit}`.execute(db);
  return rows;
}
