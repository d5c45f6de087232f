import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** The web console is served by Hearth at `/`, and every `url` field of the API is one of its pages. */
describe.each(ENGINES)('console pages (%s)', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
  });

  const page = (url: string) => t.app.inject({ method: 'GET', url });

  it('serves its page at /, with headers that keep other sites and scripts out, and its assets', async () => {
    const response = await page('/');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['x-frame-options']).toBe('DENY');
    const assets = [...response.body.matchAll(/\/console\/assets\/[^"]+/g)].map((match) => match[0]);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const file = await page(asset);
      expect(file.statusCode, asset).toBe(200);
      expect(file.headers['content-type']).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect(file.headers['cache-control']).toContain('immutable');
      expect(file.body.length).toBeGreaterThan(1000);
    }
    const missing = await page('/console/assets/nope.js');
    expect(missing.statusCode).toBe(404);
  });

  it('resolves every url field of the API to a page, and keeps a JSON 404 for any other path', async () => {
    const pushed = await accepted(t, 'activity', {
      id: 'a-1',
      activityType: 'made_post_topic',
      user: { id: 'u-1', fullName: 'Ada Lovelace', email: 'ada@example.org', companyDomain: 'analytical.example' },
      timestamp: '2026-01-10T10:00:00Z',
    });
    const segment = (await t.send('POST', '/api/v2/segments', { name: 'Champions' })).json().data;
    const urls = [
      (await t.get(`/api/v2/contacts/${pushed.contactId}?cols=url`)).json().data.url,
      (await t.get(`/api/v2/activities/${pushed.activityId}?cols=url`)).json().data.url,
      (await t.get(`/api/v2/segments/${segment.id}?cols=url`)).json().data.url,
      ...((await t.get('/api/v2/organizations?cols=url')).json().data as { url: string }[]).map((organization) => organization.url),
    ];
    expect(urls).toHaveLength(4);
    for (const url of urls) {
      expect(url.startsWith(`${TEST_PUBLIC_URL}/`), url).toBe(true);
      const response = await page(url.slice(TEST_PUBLIC_URL.length));
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toContain('<div id="app">');
    }
    for (const path of [
      '/contacts',
      '/organizations',
      '/activities',
      '/segments',
      '/tags',
      '/tokens',
      '/sources',
      '/users',
      '/removal-requests',
      '/jobs',
      '/audit-log',
      '/sign-in',
      '/account',
    ]) {
      expect((await page(path)).statusCode, path).toBe(200);
    }
    const unknown = await page('/nothing-here');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
  });

  it("gives a contact's merge history, which its page shows", async () => {
    const byEmail = await accepted(t, 'user', { id: 'm-1', fullName: 'Grace Hopper', email: 'grace@example.org' });
    const byGithub = await accepted(t, 'user', { id: 'm-2', fullName: 'Grace H', github: { type: 'handle', value: 'ghopper' } });
    expect(byGithub.contactId).not.toBe(byEmail.contactId);
    const both = await accepted(t, 'user', { id: 'm-3', email: 'grace@example.org', github: { type: 'handle', value: 'ghopper' } });
    const survivor = both.contactId;
    const merged = [byEmail.contactId, byGithub.contactId].find((id) => id !== survivor)!;
    const history = await t.get(`/api/v2/contacts/${survivor}/merges`);
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json().data).toEqual([
      {
        mergedId: merged,
        reason: expect.any(String),
        identityType: expect.any(String),
        providerId: `sig_${t.sourceId}`,
        mergedAt: expect.any(String),
        mergedBy: null,
        unmergedAt: null,
        unmergedBy: null,
        undoable: true,
      },
    ]);
    // The merged ID answers for its survivor; a contact without merges has none; bad IDs are 4xx.
    expect((await t.get(`/api/v2/contacts/${merged}/merges`)).json().data).toHaveLength(1);
    expect((await t.get(`/api/v2/contacts/${(await accepted(t, 'user', { id: 'm-4', email: 'solo@example.org' })).contactId}/merges`)).json().data).toEqual([]);
    expect((await t.get('/api/v2/contacts/x/merges')).statusCode).toBe(400);
    expect((await t.get('/api/v2/contacts/c_99999999/merges')).statusCode).toBe(404);
  });

  it('lists removal requests to admins, with the address until the erasure ran', async () => {
    expect((await t.send('DELETE', '/community/v1/user/leave@example.org', undefined)).statusCode).toBe(200);
    const list = await t.get('/api/v2/admin/removal-requests');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data[0]).toMatchObject({ email: 'leave@example.org', status: 'queued', completedAt: null });
    const reader = await t.issueToken(['read']);
    expect((await t.get('/api/v2/admin/removal-requests', reader)).statusCode).toBe(403);
  });
});
