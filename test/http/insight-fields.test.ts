import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

const DAY = 86_400_000;

const CONTACT_FIELDS = 'leadScores,leadScoreKeyFactors,sparkSummary,recentSparkSummaries,activateMessage,recentWebPages,recentWebVisitsNumber,jobHistory';
const ORGANIZATION_FIELDS = 'leadScores,leadScoreKeyFactors,surgingTopics,researchResults,topContacts';

/**
 * The insight fields end to end: on a community seeded through the API, every documented insight field holds a
 * value where the community's data supports one, and is `[]`, 0 or null only where it does not. Ada works
 * at Acme, changed titles, posts often (lately about Kubernetes) and visited the website; Bob at Globex was
 * only pushed once; Initech is an organization nobody works at. How each value is computed is tested in
 * its own file (lead-scores, contact-sparks, website-visits-push, job-history, surging-topics, insights).
 */
describe.each(ENGINES)('insight fields on a seeded community (%s)', (engine) => {
  let t: TestApp;
  let worker: Worker;
  let n = 0;
  const ids = { ada: '', bob: '', acme: '', globex: '', initech: '' };
  const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

  async function post(email: string, daysAgo: number, text: string) {
    return accepted(t, 'activity', {
      id: `post-${++n}`,
      activityType: 'made_post_topic',
      timestamp: ago(daysAgo),
      user: { id: email, email },
      content: { type: 'text', value: text },
    });
  }
  async function data<T>(url: string, status = 200): Promise<T> {
    const response = await t.get(url);
    expect(response.statusCode, response.body).toBe(status);
    return (response.json() as { data: T }).data;
  }
  async function organizationId(domain: string) {
    return (await data<{ id: string }[]>(`/api/v2/organizations?primaryDomain=${domain}`))[0]!.id;
  }
  async function created(url: string, body: unknown, status = 201) {
    const response = await t.send('POST', url, body);
    expect(response.statusCode, response.body).toBe(status);
    return (response.json() as { data: { id: string } }).data;
  }

  beforeAll(async () => {
    t = await createTestApp(engine);
    worker = createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs });
    // Ada's titles over time.
    ids.ada = (
      await accepted(t, 'user', { id: 'ada@acme.io', email: 'ada@acme.io', fullName: 'Ada Lovelace', titleAtCompany: 'Engineer', companyName: 'Acme' })
    ).contactId;
    await accepted(t, 'user', { id: 'ada@acme.io', email: 'ada@acme.io', titleAtCompany: 'CTO', companyName: 'Acme' });
    // Acme talked about Postgres for months; this month Kubernetes came up.
    for (let i = 0; i < 12; i++) await post(i % 2 ? 'ada@acme.io' : 'dev@acme.io', 35 + i * 5, 'How do I tune Postgres for writes?');
    for (let i = 0; i < 4; i++) await post(i % 2 ? 'ada@acme.io' : 'dev@acme.io', 2 + i, 'Our Kubernetes cluster keeps restarting');
    ids.bob = (await accepted(t, 'user', { id: 'bob@globex.io', email: 'bob@globex.io', fullName: 'Bob' })).contactId;
    [ids.acme, ids.globex] = [await organizationId('acme.io'), await organizationId('globex.io')];
    const initech = await t.send('POST', `/community/v1/source/${t.sourceId}/organization`, { domain: 'initech.com' });
    expect(initech.statusCode, initech.body).toBeLessThan(300);
    ids.initech = (initech.json() as { organizationId: string }).organizationId;

    // Ada visited the website.
    const visits = await t.send('POST', `/community/v1/source/${t.sourceId}/website-visits`, [
      { url: 'https://acme-community.example/pricing', visitTime: ago(1), email: 'ada@acme.io' },
      { url: 'https://acme-community.example/docs', visitTime: ago(3), email: 'ada@acme.io' },
    ]);
    expect(visits.statusCode, visits.body).toBe(202);

    // An admin's research prompt, answered for Acme by an import (no model is configured).
    await created('/api/v2/admin/research-prompts', { promptId: 'fit', promptName: 'Good fit?', prompt: 'Is it a fit?', isPrimaryPrompt: true });
    const answers = await t.send('POST', '/api/v2/admin/research-answers', {
      answers: [{ organizationId: ids.acme, promptId: 'fit', answer: 'Yes: they run Kubernetes.' }],
    });
    expect(answers.statusCode, answers.body).toBe(200);

    // Lead scores for contacts and organizations, computed by the recompute jobs.
    await created('/api/v2/admin/lead-scores', {
      name: 'Engaged',
      entityType: 'contact',
      halfLifeDays: 30,
      weights: [{ activityType: 'made_post_topic', weight: 2 }],
    });
    await created('/api/v2/admin/lead-scores', {
      name: 'Active accounts',
      entityType: 'organization',
      halfLifeDays: 30,
      weights: [{ activityType: 'made_post_topic', weight: 1 }],
    });
    expect(await worker.runUntilIdle()).toBe(2);
  });
  afterAll(() => t?.close());

  it('gives a contact with activity, titles and visits a value in every field', async () => {
    const ada = await data<Record<string, unknown>>(`/api/v2/contacts/${ids.ada}?cols=${CONTACT_FIELDS}`);
    expect(ada.leadScores).toEqual([{ scoreId: expect.any(Number), score: expect.any(Number), percentile: expect.any(Number) }]);
    // Above Bob, who did nothing, below Acme's other poster, whose posts are more recent (the console user's
    // contact is not a member, and not scored).
    expect(ada.leadScores).toEqual([expect.objectContaining({ percentile: 50 })]);
    expect((ada.leadScores as { score: number }[])[0]!.score).toBeGreaterThan(0);
    expect(ada.leadScoreKeyFactors).toEqual([
      {
        scoreId: expect.any(Number),
        factors: [{ label: 'Activity: made_post_topic', value: expect.stringMatching(/^×8, latest /), strength: expect.any(Number) }],
      },
    ]);
    expect(ada.sparkSummary).toMatch(/^In the last 30 days, /);
    expect((ada.recentSparkSummaries as string[]).length).toBeGreaterThan(0);
    expect(ada.activateMessage).toEqual({ title: expect.any(String), message: expect.stringContaining('Ada') });
    expect(ada.recentWebPages).toHaveLength(2);
    expect(ada.recentWebPages).toEqual(
      expect.arrayContaining([
        { url: 'https://acme-community.example/pricing', numVisits: 1 },
        { url: 'https://acme-community.example/docs', numVisits: 1 },
      ]),
    );
    expect(ada.recentWebVisitsNumber).toBe(2);
    expect(ada.jobHistory).toEqual([
      expect.objectContaining({ title: 'CTO', company: 'Acme', endDate: null }),
      expect.objectContaining({ title: 'Engineer', company: 'Acme', endDate: expect.any(String) }),
    ]);
  });

  it("leaves a contact without activity or visits empty, but scored at zero and placed at his email's company", async () => {
    const bob = await data<Record<string, unknown>>(`/api/v2/contacts/${ids.bob}?cols=${CONTACT_FIELDS}`);
    expect(bob).toMatchObject({
      leadScores: [{ scoreId: expect.any(Number), score: 0, percentile: 0 }],
      leadScoreKeyFactors: [{ scoreId: expect.any(Number), factors: [] }],
      sparkSummary: null,
      activateMessage: null,
      recentWebPages: [],
      recentWebVisitsNumber: 0,
      // No title was pushed, but his address places him at Globex: one job, without a title.
      jobHistory: [{ title: null, company: 'Globex', startDate: expect.any(String), endDate: null }],
    });
    expect(bob.recentSparkSummaries).toEqual([]);
  });

  it('gives an organization with engaged contacts, a surge and an answer a value in every field', async () => {
    const acme = await data<Record<string, unknown>>(`/api/v2/organizations/${ids.acme}?cols=${ORGANIZATION_FIELDS}`);
    expect((acme.leadScores as { score: number }[])[0]!.score).toBeGreaterThan(0);
    expect((acme.leadScoreKeyFactors as { factors: unknown[] }[])[0]!.factors.length).toBeGreaterThan(0);
    expect(acme.surgingTopics).toContain('Kubernetes');
    expect(acme.researchResults).toEqual([{ promptId: 'fit', promptName: 'Good fit?', isPrimaryPrompt: true, answer: 'Yes: they run Kubernetes.' }]);
    expect((acme.topContacts as { id: string }[]).map((contact) => contact.id)).toContain(ids.ada);
  });

  it('leaves an organization without activity or answers empty, and one without contacts without top contacts', async () => {
    const globex = await data<Record<string, unknown>>(`/api/v2/organizations/${ids.globex}?cols=${ORGANIZATION_FIELDS}`);
    expect(globex).toMatchObject({ surgingTopics: [], researchResults: [], leadScores: [{ score: 0 }] });
    // Bob is Globex's only contact: its top contact, though he has done nothing yet.
    expect((globex.topContacts as { id: string }[]).map((contact) => contact.id)).toEqual([ids.bob]);
    const initech = await data<Record<string, unknown>>(`/api/v2/organizations/${ids.initech}?cols=${ORGANIZATION_FIELDS}`);
    expect(initech).toMatchObject({ surgingTopics: [], researchResults: [], topContacts: [] });
  });
});
