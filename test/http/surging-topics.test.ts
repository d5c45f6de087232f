import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

const DAY = 86_400_000;

/**
 * The `surgingTopics` of an organization, computed from its contacts' activities: a topic surges when
 * at least 3 activities of the last 28 days carry it and its share of them is at least twice its share of
 * the 84 days before (smoothed by one activity).
 */
describe.each(ENGINES)('organizations: surgingTopics (%s)', (engine) => {
  let t: TestApp;
  let n = 0;
  const organizations: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  async function activity(email: string, daysAgo: number, text: string) {
    const pushed = await accepted(t, 'activity', {
      id: `act-${++n}`,
      activityType: 'made_post_topic',
      timestamp: new Date(Date.now() - daysAgo * DAY).toISOString(),
      user: { id: email, email },
      content: { type: 'text', value: text },
    });
    return pushed;
  }
  async function surging(domain: string): Promise<string[]> {
    const id = organizations[domain]!;
    const response = await t.get(`/api/v2/organizations/${id}?cols=surgingTopics`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: { surgingTopics: string[] } }).data.surgingTopics;
  }
  async function organizationOf(domain: string) {
    const response = await t.get(`/api/v2/organizations?primaryDomain=${domain}`);
    organizations[domain] = (response.json() as { data: { id: string }[] }).data[0]!.id;
  }

  it('names topics whose share of the last 28 days rose against the 84 days before, strongest first', async () => {
    // Acme talked about Postgres for months; this month Kubernetes came up (4 times, 3 people), Terraform
    // 3 times, and Postgres kept its usual share.
    for (let i = 0; i < 12; i++) await activity(`dev${i % 3}@acme.io`, 35 + i * 5, 'How do I tune Postgres for writes?');
    for (let i = 0; i < 4; i++) await activity(`dev${i % 3}@acme.io`, 2 + i, 'Our Kubernetes cluster keeps restarting');
    for (let i = 0; i < 3; i++) await activity(`ops@acme.io`, 3 + i, 'Terraform state locking issue');
    for (let i = 0; i < 3; i++) await activity(`dev${i}@acme.io`, 10 + i, 'How do I tune Postgres for writes?');
    await organizationOf('acme.io');
    // Kubernetes and "cluster": 4 of the month's 10 activities, none of the 12 before: (4/10) / (1/13) = 5.2;
    // Terraform and "state": (3/10) / (1/13) = 3.9; Postgres: (3/10) / (13/13) = 0.3. Ties go by name.
    expect(await surging('acme.io')).toEqual(['cluster', 'Kubernetes', 'state', 'Terraform']);
  });

  it('needs a minimum volume and a baseline, and ignores what is older than the baseline', async () => {
    // Two Helm posts this month against a long quiet history: too few to call a surge.
    for (let i = 0; i < 6; i++) await activity(`a${i}@globex.io`, 40 + i * 7, 'How do I tune Postgres for writes?');
    for (let i = 0; i < 2; i++) await activity(`a${i}@globex.io`, 1 + i, 'Helm chart values question');
    await organizationOf('globex.io');
    expect(await surging('globex.io')).toEqual([]);

    // An organization whose every activity is recent has no baseline to rise over.
    for (let i = 0; i < 5; i++) await activity(`b${i}@initech.io`, 1 + i, 'Our Kubernetes cluster keeps restarting');
    await organizationOf('initech.io');
    expect(await surging('initech.io')).toEqual([]);

    // Activities older than 112 days are no baseline: the same as none.
    for (let i = 0; i < 8; i++) await activity(`c${i}@hooli.io`, 150 + i, 'How do I tune Postgres for writes?');
    for (let i = 0; i < 4; i++) await activity(`c${i}@hooli.io`, 1 + i, 'Our Kubernetes cluster keeps restarting');
    await organizationOf('hooli.io');
    expect(await surging('hooli.io')).toEqual([]);
  });

  it('is computed for every organization of a page at once', async () => {
    const response = await t.get('/api/v2/organizations?cols=surgingTopics&limit=50');
    expect(response.statusCode, response.body).toBe(200);
    const byDomain = new Map(
      (response.json() as { data: { primaryDomain: string; surgingTopics: string[] }[] }).data.map((o) => [o.primaryDomain, o.surgingTopics]),
    );
    expect(byDomain.get('acme.io')).toEqual(await surging('acme.io'));
    expect(byDomain.get('globex.io')).toEqual([]);
  });
});
