import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countRollupChangesInStatements } from '../../src/db/rollup-changes.ts';
import type { DB } from '../../src/db/schema.ts';
import { activityTx } from '../../src/modules/activities/index.ts';
import { accepted } from '../helpers/ingest.ts';
import { untilALockIsAwaited } from '../helpers/lock-waits.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The statistics' change tables are fed by the insert triggers, or, in a transaction that says so (as
 * ingestion's do), by the statements that insert activities and topic links, grouped: never by both, never
 * by neither (docs/stats.md, "How they are computed").
 */
describe.each(ENGINES)('rollup changes counted by the inserting statements (%s)', (engine) => {
  let t: TestApp;
  let db: Kysely<DB>;

  beforeEach(async () => {
    t = await createTestApp(engine);
    db = t.db.database.db;
  });
  afterEach(() => t.close());

  /** Each key's count from the rollups and the changes not folded yet, next to a count of the rows themselves. */
  async function rollupsAgainstRecount() {
    const activities = await sql<{ key: string; counted: string | null; recounted: string | null }>`
      with counted as (
        select day, source_id, activity_type, sum(n) as n from (
          select day, source_id, activity_type, activities as n from activity_day_counts where community_id = ${t.communityId}
          union all
          select day, source_id, activity_type, delta from activity_day_changes where community_id = ${t.communityId}
        ) x group by 1, 2, 3 having sum(n) <> 0
      ), recounted as (
        select (activity_time at time zone 'UTC')::date as day, source_id, activity_type, count(*) as n
        from activities where community_id = ${t.communityId} group by 1, 2, 3
      )
      select concat_ws(' ', coalesce(c.day, r.day), coalesce(c.source_id, r.source_id), coalesce(c.activity_type, r.activity_type)) as key,
        c.n::text as counted, r.n::text as recounted
      from counted c full join recounted r using (day, source_id, activity_type)
      order by 1`.execute(db);
    const topics = await sql<{ key: string; counted: string | null; recounted: string | null }>`
      with counted as (
        select day, topic_id, sum(n) as n from (
          select day, topic_id, activities as n from topic_day_counts where community_id = ${t.communityId}
          union all
          select day, topic_id, delta from topic_day_changes where community_id = ${t.communityId}
        ) x group by 1, 2 having sum(n) <> 0
      ), recounted as (
        select (a.activity_time at time zone 'UTC')::date as day, l.topic_id, count(*) as n
        from activity_topics l join activities a on a.community_id = l.community_id and a.id = l.activity_id
        where l.community_id = ${t.communityId} group by 1, 2
      )
      select concat_ws(' ', coalesce(c.day, r.day), coalesce(c.topic_id, r.topic_id)) as key, c.n::text as counted, r.n::text as recounted
      from counted c full join recounted r using (day, topic_id)
      order by 1`.execute(db);
    return { activities: activities.rows, topics: topics.rows };
  }

  function expectExact(compared: { key: string; counted: string | null; recounted: string | null }[]) {
    expect(compared.length).toBeGreaterThan(0);
    for (const row of compared) expect(row.counted, row.key).toBe(row.recounted);
  }

  const changeRows = async (table: 'activity_day_changes' | 'topic_day_changes') =>
    (await sql<{ delta: number }>`select delta from ${sql.table(table)} where community_id = ${t.communityId} order by id`.execute(db)).rows.map((row) =>
      Number(row.delta),
    );

  const activity = (n: number, timestamp: string, text: string) => ({
    id: `post-${n}`,
    activityType: 'made_post_topic',
    timestamp,
    user: { id: `u-${n % 7}`, email: `person${n % 7}@example.com` },
    content: { type: 'text', value: text },
  });

  it('a batch counts its activities and topic links in one change row per day and key, and the rollups stay exact', async () => {
    const items = Array.from({ length: 20 }, (_, n) => activity(n, '2026-11-02T10:00:00Z', 'Kubernetes ingress latency after the upgrade'));
    const response = await t.send('POST', `/community/v1/source/${t.sourceId}/activities`, items);
    expect(response.statusCode, response.body).toBe(202);

    // The triggers would have written a row per activity and per link.
    expect(await changeRows('activity_day_changes')).toEqual([20]);
    const topicDeltas = await changeRows('topic_day_changes');
    expect(topicDeltas.length).toBeGreaterThan(0);
    expect(topicDeltas.every((delta) => delta === 20)).toBe(true);

    // Single pushes: a new activity, one moved to another day (the update trigger's), one pushed again unchanged.
    await accepted(t, 'activity', activity(100, '2026-11-03T10:00:00Z', 'Postgres vacuum tuning'));
    await accepted(t, 'activity', activity(3, '2026-11-05T23:30:00Z', 'Kubernetes ingress latency after the upgrade'));
    await accepted(t, 'activity', activity(4, '2026-11-02T10:00:00Z', 'Kubernetes ingress latency after the upgrade'));
    const compared = await rollupsAgainstRecount();
    expectExact(compared.activities);
    expectExact(compared.topics);
  });

  it('rows inserted by a transaction that does not say so are counted by the triggers', async () => {
    const { contactId } = await accepted(t, 'activity', activity(1, '2026-11-02T10:00:00Z', 'Helm charts for the release'));
    const before = (await changeRows('activity_day_changes')).length;
    await sql`
      insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, created_at, updated_at)
      select ${t.communityId}, ${t.sourceId}, 'made_post_topic', 'by-hand-' || n, ${Number(contactId.replace(/^\D+/, ''))}, now(), now(), now()
      from generate_series(1, 3) n`.execute(db);
    expect((await changeRows('activity_day_changes')).slice(before)).toEqual([1, 1, 1]);
    expectExact((await rollupsAgainstRecount()).activities);
  });

  it.skipIf(engine !== 'postgres')('an activity two transactions insert at once is counted once', async () => {
    const { contactId } = await accepted(t, 'activity', activity(1, '2026-11-02T10:00:00Z', 'Helm charts for the release'));
    const row = {
      sourceId: t.sourceId,
      activityType: 'made_post_topic',
      externalId: 'raced',
      contactId: Number(contactId.replace(/^\D+/, '')),
      activityTime: new Date('2026-11-04T10:00:00Z'),
      title: null,
      content: 'raced',
      contentType: 'text' as const,
      url: null,
      sentiment: null,
      parent: null,
      subSourceId: null,
      senderId: null,
    };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedFirst = new Promise<void>((resolve) => (inserted = resolve));
    const first = db.transaction().execute(async (trx) => {
      await countRollupChangesInStatements(trx);
      await activityTx.upsertActivities(trx, t.communityId, [row], new Date());
      inserted();
      await held;
    });
    await insertedFirst;
    // The second sees no such activity in its snapshot, then finds the first's row on the unique key: it
    // waits, and updates it once the first commits.
    const second = db.transaction().execute(async (trx) => {
      await countRollupChangesInStatements(trx);
      await activityTx.upsertActivities(trx, t.communityId, [{ ...row, content: 'raced again' }], new Date());
    });
    await untilALockIsAwaited(db, 'the second writer');
    release();
    await Promise.all([first, second]);
    expectExact((await rollupsAgainstRecount()).activities);
  });
});
