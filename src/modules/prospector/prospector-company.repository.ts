import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { CursorPosition } from '../../core/cursor.ts';
import type { Executor } from '../../core/executor.ts';
import { keysetPage, type SortKey } from '../../db/keyset.ts';

/** Sorts of GET /api/v2/prospector-companies (docs/behaviour.md, Sorting; docs/reading.md, Prospector data). */
export const COMPANY_SORTS = ['id', 'name', 'employeeCount', 'capitalRaised', 'score'] as const;
export type CompanySort = (typeof COMPANY_SORTS)[number];

/** Each sort's keys, in the order of its index (migration 0016): (key, id). */
const SORT_KEYS: Record<CompanySort, SortKey[]> = {
  id: [],
  name: [{ expr: sql`lower(pco.name)` }],
  employeeCount: [{ expr: sql`pco.employees`, nullable: true }],
  capitalRaised: [{ expr: sql`pco.raised`, nullable: true }],
  score: [{ expr: sql`pco.score`, nullable: true }],
};

export interface CompanyRow {
  id: number;
  name: string;
  description: string | null;
  primaryWebsite: string | null;
  logoUrl: string | null;
  subIndustry: string | null;
  employees: number | null;
  raised: number | null;
  linkedInHandles: string[];
  technologies: string[];
  address: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  countryCode: string | null;
  revenueMin: number | null;
  revenueMax: number | null;
}

const columns = [
  'pco.id',
  'pco.name',
  'pco.description',
  'pco.primary_website as primaryWebsite',
  'pco.logo_url as logoUrl',
  'pco.sub_industry as subIndustry',
  'pco.employees',
  'pco.raised',
  'pco.linkedin_handles as linkedInHandles',
  'pco.technologies',
  'pco.address',
  'pco.city',
  'pco.state',
  'pco.country',
  'pco.country_code as countryCode',
  'pco.revenue_min as revenueMin',
  'pco.revenue_max as revenueMax',
] as const;

// The base table is `pco`: the alias the lightFilter compiler writes its fragments against.
function listQuery(db: Executor, where: RawBuilder<SqlBool> | null) {
  const query = db.selectFrom('prospector_companies as pco');
  return where ? query.where(where) : query;
}

export async function pageCompanies(
  db: Executor,
  where: RawBuilder<SqlBool> | null,
  sort: CompanySort,
  page: { direction: 'asc' | 'desc'; limit: number; after: CursorPosition | null },
) {
  return keysetPage(listQuery(db, where).select(columns), { keys: SORT_KEYS[sort], id: sql`pco.id`, ...page });
}

export async function countCompanies(db: Executor, where: RawBuilder<SqlBool> | null): Promise<number> {
  const row = await listQuery(db, where)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findCompany(db: Executor, id: number): Promise<CompanyRow | undefined> {
  return listQuery(db, null).select(columns).where('pco.id', '=', id).executeTakeFirst();
}

/** The companies named, for the contacts that belong to them: name and website by ID. */
export async function companiesByIds(db: Executor, ids: number[]): Promise<Map<number, { name: string; website: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('prospector_companies')
    .select(['id', 'name', 'primary_website as website', 'primary_domain as domain'])
    .where('id', '=', sql<number>`any(${ids}::bigint[])`)
    .execute();
  return new Map(rows.map((row) => [row.id, { name: row.name, website: row.website ?? (row.domain ? `https://${row.domain}` : null) }]));
}

/** Companies by their key (primary domain): the ID of each domain that has one. */
export async function companyIdsByDomains(db: Executor, domains: string[]): Promise<Map<string, number>> {
  if (domains.length === 0) return new Map();
  const rows = await db
    .selectFrom('prospector_companies')
    .select(['id', 'primary_domain as domain'])
    .where('primary_domain', '=', sql<string>`any(${domains}::text[])`)
    .execute();
  return new Map(rows.map((row) => [row.domain!, row.id]));
}

/** A company as an import writes it: every column, keyed by its primary domain. */
export interface CompanyValues {
  primary_domain: string;
  name: string;
  description: string | null;
  primary_website: string | null;
  logo_url: string | null;
  sub_industry: string | null;
  industry_code: number | null;
  employees: number | null;
  raised: number | null;
  linkedin_handles: string[];
  technologies: string[];
  address: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  country_code: string | null;
  revenue_min: number | null;
  revenue_max: number | null;
  score: number | null;
}

const WRITTEN = [
  'name',
  'description',
  'primary_website',
  'logo_url',
  'sub_industry',
  'industry_code',
  'employees',
  'raised',
  'linkedin_handles',
  'technologies',
  'address',
  'city',
  'state',
  'country',
  'country_code',
  'revenue_min',
  'revenue_max',
  'score',
] as const;

/**
 * Inserts the companies, or replaces every column of those whose primary domain is known; a company
 * whose columns are all as given is left alone. One statement over the JSON of every record. Returns how
 * many were added and how many changed.
 */
export async function upsertCompanies(db: Executor, companies: CompanyValues[]): Promise<{ added: number; changed: number }> {
  const list = (names: readonly string[], prefix = '') => sql.raw(names.map((name) => `${prefix}${name}`).join(', '));
  const result = await sql<{ added: number; changed: number }>`
    with given as (
      select * from jsonb_to_recordset(${JSON.stringify(companies)}::jsonb) as g(
        primary_domain text, name text, description text, primary_website text, logo_url text, sub_industry text,
        industry_code integer, employees integer, raised numeric, linkedin_handles text[], technologies text[],
        address text, city text, state text, country text, country_code text, revenue_min numeric, revenue_max numeric,
        score numeric)
    ), written as (
      insert into prospector_companies (primary_domain, ${list(WRITTEN)})
      select primary_domain, ${list(WRITTEN)} from given
      on conflict (primary_domain) do update set ${sql.raw(WRITTEN.map((name) => `${name} = excluded.${name}`).join(', '))}
      where (${list(WRITTEN, 'prospector_companies.')}) is distinct from (${list(WRITTEN, 'excluded.')})
      returning (xmax = 0) as added
    )
    select count(*) filter (where added)::int as added, count(*) filter (where not added)::int as changed from written`.execute(db);
  return result.rows[0]!;
}
