import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareBackfillRoute } from '../../bench/bare-backfill.ts';
import { benchApp } from '../../bench/bench-app.ts';
import { createBenchDatabase, type BenchDatabase } from '../../bench/database.ts';
import { newPeoplePush } from '../../bench/new-people.ts';
import { prepare } from '../../bench/push.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { pgTypes } from '../../src/db/type-parsers.ts';

/**
 * The first backfill's batch figure divides Hearth by a bare endpoint that claims to write the same rows
 * (bench/bare-backfill.ts). Here both take the same three batches of new people, each into a database of
 * its own, and the rows they leave are compared, keyed by what the pushes carry (emails, domains, activity
 * IDs), not by generated IDs. PostgreSQL only, as the bench; skipped unless TEST_DATABASE_URL is set.
 */

/** Every row a batch writes, as text that does not depend on generated IDs or on when it was written. */
async function rowsOf(url: string): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const email = (contact: string) => `(select primary_email from contacts x where x.id = ${contact})`;
  const queries: Record<string, string> = {
    contacts: `select concat_ws('|', name, full_name, primary_email, company_name, company_website,
        (select primary_domain from organizations o where o.id = c.organization_id), activity_count_all, first_activity_at, latest_activity_at)
      from contacts c`,
    identities: `select concat_ws('|', type, value, display_value, ${email('i.contact_id')}) from contact_identities i`,
    profiles: `select concat_ws('|', external_id, ${email('p.contact_id')}, fields::text) from source_profiles p`,
    organizations: `select concat_ws('|', name, primary_domain, member_count) from organizations`,
    domains: `select concat_ws('|', domain, (select primary_domain from organizations o where o.id = d.organization_id)) from organization_domains d`,
    activities: `select concat_ws('|', activity_type, external_id, ${email('a.contact_id')}, activity_time, content, content_type, sentiment, parent_id)
      from activities a`,
    topics: `select name from topics`,
    topicLinks: `select concat_ws('|', (select external_id from activities a where a.id = l.activity_id), (select name from topics t where t.id = l.topic_id))
      from activity_topics l`,
    audit: `select concat_ws('|', operation, detail->>'activityType', detail->'contact'->>'created') from audit_log where operation = 'activity.push'`,
  };
  try {
    const rows: Record<string, string[]> = {};
    for (const [table, sql] of Object.entries(queries)) {
      rows[table] = (await client.query<{ concat_ws?: string; name?: string }>(sql)).rows.map((row) => String(Object.values(row)[0])).sort();
    }
    return rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('the equal-work bare batch endpoint (PostgreSQL)', () => {
  const databases: BenchDatabase[] = [];
  let hearth: { database: Database; app: Awaited<ReturnType<typeof benchApp>>['app']; token: string; sourceId: number };
  let bare: { app: ReturnType<typeof Fastify>; pool: pg.Pool };
  const batches = [0, 1, 2].map((b) => Array.from({ length: 100 }, (_, k) => newPeoplePush('eq', b * 100 + k)));

  beforeAll(async () => {
    const forHearth = await createBenchDatabase(process.env.TEST_DATABASE_URL!);
    databases.push(forHearth);
    const hearthSetup = await prepare({ engine: 'postgres', url: forHearth.url, poolSize: 2 });
    const database = await openDatabase({ engine: 'postgres', url: forHearth.url, poolSize: 4 });
    hearth = { database, app: (await benchApp(database)).app, token: hearthSetup.token, sourceId: hearthSetup.sourceId };

    const forBare = await createBenchDatabase(process.env.TEST_DATABASE_URL!);
    databases.push(forBare);
    const bareSetup = await prepare({ engine: 'postgres', url: forBare.url, poolSize: 2 });
    const pool = new pg.Pool({ connectionString: forBare.url, max: 4, types: pgTypes });
    const app = Fastify({ logger: false });
    bareBackfillRoute(app, pool, { communityId: bareSetup.communityId, sourceId: bareSetup.sourceId });
    bare = { app, pool };
  }, 120_000);

  afterAll(async () => {
    await hearth?.app.close();
    await hearth?.database.close();
    await bare?.app.close();
    await bare?.pool.end();
    for (const database of databases) await database.drop();
  });

  it('leaves the rows Hearth leaves for the same batches of new and returning people', async () => {
    for (const batch of batches) {
      const fromHearth = await hearth.app.inject({
        method: 'POST',
        url: `/community/v1/source/${hearth.sourceId}/activities`,
        headers: { authorization: `Bearer ${hearth.token}` },
        payload: batch,
      });
      expect(fromHearth.statusCode).toBe(202);
      const fromBare = await bare.app.inject({ method: 'POST', url: '/bare-backfill-batch', payload: batch });
      expect(fromBare.statusCode).toBe(202);
      // Both answer each push with its contact and activity, in the same shape.
      type Answer = { status: string; accepted: number; results: { index: number; status: string; contactId: string; activityId: string }[] };
      const shape = (answer: Answer) => [
        answer.status,
        answer.accepted,
        answer.results.map((item) => [item.index, item.status, /^c_\d+$/.test(item.contactId), /^a_\d+$/.test(item.activityId)]),
      ];
      expect(shape(fromBare.json())).toEqual(shape(fromHearth.json()));
    }
    const hearthRows = await rowsOf(databases[0]!.url);
    const bareRows = await rowsOf(databases[1]!.url);
    // The data the comparison rests on: people who return, companies with several people, topics.
    expect(hearthRows.contacts!.length).toBeGreaterThan(200);
    expect(hearthRows.contacts!.length).toBeLessThan(300);
    expect(hearthRows.organizations!.some((row) => !row.endsWith('|1'))).toBe(true);
    expect(hearthRows.topicLinks!.length).toBeGreaterThan(300);
    for (const table of Object.keys(hearthRows)) expect({ table, rows: bareRows[table] }).toEqual({ table, rows: hearthRows[table] });
  }, 120_000);
});
