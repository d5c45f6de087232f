import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkBody, captureBulk, compareBulk, prepareBulk, resetBulk, withRecordIds } from '../../bench/bulk.ts';
import { captureQueries, countRows, cursorOfPage, exactListOf, firstDifference, lightFilterOf, listUrl, pickListStatement } from '../../bench/harness.ts';
import { ServerChild } from '../../bench/ipc.ts';
import { compareLatency, createClient, getJson, measureThroughput, median, summarize } from '../../bench/load.ts';
import { measureInsights } from '../../bench/insights.ts';
import { measureLeadScores } from '../../bench/lead-scores.ts';
import { measureProspector, PROSPECTOR_FILTER } from '../../bench/prospector.ts';
import { measureTracker } from '../../bench/tracker.ts';
import { measureWebhooks } from '../../bench/webhooks.ts';
import { measureConnectors } from '../../bench/connectors.ts';
import { measurePlatformBackfills, PLATFORM_NAMES } from '../../bench/platform-backfills.ts';
import { measureFirstBackfill } from '../../bench/first-backfill.ts';
import { measureCluster } from '../../bench/cluster.ts';
import { measureSuggestions } from '../../bench/suggestions.ts';
import { seedProspector } from '../../bench/prospector-seed.ts';
import { seedCommunity, type SeedReport } from '../../bench/seed.ts';
import { measureSustained } from '../../bench/sustained.ts';
import type { BenchDatabase } from '../../bench/database.ts';
import { systemClock } from '../../src/clock.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { ACTIVITY_TYPE_CATALOG } from '../../src/modules/activity-types/activity-type-catalog.ts';
import { createServices, type Services } from '../../src/services.ts';
import { createPostgresDatabase } from '../helpers/test-database.ts';
import { cliActor } from '../../src/core/writer.ts';

/**
 * `npm run bench` at a tiny scale: the seed's SQL makes what it says (counts, and the counters ingestion
 * keeps), and the harness pieces work against real server children. Counts only: speed is measured by the
 * bench itself, never asserted. PostgreSQL only (the bench's database); skipped unless TEST_DATABASE_URL is set.
 */

const CONTACTS = 200;
const ACTIVITIES = 2_000;
const PROSPECTS = 4_000;

