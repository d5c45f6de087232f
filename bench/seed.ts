import { sql, type Kysely, type QueryResult } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import {
  CONTENT,
  FIRST_NAMES,
  FREE_MAIL,
  KIND_SLOTS,
  LAST_NAMES,
  ORG_FIRST,
  ORG_SECOND,
  ORG_TLDS,
  PLACE_SLOTS,
  SEGMENT_NAMES,
  SOURCES,
  TAG_NAMES,
  TITLES,
} from './seed-data.ts';
import { pick, u } from './seed-random.ts';

/**
 * The bench's community, written set-based: every table is filled by one INSERT … SELECT over
 * generate_series (or one UPDATE), never a row loop. Every "random" choice is a hash of the row number and
 * a salt, so a seed of a given size is the same on every run and every machine. Rows get explicit IDs
 * (base + row number), which lets one statement point at rows of another (an activity's contact, a
 * reply's parent) without a lookup; the identity sequences are moved past them at the end.
 */

export interface SeedSize {
  contacts: number;
  activities: number;
  /** Default: one organization per 20 contacts (5,000 for 100,000). */
  organizations?: number;
}

export interface SeedTarget extends SeedSize {
  communityId: number;
  /** The bootstrap's "API" source: contacts' source profiles and product activities. */
  apiSourceId: number;
  /** The end of the two years of activity (the bench passes the server clock's now). */
  now: Date;
}

export interface SeedStep {
  step: string;
  rows: number;
  ms: number;
}

export interface SeedReport {
  steps: SeedStep[];
  totalMs: number;
}

const DAY_MS = 86_400_000;
const SPAN_DAYS = 730;
/** Share of contacts who ever did something; the others only signed up or were imported. */
const ACTIVE_SHARE = 0.75;
/** Handles and email local parts in ASCII: accented letters mapped, apostrophes and spaces dropped. */
const ASCII_FROM = "éèêëáàâãäíóôõöúüçñ’' ";
const ASCII_TO = 'eeeeaaaaaioooouucn';

/** A multiplier that permutes 0..n-1 (coprime with n): spreads the busiest contacts over the ID range. */
function permutationStep(n: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let step = 7919;
  while (gcd(step, n) !== 1) step += 2;
  return step;
}

