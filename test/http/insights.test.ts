import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { accepted, pushUser } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

const DAY = 86_400_000;

interface Sparks {
  sparkSummary: string | null;
  recentSparkSummaries: string[];
  activateMessage: { title: string; message: string } | null;
}

interface Status {
  configured: boolean;
  model: string | null;
  contactsWithModelText: number;
  modelResearchAnswers: number;
  latestJob: { jobId: number; status: string; result: Record<string, any> | null } | null; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * Insights (docs/insights.md): spark summaries, activate messages and research answers written by an
 * OpenAI-compatible endpoint (a local fake here), in a background job, with the deterministic text (or no
 * answer) whenever the model is not configured, fails, hangs or answers garbage.
 */
describe.each(ENGINES)('insights from a model endpoint (%s)', (engine) => {
  let t: TestApp;
  let fake: FakeLlm;
  let n = 0;

  beforeAll(async () => {
    fake = await startFakeLlm();
    t = await createTestApp(engine, { llm: fake.config({ timeoutMs: 300 }) });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const worker = () => createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs });

  async function activity(userId: string, daysAgo: number, text: string, token = t.token, sourceId = t.sourceId) {
    return accepted(
      t,
      'activity',
      {
        id: `act-${++n}`,
        activityType: 'commented_replied',
        timestamp: new Date(Date.now() - daysAgo * DAY).toISOString(),
        user: { id: userId },
        content: { type: 'text', value: text },
      },
      { token, sourceId },
    );
  }
  async function sparksOf(contactId: string, token = t.token): Promise<Sparks> {
    const response = await t.get(`/api/v2/contacts/${contactId}?cols=sparkSummary,recentSparkSummaries,activateMessage`, token);
    expect(response.statusCode, response.body).toBe(200);
    const { sparkSummary, recentSparkSummaries, activateMessage } = (response.json() as { data: Sparks }).data;
    return { sparkSummary, recentSparkSummaries, activateMessage };
  }
  async function refresh(body: object = {}, token = t.token): Promise<number> {
    const response = await t.send('POST', '/api/v2/admin/insights/refresh', body, token);
    expect(response.statusCode, response.body).toBe(202);
    return (response.json() as { data: { jobId: number } }).data.jobId;
  }
  async function status(token = t.token): Promise<Status> {
    const response = await t.get('/api/v2/admin/insights', token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: Status }).data;
  }
  async function research(organizationId: string, token = t.token) {
    const response = await t.get(`/api/v2/organizations/${organizationId}?cols=researchResults`, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: { researchResults: { promptId: string; answer: string; isPrimaryPrompt: boolean; promptName: string }[] } }).data
      .researchResults;
  }
  async function organizationOf(domain: string, token = t.token) {
    const response = await t.get(`/api/v2/organizations?primaryDomain=${domain}`, token);
    return (response.json() as { data: { id: string }[] }).data[0]!.id;
  }
  /** Runs the due jobs; the run's result. */
  async function run(jobId?: number) {
    await worker().runUntilIdle();
    const latest = (await status()).latestJob!;
    if (jobId !== undefined) expect(latest.jobId).toBe(jobId);
    expect(latest.status).toBe('completed');
    return latest.result!;
  }

  it("writes a contact's texts with the model in a job, sending its facts and drafts but no address, then only when its activity moves", async () => {
    const ada = await pushUser(t, { id: 'u-ada', email: 'ada@acme-insights.com', fullName: 'Ada Lovelace', titleAtCompany: 'Staff Engineer' });
    await activity('u-ada', 3, 'Our Kubernetes cluster keeps restarting');
    await activity('u-ada', 1, 'Upgrading Kubernetes to the new release');
    const deterministic = await sparksOf(ada);
    expect(deterministic.sparkSummary).toMatch(/^In the last 30 days, 2 activities/);
    // Nothing is written on the request or the push: only a job asks the model.
    expect(fake.requests).toHaveLength(0);

    const jobId = await refresh();
    expect((await status()).latestJob).toMatchObject({ jobId, status: 'queued' });
    const result = await run(jobId);
    expect(result.contacts).toMatchObject({ total: 1, done: 1, written: 1, failed: 0 });

    const sparks = await sparksOf(ada);
    expect(sparks.sparkSummary).toBe(`Model: ${deterministic.sparkSummary}`);
    expect(sparks.recentSparkSummaries).toEqual(deterministic.recentSparkSummaries.map((text) => `Model: ${text}`));
    expect(sparks.activateMessage).toEqual({
      title: `Model: ${deterministic.activateMessage!.title}`,
      message: `Model: ${deterministic.activateMessage!.message}`,
    });
    expect(await status()).toMatchObject({ configured: true, model: 'fake-model', contactsWithModelText: 1 });

    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer test-key', body: { model: 'fake-model' } });
    expect(request!.sent.facts).toMatchObject({
      title: 'Staff Engineer',
      organization: expect.any(String),
      periods: [expect.objectContaining({ activities: 2 })],
    });
    expect(request!.sent.drafts).toEqual(deterministic);
    const wire = JSON.stringify(request!.body);
    expect(wire).not.toContain('ada@acme-insights.com');
    expect(wire).not.toContain('keeps restarting');

    // Nothing moved: a run asks nothing, and the scheduler finds nothing to enqueue.
    await refresh();
    expect((await run()).contacts).toMatchObject({ total: 0 });
    expect(await t.services.insights.sweep()).toBe(0);
    expect(fake.requests).toHaveLength(1);

    // A new activity makes the contact due again; the scheduler enqueues a run.
    await activity('u-ada', 0, 'Helm charts for the release');
    expect(await t.services.insights.sweep()).toBe(1);
    expect((await run()).contacts).toMatchObject({ total: 1, written: 1 });
    expect(fake.requests).toHaveLength(2);
    expect((await sparksOf(ada)).sparkSummary).toMatch(/^Model: In the last 30 days, 3 activities/);

    // `all` asks again whatever moved; the same input gives the same text, not asked twice.
    await refresh({ all: true });
    expect((await run()).contacts).toMatchObject({ total: 1, unchanged: 1 });
    expect(fake.requests).toHaveLength(2);
  });