describe.skipIf(!process.env.TEST_DATABASE_URL)('bench seed and harness (PostgreSQL)', () => {
  let drop: (() => Promise<void>) | undefined;
  let url: string;
  let database: Database;
  let communityId: number;
  let token: string;
  let report: SeedReport;
  let services: Services;
  let sourceId: number;
  const children: ServerChild[] = [];

  beforeAll(async () => {
    ({ url, drop } = await createPostgresDatabase());
    database = await openDatabase({ engine: 'postgres', url, poolSize: 2 });
    services = await createServices({
      db: database.db,
      clock: systemClock,
      config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 } },
    });
    const setup = await services.communities.init(cliActor());
    communityId = setup.communityId;
    token = setup.token;
    sourceId = setup.sourceId;
    report = await seedCommunity(database.db, {
      communityId,
      apiSourceId: setup.sourceId,
      contacts: CONTACTS,
      activities: ACTIVITIES,
      now: systemClock.now(),
    });
  }, 120_000);

  afterAll(async () => {
    for (const child of children) await child.stop();
    await database?.close();
    await drop?.();
  });

  const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(database.db)).rows[0]!;

  it('seeds the asked numbers of contacts, activities and organizations, and reports each step', async () => {
    const counts = await one(sql<{ contacts: number; activities: number; organizations: number; domains: number; profiles: number }>`
      select (select count(*) from contacts where community_id = ${communityId}
                and id not in (select contact_id from app_users where contact_id is not null))::int as contacts,
             (select count(*) from activities where community_id = ${communityId})::int as activities,
             (select count(*) from organizations where community_id = ${communityId})::int as organizations,
             (select count(*) from organization_domains where community_id = ${communityId})::int as domains,
             (select count(*) from source_profiles where community_id = ${communityId})::int as profiles`);
    expect(counts).toEqual({ contacts: CONTACTS, activities: ACTIVITIES, organizations: CONTACTS / 20, domains: CONTACTS / 20, profiles: CONTACTS });
    const rows = Object.fromEntries(report.steps.map((step) => [step.step, step.rows]));
    expect(rows).toMatchObject({ contacts: CONTACTS, activities: ACTIVITIES, organizations: CONTACTS / 20, 'source profiles': CONTACTS });
  });

  it('keeps the per-contact counters exactly as a recount gives them', async () => {
    const wrong = await one(sql<{ n: number; active: number }>`
      select count(*) filter (where c.activity_count_all <> coalesce(s.count, 0)
          or c.first_activity_at is distinct from s.first or c.latest_activity_at is distinct from s.latest)::int as n,
        count(*) filter (where c.activity_count_all > 0)::int as active
      from contacts c
      left join (select contact_id, count(*) as count, min(activity_time) as first, max(activity_time) as latest
                 from activities where community_id = ${communityId} group by contact_id) s on s.contact_id = c.id
      where c.community_id = ${communityId}`);
    expect(wrong.n).toBe(0);
    // Three quarters of the contacts are active; a few are drawn by no activity at all at this scale.
    expect(wrong.active).toBeGreaterThan(CONTACTS / 2);
    expect(wrong.active).toBeLessThanOrEqual(CONTACTS * 0.75);
  });

  it('counts organization members and location members as ingestion does', async () => {
    const organizations = await one(sql<{ n: number; linked: number }>`
      select count(*) filter (where o.member_count <> (select count(*) from contacts c where c.community_id = o.community_id and c.organization_id = o.id))::int as n,
             (select count(*) from contacts where community_id = ${communityId} and organization_id is not null)::int as linked
      from organizations o where o.community_id = ${communityId}`);
    expect(organizations.n).toBe(0);
    expect(organizations.linked).toBeGreaterThan(0);
    const countries = await one(sql<{ n: number; rows: number }>`
      select count(*) filter (where l.member_count <> (select count(*) from contacts c where c.community_id = l.community_id and c.country = l.country))::int as n,
             count(*)::int as rows
      from locations l where l.community_id = ${communityId} and l.type = 'country'`);
    expect(countries).toMatchObject({ n: 0 });
    expect(countries.rows).toBeGreaterThan(1);
  });

  it('gives contacts email identities by their match keys, tags and segments', async () => {
    const identities = await one(sql<{ emails: number; withEmail: number; gmailDots: number; tagged: number; inSegments: number }>`
      select (select count(*) from contact_identities where community_id = ${communityId} and type = 'email')::int as emails,
             (select count(*) from contacts where community_id = ${communityId} and primary_email is not null)::int as "withEmail",
             (select count(*) from contact_identities where community_id = ${communityId} and type = 'email'
                and value like '%@gmail.com' and split_part(value, '@', 1) like '%.%')::int as "gmailDots",
             (select count(distinct entity_id) from tag_assignments where community_id = ${communityId} and entity_type = 'contact')::int as tagged,
             (select count(distinct entity_id) from segment_memberships where community_id = ${communityId})::int as "inSegments"`);
    expect(identities.emails).toBe(identities.withEmail);
    expect(identities.gmailDots).toBe(0);
    expect(identities.tagged).toBeGreaterThan(CONTACTS / 3);
    expect(identities.inSegments).toBeGreaterThan(0);
  });

  it('threads replies under earlier activities of their own source, with catalog types only', async () => {
    const threads = await one(sql<{ threaded: number; wrong: number; types: string[] }>`
      select count(r.parent_id)::int as threaded,
             count(*) filter (where r.parent_id is not null and (p.id is null or p.source_id <> r.source_id
               or p.external_id <> r.parent_external_id or p.activity_type <> r.parent_activity_type or p.id >= r.id))::int as wrong,
             array_agg(distinct r.activity_type) as types
      from activities r left join activities p on p.community_id = r.community_id and p.id = r.parent_id
      where r.community_id = ${communityId}`);
    expect(threads.threaded).toBeGreaterThan(0);
    expect(threads.wrong).toBe(0);
    const catalog = new Set(ACTIVITY_TYPE_CATALOG.map((entry) => entry.id));
    expect(threads.types.filter((type) => !catalog.has(type))).toEqual([]);
  });

  it('moves the identity sequences past the explicit IDs, so later inserts do not collide', async () => {
    const inserted = await database.db
      .insertInto('contacts')
      .values({ community_id: communityId, name: 'After the seed' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(inserted.id).toBeGreaterThan(CONTACTS);
    await database.db.deleteFrom('contacts').where('community_id', '=', communityId).where('id', '=', inserted.id).execute();
  });

  it('runs the harness: captures the list statement, serves it bare, walks pages, samples latency and throughput', async () => {
    const env = { BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: '2' };
    const hearth = await ServerChild.start('hearth-server.ts', env);
    children.push(hearth);
    const client = createClient({ token });
    const limit = 5;
    const page = (params: { cursor?: string; lightFilter?: string } = {}) => listUrl(hearth.url, '/api/v2/contacts', '', { limit: String(limit), ...params });

    const { queries, body } = await captureQueries(hearth, client, page());
    expect(body.data).toHaveLength(limit);
    const statement = pickListStatement(queries, 'contacts', limit);
    expect(statement.sql).toMatch(/from "contacts"/);
    expect(statement.parameters).toContain(limit + 1);

    const bare = await ServerChild.start('bare-server.ts', {
      ...env,
      BENCH_BARE_QUERY: JSON.stringify(statement),
      BENCH_BARE_ALL: JSON.stringify(queries),
      BENCH_BARE_LIST: JSON.stringify(exactListOf(body, limit)),
    });
    children.push(bare);
    // The baseline answers what Hearth answers, cursor included, and the cursor works on Hearth.
    const exact = await getJson<{ data: unknown[]; meta: { nextCursor: string } }>(createClient(), `${bare.url}/bare`);
    expect(exact).toEqual(body);
    expect(firstDifference(body, exact)).toBeNull();
    expect(firstDifference(body, { ...exact, data: exact.data.slice(1) })).toMatch(/^\$\.data\.0\.id: /);
    expect((await getJson<{ data: unknown[] }>(client, page({ cursor: exact.meta.nextCursor }))).data).toHaveLength(limit);
    const rows = await getJson<{ id: number }[]>(createClient(), `${bare.url}/bare-rows`);
    expect(rows).toHaveLength(limit + 1);
    expect(rows.slice(0, limit).map((row) => `c_${row.id}`)).toEqual((body.data as { id: string }[]).map((contact) => contact.id));
    // Authentication, the rate-limit counter and the page, in Hearth's order; the page's rows answered.
    expect(queries.length).toBeGreaterThanOrEqual(3);
    expect(await getJson<unknown[]>(createClient(), `${bare.url}/bare-all`)).toEqual(rows);

    // Page 3 starts after the first 2 × 5 contacts, in ID order.
    const third = await getJson<{ data: { id: string }[] }>(client, page({ cursor: await cursorOfPage(client, (cursor) => page({ cursor }), 3) }));
    expect(third.data.map((contact) => contact.id)).toEqual(rows.slice(0, 5).map((row) => `c_${row.id + 2 * limit}`));

    const latency = await compareLatency(client, { a: page(), b: `${bare.url}/bare` }, { warmup: 2, samples: 6 });
    expect([latency.a.count, latency.b.count]).toEqual([6, 6]);
    const throughput = await measureThroughput(page(), { tokens: [token, token], concurrency: 2, seconds: 1 });
    expect(throughput.errors).toBe(0);
    expect(throughput.requests).toBeGreaterThan(0);
    expect(throughput.latency.count).toBe(throughput.requests);

    // The bench's filter: Hearth lists exactly the contacts the bench's own count finds.
    const filter = await lightFilterOf(database.db, communityId);
    expect(filter?.expression.clauses.map((clause) => clause.field)).toEqual(['location.country', 'tags', 'activityCount28d']);
    const lightFilter = JSON.stringify(filter!.expression);
    let listed = 0;
    for (let cursor: string | undefined, n = 0; n === 0 || cursor; n++) {
      const filtered = await getJson<{ data: unknown[]; meta: { nextCursor: string | null } }>(client, page({ lightFilter, cursor }));
      listed += filtered.data.length;
      cursor = filtered.meta.nextCursor ?? undefined;
    }
    expect(filter!.matching).toBeGreaterThan(0);
    expect(listed).toBe(filter!.matching);
    // Every contact the lists see: the seeded ones and the admin user's own.
    expect(await countRows(database.db, communityId)).toEqual({ contacts: CONTACTS + 1, activities: ACTIVITIES, organizations: CONTACTS / 20 });
    client.close();
  }, 120_000);

  it('runs the bulk update figure: the same statements bare write what Hearth writes, on fresh contacts each time', async () => {
    const env = { BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: '2' };
    const hearth = await ServerChild.start('hearth-server.ts', env);
    children.push(hearth);
    const client = createClient({ token });
    const fixtures = await prepareBulk(database.db, communityId);
    // Made once: a second preparation finds the same tags and fields.
    expect(await prepareBulk(database.db, communityId)).toEqual(fixtures);
    expect([fixtures.tagIds.length, fixtures.fields.length, fixtures.windows.length]).toEqual([25, 5, CONTACTS / 100]);
    const [first, second] = fixtures.windows as [number[], number[]];
    expect(first).toHaveLength(100);

    const written = async () =>
      one(sql<{ assignments: number; values: number; contacts: number[] }>`
        select (select count(*) from tag_assignments where community_id = ${communityId} and tag_id = any(${fixtures.tagIds}::bigint[]))::int as assignments,
               (select count(*) from custom_field_values where community_id = ${communityId}
                  and custom_field_id = any(${fixtures.fields.map((field) => field.id)}::bigint[]))::int as values,
               array(select distinct entity_id from tag_assignments where community_id = ${communityId}
                  and tag_id = any(${fixtures.tagIds}::bigint[]) order by entity_id) as contacts`);
    const hearthUrl = `${hearth.url}/api/v2/contacts/bulk-update`;
    const statements = await captureBulk(hearth, client, hearthUrl, bulkBody(fixtures, first));
    expect(statements[0]!.sql).toBe('begin');
    expect(statements.at(-1)!.sql).toBe('commit');
    expect(statements.some((statement) => /api_tokens|rate_limit/.test(statement.sql))).toBe(false);
    expect(await written()).toEqual({ assignments: 2500, values: 500, contacts: first });

    const bare = await ServerChild.start('bare-server.ts', { ...env, BENCH_BARE_BULK: JSON.stringify({ statements, ids: first }) });
    children.push(bare);
    await resetBulk(database.db, communityId, fixtures);
    expect(await written()).toEqual({ assignments: 0, values: 0, contacts: [] });
    const answer = await createClient().post(`${bare.url}/bare-bulk`, bulkBody(fixtures, second));
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ success: true, data: { ids: second.map((id) => `c_${id}`) } });
    expect(await written()).toEqual({ assignments: 2500, values: 500, contacts: second });
    // Only the record IDs change between requests.
    const moved = withRecordIds(statements, first, second);
    expect(moved.map((statement) => statement.sql)).toEqual(statements.map((statement) => statement.sql));
    expect(JSON.stringify(moved)).not.toContain(`[${first.join(',')}]`);

    // Six requests over two windows: the windows run out and start again, after a reset.
    await resetBulk(database.db, communityId, fixtures);
    const measured = await compareBulk(
      client,
      { hearth: hearthUrl, bare: `${bare.url}/bare-bulk` },
      fixtures,
      () => resetBulk(database.db, communityId, fixtures),
      {
        warmup: 1,
        samples: 2,
      },
    );
    expect([measured.hearth.count, measured.bare.count, measured.resets]).toEqual([2, 2, 2]);
    await resetBulk(database.db, communityId, fixtures);
    client.close();
  }, 120_000);

  it('seeds prospector contacts and runs the prospector figures: the filter lists what its SQL finds', async () => {
    const steps = await seedProspector(database.db, { contacts: PROSPECTS, now: systemClock.now() });
    expect(Object.fromEntries(steps.map((step) => [step.step, step.rows]))).toEqual({
      'prospector companies': PROSPECTS / 20,
      'prospector contacts': PROSPECTS,
    });
    const seeded = await one(sql<{ titled: number; skilled: number; companies: number; matching: number }>`
      select count(*) filter (where title is not null)::int as titled, count(*) filter (where cardinality(skills) > 0)::int as skilled,
             count(distinct company_id)::int as companies,
             count(*) filter (where seniority = any(array['Director', 'VP', 'C-Level']) and skills && array['Kubernetes', 'Go']
                                and country = 'United States')::int as matching
      from prospector_contacts`);
    expect(seeded.skilled).toBe(PROSPECTS);
    expect(seeded.titled).toBeGreaterThan(PROSPECTS * 0.8);
    expect(seeded.companies).toBeGreaterThan(PROSPECTS / 40);

    const env = { BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: '2' };
    const hearth = await ServerChild.start('hearth-server.ts', env);
    children.push(hearth);
    const client = createClient({ token });
    const lightFilter = JSON.stringify(PROSPECTOR_FILTER);
    let listed = 0;
    for (let cursor: string | undefined, n = 0; n === 0 || cursor; n++) {
      const page = await getJson<{ data: unknown[]; meta: { nextCursor: string | null } }>(
        client,
        listUrl(hearth.url, '/api/v2/prospector-contacts', '', { lightFilter, limit: '50', cursor }),
      );
      listed += page.data.length;
      cursor = page.meta.nextCursor ?? undefined;
    }
    expect(seeded.matching).toBeGreaterThan(10);
    expect(listed).toBe(seeded.matching);
    client.close();

    const options = { limit: 5, page: 1000, warmup: 1, samples: 2, concurrency: 2, seconds: 1, rounds: 1 };
    const measured = await measureProspector(options, { token, hearth, env, log: () => {}, track: (child) => children.push(child) });
    expect(measured.figures.map((figure) => figure.unit)).toEqual(['ms', 'ms', 'req/s']);
    expect(measured.figures.every((figure) => figure.ratio !== null && figure.ratio > 0)).toBe(true);
    // The deep page is the filtered list's last full page when it ends before --page.
    expect(measured.figures[1]!.name).toContain(`page ${Math.floor(seeded.matching / 5)} vs page 1`);
  }, 120_000);

  it('runs the sustained figure: ten parts of pushes into one process on a database of its own, every push stored', async () => {
    const databases: BenchDatabase[] = [];
    try {
      const measured = await measureSustained({
        serverUrl: process.env.TEST_DATABASE_URL!,
        env: { BENCH_POOL_SIZE: '2' },
        pushes: 200,
        log: () => {},
        track: (child) => children.push(child),
        trackDatabase: (made) => databases.push(made),
      });
      expect(measured.figures).toEqual([expect.objectContaining({ name: 'sustained pushes, last tenth vs first of 200', goal: { op: '>=', value: 0.9 } })]);
      expect((measured.results as { rates: number[] }).rates).toHaveLength(10);
      expect(databases).toHaveLength(1);
      const own = await openDatabase({ engine: 'postgres', url: databases[0]!.url, poolSize: 1 });
      try {
        const { rows } = await sql<{ activities: number }>`select count(*)::int as activities from activities`.execute(own.db);
        expect(rows[0]!.activities).toBe(200);
      } finally {
        await own.close();
      }
    } finally {
      for (const made of databases) await made.drop();
    }
  }, 120_000);

  it('measures the insights job against a bare loop posting the same requests to a local endpoint', async () => {
    const lines: string[] = [];
    const measured = await measureInsights({ db: database.db, log: (line) => lines.push(line), size: { contacts: 60, activities: 600, latenciesMs: [0] } });
    expect(measured.figures).toHaveLength(1);
    expect(measured.figures[0]).toMatchObject({ unit: 'items/s', goal: { op: '>=' } });
    expect(measured.figures[0]!.ratio).toBeGreaterThan(0);
    const [run] = (measured.results as { runs: { contacts: number }[] }).runs;
    // Every contact of the small seed with activity in the last 90 days was written, through the endpoint.
    expect(run!.contacts).toBeGreaterThan(0);
    expect(lines.join('\n')).toMatch(new RegExp(`the job wrote ${run!.contacts} contacts .* the same ${run!.contacts} requests`));
  }, 120_000);
  it('runs the lead score figures: a full recompute scores every contact, and pushes run with the score on and off', async () => {
    const services = await createServices({
      db: database.db,
      clock: systemClock,
      config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 } },
    });
    const source = await one(sql<{ id: number }>`select id from sources where community_id = ${communityId} and name = 'API'`);
    const hearth = await ServerChild.start('hearth-server.ts', { BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: '2' });
    children.push(hearth);
    const contacts = await one(sql<{ n: number }>`select count(*)::int as n from contacts where community_id = ${communityId} and not staff`);
    const measured = await measureLeadScores({
      db: database.db,
      services,
      setup: { communityId, sourceId: Number(source.id), token },
      hearth,
      seconds: 1,
      rounds: 1,
      log: () => {},
    });
    const results = measured.results as { job: { scored: number }; summedContacts: number; step: { marked: number } };
    expect(results.job.scored).toBe(contacts.n);
    expect(results.summedContacts).toBeGreaterThan(0);
    expect(results.step.marked).toBeGreaterThan(0);
    expect(measured.figures.map((figure) => figure.unit)).toEqual(['ms', 'ms', 'items/s', 'req/s']);
    expect(measured.figures.every((figure) => figure.ratio !== null && figure.ratio > 0)).toBe(true);
    const left = await one(sql<{ n: number }>`select count(*)::int as n from lead_score_dirty where community_id = ${communityId}`);
    expect(left.n).toBe(0);
  }, 180_000);

  it("summarizes samples by nearest rank, and picks the page statement among the request's statements", () => {
    expect(summarize([5, 1, 4, 2, 3])).toMatchObject({ count: 5, p50: 3, p95: 5 });
    expect([median([3, 1, 2]), median([4, 1, 3, 2])]).toEqual([2, 2.5]);
    const queries = [
      { sql: 'select "jti" from "api_tokens" where "jti" = $1 limit $2', parameters: ['x', 1] },
      { sql: 'insert into "rate_limit_counters" values ($1, $2, 1)', parameters: ['token:1', 0] },
      { sql: 'select "id" from "contacts" as "c" where "c"."community_id" = $1 order by "c"."id" limit $2', parameters: [1, 51] },
      { sql: 'select "tag_id" from "tag_assignments" where "entity_id" in ($1) limit $2', parameters: [3, 51] },
    ];
    expect(pickListStatement(queries, 'contacts', 50)).toBe(queries[2]);
    expect(() => pickListStatement(queries, 'organizations', 50)).toThrow(/no statement reading "organizations"/);
  });

  it('runs the tracker figure: Hearth and the bare endpoint answer every page view and store them', async () => {
    const env = { BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: '2' };
    const hearth = await ServerChild.start('hearth-server.ts', env);
    children.push(hearth);
    const stored = async () =>
      (await one(sql<{ n: number }>`select count(*)::int as n from website_visits where community_id = ${communityId} and source_id = ${sourceId}`)).n;
    const before = await stored();
    const lines: string[] = [];
    const { figures, results } = await measureTracker({
      services,
      setup: { communityId, sourceId },
      hearth,
      env,
      concurrency: 2,
      seconds: 1,
      rounds: 1,
      log: (line) => lines.push(line),
      track: (child) => children.push(child),
    });
    const rates = results as { hearth: number[]; bare: number[]; errors: { hearth: number; bare: number } };
    expect(rates.errors).toEqual({ hearth: 0, bare: 0 });
    expect(rates.hearth).toHaveLength(1);
    expect(rates.bare).toHaveLength(1);
    expect(figures).toEqual([expect.objectContaining({ name: 'tracker page views, 2 connections, vs bare insert', baselineName: 'bare', unit: 'req/s' })]);
    expect(await stored()).toBeGreaterThan(before);
    expect(lines.some((line) => line.includes('round 1: Hearth'))).toBe(true);
  });
  it('runs the webhook figures: every event reaches the receiver from Hearth and from the bare client, and pushes are measured with and without a webhook', async () => {
    const env = { BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: '2' };
    const hearth = await ServerChild.start('hearth-server.ts', env);
    children.push(hearth);
    const lines: string[] = [];
    const { figures, results } = await measureWebhooks({
      db: database.db,
      services,
      setup: { communityId, sourceId, token },
      hearth,
      events: 60,
      concurrency: 2,
      seconds: 1,
      rounds: 1,
      log: (line) => lines.push(line),
    });
    const rates = results as { deliveries: { hearth: number[]; bare: number[] }; pushes: { with: number[]; without: number[]; untriggered: number[] } };
    expect(rates.deliveries.hearth).toHaveLength(1);
    expect(rates.deliveries.bare).toHaveLength(1);
    expect(rates.pushes.with[0]).toBeGreaterThan(0);
    expect(rates.pushes.without[0]).toBeGreaterThan(0);
    expect(rates.pushes.untriggered[0]).toBeGreaterThan(0);
    // The triggers switched off for the diagnostic are on again.
    expect((await one(sql<{ n: number }>`select count(*)::int as n from pg_trigger where tgname like 'webhook_event_%' and tgenabled = 'D'`)).n).toBe(0);
    expect(figures.map((figure) => figure.name)).toEqual(['webhook deliveries, 60 events, vs bare client', 'pushes with a webhook, 2 connections, vs none']);
    expect(lines.some((line) => line.includes('round 1: Hearth'))).toBe(true);
    expect((await one(sql<{ n: number }>`select count(*)::int as n from webhook_subscriptions`)).n).toBe(0);
  });

  it('runs the connector figures: the connector backfills what the batch route stores, and the receiver and the bare endpoint take every delivery', async () => {
    const databases: BenchDatabase[] = [];
    const lines: string[] = [];
    try {
      const { figures, results } = await measureConnectors({
        serverUrl: process.env.TEST_DATABASE_URL!,
        env: { BENCH_POOL_SIZE: '2' },
        stars: 150,
        issues: 60,
        profiles: true,
        concurrencies: [1, 2],
        rate: 20,
        concurrency: 2,
        seconds: 1,
        rounds: 1,
        warmupSeconds: 0.2,
        log: (line) => lines.push(line),
        track: (child) => children.push(child),
        trackDatabase: (made) => databases.push(made),
      });
      const measured = results as {
        backfill: {
          activities: number;
          people: number;
          profiles: number;
          connector: { streamsSeconds: number; profilesSeconds: number };
          batch: { concurrency: number; perSecond: number; profilesPerSecond: number }[];
        };
        receiver: {
          openLoop: { hearth: { requests: number; errors: number }; bare: { requests: number; errors: number } }[];
          closed: { hearth: { requests: number }; bare: { requests: number } }[];
          processedWithError: number;
        };
      };
      // 150 stars, 60 issues opened and the 30 even ones closed: every one stored by the connector and by the batch route (checked by the figure).
      expect(measured.backfill.activities).toBe(240);
      expect(measured.backfill.people).toBeGreaterThanOrEqual(150);
      expect(measured.backfill.profiles).toBe(measured.backfill.people);
      expect(measured.backfill.connector.streamsSeconds).toBeGreaterThan(0);
      expect(measured.backfill.connector.profilesSeconds).toBeGreaterThan(0);
      expect(measured.backfill.batch.map((run) => run.concurrency)).toEqual([1, 2]);
      expect(measured.backfill.batch.every((run) => run.perSecond > 0 && run.profilesPerSecond > 0)).toBe(true);
      const [round] = measured.receiver.openLoop;
      expect([round!.hearth.requests, round!.bare.requests, round!.hearth.errors, round!.bare.errors]).toEqual([20, 20, 0, 0]);
      expect(measured.receiver.closed[0]!.hearth.requests).toBeGreaterThan(0);
      expect(measured.receiver.closed[0]!.bare.requests).toBeGreaterThan(0);
      expect(measured.receiver.processedWithError).toBe(0);
      expect(figures.map((figure) => [figure.unit, figure.goal?.op])).toEqual([
        ['items/s', '>='],
        ['items/s', '>='],
        ['ms', '<='],
        ['req/s', '>='],
      ]);
      expect(figures.every((figure) => figure.ratio !== null && figure.ratio > 0)).toBe(true);
      expect(lines.some((line) => line.includes('streams done'))).toBe(true);
      // Every database the figures made is dropped by them.
      expect(databases).toHaveLength(4);
    } finally {
      for (const made of databases) await made.drop();
    }
  }, 240_000);

  it("runs every platform's backfill figure: the connector and the batch route store the same activities, on new databases", async () => {
    const databases: BenchDatabase[] = [];
    const lines: string[] = [];
    try {
      const { figures, results } = await measurePlatformBackfills({
        serverUrl: process.env.TEST_DATABASE_URL!,
        env: { BENCH_POOL_SIZE: '2' },
        records: 60,
        log: (line) => lines.push(line),
        track: (child) => children.push(child),
        trackDatabase: (made) => databases.push(made),
      });
      const measured = (results as { platforms: Record<string, { activities: number; people: number; connectorSeconds: number; batchSeconds: number }> })
        .platforms;
      expect(Object.keys(measured).sort()).toEqual([...PLATFORM_NAMES].sort());
      for (const [name, platform] of Object.entries(measured)) {
        // The figure itself checks that both stored every activity of the translation.
        expect(platform.activities, name).toBeGreaterThan(0);
        expect(platform.people, name).toBeGreaterThan(0);
        expect(platform.connectorSeconds, name).toBeGreaterThan(0);
        expect(platform.batchSeconds, name).toBeGreaterThan(0);
      }
      expect(figures).toHaveLength(PLATFORM_NAMES.length);
      expect(figures.every((figure) => figure.ratio !== null && figure.ratio > 0 && figure.goal?.op === '>=')).toBe(true);
      // A connector's database and a baseline's for each platform, every one dropped by the figures.
      expect(databases).toHaveLength(2 * PLATFORM_NAMES.length);
    } finally {
      for (const made of databases) await made.drop();
    }
  }, 240_000);

  it('runs the merge suggestions figure: Hearth and the bare statement find the same pairs, on a database of its own', async () => {
    const databases: BenchDatabase[] = [];
    try {
      const { figures, results } = await measureSuggestions({
        serverUrl: process.env.TEST_DATABASE_URL!,
        contacts: 2_000,
        rounds: 1,
        log: () => {},
        trackDatabase: (made) => databases.push(made),
      });
      const measured = results as { hearthPairs: number; barePairs: number };
      // One contact in ten is a likely duplicate of the one before it: both find the same pairs.
      expect(measured.hearthPairs).toBeGreaterThan(0);
      expect(measured.hearthPairs).toBe(measured.barePairs);
      expect(figures).toHaveLength(1);
      expect(figures[0]).toMatchObject({ unit: 'ms', goal: { op: '>=', value: 0.5 } });
      expect(figures[0]!.ratio).toBeGreaterThan(0);
      expect(databases).toHaveLength(1);
    } finally {
      for (const made of databases) await made.drop();
    }
  }, 120_000);

  it("runs the first backfill figures: new people into empty databases, Hearth and bare taking every push, and the waits of Hearth's database counted", async () => {
    const databases: BenchDatabase[] = [];
    const lines: string[] = [];
    try {
      const { figures, results } = await measureFirstBackfill({
        serverUrl: process.env.TEST_DATABASE_URL!,
        env: { BENCH_POOL_SIZE: '2' },
        seeded: null,
        seconds: 1,
        rounds: 1,
        warmupSeconds: 0.2,
        log: (line) => lines.push(line),
        track: (child) => children.push(child),
        trackDatabase: (made) => databases.push(made),
      });
      const series = results as Record<string, { pushes: number; people: number; waits?: { samples: number; active: number } }>;
      for (const name of ['hearth8', 'bare8', 'hearth32', 'bare32', 'embedded8', 'hearthBatch', 'bareBatch']) {
        expect(series[name]!.pushes, name).toBeGreaterThan(0);
        expect(series[name]!.people, name).toBeGreaterThan(0);
        expect(series[name]!.people, name).toBeLessThanOrEqual(series[name]!.pushes);
      }
      expect(series.hearth8!.waits!.samples).toBeGreaterThan(0);
      expect(series.hearthBatch!.waits!.samples).toBeGreaterThan(0);
      expect(lines.some((line) => line.includes("what its database's sessions did"))).toBe(true);
      // Without a seeded database, its two rows say so; the others are measured.
      expect(figures.filter((figure) => figure.skipped).map((figure) => figure.name)).toEqual([
        'first backfill: single pushes, seeded database, 8 connections, vs bare push',
        'first backfill: single pushes, seeded database, 32 connections, vs bare push',
      ]);
      expect(figures.filter((figure) => !figure.skipped).every((figure) => figure.ratio !== null && figure.ratio > 0)).toBe(true);
    } finally {
      for (const made of databases) await made.drop().catch(() => undefined);
    }
  }, 240_000);

  it('the cluster figures: the same people in both databases, lists, pushes and webhook deliveries measured on each, reported without a goal', async () => {
    const databases: BenchDatabase[] = [];
    const lines: string[] = [];
    const part = {
      serverUrl: process.env.TEST_DATABASE_URL!,
      env: { BENCH_POOL_SIZE: '2' },
      seconds: 1,
      rounds: 1,
      people: 150,
      events: 40,
      warmupSeconds: 0.2,
      log: (line: string) => lines.push(line),
      track: (child: ServerChild) => children.push(child),
      trackDatabase: (made: BenchDatabase) => databases.push(made),
    };
    try {
      const skipped = await measureCluster({ ...part, clusterUrl: null });
      expect(skipped.figures.map((figure) => figure.skipped)).toEqual(Array(3).fill('no coordinator: set BENCH_CLUSTER_URL'));
      expect(databases).toHaveLength(0);
      // Any server stands for the coordinator here: what is checked is the harness, not a cluster.
      const { figures, results } = await measureCluster({ ...part, clusterUrl: process.env.TEST_DATABASE_URL! });
      expect(figures.map((figure) => [figure.unit, figure.goal, figure.ratio !== null && figure.ratio > 0])).toEqual([
        ['req/s', null, true],
        ['req/s', null, true],
        ['items/s', null, true],
      ]);
      // One round each; every event reached the receiver (deliveryRound checks the count).
      const measured = results as Record<'list' | 'push' | 'deliveries' | 'fanOut', Record<'server' | 'cluster', number[]>>;
      for (const part of ['list', 'push', 'deliveries', 'fanOut'] as const)
        expect([measured[part].server.length, measured[part].cluster.length], part).toEqual([1, 1]);
      expect(databases).toHaveLength(2);
      // The seeded people (and the community's admin), the same in both, before the single pushes added more.
      const seeded = async (made: BenchDatabase) => {
        const other = await openDatabase({ engine: 'postgres', url: made.url, poolSize: 1 });
        try {
          return (await sql<{ n: number }>`select count(*)::int as n from source_profiles where external_id like 'seed-%'`.execute(other.db)).rows[0]!.n;
        } finally {
          await other.close();
        }
      };
      expect(await seeded(databases[0]!)).toBe(await seeded(databases[1]!));
      expect(await seeded(databases[0]!)).toBeGreaterThan(0);
      expect(lines.some((line) => line.includes('people pushed into a new database'))).toBe(true);
    } finally {
      for (const made of databases) await made.drop().catch(() => undefined);
    }
  }, 240_000);
});