export async function seedCommunity(db: Kysely<DB>, target: SeedTarget): Promise<SeedReport> {
  // Numbers go in as literals: a parameter in a select list would be typed text.
  const c = sql.lit(target.communityId);
  const apiSource = sql.lit(target.apiSourceId);
  const nContacts = target.contacts;
  const nActivities = target.activities;
  const nOrgs = target.organizations ?? Math.max(1, Math.round(nContacts / 20));
  const now = target.now;
  const steps: SeedStep[] = [];
  const started = performance.now();

  async function step(name: string, work: () => Promise<QueryResult<unknown> | QueryResult<unknown>[]>) {
    const t0 = performance.now();
    const results = [await work()].flat();
    const rows = results.reduce((sum, result) => sum + Number(result.numAffectedRows ?? result.rows.length), 0);
    steps.push({ step: name, rows, ms: Math.round(performance.now() - t0) });
  }

  const maxId = async (table: 'contacts' | 'organizations' | 'activities') =>
    Number((await sql<{ max: number }>`select coalesce(max(id), 0) as max from ${sql.table(table)}`.execute(db)).rows[0]!.max);
  const orgBase = sql.lit(await maxId('organizations'));
  const contactBase = sql.lit(await maxId('contacts'));
  const activityBase = sql.lit(await maxId('activities'));

  // Sources, sub sources, tags, segments: a few rows each.
  await step('sources, sub sources, tags, segments', async () => {
    const subs = SOURCES.flatMap((s) => s.subSources.map((name) => ({ source: s.name, name })));
    return [
      await sql`
      insert into sources (community_id, name, service_name, kind)
      select ${c}, s.name, s.service, 'integration'
      from unnest(${SOURCES.map((s) => s.name)}::text[], ${SOURCES.map((s) => s.serviceName)}::text[]) as s(name, service)
      on conflict do nothing`.execute(db),
      await sql`
      insert into sub_sources (community_id, source_id, name)
      select ${c}, s.id, x.name
      from unnest(${subs.map((x) => x.source)}::text[], ${subs.map((x) => x.name)}::text[]) as x(source, name)
      join sources s on s.community_id = ${c} and s.name = x.source
      on conflict do nothing`.execute(db),
      await sql`
      insert into tags (community_id, name, description, entity_types, created_at)
      select ${c}, t.name, null, '{member}', ${new Date(now.getTime() - SPAN_DAYS * DAY_MS)}::timestamptz
      from unnest(${TAG_NAMES}::text[]) with ordinality as t(name, n) order by t.n
      on conflict do nothing`.execute(db),
      await sql`
      insert into segments (community_id, name, entity_type)
      select ${c}, s.name, 'contact' from unnest(${SEGMENT_NAMES}::text[]) with ordinality as s(name, n) order by s.n
      on conflict do nothing`.execute(db),
    ];
  });

  // Organizations: "<word> <word>" names (repeating: there are fewer pairs than organizations), unique domains.
  await step('organizations', () =>
    sql`
      insert into organizations (community_id, id, name, primary_domain, employees, country, source_id, created_at, updated_at)
      select ${c}, ${orgBase} + g.i, x.name,
        lower(regexp_replace(x.name, '[^A-Za-z]+', '', 'g')) || g.i || '.' || (${ORG_TLDS}::text[])[${pick(ORG_TLDS.length, u('g.i', 103))}],
        (10 * power(1000, ${u('g.i', 104)}))::int,
        (${PLACE_SLOTS.country}::text[])[${pick(100, u('g.i', 105))}],
        ${apiSource}, x.at, x.at
      from generate_series(1, ${sql.lit(nOrgs)}) as g(i)
      cross join lateral (
        select (${ORG_FIRST}::text[])[${pick(ORG_FIRST.length, u('g.i', 101))}] || ' ' ||
               (${ORG_SECOND}::text[])[${pick(ORG_SECOND.length, u('g.i', 102))}] as name,
               ${now}::timestamptz - ${sql.lit(SPAN_DAYS)} * interval '1 day' * ${u('g.i', 106)} as at
      ) x`.execute(db),
  );
  await step('organization domains', () =>
    sql`
      insert into organization_domains (community_id, domain, organization_id)
      select community_id, primary_domain, id from organizations where community_id = ${c} and id > ${orgBase}`.execute(db),
  );

  // Contacts: names skewed towards the common ones (many ties), two thirds at an organization (skewed to the
  // big ones), 85 % located, 70 % with a title, 90 % with an email.
  await step('contacts', () =>
    sql`
      insert into contacts (community_id, id, name, full_name, username, primary_email, title, company_name, company_website,
        organization_id, city, region, country, country_code, world_region, raw_location, created_at, updated_at)
      select ${c}, ${contactBase} + g.i, x.fn || ' ' || x.ln, x.fn || ' ' || x.ln, x.handle,
        case when x.has_email then x.local || '@' || coalesce(o.primary_domain, x.free_mail) end,
        -- Six in ten of the titled have a common title, the others one of a long tail (thousands of distinct
        -- titles, as a community has: "Staff Engineer, Cloud Robotics").
        case when ${u('g.i', 207)} < 0.7 then (${TITLES}::text[])[${pick(TITLES.length, sql<number>`power(${u('g.i', 208)}, 1.5)`)}]
          || case when ${u('g.i', 212)} < 0.4
            then ', ' || (${ORG_FIRST}::text[])[${pick(ORG_FIRST.length, u('g.i', 213))}] || ' ' || (${ORG_SECOND}::text[])[${pick(ORG_SECOND.length, u('g.i', 214))}]
            else '' end end,
        o.name, 'https://' || o.primary_domain, o.id,
        case when x.located then (${PLACE_SLOTS.city}::text[])[x.place] end,
        case when x.located then (${PLACE_SLOTS.region}::text[])[x.place] end,
        case when x.located then (${PLACE_SLOTS.country}::text[])[x.place] end,
        case when x.located then (${PLACE_SLOTS.countryCode}::text[])[x.place] end,
        case when x.located then (${PLACE_SLOTS.worldRegion}::text[])[x.place] end,
        case when x.located then (${PLACE_SLOTS.raw}::text[])[x.place] end,
        x.at, x.at
      from generate_series(1, ${sql.lit(nContacts)}) as g(i)
      cross join lateral (
        select f.fn, f.ln,
          lower(translate(f.fn || f.ln, ${ASCII_FROM}, ${ASCII_TO})) || g.i as handle,
          lower(translate(f.fn || '.' || f.ln, ${ASCII_FROM}, ${ASCII_TO})) || '.' || g.i as local,
          (${FREE_MAIL}::text[])[${pick(FREE_MAIL.length, u('g.i', 203))}] as free_mail,
          ${u('g.i', 204)} < 0.9 as has_email,
          ${u('g.i', 205)} < 0.85 as located,
          ${pick(100, u('g.i', 206))} as place,
          case when ${u('g.i', 209)} < 0.65 then ${orgBase} + ${pick(nOrgs, sql<number>`power(${u('g.i', 210)}, 1.6)`)} end as org_id,
          ${now}::timestamptz - ${sql.lit(SPAN_DAYS + 30)} * interval '1 day' * ${u('g.i', 211)} as at
        from (select (${FIRST_NAMES}::text[])[${pick(FIRST_NAMES.length, sql<number>`power(${u('g.i', 201)}, 2)`)}] as fn,
                     (${LAST_NAMES}::text[])[${pick(LAST_NAMES.length, sql<number>`power(${u('g.i', 202)}, 2)`)}] as ln) f
      ) x
      left join organizations o on o.community_id = ${c} and o.id = x.org_id`.execute(db),
  );

  // Identities as ingestion stores them: email by its match key (gmail without dots), GitHub for a third.
  await step('identities', () =>
    sql`
      insert into contact_identities (community_id, type, value, display_value, contact_id, source_id, created_at)
      select ${c}, 'email',
        case when split_part(primary_email, '@', 2) = 'gmail.com'
          then replace(split_part(lower(primary_email), '@', 1), '.', '') || '@gmail.com' else lower(primary_email) end,
        primary_email, id, ${apiSource}, created_at
      from contacts where community_id = ${c} and id > ${contactBase} and primary_email is not null
      union all
      select ${c}, 'github', lower(username), username, id, ${apiSource}, created_at
      from contacts where community_id = ${c} and id > ${contactBase} and ${u('id', 301)} < 0.33`.execute(db),
  );
  await step('source profiles', () =>
    sql`
      insert into source_profiles (community_id, source_id, external_id, contact_id, fields, created_at, updated_at)
      select ${c}, ${apiSource}, 'user-' || (id - ${contactBase}), id,
        jsonb_build_object('fullName', full_name, 'email', primary_email), created_at, created_at
      from contacts where community_id = ${c} and id > ${contactBase}`.execute(db),
  );

  // Tags: 65 % of contacts hold some; tag n is held by half as many as tag n - 5 (the first by about 30 %).
  await step('tag assignments', () =>
    sql`
      insert into tag_assignments (community_id, tag_id, entity_type, entity_id, created_at)
      select ${c}, t.id, 'contact', k.id, k.created_at
      from contacts k
      join (select id, n, 0.46 * power(0.5::float8, (n - 1) / 5.0::float8) as share
            from (select id, row_number() over (order by id) as n from tags where community_id = ${c}) numbered) t
        on ${u('k.id * 64 + t.n', 401)} < t.share
      where k.community_id = ${c} and k.id > ${contactBase} and ${u('k.id', 402)} < 0.65`.execute(db),
  );
  // Segments: 30 % of contacts are in one or more; segment n holds 12 % / n of them.
  await step('segment memberships', () =>
    sql`
      insert into segment_memberships (community_id, segment_id, entity_id, added_at)
      select ${c}, s.id, k.id, k.created_at
      from contacts k
      join (select id, n, 0.4::float8 / n as share
            from (select id, row_number() over (order by id) as n from segments where community_id = ${c} and entity_type = 'contact') numbered) s
        on ${u('k.id * 64 + s.n', 501)} < s.share
      where k.community_id = ${c} and k.id > ${contactBase} and ${u('k.id', 502)} < 0.3`.execute(db),
  );

  // Activities over two years, more of them lately (a growing community): row i happens at
  // now − 730 d · (1 − √(i/n)), so IDs follow time as they do when activities arrive live. The contact of an
  // activity is drawn with a skew (the busiest 1 % of the active do 10 % of the activities) from the 75 % who are active, permuted
  // over the ID range. Replies point at an earlier activity of the same source when the draw finds one.
  const active = Math.max(1, Math.floor(nContacts * ACTIVE_SHARE));
  const step_ = permutationStep(nContacts);
  await step('activities', () =>
    sql`
      with kinds as (
        select k.n, s.id as source_id, k.type, k.reply
        from unnest(${KIND_SLOTS.source}::text[], ${KIND_SLOTS.type}::text[], ${KIND_SLOTS.reply}::boolean[])
          with ordinality as k(source, type, reply, n)
        join sources s on s.community_id = ${c}
          and case when k.source = 'API' then s.id = ${apiSource} else s.name = k.source end
      ),
      subs as (
        select source_id, id, name, row_number() over (partition by source_id order by id) as n, count(*) over (partition by source_id) as count
        from sub_sources where community_id = ${c}
      ),
      gen as materialized (
        select g.i, ${pick(100, u('g.i', 601))} as kind,
          g.i - 1 - floor(400 * ${u('g.i', 602)})::int as parent_i
        from generate_series(1, ${sql.lit(nActivities)}) as g(i)
      )
      insert into activities (community_id, id, source_id, activity_type, external_id, contact_id, activity_time,
        title, content, content_type, url, sentiment, is_user_initiated, parent_activity_type, parent_external_id, parent_id,
        sub_source_id, created_at, updated_at)
      select ${c}, ${activityBase} + g.i, k.source_id, k.type, 'act-' || g.i,
        ${contactBase} + 1 + ((floor(${sql.lit(active)} * power(${u('g.i', 603)}, 2))::bigint * ${sql.lit(step_)} + ${sql.lit(Math.floor(nContacts / 3))}) % ${sql.lit(nContacts)}),
        x.at, null,
        (${CONTENT}::text[])[${pick(CONTENT.length, u('g.i', 604))}], 'text',
        case when k.type like 'pr_%' or k.type like 'issue_%' then 'https://github.com/' || ss.name || '/issues/' || g.i end,
        case when ${u('g.i', 605)} < 0.25 then 'positive' when ${u('g.i', 605)} < 0.33 then 'negative' else 'neutral' end,
        k.type <> 'slack_joined_channel',
        case when threaded then pk.type end, case when threaded then 'act-' || p.i end,
        case when threaded then ${activityBase} + p.i end,
        ss.id, x.at, x.at
      from gen g
      join kinds k on k.n = g.kind
      left join gen p on p.i = g.parent_i and k.reply
      left join kinds pk on pk.n = p.kind
      cross join lateral (select k.reply and pk.source_id = k.source_id and not pk.reply as threaded) t
      cross join lateral (
        select ${now}::timestamptz - ${sql.lit(SPAN_DAYS)} * interval '1 day' * (1 - sqrt(g.i::float8 / ${sql.lit(nActivities)}))
          - interval '1 second' * floor(21600 * ${u('g.i', 606)}) as at
      ) x
      left join subs ss on ss.source_id = k.source_id and ss.n = 1 + floor(ss.count * ${u('g.i', 607)})::int`.execute(db),
  );

  // The counters ingestion keeps (refreshActivityStats), for every contact at once.
  await step('contact activity counters', () =>
    sql`
      update contacts k set activity_count_all = s.count, first_activity_at = s.first, latest_activity_at = s.latest
      from (
        select contact_id, count(*)::int as count, min(activity_time) as first, max(activity_time) as latest
        from activities where community_id = ${c} group by contact_id
      ) s
      where k.community_id = ${c} and k.id = s.contact_id`.execute(db),
  );
  await step('organization member counts', () =>
    sql`
      update organizations o set member_count = s.count
      from (select organization_id, count(*)::int as count from contacts where community_id = ${c} and organization_id is not null group by organization_id) s
      where o.community_id = ${c} and o.id = s.organization_id`.execute(db),
  );
  // Locations as ingestion aggregates them (locationKeysOf): city, region within country, country, world region.
  await step('locations', () =>
    sql`
      insert into locations (community_id, type, name, city, region, country, member_count)
      select ${c}, l.type, l.name, l.city, l.region, l.country, count(*)::int
      from contacts k
      cross join lateral (values
        ('city', concat_ws(', ', k.city, k.region, k.country), k.city, k.region, k.country, k.city is not null),
        ('country_region', concat_ws(', ', k.region, k.country), null, k.region, k.country, k.region is not null and k.country is not null),
        ('country', k.country, null, null, k.country, k.country is not null),
        ('world_region', k.world_region, null, null, null, k.world_region is not null)
      ) as l(type, name, city, region, country, present)
      where k.community_id = ${c} and l.present
      group by l.type, l.name, l.city, l.region, l.country
      on conflict (community_id, type, name) do update set member_count = locations.member_count + excluded.member_count`.execute(db),
  );
  await step('identity sequences', () =>
    // setval is strict: an empty table (max null) leaves its sequence alone.
    sql`
      select setval(pg_get_serial_sequence('contacts', 'id'), (select max(id) from contacts))
      union all select setval(pg_get_serial_sequence('organizations', 'id'), (select max(id) from organizations))
      union all select setval(pg_get_serial_sequence('activities', 'id'), (select max(id) from activities))`.execute(db),
  );
  // As after autovacuum: no dead rows from the counter updates, a visibility map, and planner statistics.
  await step('vacuum analyze', () => sql`vacuum (analyze)`.execute(db));

  return { steps, totalMs: Math.round(performance.now() - started) };
}
