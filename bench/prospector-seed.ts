import { sql, type Kysely, type QueryResult } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import { FIRST_NAMES, LAST_NAMES, ORG_FIRST, ORG_SECOND, PLACE_SLOTS, TITLES } from './seed-data.ts';
import { pick, u } from './seed-random.ts';
import type { SeedStep } from './seed.ts';

/**
 * The prospector data of `npm run bench -- --only prospector`: companies and contacts in the shared tables,
 * set-based like the community's seed (bench/seed.ts): one INSERT … SELECT over generate_series per table,
 * every choice a hash of the row number, so every run makes the same data.
 */

/** Seniorities, one entry per tenth: most people are individual contributors, a quarter lead. */
export const SENIORITY_SLOTS = ['Entry', 'Senior', 'Senior', 'Senior', 'Senior', 'Manager', 'Manager', 'Director', 'VP', 'C-Level'];
const ROLES = ['Engineering', 'Engineering', 'Engineering', 'Product', 'Sales', 'Marketing', 'Operations', 'Finance', 'Design', 'Support'];
/** Skills, the first ones most held (each drawn with a skew towards the start of the list). */
export const SKILLS = [
  'Python',
  'JavaScript',
  'Kubernetes',
  'SQL',
  'Go',
  'AWS',
  'TypeScript',
  'Docker',
  'Java',
  'React',
  'Terraform',
  'PostgreSQL',
  'Rust',
  'Machine Learning',
  'Kafka',
  'GraphQL',
  'Figma',
  'Salesforce',
  'Negotiation',
  'Leadership',
  'Public Speaking',
  'Scala',
  'Spark',
  'Snowflake',
  'Ruby',
  'C++',
  'Elixir',
  'Swift',
  'Kotlin',
  'Linux',
];

export interface ProspectorSeedSize {
  contacts: number;
  /** Default: one company per 20 contacts. */
  companies?: number;
  /** The end of the span of last organization changes. */
  now: Date;
}

export async function seedProspector(db: Kysely<DB>, size: ProspectorSeedSize): Promise<SeedStep[]> {
  const nContacts = size.contacts;
  const nCompanies = size.companies ?? Math.max(1, Math.round(nContacts / 20));
  const steps: SeedStep[] = [];
  const step = async (name: string, work: () => Promise<QueryResult<unknown>>) => {
    const started = performance.now();
    const result = await work();
    steps.push({ step: name, rows: Number(result.numAffectedRows ?? result.rows.length), ms: Math.round(performance.now() - started) });
  };
  const companyBase = sql.lit(Number((await sql<{ max: number }>`select coalesce(max(id), 0) as max from prospector_companies`.execute(db)).rows[0]!.max));

  // Companies: "<word> <word>" names, a unique domain each (the import key), sizes log-uniform from 10 to
  // 10,000, three products of the technographic catalog, a country.
  await step('prospector companies', () =>
    sql`
      insert into prospector_companies (id, name, primary_domain, primary_website, employees, technologies, city, country)
      select ${companyBase} + g.i, x.name, x.domain, 'https://' || x.domain, (10 * power(1000, ${u('g.i', 203)}))::int,
        array(select distinct t.products[1 + floor(t.n * ${u('g.i * 3 + k.k', 204)})::int] from generate_series(0, 2) as k(k)),
        (${PLACE_SLOTS.city}::text[])[${pick(100, u('g.i', 205))}], (${PLACE_SLOTS.country}::text[])[${pick(100, u('g.i', 205))}]
      from generate_series(1, ${sql.lit(nCompanies)}) as g(i)
      cross join (select array_agg(product order by id) as products, count(*) as n from tech_products) as t
      cross join lateral (
        select (${ORG_FIRST}::text[])[${pick(ORG_FIRST.length, u('g.i', 201))}] || ' ' || (${ORG_SECOND}::text[])[${pick(ORG_SECOND.length, u('g.i', 202))}] as name,
               'bench-prospect-' || g.i || '.com' as domain
      ) as x`.execute(db),
  );
  await sql`select setval(pg_get_serial_sequence('prospector_companies', 'id'), (select max(id) from prospector_companies))`.execute(db);

  // Contacts: names skewed to the common ones, a title each (nine in ten), a seniority and a role, one to
  // three skills skewed to the first of the list, 85 % located as the community's contacts are, a company,
  // followers, and a last change of organization within five years.
  await step('prospector contacts', () =>
    sql`
      insert into prospector_contacts (name, full_name, linkedin_handle, title, seniority, role, skills, city, region, country,
        company_id, linkedin_follower_count, last_org_change_at)
      select x.fn || ' ' || x.ln, x.fn || ' ' || x.ln, 'bench-prospect-' || g.i,
        case when ${u('g.i', 213)} < 0.9 then (${TITLES}::text[])[${pick(TITLES.length, u('g.i', 214))}] end,
        (${SENIORITY_SLOTS}::text[])[${pick(10, u('g.i', 215))}],
        (${ROLES}::text[])[${pick(ROLES.length, u('g.i', 216))}],
        array(select distinct (${SKILLS}::text[])[1 + floor(${sql.lit(SKILLS.length)} * power(${u('g.i * 3 + k.k', 217)}, 2))::int]
              from generate_series(0, floor(3 * ${u('g.i', 218)})::int) as k(k)),
        case when x.located then (${PLACE_SLOTS.city}::text[])[x.place] end,
        case when x.located then (${PLACE_SLOTS.region}::text[])[x.place] end,
        case when x.located then (${PLACE_SLOTS.country}::text[])[x.place] end,
        ${companyBase} + ${pick(nCompanies, u('g.i', 219))},
        (power(10, 5 * ${u('g.i', 220)}))::int,
        ${size.now}::timestamptz - interval '1 day' * floor(1826 * ${u('g.i', 221)})
      from generate_series(1, ${sql.lit(nContacts)}) as g(i)
      cross join lateral (
        select (${FIRST_NAMES}::text[])[1 + floor(${sql.lit(FIRST_NAMES.length)} * power(${u('g.i', 210)}, 2))::int] as fn,
               (${LAST_NAMES}::text[])[1 + floor(${sql.lit(LAST_NAMES.length)} * power(${u('g.i', 211)}, 2))::int] as ln,
               ${u('g.i', 212)} < 0.85 as located,
               ${pick(100, u('g.i', 222))} as place
      ) as x`.execute(db),
  );
  await sql`vacuum analyze prospector_companies`.execute(db);
  await sql`vacuum analyze prospector_contacts`.execute(db);
  return steps;
}
