import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startStackExchangeStandIn, type StackExchangeStandIn } from '../stand-ins/stackexchange-api.ts';
import { expectRateLimitWaitedOut } from '../helpers/connector-waits.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with the Stack Overflow connector, against the local Stack Exchange API built from its
 * documentation: through the admin API and the worker, as in production. The API sends no webhooks, so
 * syncs are all there is.
 */

const KEY = 'U4DMV*8nvpm3EOpvf69Rxw((';
const TAG = 'hearth';

describe.each(ENGINES)('connectors with the Stack Overflow connector (%s)', (engine) => {
  let api: StackExchangeStandIn;
  let t: TestApp;
  let clock = new ManualClock('2026-01-15T12:00:00Z');

  beforeAll(async () => {
    api = await startStackExchangeStandIn({
      key: KEY,
      now: () => clock.now(),
      history: { questions: 40, tags: [TAG, 'other-tag'], people: 8, seed: 11, start: new Date('2025-11-01T00:00:00Z'), spacingSeconds: 3_600 },
    });
    // A deleted user's question (still answered by people), and one by the site's Community user.
    const orphan = api.ask({ owner: null, tags: [TAG], title: 'Orphaned question', at: new Date('2025-12-01T00:00:00Z') });
    api.answer(orphan, { owner: 1001, at: new Date('2025-12-01T01:00:00Z') });
    api.ask({ owner: -1, tags: [TAG], title: 'Community wiki', at: new Date('2025-12-02T00:00:00Z') });
  });
  afterAll(() => api.stop());

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    api.setQuota(10_000);
    api.requests.length = 0;
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
  });
  afterEach(() => t.close());

  const create = async (secrets: Record<string, string> = { key: KEY }) => {
    const made = await t.send('POST', '/api/v2/admin/connectors', { kind: 'stackoverflow', settings: { tags: [TAG], apiUrl: api.url }, secrets });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.body).not.toContain(KEY);
    return made.json().data as { id: string; sourceId: number; receiverUrl: string | null; secrets: string[] };
  };
  const sync = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
  const show = async (id: string) => (await t.get(`/api/v2/admin/connectors/${id}`)).json().data;
  const activities = (sourceId: number) =>
    t.services.db
      .selectFrom('activities as a')
      .leftJoin('activities as p', (join) => join.onRef('p.community_id', '=', 'a.community_id').onRef('p.id', '=', 'a.parent_id'))
      .select(['a.external_id as externalId', 'a.activity_type as type', 'p.external_id as parent'])
      .where('a.source_id', '=', sourceId)
      .orderBy('a.external_id')
      .execute();
  const ofType = (rows: { type: string }[], type: string) => rows.filter((row) => row.type === type).length;
  const people = async (sourceId: number) =>
    (await t.services.db.selectFrom('source_profiles').select('external_id').where('source_id', '=', sourceId).execute()).map((row) => row.external_id);
  const questionRequests = () => api.requests.filter((request) => request.path.startsWith('/questions?'));

  it('backfills the tag: every question, answer, comment and accepted answer once, people with their profiles; the next sync adds only what is new', async () => {
    const kinds = (await t.get('/api/v2/admin/connector-kinds')).json().data;
    expect(kinds.find((one: { kind: string }) => one.kind === 'stackoverflow')).toMatchObject({
      platformName: 'Stack Overflow',
      receives: false,
      platformIssuesWebhookSecret: false,
    });
    const connector = await create();
    expect(connector.receiverUrl).toBeNull();
    expect(connector.secrets).toEqual(['key']);
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({
      ok: true,
      message: expect.stringMatching(
        /^site 'stackoverflow' reached with the app key; [\d,]+ of 10,000 requests left today; tags: hearth \(newest question 2025-12-02\)$/,
      ),
    });

    const expected = api.counts([TAG]);
    await sync();
    const shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active', reason: null, streams: [{ stream: 'tag:hearth', done: true, total: null }] });
    // Records read: the posts of people, and the two questions left out (the deleted user's, Community's).
    expect(shown.streams[0].records).toBe(expected.questions + 2 + expected.answers + expected.comments);
    expect(JSON.stringify(shown)).not.toContain(KEY);
    const backfilled = await activities(connector.sourceId);
    expect(ofType(backfilled, 'stackoverflow_question')).toBe(expected.questions);
    // The deleted user's question is left out; its answer, by a person, is kept under it.
    expect(ofType(backfilled, 'stackoverflow_answer')).toBe(expected.answers);
    expect(ofType(backfilled, 'stackoverflow_comment')).toBe(expected.comments);
    expect(ofType(backfilled, 'stackoverflow_accepted_answer')).toBe(expected.accepted);
    expect(backfilled).toHaveLength(expected.questions + expected.answers + expected.comments + expected.accepted);
    for (const row of backfilled.filter((one) => one.type === 'stackoverflow_comment')) expect(row.parent).toMatch(/^(question|answer):\d+$/);
    for (const row of backfilled.filter((one) => one.type === 'stackoverflow_accepted_answer')) expect(row.parent).toMatch(/^question:\d+$/);

    // One contact per person who posted; the Community user and the deleted one are none. Profiles gave
    // places and websites, and no website (some are GitHub pages) became a GitHub identity.
    const ids = await people(connector.sourceId);
    expect(ids).toHaveLength(expected.people);
    expect(ids).not.toContain('-1');
    const github = await t.services.db.selectFrom('contact_identities').select('value').where('type', '=', 'github').execute();
    expect(github).toEqual([]);
    const ada = await t.services.db
      .selectFrom('source_profiles as p')
      .innerJoin('contacts as c', (join) => join.onRef('c.id', '=', 'p.contact_id'))
      .select(['c.name', 'c.raw_location as rawLocation'])
      .where('p.source_id', '=', connector.sourceId)
      .where('p.external_id', '=', '1001')
      .executeTakeFirstOrThrow();
    expect(ada).toEqual({ name: 'Ada Lovelace', rawLocation: 'Berlin, Germany' });

    // An hour later: a new question with an answer and a comment, and an answer to an old question.
    clock.advance(3_600_000);
    const asked = api.ask({ owner: 1008, tags: [TAG], title: 'A new question', at: clock.now() });
    const answered = api.answer(asked, { owner: 1001, at: clock.now(), accepted: true });
    api.comment(answered, { owner: 1015, at: clock.now() });
    const old = api.questionIds(TAG)[0]!;
    const late = api.answer(old, { owner: 1015, at: clock.now() });
    api.requests.length = 0;
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    const after = await activities(connector.sourceId);
    expect(after).toHaveLength(backfilled.length + 5);
    expect(after).toEqual(
      expect.arrayContaining([
        { externalId: `question:${asked}`, type: 'stackoverflow_question', parent: null },
        { externalId: `answer:${answered}`, type: 'stackoverflow_answer', parent: `question:${asked}` },
        { externalId: `accepted:${answered}`, type: 'stackoverflow_accepted_answer', parent: `question:${asked}` },
        { externalId: expect.stringMatching(/^comment:/), type: 'stackoverflow_comment', parent: `answer:${answered}` },
        { externalId: `answer:${late}`, type: 'stackoverflow_answer', parent: `question:${old}` },
      ]),
    );
    // One list by activity for the tag, then the threads of the two questions it brought.
    expect(questionRequests().map((request) => new URLSearchParams(request.path.split('?')[1]).get('sort'))).toEqual(['activity']);
    expect((await show(connector.id)).streams[0].records).toBe(shown.streams[0].records + 4);

    // Read again, nothing is new and nothing doubles.
    clock.advance(60_000);
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    expect(await activities(connector.sourceId)).toEqual(after);
  });

  it('waits out a throttle_violation as long as it says, asking nothing meanwhile, then goes on', async () => {
    api.fault({ kind: 'throttle-violation', seconds: 120 }, { path: /^\/questions\?/ });
    const connector = await create();
    const shown = await expectRateLimitWaitedOut({
      clock,
      connectorId: connector.id,
      waitMs: 120_000,
      reason: 'the Stack Exchange API refused /questions (throttle_violation: too many requests from this IP, more requests available in 120 seconds)',
      probeMs: 100_000,
      sync,
      show,
      enqueueDueSyncs: () => t.services.connectors.enqueueDueSyncs(),
      requests: () => api.requests.length,
    });
    expect(shown).toMatchObject({ streams: [{ stream: 'tag:hearth', done: true }] });
    const counts = api.counts([TAG]);
    expect(ofType(await activities(connector.sourceId), 'stackoverflow_question')).toBe(counts.questions);
  });

  it('stops when the daily quota is spent, until the next UTC day', async () => {
    api.setQuota(2);
    const connector = await create({});
    await sync();
    let shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'waiting', waitingUntil: '2026-01-16T00:00:00.000Z' });
    expect(shown.reason).toContain('daily quota is spent (0 of 300 requests left)');
    const asked = api.requests.length;
    clock.set('2026-01-15T23:59:00Z');
    await t.services.connectors.enqueueDueSyncs();
    expect(await sync()).toBe(0);
    expect(api.requests.length).toBe(asked);
    clock.set('2026-01-16T00:00:01Z');
    api.setQuota(300);
    expect(await sync()).toBe(1);
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active', reason: null });
    expect(api.requests.every((request) => !request.keyed)).toBe(true);
  });

  it('fails on a refused key without showing it, and says which field of bad settings or secrets is wrong, never their values', async () => {
    const refused = await create({ key: 'wrong-key-of-another-app' });
    await sync();
    const failed = await show(refused.id);
    expect(failed).toMatchObject({ state: 'failed' });
    expect(failed.reason).toContain('refused the app key');
    expect(JSON.stringify(failed)).not.toContain('wrong-key-of-another-app');

    const badKey = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'stackoverflow',
      settings: { tags: [TAG] },
      secrets: { key: 'a key with spaces' },
    });
    expect(badKey.statusCode).toBe(400);
    expect(badKey.json().error.message).toContain('secrets.key');
    expect(badKey.body).not.toContain('a key with spaces');
    for (const [settings, field] of [
      [{ tags: [] }, 'settings.tags'],
      [{ tags: ['Not A Tag'] }, 'settings.tags'],
      [{ tags: [TAG], site: 'Stack Overflow' }, 'settings.site'],
      [{ tags: [TAG], since: 'last year' }, 'settings.since'],
      [{ site: 'stackoverflow' }, 'settings.tags'],
    ] as const) {
      const answer = await t.send('POST', '/api/v2/admin/connectors', { kind: 'stackoverflow', settings, secrets: {} });
      expect(answer.statusCode, JSON.stringify(settings)).toBe(400);
      expect(answer.json().error.message, JSON.stringify(settings)).toContain(field);
    }
    const webhook = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'stackoverflow',
      settings: { tags: [TAG] },
      secrets: { webhookSecret: 'not-for-this-platform' },
    });
    expect(webhook.statusCode).toBe(400);
    expect(webhook.json().error.message).toContain('unknown body field "secrets.webhookSecret"');
  });
});
