import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startDevtoStandIn, type DevtoStandIn, type StandInArticle, type StandInComment } from '../stand-ins/devto-api.ts';
import { expectRateLimitWaitedOut } from '../helpers/connector-waits.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with the DEV connector, against the local Forem API built from Forem's published description
 * of it: through the admin API and the worker, as in production. DEV sends no webhooks: syncs are all there is.
 */

const API_KEY = 'devStandInKey0123456789';

describe.each(ENGINES)('connectors with the DEV connector (%s)', (engine) => {
  let dev: DevtoStandIn;
  let t: TestApp;
  let clock: ManualClock;
  let first: StandInArticle;
  let second: StandInArticle;
  let third: StandInArticle;
  let question: StandInComment;
  let answer: StandInComment;
  let orphan: StandInComment;

  // A stand-in of its own for each test: they add articles and comments.
  beforeEach(async () => {
    dev = await startDevtoStandIn({
      users: [
        {
          username: 'alice',
          name: 'Alice Liddell',
          github: 'alice-gh',
          twitter: 'alice_tw',
          website: 'https://github.com/someone-else',
          summary: 'Writes about communities',
          location: 'Oxford, UK',
        },
        { username: 'bob', name: 'Bob Builder' },
        { username: 'carol', name: 'Carol Danvers', github: 'carol-gh' },
      ],
      organizations: [{ username: 'acme', name: 'Acme' }],
      apiKeys: [{ key: API_KEY, username: 'alice' }],
    });
    first = dev.publish({ title: 'Running a community', username: 'alice', tags: ['hearth', 'community'], publishedAt: '2026-01-10T09:00:00Z' });
    question = dev.comment(first.id, { username: 'bob', body: 'How do you start?' });
    answer = dev.comment(first.id, { username: 'alice', body: 'With one <em>good</em> question.', parent: question.idCode });
    // In the tag and in the organization: one activity.
    second = dev.publish({ title: 'Acme joins', username: 'bob', organization: 'acme', tags: ['hearth'], publishedAt: '2026-01-12T09:00:00Z' });
    const deleted = dev.comment(second.id, { username: 'bob', body: 'gone' });
    orphan = dev.comment(second.id, { username: 'carol', body: 'Answering a deleted comment', parent: deleted.idCode });
    dev.deleteComment(deleted.idCode);
    third = dev.publish({ title: 'Acme news', username: 'carol', organization: 'acme', tags: ['news'], publishedAt: '2026-01-13T09:00:00Z' });
    dev.publish({ title: 'Not followed', username: 'bob', tags: ['elsewhere'], publishedAt: '2026-01-14T09:00:00Z' });
  });
  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
  });
  afterEach(async () => {
    await t.close();
    await dev.stop();
  });

  const create = async (secrets: Record<string, string> = {}) => {
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'devto',
      settings: { tags: ['hearth'], organizations: ['acme'], apiUrl: dev.url },
      secrets,
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.body).not.toContain(API_KEY);
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
  const contactOf = async (sourceId: number, username: string) => {
    const profile = await t.services.db
      .selectFrom('source_profiles')
      .select('contact_id')
      .where('source_id', '=', sourceId)
      .where('external_id', '=', username)
      .executeTakeFirst();
    expect(profile, username).toBeDefined();
    const contact = await t.services.db
      .selectFrom('contacts')
      .select(['full_name', 'bio', 'raw_location', 'avatar_url'])
      .where('id', '=', profile!.contact_id)
      .executeTakeFirstOrThrow();
    const identities = await t.services.db
      .selectFrom('contact_identities')
      .select(['type', 'value'])
      .where('contact_id', '=', profile!.contact_id)
      .orderBy('type')
      .execute();
    return { ...contact, identities: identities.map((row) => `${row.type}:${row.value}`) };
  };

  const backfilled = () => [
    { externalId: `article:${first.id}`, type: 'devto_article', parent: null },
    { externalId: `article:${second.id}`, type: 'devto_article', parent: null },
    { externalId: `article:${third.id}`, type: 'devto_article', parent: null },
    { externalId: `comment:${first.id}:${answer.idCode}`, type: 'devto_comment', parent: `comment:${first.id}:${question.idCode}` },
    { externalId: `comment:${first.id}:${question.idCode}`, type: 'devto_comment', parent: `article:${first.id}` },
    // Its parent was deleted: it hangs from the article.
    { externalId: `comment:${second.id}:${orphan.idCode}`, type: 'devto_comment', parent: `article:${second.id}` },
  ];

  it('backfills the tag and the organization with their comments; each article once; people with their DEV handles and profiles', async () => {
    const connector = await create();
    expect(connector.receiverUrl).toBeNull();
    expect(connector.secrets).toEqual([]);
    expect(await sync()).toBeGreaterThan(0);
    const shown = await show(connector.id);
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'active', reason: null });
    expect(shown.streams.map((stream: { stream: string; done: boolean }) => [stream.stream, stream.done])).toEqual([
      ['organization:acme', true],
      ['tag:hearth', true],
    ]);
    expect(await activities(connector.sourceId)).toEqual(backfilled().sort((a, b) => (a.externalId < b.externalId ? -1 : 1)));

    // Three people, one contact each, named by their DEV usernames.
    const people = await t.services.db
      .selectFrom('source_profiles')
      .select('external_id')
      .where('source_id', '=', connector.sourceId)
      .orderBy('external_id')
      .execute();
    expect(people.map((row) => row.external_id)).toEqual(['alice', 'bob', 'carol']);
    const alice = await contactOf(connector.sourceId, 'alice');
    expect(alice).toMatchObject({ full_name: 'Alice Liddell', bio: 'Writes about communities', raw_location: 'Oxford, UK' });
    expect(alice.avatar_url).toMatch(new RegExp(`^${dev.site}/uploads/user/profile_image/`));
    // DEV's GitHub and X handles; the website, an address on github.com, is no identity of hers.
    expect(alice.identities).toEqual(['github:alice-gh', 'twitter:alice_tw']);
    expect((await contactOf(connector.sourceId, 'bob')).identities).toEqual([]);
    expect((await contactOf(connector.sourceId, 'carol')).identities).toEqual(['github:carol-gh']);
    expect(dev.requests.some((request) => request.path === '/users/by_username?url=alice')).toBe(true);
  });

  it('a later sync adds only what is new, comments on recent articles included; reading again makes no duplicates', async () => {
    const connector = await create();
    await sync();
    const before = await activities(connector.sourceId);
    expect(before).toHaveLength(6);

    clock.set('2026-01-15T14:00:00Z');
    const fresh = dev.publish({ title: 'A new one', username: 'carol', tags: ['hearth'], publishedAt: '2026-01-15T13:00:00Z' });
    const late = dev.comment(first.id, { username: 'carol', body: 'Late to the thread', createdAt: '2026-01-15T13:30:00Z' });
    const asked = dev.requests.length;
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    const after = await activities(connector.sourceId);
    expect(after).toHaveLength(before.length + 2);
    expect(after).toContainEqual({ externalId: `article:${fresh.id}`, type: 'devto_article', parent: null });
    expect(after).toContainEqual({ externalId: `comment:${first.id}:${late.idCode}`, type: 'devto_comment', parent: `article:${first.id}` });
    // The lists were read from their first page only; the people already known were not asked for again.
    const paths = dev.requests.slice(asked).map((request) => request.path);
    expect(paths.filter((path) => /[?&]page=(?!1&)/.test(path))).toEqual([]);
    expect(paths.filter((path) => path.startsWith('/users/'))).toEqual([]);

    // Once more: nothing new, nothing doubled.
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    const again = await activities(connector.sourceId);
    expect(again).toEqual(after);
    expect(new Set(again.map((row) => row.externalId)).size).toBe(again.length);
    const progress = (await show(connector.id)).streams.map((stream: { stream: string; records: number }) => [stream.stream, stream.records]);
    // Records read for the first time: hearth's two articles and four comments (the deleted one too), then the
    // new article and the late comment; acme's two articles (one of them also hearth's) and their two comments.
    expect(progress).toEqual([
      ['organization:acme', 4],
      ['tag:hearth', 8],
    ]);
  });

  it('waits out a 429 for as long as its Retry-After says, asking DEV nothing meanwhile, then goes on', async () => {
    dev.rateLimitOnce(90, /^\/articles\?/);
    const connector = await create();
    await expectRateLimitWaitedOut({
      clock,
      connectorId: connector.id,
      waitMs: 90_000,
      reason: 'DEV asked to slow down (429 on /articles)',
      probeMs: 80_000,
      sync,
      show,
      enqueueDueSyncs: () => t.services.connectors.enqueueDueSyncs(),
      requests: () => dev.requests.length,
    });
    expect(await activities(connector.sourceId)).toHaveLength(6);
  });

  it('says which field of bad settings or secrets is wrong, never a key; a key is never shown again', async () => {
    const kinds = (await t.get('/api/v2/admin/connector-kinds')).json().data;
    expect(kinds.find((one: { kind: string }) => one.kind === 'devto')).toMatchObject({ platformName: 'DEV', receives: false });

    const badKey = 'not a key, with spaces';
    const bad = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'devto',
      settings: { tags: ['hearth'], apiUrl: dev.url },
      secrets: { apiKey: badKey },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('secrets.apiKey');
    expect(bad.body).not.toContain(badKey);
    const badTag = await t.send('POST', '/api/v2/admin/connectors', { kind: 'devto', settings: { tags: ['#Hearth'] }, secrets: {} });
    expect(badTag.statusCode).toBe(400);
    expect(badTag.json().error.message).toContain('settings.tags');
    const nothing = await t.send('POST', '/api/v2/admin/connectors', { kind: 'devto', settings: { apiUrl: dev.url }, secrets: {} });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json().error.message).toContain('body field "settings.tags" is required (settings: `tags`, `organizations`, or both)');
    const plainHttp = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'devto',
      settings: { tags: ['hearth'], apiUrl: 'http://dev.example.com/api' },
      secrets: {},
    });
    expect(plainHttp.statusCode).toBe(400);
    expect(plainHttp.json().error.message).toContain('settings.apiUrl');
    const webhook = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'devto',
      settings: { tags: ['hearth'] },
      secrets: { webhookSecret: 'no-webhooks-here' },
    });
    expect(webhook.statusCode).toBe(400);
    expect(webhook.json().error.message).toContain('secrets.webhookSecret');

    const connector = await create({ apiKey: API_KEY });
    expect(connector.secrets).toEqual(['apiKey']);
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({
      ok: true,
      message:
        "DEV reached with the API key of 'alice'; tag #hearth: 2 articles on the first page, the newest published 2026-01-12; organization acme: 2 articles on the first page, the newest published 2026-01-13",
    });
    await sync();
    expect(dev.requests.filter((request) => request.withKey).length).toBeGreaterThan(0);
    for (const answered of [await t.get(`/api/v2/admin/connectors/${connector.id}`), await t.get('/api/v2/admin/connectors')]) {
      expect(answered.statusCode).toBe(200);
      expect(answered.body).not.toContain(API_KEY);
    }
    const refused = await t.send('POST', '/api/v2/admin/connectors/test', {
      kind: 'devto',
      settings: { tags: ['hearth'], apiUrl: dev.url },
      secrets: { apiKey: 'revokedKey0000000000' },
    });
    expect(refused.json().data).toMatchObject({ ok: false, message: expect.stringContaining('DEV refused the API key') });
    expect(refused.body).not.toContain('revokedKey0000000000');
  });
});
