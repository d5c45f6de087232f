import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

const DAY = 86_400_000;

interface Sparks {
  sparkSummary: string | null;
  recentSparkSummaries: string[];
  activateMessage: { title: string; message: string } | null;
}

/** A contact's sparkSummary, recentSparkSummaries and activateMessage, computed from a contact's activities. */
describe.each(ENGINES)('contact spark summaries (%s)', (engine) => {
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  async function activity(user: Record<string, unknown>, daysAgo: number, activityType: string, text: string, subSource?: string) {
    return accepted(t, 'activity', {
      id: `spark-${++n}`,
      activityType,
      timestamp: new Date(Date.now() - daysAgo * DAY).toISOString(),
      user,
      content: { type: 'text', value: text },
      ...(subSource ? { subSourceName: subSource } : {}),
    });
  }
  async function sparksOf(contactId: string): Promise<Sparks> {
    const response = await t.get(`/api/v2/contacts/${contactId}?cols=sparkSummary,recentSparkSummaries,activateMessage`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: Sparks }).data;
  }
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

  it('says what a contact did, where and about what, and suggests an outreach about the latest', async () => {
    const ada = { id: 'u-ada', email: 'ada@gmail.com', fullName: 'Ada Lovelace' };
    const { contactId } = await activity(ada, 9, 'commented_replied', 'Our Kubernetes cluster keeps restarting');
    await activity(ada, 6, 'commented_replied', 'Our Kubernetes cluster keeps restarting');
    await activity(ada, 2, 'made_post_topic', 'Upgrading Kubernetes to the new release');
    await activity(ada, 70, 'commented_replied', 'How do I tune Postgres for writes?');

    const sparks = await sparksOf(contactId);
    expect(sparks.sparkSummary).toBe(
      `In the last 30 days, 3 activities: mostly commented or replied (2) and made a post or topic (1), in API (3); about Kubernetes, cluster and release. Latest on ${day(2)}.`,
    );
    expect(sparks.recentSparkSummaries).toEqual([
      `30 days to ${day(0)}: 3 activities: mostly commented or replied (2) and made a post or topic (1), in API (3); about Kubernetes, cluster and release.`,
      `30 days to ${day(60)}: 1 activity: commented or replied, in API; about Postgres.`,
    ]);
    expect(sparks.activateMessage).toEqual({
      title: 'Follow up on Kubernetes',
      message: `Hi Ada, I saw your activity in API on ${day(2)} (made a post or topic about Kubernetes). It's one of 3 things you did with us in the last 30 days, and we're grateful. Would it help to talk it through with someone on our team?`,
    });
  });

  it('is null and empty for a contact with no activity in the last 90 days, and text a model wrote wins', async () => {
    const quiet = (await accepted(t, 'user', { id: 'u-bob', email: 'bob@gmail.com' })).contactId;
    expect(await sparksOf(quiet)).toMatchObject({ sparkSummary: null, recentSparkSummaries: [], activateMessage: null });

    const eve = { id: 'u-eve', email: 'eve@gmail.com' };
    const { contactId } = await activity(eve, 1, 'commented_replied', 'Terraform state locking issue');
    await sql`update contacts set spark_summary = 'Eve is evaluating Terraform modules.' where community_id = ${t.communityId} and id = ${Number(contactId.slice(2))}`.execute(
      t.services.db,
    );
    const sparks = await sparksOf(contactId);
    expect(sparks.sparkSummary).toBe('Eve is evaluating Terraform modules.');
    expect(sparks.recentSparkSummaries).toHaveLength(1);
    expect(sparks.activateMessage).toMatchObject({ title: 'Follow up on Terraform', message: expect.stringMatching(/^Hi, I saw your activity in API/) });
  });
});
