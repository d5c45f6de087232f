import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * Topic links have no foreign keys (migration 0020: a check per link was a fifth of a batch's database
 * time). What the keys guaranteed must still hold: no link outlives its activity or its topic, however
 * either goes, and a link written while its topic is being deleted does not survive it.
 */
describe.each(ENGINES)('topic links without foreign keys (%s)', (engine) => {
  let t: TestApp;
  let db: Kysely<DB>;

  beforeEach(async () => {
    t = await createTestApp(engine);
    db = t.db.database.db;
  });
  afterEach(() => t.close());

  const links = async () =>
    (
      await sql<{ activityId: string; topic: string }>`
      select l.activity_id::text as "activityId", t.name as topic
      from activity_topics l left join topics t on t.community_id = l.community_id and t.id = l.topic_id
      order by 1, 2`.execute(db)
    ).rows;
  const orphans = async () =>
    Number(
      (
        await sql<{ n: string }>`
          select count(*)::text as n from activity_topics l
          where not exists (select 1 from activities a where a.community_id = l.community_id and a.id = l.activity_id)
             or not exists (select 1 from topics t where t.community_id = l.community_id and t.id = l.topic_id)`.execute(db)
      ).rows[0]!.n,
    );

  async function pushAbout(id: string, email: string, text: string) {
    return accepted(t, 'activity', {
      id,
      activityType: 'made_post_topic',
      timestamp: '2026-11-01T10:00:00Z',
      user: { id: `u-${email}`, email },
      content: { type: 'text', value: text },
    });
  }

  it('links pushed activities to their topics, and a re-push replaces them', async () => {
    await pushAbout('a1', 'ada@example.com', 'Kubernetes ingress latency is hurting our release');
    expect((await links()).length).toBeGreaterThan(0);
    expect((await links()).every((link) => link.topic !== null)).toBe(true);
    await pushAbout('a1', 'ada@example.com', 'Postgres vacuum tuning');
    const after = await links();
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(after.map((link) => link.activityId)).size).toBe(1);
    expect(after.map((link) => link.topic!.toLowerCase()).join(' ')).not.toContain('kubernetes');
    expect(await orphans()).toBe(0);
  });

  it('removes the links of deleted activities, one by one or by a cascade from their contact or community', async () => {
    await pushAbout('a1', 'ada@example.com', 'Kubernetes ingress latency');
    await pushAbout('a2', 'ada@example.com', 'Helm charts for the release');
    await pushAbout('a3', 'bob@example.com', 'Postgres replication lag');
    const before = await links();
    expect(new Set(before.map((link) => link.activityId)).size).toBe(3);

    await sql`delete from activities where community_id = ${t.communityId} and external_id = 'a1'`.execute(db);
    expect(new Set((await links()).map((link) => link.activityId)).size).toBe(2);
    await sql`delete from contacts where community_id = ${t.communityId} and primary_email = 'bob@example.com'`.execute(db);
    expect(new Set((await links()).map((link) => link.activityId)).size).toBe(1);
    expect(await orphans()).toBe(0);
    await sql`delete from communities where id = ${t.communityId}`.execute(db);
    expect(await links()).toEqual([]);
  });

  it('removes the links of deleted topics, as the cascade did', async () => {
    await pushAbout('a1', 'ada@example.com', 'Kubernetes ingress latency');
    const [link] = await links();
    await sql`delete from topics where community_id = ${t.communityId} and name = ${link!.topic}`.execute(db);
    expect((await links()).some((l) => l.topic === link!.topic)).toBe(false);
    expect(await orphans()).toBe(0);
  });

  it.skipIf(engine !== 'postgres')('a topic deleted while a writer links to it takes the new links with it', async () => {
    await pushAbout('a1', 'ada@example.com', 'Kubernetes ingress latency');
    const topic = (await sql<{ id: string }>`select id::text from topics where community_id = ${t.communityId} order by id limit 1`.execute(db)).rows[0]!.id;
    const activity = (await sql<{ id: string }>`select id::text from activities where community_id = ${t.communityId}`.execute(db)).rows[0]!.id;
    const writer = new pg.Client({ connectionString: t.db.url! });
    const eraser = new pg.Client({ connectionString: t.db.url! });
    await writer.connect();
    await eraser.connect();
    try {
      // The writer links as ingestion does (the topic locked `for key share`), and has not committed.
      await writer.query('begin');
      await writer.query(`delete from activity_topics where community_id = $1 and activity_id = $2`, [t.communityId, activity]);
      await writer.query(
        `insert into activity_topics (community_id, activity_id, topic_id)
         select $1, $2, t.id from (select id from topics where community_id = $1 and id = $3 for key share) t`,
        [t.communityId, activity, topic],
      );
      // The eraser deletes the topic as erasure does (no link left, as far as it can see): it waits.
      const erased = eraser.query(
        `delete from topics t where t.community_id = $1 and t.id = $2
           and not exists (select 1 from activity_topics l where l.community_id = t.community_id and l.topic_id = t.id and l.activity_id <> $3)`,
        [t.communityId, topic, activity],
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await writer.query('commit');
      expect((await erased).rowCount).toBe(1);
      expect(await orphans()).toBe(0);
    } finally {
      await writer.end();
      await eraser.end();
    }
  });
});
