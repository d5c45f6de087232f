import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startHackerNewsStandIn, type HackerNewsStandIn, type StandInItem } from '../stand-ins/hackernews-api.ts';
import { expectRateLimitWaitedOut } from '../helpers/connector-waits.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with the Hacker News connector, against the local Hacker News Search built from its
 * documentation. Through the admin API and the worker, as in production; Hacker News sends no webhooks.
 */

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

describe.each(ENGINES)('connectors with the Hacker News connector (%s)', (engine) => {
  let hn: HackerNewsStandIn;
  let t: TestApp;
  let clock: ManualClock;
  let s1: StandInItem, c1: StandInItem, c2: StandInItem, d1: StandInItem, d2: StandInItem, elsewhere: StandInItem;

  beforeAll(async () => {
    // Two hits a page, so that the walks take several.
    hn = await startHackerNewsStandIn({
      maxHitsPerPage: 2,
      users: [
        { username: 'alice', about: '<p>I make <i>Hearth</i></p>', karma: 1200 },
        { username: 'bob', about: '', karma: 5 },
      ],
    });
    // Before the 30 days the backfill reads.
    hn.story({ author: 'alice', title: 'Hearth: first sketch', createdAt: seconds('2025-11-01T00:00:00Z') });
    s1 = hn.story({
      author: 'alice',
      title: 'Show HN: Hearth, a self-hosted community CRM',
      url: 'https://hearth.example.net/',
      createdAt: seconds('2026-01-10T00:00:00Z'),
    });
    c1 = hn.comment({ author: 'bob', parent: s1, text: '<p>How does Hearth compare to a spreadsheet?</p>', createdAt: seconds('2026-01-10T01:00:00Z') });
    c2 = hn.comment({ author: 'carol', parent: c1, text: '<p>It does not forget people, hearth remembers</p>', createdAt: seconds('2026-01-10T02:00:00Z') });
    d1 = hn.story({ author: 'dave', title: 'Our launch', url: 'https://example.com/launch', createdAt: seconds('2026-01-11T00:00:00Z') });
    // Found by both streams: one activity.
    d2 = hn.story({ author: 'erin', title: 'Hearth review', url: 'https://blog.example.com/hearth-review', createdAt: seconds('2026-01-12T00:00:00Z') });
    // Its link names the domain, on another site: left out.
    elsewhere = hn.story({ author: 'frank', title: 'Links', url: 'https://other.org/about/example.com', createdAt: seconds('2026-01-12T01:00:00Z') });
    hn.story({ author: 'gina', title: 'Rust 2.0', url: 'https://rust.example.org/', createdAt: seconds('2026-01-13T00:00:00Z') });
  });
  afterAll(() => hn.stop());

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
  });
  afterEach(() => t.close());

  const settings = () => ({ keywords: ['hearth'], domains: ['example.com'], backfillDays: 30, apiUrl: hn.url });
  const create = async () => {
    const made = await t.send('POST', '/api/v2/admin/connectors', { kind: 'hackernews', settings: settings(), secrets: {} });
    expect(made.statusCode, made.body).toBe(201);
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
  const people = async (sourceId: number) =>
    (await t.services.db.selectFrom('source_profiles').select('external_id').where('source_id', '=', sourceId).orderBy('external_id').execute()).map(
      (row) => row.external_id,
    );
  const item = (one: StandInItem) => `item:${one.id}`;

  it('backfills the keyword and the domain once each, then reads only what is new, without duplicates', async () => {
    const connector = await create();
    expect(connector).toMatchObject({ receiverUrl: null, secrets: [] });
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({
      ok: true,
      message: 'Hacker News Search reached; in the last 30 days: "hearth": 4 stories and comments; domain example.com: up to 3 stories',
    });

    await sync();
    const shown = await show(connector.id);
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'active', reason: null });
    expect(shown.streams).toEqual([
      expect.objectContaining({ stream: 'domain:example.com', done: true, records: 3, total: 3 }),
      expect.objectContaining({ stream: 'keyword:hearth', done: true, records: 4, total: 4 }),
    ]);
    expect(await activities(connector.sourceId)).toEqual(
      [
        { externalId: item(s1), type: 'hackernews_story', parent: null },
        { externalId: item(c1), type: 'hackernews_comment', parent: item(s1) },
        { externalId: item(c2), type: 'hackernews_comment', parent: item(c1) },
        { externalId: item(d1), type: 'hackernews_story', parent: null },
        { externalId: item(d2), type: 'hackernews_story', parent: null },
      ].sort((a, b) => a.externalId.localeCompare(b.externalId)),
    );
    expect(await people(connector.sourceId)).toEqual(['alice', 'bob', 'carol', 'dave', 'erin']);
    // The profile pass: alice's about text is her bio; nobody's username became anything else.
    const alice = await t.services.db
      .selectFrom('source_profiles as sp')
      .innerJoin('contacts as c', (join) => join.onRef('c.community_id', '=', 'sp.community_id').onRef('c.id', '=', 'sp.contact_id'))
      .select(['c.bio', 'c.name'])
      .where('sp.source_id', '=', connector.sourceId)
      .where('sp.external_id', '=', 'alice')
      .executeTakeFirstOrThrow();
    expect(alice).toEqual({ bio: '<p>I make <i>Hearth</i></p>', name: 'alice' });
    const story = await t.services.db
      .selectFrom('activities')
      .select(['title', 'url', 'activity_time', 'content', 'content_type'])
      .where('source_id', '=', connector.sourceId)
      .where('external_id', '=', item(s1))
      .executeTakeFirstOrThrow();
    expect(story).toMatchObject({ title: 'Show HN: Hearth, a self-hosted community CRM', url: `https://news.ycombinator.com/item?id=${s1.id}` });
    expect(new Date(story.activity_time).toISOString()).toBe('2026-01-10T00:00:00.000Z');
    // A link without a text: the link is the story's content.
    expect(story).toMatchObject({ content: 'https://hearth.example.net/', content_type: 'text' });

    // Later: a new comment and a new story on the domain.
    const c3 = hn.comment({ author: 'hal', parent: s1, text: '<p>Trying hearth today</p>', createdAt: seconds('2026-01-15T13:00:00Z') });
    const d3 = hn.story({ author: 'dave', title: 'Pricing', url: 'https://www.example.com/pricing', createdAt: seconds('2026-01-15T13:30:00Z') });
    clock.set('2026-01-15T14:00:00Z');
    const asked = hn.requests.length;
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    const after = await activities(connector.sourceId);
    expect(after.map((row) => row.externalId).sort()).toEqual([s1, c1, c2, d1, d2, c3, d3].map(item).sort());
    expect(after).toContainEqual({ externalId: item(c3), type: 'hackernews_comment', parent: item(s1) });
    expect(await people(connector.sourceId)).toEqual(['alice', 'bob', 'carol', 'dave', 'erin', 'hal']);
    // Only what is new was searched for: from ten minutes before the newest item each stream had read (the
    // domain's, the story left out for its link's host).
    const searched = hn.requests.slice(asked).filter((request) => request.startsWith('search_by_date'));
    expect(searched.map((request) => /numericFilters=([^&]*)/.exec(request)![1]).sort()).toEqual(
      [`created_at_i>=${d2.createdAt - 600}`, `created_at_i>=${elsewhere.createdAt - 600}`].sort(),
    );
    expect((await show(connector.id)).streams).toEqual([
      expect.objectContaining({ stream: 'domain:example.com', records: 4 }),
      expect.objectContaining({ stream: 'keyword:hearth', records: 5 }),
    ]);

    // Read again (the items within ten minutes of the newest): the same activities, nothing counted twice.
    clock.advance(20 * 60_000);
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    expect(await activities(connector.sourceId)).toEqual(after);
    expect((await show(connector.id)).streams).toEqual([
      expect.objectContaining({ stream: 'domain:example.com', records: 4 }),
      expect.objectContaining({ stream: 'keyword:hearth', records: 5 }),
    ]);
  });

  it('waits out a 429 for as long as its Retry-After says, asking nothing meanwhile, then goes on', async () => {
    hn.rateLimitOnce(90, /^search_by_date$/);
    const connector = await create();
    const shown = await expectRateLimitWaitedOut({
      clock,
      connectorId: connector.id,
      waitMs: 90_000,
      reason: 'Hacker News Search asked to slow down (429 on /search_by_date)',
      probeMs: 80_000,
      sync,
      show,
      enqueueDueSyncs: () => t.services.connectors.enqueueDueSyncs(),
      requests: () => hn.requests.length,
    });
    expect(shown.streams.every((stream: { done: boolean }) => stream.done)).toBe(true);
    expect((await activities(connector.sourceId)).length).toBeGreaterThanOrEqual(5);
  });

  it('fails when its address is refused, until resumed', async () => {
    hn.block(true);
    const connector = await create();
    await sync();
    expect(await show(connector.id)).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^Hacker News Search refused this server's requests \(403: Your IP has been blocked\)/),
    });
    hn.block(false);
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/resume`, undefined)).statusCode).toBe(200);
    await sync();
    expect(await show(connector.id)).toMatchObject({ state: 'active', reason: null });
  });

  it('says which field of bad settings or secrets is wrong, never their values', async () => {
    const nothing = await t.send('POST', '/api/v2/admin/connectors', { kind: 'hackernews', settings: { apiUrl: hn.url }, secrets: {} });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json().error.message).toMatch(/body field "settings\.(keywords|domains)" is required/);
    const url = await t.send('POST', '/api/v2/admin/connectors', { kind: 'hackernews', settings: { domains: ['https://example.com/'] }, secrets: {} });
    expect(url.statusCode).toBe(400);
    expect(url.json().error.message).toContain('settings.domains');
    const days = await t.send('POST', '/api/v2/admin/connectors', { kind: 'hackernews', settings: { keywords: ['hearth'], backfillDays: 0 }, secrets: {} });
    expect(days.statusCode).toBe(400);
    expect(days.json().error.message).toContain('settings.backfillDays');
    // Hacker News Search takes no credential: a secret given is refused by name, and its value never shown.
    const secret = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'hackernews',
      settings: { keywords: ['hearth'] },
      secrets: { apiKey: 'hn-not-a-real-key-0123456789' },
    });
    expect(secret.statusCode).toBe(400);
    expect(secret.json().error.message).toContain('unknown body field "secrets.apiKey"');
    expect(secret.body).not.toContain('hn-not-a-real-key-0123456789');
    const kinds = (await t.get('/api/v2/admin/connector-kinds')).json().data;
    expect(kinds.find((one: { kind: string }) => one.kind === 'hackernews')).toMatchObject({
      platformName: 'Hacker News',
      receives: false,
      platformIssuesWebhookSecret: false,
    });
  });
});