  it('keeps its watermark to the microsecond: a contact written is not due again', async () => {
    const dee = await pushUser(t, { id: 'u-dee', email: 'dee@example.org' });
    await activity('u-dee', 2, 'Microseconds matter');
    // Times written by SQL (imports, the seed) carry microseconds, which a JavaScript date would drop.
    const id = Number(dee.slice(2));
    // Given as text (a time plus arithmetic in an update is refused by a Citus cluster): 123 µs past each.
    const microsLater = (time: Date) => time.toISOString().replace('Z', '123Z');
    const db = t.services.db;
    for (const row of await db
      .selectFrom('activities')
      .select(['id', 'activity_time'])
      .where('community_id', '=', t.communityId)
      .where('contact_id', '=', id)
      .execute())
      await sql`update activities set activity_time = ${microsLater(row.activity_time)}::timestamptz where community_id = ${t.communityId} and id = ${row.id}`.execute(
        db,
      );
    const contact = await db
      .selectFrom('contacts')
      .select('latest_activity_at')
      .where('community_id', '=', t.communityId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await sql`update contacts set latest_activity_at = ${microsLater(contact.latest_activity_at!)}::timestamptz where community_id = ${t.communityId} and id = ${id}`.execute(
      db,
    );
    expect((await run(await refresh())).contacts).toMatchObject({ total: 1, written: 1 });
    expect((await run(await refresh())).contacts).toMatchObject({ total: 0 });
  });

  it('keeps the deterministic text when the model fails, hangs or answers garbage, and counts each failure', async () => {
    const cyd = await pushUser(t, { id: 'u-cyd', email: 'cyd@example.org', fullName: 'Cyd Charisse' });
    for (const [mode, day] of [
      ['fail', 5],
      ['hang', 4],
      ['garbage', 3],
    ] as const) {
      await activity('u-cyd', day, `Question about ingress ${mode}`);
      fake.mode = mode;
      const result = await run(await refresh());
      expect(result.contacts, mode).toMatchObject({ total: 1, done: 1, written: 0, failed: 1 });
      const sparks = await sparksOf(cyd);
      expect(sparks.sparkSummary, mode).toMatch(/^In the last 30 days/);
      expect(sparks.activateMessage?.title, mode).toMatch(/^Follow up on/);
    }
    fake.mode = 'ok';
    // A failed contact is tried again later, not at every run.
    expect((await run(await refresh())).contacts).toMatchObject({ total: 0 });
    expect((await run(await refresh({ all: true }))).contacts).toMatchObject({ written: 1 });
    expect((await sparksOf(cyd)).sparkSummary).toMatch(/^Model: /);

    // Model text written before a failure gives way to the deterministic text.
    await activity('u-cyd', 0, 'One more about ingress');
    fake.mode = 'fail';
    expect((await run(await refresh())).contacts).toMatchObject({ failed: 1 });
    expect((await sparksOf(cyd)).sparkSummary).toMatch(/^In the last 30 days/);
    fake.mode = 'ok';
  });

  it('stops asking an endpoint that fails again and again; what is left waits for the next run', async () => {
    const engineLabel = engine;
    for (let i = 0; i < 7; i++) {
      await pushUser(t, { id: `u-many-${i}`, email: `many${i}@example.org` });
      await activity(`u-many-${i}`, 1, `Note ${engineLabel} ${i}`);
    }
    fake.mode = 'fail';
    const before = fake.requests.length;
    const result = await run(await refresh());
    fake.mode = 'ok';
    expect(result.stopped).toMatch(/failed 5 times in a row/);
    expect(result.contacts.total).toBe(7);
    expect(result.contacts.done).toBeLessThan(7);
    expect(fake.requests.length - before).toBeLessThan(7);
    // The next run takes the rest.
    expect((await run(await refresh())).contacts).toMatchObject({ total: 7 - result.contacts.done, written: 7 - result.contacts.done });
  });

  it("answers research prompts from the organization's own data, keeps imports, and forgets answers on retirement and erasure", async () => {
    await pushUser(t, { id: 'u-r1', email: 'grace@globex-insights.com', fullName: 'Grace Hopper', titleAtCompany: 'CTO' });
    await pushUser(t, { id: 'u-r2', email: 'linus@globex-insights.com', fullName: 'Linus T', titleAtCompany: 'Platform Engineer' });
    await activity('u-r1', 2, 'Evaluating Kubernetes operators');
    const globex = await organizationOf('globex-insights.com');
    expect(await research(globex)).toEqual([]);

    const created = await t.send('POST', '/api/v2/admin/research-prompts', {
      promptId: 'fit',
      promptName: 'Good fit?',
      prompt: 'Is this organization a good fit for our platform?',
      isPrimaryPrompt: true,
    });
    expect(created.statusCode, created.body).toBe(201);
    const stack = await t.send('POST', '/api/v2/admin/research-prompts', { promptId: 'stack', promptName: 'Stack', prompt: 'What do they run?' });
    expect(stack.statusCode, stack.body).toBe(201);
    // Without a run, nothing is invented.
    expect(await research(globex)).toEqual([]);

    const imported = await t.send('POST', '/api/v2/admin/research-answers', {
      answers: [{ domain: 'globex-insights.com', promptId: 'stack', answer: 'Kubernetes on bare metal.' }],
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toEqual({ success: true, data: { imported: 1 } });

    const before = fake.requests.length;
    const result = await run(await refresh({ all: true }));
    expect(result.researchAnswers).toMatchObject({ failed: 0 });
    const asked = fake.requests.slice(before).filter((request) => request.sent.organization?.domain === 'globex-insights.com');
    // The imported answer is never asked for (nor overwritten): of Globex, only the fit question is.
    expect(asked.map((request) => request.sent.question)).toEqual(['Is this organization a good fit for our platform?']);
    const aboutGlobex = asked[0]!;
    expect(aboutGlobex.sent.organization).toMatchObject({
      name: expect.any(String),
      contactTitles: expect.arrayContaining([
        { title: 'CTO', contacts: 1 },
        { title: 'Platform Engineer', contacts: 1 },
      ]),
    });
    expect(JSON.stringify(aboutGlobex.body)).not.toContain('grace@globex-insights.com');
    expect(JSON.stringify(aboutGlobex.body)).not.toContain('Grace');

    const answers = await research(globex);
    expect(answers).toEqual([
      { promptId: 'fit', answer: expect.stringMatching(/^Model: .*titles: CTO, Platform Engineer$/), isPrimaryPrompt: true, promptName: 'Good fit?' },
      { promptId: 'stack', answer: 'Kubernetes on bare metal.', isPrimaryPrompt: false, promptName: 'Stack' },
    ]);

    // Erasing one of its people removes the model's answers about the organization (the import stays); the
    // next run asks again without them.
    expect((await t.send('DELETE', '/community/v1/user/grace@globex-insights.com', undefined)).statusCode).toBe(200);
    await worker().runUntilIdle();
    expect(await research(globex)).toEqual([{ promptId: 'stack', answer: 'Kubernetes on bare metal.', isPrimaryPrompt: false, promptName: 'Stack' }]);
    const again = fake.requests.length;
    await run(await refresh());
    const reasked = fake.requests.slice(again).find((request) => request.sent.organization?.domain === 'globex-insights.com')!;
    expect(reasked.sent.organization.contactTitles).toEqual([{ title: 'Platform Engineer', contacts: 1 }]);
    expect(JSON.stringify(fake.requests.slice(again).map((request) => request.body))).not.toContain('CTO');
    expect((await research(globex))[0]).toMatchObject({ promptId: 'fit', answer: expect.stringMatching(/titles: Platform Engineer$/) });

    // A failing model gives no answer where there was none: never invented.
    await pushUser(t, { id: 'u-r3', email: 'ken@initech-insights.com', titleAtCompany: 'Founder' });
    const initech = await organizationOf('initech-insights.com');
    fake.mode = 'garbage';
    expect((await run(await refresh())).researchAnswers.failed).toBeGreaterThanOrEqual(1);
    fake.mode = 'ok';
    expect(await research(initech)).toEqual([]);

    // A retired prompt's answers are gone from reads.
    expect((await t.send('DELETE', '/api/v2/admin/research-prompts/fit', undefined)).statusCode).toBe(200);
    expect(await research(globex)).toEqual([{ promptId: 'stack', answer: 'Kubernetes on bare metal.', isPrimaryPrompt: false, promptName: 'Stack' }]);
  });

  it('never sends an erased contact, and erasure clears the text the model wrote', async () => {
    const eve = await pushUser(t, { id: 'u-eve', email: 'eve@example.org', fullName: 'Eve Erased', titleAtCompany: 'Privacy Officer' });
    await activity('u-eve', 1, 'Data retention question');
    await run(await refresh());
    expect((await sparksOf(eve)).sparkSummary).toMatch(/^Model: /);

    expect((await t.send('DELETE', '/community/v1/user/eve@example.org', undefined)).statusCode).toBe(200);
    await worker().runUntilIdle();
    const sparks = await sparksOf(eve);
    expect(sparks.sparkSummary ?? '').not.toMatch(/^Model: /);
    const before = fake.requests.length;
    await run(await refresh({ all: true }));
    expect(JSON.stringify(fake.requests.slice(before).map((request) => request.body))).not.toContain('Privacy Officer');
    expect((await sparksOf(eve)).sparkSummary ?? '').not.toMatch(/^Model: /);
  });

  it("keeps each community's prompts, answers and runs to itself", async () => {
    const { communityId } = await t.services.communities.create('Other insights', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Other API' });
    const token = await t.issueToken(['read', 'write', 'admin'], communityId);
    const theirs = await pushUser(t, { id: 'u-theirs', email: 'zed@umbrella-insights.com', titleAtCompany: 'CEO' }, { token, sourceId: source.id });
    await activity('u-theirs', 1, 'Hello from elsewhere', token, source.id);

    expect((await t.get('/api/v2/admin/research-prompts', token)).json()).toEqual({ success: true, data: [] });
    expect((await t.get('/api/v2/admin/research-prompts/stack', token)).statusCode).toBe(404);
    const ours = await organizationOf('globex-insights.com');
    const refused = await t.send('POST', '/api/v2/admin/research-answers', { answers: [{ organizationId: ours, promptId: 'stack', answer: 'x' }] }, token);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain(`no organization ${ours}`);
    expect(refused.body).toContain('no live research prompt \\"stack\\"');
    expect(await research(ours)).toHaveLength(1);

    // A run of ours leaves their contact alone; theirs writes it.
    await run(await refresh({ all: true }));
    expect((await sparksOf(theirs, token)).sparkSummary).toMatch(/^In the last 30 days/);
    const jobId = await refresh({}, token);
    await worker().runUntilIdle();
    expect((await status(token)).latestJob).toMatchObject({ jobId, status: 'completed', result: { contacts: { written: 1 } } });
    expect((await sparksOf(theirs, token)).sparkSummary).toMatch(/^Model: /);
    expect((await status(token)).contactsWithModelText).toBe(1);
  });
});

describe.each(ENGINES)('insights without a model endpoint (%s)', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t?.close());

  it('calls nothing: the texts are deterministic, research results are [], and a refresh says why it cannot run', async () => {
    const fetches = vi.spyOn(globalThis, 'fetch');
    const contactId = await pushUser(t, { id: 'u-1', email: 'ann@acme-plain.com', titleAtCompany: 'Engineer' });
    await accepted(t, 'activity', { id: 'a-1', activityType: 'commented_replied', timestamp: new Date(Date.now() - DAY).toISOString(), user: { id: 'u-1' } });
    expect((await t.send('POST', '/api/v2/admin/research-prompts', { promptId: 'fit', promptName: 'Fit', prompt: 'Fit?' })).statusCode).toBe(201);

    const refused = await t.send('POST', '/api/v2/admin/insights/refresh', {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ success: false, error: { code: 'conflict', message: expect.stringContaining('HEARTH_LLM_URL') } });
    expect(await t.services.insights.sweep()).toBe(0);
    await createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs }).runUntilIdle();

    const contact = (await t.get(`/api/v2/contacts/${contactId}?cols=sparkSummary,activateMessage`)).json() as { data: Sparks };
    expect(contact.data.sparkSummary).toMatch(/^In the last 30 days, 1 activity/);
    const organizations = (await t.get('/api/v2/organizations?primaryDomain=acme-plain.com&cols=researchResults')).json() as {
      data: { researchResults: unknown[] }[];
    };
    expect(organizations.data[0]!.researchResults).toEqual([]);
    expect((await t.get('/api/v2/admin/insights')).json()).toMatchObject({
      data: { configured: false, model: null, contactsWithModelText: 0, modelResearchAnswers: 0, latestJob: null },
    });
    expect(fetches).not.toHaveBeenCalled();
    fetches.mockRestore();
  });
});
