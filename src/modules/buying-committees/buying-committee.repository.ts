import { sql, type Kysely, type Transaction } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import { jsonRow } from '../../core/json-rows.ts';
import type { Lookup } from '../../core/lookups.ts';
import type { DB } from '../../db/schema.ts';

/** A seniority or a department of a committee, as stored (its position is its place in the list). */
export interface CommitteeRank {
  id: number;
  key: string;
  name: string;
}

export interface Committee {
  seniorities: CommitteeRank[];
  departments: CommitteeRank[];
}

/** The community's committee, seniorities and departments each by position; null when it has none. */
export async function readCommittee(db: Executor, communityId: number): Promise<Committee | null> {
  const { rows } = await sql<{ configured: boolean; seniorities: CommitteeRank[]; departments: CommitteeRank[] }>`
    select
      exists (select from buying_committees where community_id = ${communityId}) as configured,
      (select coalesce(json_agg(json_build_object('id', id, 'key', key, 'name', name) order by position), '[]'::json)
         from buying_committee_seniorities where community_id = ${communityId}) as seniorities,
      (select coalesce(json_agg(json_build_object('id', id, 'key', key, 'name', name) order by position), '[]'::json)
         from buying_committee_departments where community_id = ${communityId}) as departments`.execute(db);
  const row = rows[0]!;
  return row.configured ? { seniorities: row.seniorities, departments: row.departments } : null;
}

/**
 * Replaces the community's committee. The committee's row is locked first (made, or updated in place), so
 * two replacements of one community run one after the other instead of colliding on the keys.
 */
export async function replaceCommittee(trx: Transaction<DB>, communityId: number, committee: Committee): Promise<void> {
  await sql`insert into buying_committees (community_id) values (${communityId})
    on conflict (community_id) do update set created_at = buying_committees.created_at`.execute(trx);
  await sql`with seniorities as (delete from buying_committee_seniorities where community_id = ${communityId})
    delete from buying_committee_departments where community_id = ${communityId}`.execute(trx);
  const rows = (ranks: CommitteeRank[]) =>
    ranks.map((rank, position) => ({ community_id: communityId, id: rank.id, key: rank.key, name: rank.name, position }));
  await trx.insertInto('buying_committee_seniorities').values(rows(committee.seniorities)).execute();
  await trx.insertInto('buying_committee_departments').values(rows(committee.departments)).execute();
}

/** Removes the community's committee (its seniorities and departments go with it); whether it had one. */
export async function deleteCommittee(trx: Transaction<DB>, communityId: number): Promise<boolean> {
  const result = await trx.deleteFrom('buying_committees').where('community_id', '=', communityId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A contact of the organization that has a title: what a cell shows of it, and what ranks it. */
export interface ContactCandidate {
  id: number;
  name: string;
  title: string;
  email: string | null;
  activityCount: number;
  latestActivityAt: Date | null;
}

/** The organization's contacts that carry a title; erased contacts never. */
export async function organizationContacts(db: Kysely<DB>, communityId: number, organizationId: number): Promise<ContactCandidate[]> {
  return db
    .selectFrom('contacts')
    .select(['id', 'name', 'title', 'primary_email as email', 'activity_count_all as activityCount', 'latest_activity_at as latestActivityAt'])
    .where('community_id', '=', communityId)
    .where('organization_id', '=', organizationId)
    .where('anonymized_at', 'is', null)
    .where('title', 'is not', null)
    .where('title', '<>', '')
    .$narrowType<{ title: string }>()
    .execute();
}

/** A person of the shared prospector data, with the website of their company. */
export interface ProspectorCandidate {
  id: number;
  name: string;
  title: string;
  email: string | null;
  linkedinHandle: string | null;
  website: string;
}

/**
 * The titled people of the prospector companies whose website is on `domain` or a host under it, for each
 * spelling of the domain given (its Unicode and its ASCII form): a superset of the companies whose
 * registrable domain is `domain`, found through the index of migration 0018. The caller keeps the right ones.
 */
export async function prospectorContactsOnDomain(db: Kysely<DB>, spellings: string[]): Promise<ProspectorCandidate[]> {
  const host = sql`website_reversed_host(co.primary_website) collate "C"`;
  const onDomain = spellings.map((domain) => {
    const reversed = [...domain].reverse().join('');
    return sql`${host} = ${reversed} or (${host} >= ${`${reversed}.`} and ${host} < ${`${reversed}/`})`;
  });
  const { rows } = await sql<ProspectorCandidate>`
    select pc.id, pc.name, pc.title, pc.email, pc.linkedin_handle as "linkedinHandle", co.primary_website as website
    from prospector_companies co
    join prospector_contacts pc on pc.company_id = co.id
    where (${sql.join(onDomain, sql` or `)}) and pc.title is not null and pc.title <> ''`.execute(db);
  return rows;
}

/**
 * Which of the identities (`type`, match key) belong to a contact of the organization, as `type:value`
 * (a lookup for readTogether).
 */
export function identitiesOfOrganization(communityId: number, organizationId: number, identities: { type: string; value: string }[]): Lookup<Set<string>> {
  return {
    rows: identities.length
      ? sql`select i.type, i.value
          from unnest(${identities.map((identity) => identity.type)}::text[], ${identities.map((identity) => identity.value)}::text[]) as u(type, value)
          join contact_identities i on i.community_id = ${communityId} and i.type = u.type and i.value = u.value
          join contacts c on c.community_id = i.community_id and c.id = i.contact_id
          where c.organization_id = ${organizationId} and c.anonymized_at is null`
      : null,
    read: (rows) => new Set(rows.map((json) => identityRow(json)).map((row) => `${row.type}:${row.value}`)),
  };
}

const identityRow = jsonRow('identity of the organization', { type: 'string', value: 'string' });

/** The LinkedIn handle of each contact that has one (the first recorded), as a lookup for readTogether. */
export function linkedinHandlesOf(communityId: number, contactIds: number[]): Lookup<Map<number, string>> {
  return {
    rows: contactIds.length
      ? sql`select distinct on (contact_id) contact_id as id, display_value as handle
          from contact_identities
          where community_id = ${communityId} and contact_id = any(${contactIds}::bigint[]) and type = 'linkedin'
          order by contact_id, created_at, value`
      : null,
    read: (rows) => new Map(rows.map((json) => handleRow(json)).map((row) => [row.id, row.handle])),
  };
}

const handleRow = jsonRow('LinkedIn handle', { id: 'integer', handle: 'string' });
