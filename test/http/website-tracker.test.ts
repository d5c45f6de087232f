import { sql } from 'kysely';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Tracker {
  sourceId: string;
  key: string;
  allowedOrigins: string[];
  allowUnverifiedIdentify: boolean;
  identifySecret?: string;
  identifySecretCreatedAt: string | null;
  createdAt: string;
  snippet: string;
}

/** The site whose pages the tests' tracker records; its beacons carry this Origin, as a browser's do. */
const SITE = 'https://hearth.dev';

/** What a site's backend does, as docs/ingestion.md shows it: hex HMAC-SHA256 of the trimmed, lower-cased address. */
function sign(secret: string, email: string): string {
  return createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');
}

interface Visit {
  id: string;
  url: string;
  contactId: string | null;
  organizationId: string | null;
}

/**
 * The calls /t.js makes: a string body, which sendBeacon sends as text/plain, with the Origin of the site's
 * page (SITE unless `headers` name another; `origin: ''` sends none).
 */
function beacon(t: TestApp, key: string, event: 'pageview' | 'identify', body: unknown, headers: Record<string, string> = {}, remoteAddress?: string) {
  const { origin = SITE, ...rest } = headers;
  return t.app.inject({
    method: 'POST',
    url: `/community/v1/t/${key}/${event}`,
    headers: { 'content-type': 'text/plain;charset=UTF-8', ...(origin ? { origin } : {}), ...rest },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

async function enable(t: TestApp, sourceId: number | string, body: object = {}, token = t.token): Promise<Tracker> {
  const response = await t.send('PUT', `/api/v2/admin/sources/${sourceId}/tracker`, body, token);
  expect([200, 201], response.body).toContain(response.statusCode);
  return (response.json() as { data: Tracker }).data;
}

async function visitsOf(t: TestApp, query: string): Promise<Visit[]> {
  const response = await t.get(`/api/v2/website-visits?cols=url,contactId,organizationId&limit=1000${query ? `&${query}` : ''}`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Visit[] }).data;
}

async function webOf(t: TestApp, contactId: string) {
  const response = await t.get(`/api/v2/contacts/${contactId}?cols=recentWebPages,recentWebVisitsNumber`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: { recentWebPages: { url: string; numVisits: number }[]; recentWebVisitsNumber: number } }).data;
}

/** The website tracker, a script served by Hearth and the public routes it calls with a source's key. */
describe.each(ENGINES)('website tracker (%s)', (engine) => {
  let t: TestApp;
  let tracker: Tracker;

  beforeAll(async () => {
    t = await createTestApp(engine);
    tracker = await enable(t, t.sourceId, { allowedOrigins: [SITE] });
  });
  afterAll(() => t.close());

  /** Identifies a browser as the site's backend would have it: the address signed with the tracker's secret. */
  const identify = (key: string, anonymousId: string, email: string, secret = tracker.identifySecret!, headers: Record<string, string> = {}) =>
    beacon(t, key, 'identify', { anonymousId, email, signature: sign(secret, email) }, headers);

  describe('administration', () => {
    it("enables a source's tracker once with a public key and a snippet, then changes only its origins", async () => {
      expect(tracker).toMatchObject({
        sourceId: `sig_${t.sourceId}`,
        allowedOrigins: [SITE],
        key: expect.stringMatching(new RegExp(`^pk_${t.communityId}_[A-Za-z0-9_-]{24}$`)),
      });
      expect(tracker.snippet).toBe(`<script src="http://hearth.test/t.js" data-key="${tracker.key}" async></script>`);
      const source = (await t.services.sources.create(cliWriter(t.communityId), { name: 'Website' })).id;
      const made = await t.send('PUT', `/api/v2/admin/sources/sig_${source}/tracker`, {
        allowedOrigins: ['https://WWW.Example.com/', 'http://localhost:8080'],
      });
      expect(made.statusCode, made.body).toBe(201);
      const first = (made.json() as { data: Tracker }).data;
      expect(first.allowedOrigins).toEqual(['https://www.example.com', 'http://localhost:8080']);
      const changed = await t.send('PUT', `/api/v2/admin/sources/${source}/tracker`, { allowedOrigins: [] });
      expect(changed.statusCode).toBe(200);
      expect((changed.json() as { data: Tracker }).data).toMatchObject({ key: first.key, allowedOrigins: [] });
      expect((await t.get(`/api/v2/admin/sources/${source}/tracker`)).json()).toMatchObject({ success: true, data: { key: first.key } });
    });

    it('refuses what is not an origin, a source of nowhere, and a token without the admin scope', async () => {
      for (const origin of ['example.com', 'https://example.com/shop', 'ftp://example.com', '']) {
        const response = await t.send('PUT', `/api/v2/admin/sources/${t.sourceId}/tracker`, { allowedOrigins: [origin] });
        expect(response.statusCode, origin).toBe(400);
        expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining('is not an origin') } });
      }
      expect((await t.send('PUT', `/api/v2/admin/sources/${t.sourceId}/tracker`, { origins: [] })).statusCode).toBe(400);
      const missing = await t.send('PUT', '/api/v2/admin/sources/999999/tracker', {});
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ error: { code: 'source_not_found' } });
      expect((await t.get('/api/v2/admin/sources/abc/tracker')).statusCode).toBe(400);
      const writer = await t.issueToken(['read', 'write']);
      expect((await t.get(`/api/v2/admin/sources/${t.sourceId}/tracker`, writer)).statusCode).toBe(403);
      expect((await t.send('POST', `/api/v2/admin/sources/${t.sourceId}/tracker/rotate`, {}, writer)).statusCode).toBe(403);
      const unknown = await t.get(`/api/v2/admin/sources/${(await t.services.sources.create(cliWriter(t.communityId), { name: 'No tracker' })).id}/tracker`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ error: { code: 'tracker_not_found' } });
    });
  });

  describe('GET /t.js', () => {
    it('serves the script with its type, cache headers and an ETag that answers 304', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/t.js' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(response.headers['cache-control']).toContain('max-age=3600');
      expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(response.body).toContain('navigator.sendBeacon');
      expect(response.body).toContain("'pushState'");
      expect(response.body).toContain('globalPrivacyControl');
      expect(response.body.length).toBeLessThan(6000);
      const etag = response.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await t.app.inject({ method: 'GET', url: '/t.js', headers: { 'if-none-match': `W/"other", ${etag}` } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect((await t.app.inject({ method: 'GET', url: '/t.js', headers: { 'if-none-match': '"stale"' } })).statusCode).toBe(200);
    });
  });

  describe('page views and identify', () => {
    it('records page views of an anonymous browser, then gives them and later ones to the contact the site identifies', async () => {
      const ada = (await accepted(t, 'user', { id: 'u-ada', email: 'ada@acme.io', fullName: 'Ada' })).contactId;
      const acme = ((await t.get('/api/v2/organizations?primaryDomain=acme.io')).json() as { data: { id: string }[] }).data[0]!.id;
      for (const path of ['/', '/pricing', '/pricing?plan=team']) {
        const response = await beacon(t, tracker.key, 'pageview', { url: `https://hearth.dev${path}`, anonymousId: 'browser-ada' });
        expect(response.statusCode, response.body).toBe(202);
        expect(response.json()).toEqual({ status: 'accepted' });
        expect(response.headers['access-control-allow-origin']).toBe('*');
      }
      const anonymous = await visitsOf(t, '');
      expect(anonymous.filter((visit) => visit.url.startsWith('https://hearth.dev'))).toHaveLength(3);
      expect(anonymous.every((visit) => visit.contactId === null)).toBe(true);
      expect((await webOf(t, ada)).recentWebVisitsNumber).toBe(0);

      // JSON is taken as well as text/plain; the answer never says whether the address is a contact's.
      const identified = await t.app.inject({
        method: 'POST',
        url: `/community/v1/t/${tracker.key}/identify`,
        headers: { 'content-type': 'application/json', origin: SITE },
        payload: { anonymousId: 'browser-ada', email: 'Ada@ACME.io', signature: sign(tracker.identifySecret!, 'Ada@ACME.io') },
      });
      expect(identified.statusCode, identified.body).toBe(202);
      expect(identified.json()).toEqual({ status: 'accepted' });
      expect(await webOf(t, ada)).toMatchObject({
        recentWebPages: expect.arrayContaining([
          { url: 'https://hearth.dev/', numVisits: 1 },
          { url: 'https://hearth.dev/pricing', numVisits: 1 },
          { url: 'https://hearth.dev/pricing?plan=team', numVisits: 1 },
        ]),
        recentWebVisitsNumber: 3,
      });
      expect((await beacon(t, tracker.key, 'pageview', { url: 'https://hearth.dev/docs', anonymousId: 'browser-ada' })).statusCode).toBe(202);
      const hers = await visitsOf(t, `contactId=${ada}`);
      expect(hers.map((visit) => visit.url).sort()).toEqual([
        'https://hearth.dev/',
        'https://hearth.dev/docs',
        'https://hearth.dev/pricing',
        'https://hearth.dev/pricing?plan=team',
      ]);
      expect(hers.every((visit) => visit.organizationId === acme)).toBe(true);
      expect((await webOf(t, ada)).recentWebVisitsNumber).toBe(4);
    });

    it("keeps an address no contact holds yet, and links the browser's visits once a visit finds its contact", async () => {
      await beacon(t, tracker.key, 'pageview', { url: 'https://hearth.dev/signup', anonymousId: 'browser-bo' });
      expect((await identify(tracker.key, 'browser-bo', 'bo@globex.io')).json()).toEqual({ status: 'accepted' });
      const bo = (await accepted(t, 'user', { id: 'u-bo', email: 'bo@globex.io', fullName: 'Bo' })).contactId;
      expect((await webOf(t, bo)).recentWebVisitsNumber).toBe(0);
      await beacon(t, tracker.key, 'pageview', { url: 'https://hearth.dev/welcome', anonymousId: 'browser-bo' });
      expect(await webOf(t, bo)).toMatchObject({ recentWebVisitsNumber: 2 });
      // The batch route's anonymous visits of an identified browser are the contact's too: one mechanism.
      const pushed = await t.send('POST', `/community/v1/source/${t.sourceId}/website-visits`, [{ url: 'https://hearth.dev/app', anonymousId: 'browser-bo' }]);
      expect((pushed.json() as { results: { contactId: string }[] }).results[0]).toMatchObject({ contactId: bo });
    });

    it('erases with a removal request the browsers identified by the address and their visits, and stores nothing for it afterwards', async () => {
      await beacon(t, tracker.key, 'pageview', { url: 'https://hearth.dev/gone', anonymousId: 'browser-gone' });
      await identify(tracker.key, 'browser-gone', 'gone@nowhere.io');
      const visitors = () => t.services.db.selectFrom('website_visitors').select('anonymous_id').where('email', '=', 'gone@nowhere.io').execute();
      const gone = async () => (await visitsOf(t, '')).filter((visit) => visit.url === 'https://hearth.dev/gone');
      expect(await visitors()).toHaveLength(1);
      expect(await gone()).toHaveLength(1);
      expect((await t.send('DELETE', '/community/v1/user/gone@nowhere.io', undefined)).statusCode).toBe(200);
      await createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs }).runUntilIdle();
      expect(await visitors()).toEqual([]);
      expect(await gone()).toEqual([]);
      expect((await identify(tracker.key, 'browser-gone-2', 'Gone@nowhere.io')).json()).toEqual({ status: 'accepted' });
      expect(await visitors()).toEqual([]);
    });

    it('stores nothing for a browser that sends Do Not Track or Global Privacy Control', async () => {
      const before = (await visitsOf(t, '')).length;
      for (const header of [{ 'sec-gpc': '1' }, { dnt: '1' }] as Record<string, string>[]) {
        const response = await beacon(t, tracker.key, 'pageview', { url: 'https://hearth.dev/private', anonymousId: 'browser-gpc' }, header);
        expect(response.statusCode).toBe(202);
        expect(response.json()).toEqual({ status: 'ignored' });
        expect((await beacon(t, tracker.key, 'identify', { anonymousId: 'browser-gpc', email: 'ada@acme.io' }, header)).json()).toEqual({ status: 'ignored' });
      }
      expect((await visitsOf(t, '')).length).toBe(before);
    });

    it('answers bad input with a 400 that says what is wrong, and a large body with 413', async () => {
      const cases: [unknown, string][] = [
        [{ anonymousId: 'b' }, 'url'],
        [{ url: 'ftp://hearth.dev/file', anonymousId: 'b' }, 'is not an http or https URL'],
        [{ url: 'not a url', anonymousId: 'b' }, 'is not a URL'],
        [{ url: 'https://hearth.dev/', anonymousId: '' }, 'anonymousId'],
        [{ url: 'https://hearth.dev/', anonymousId: 'b', referrer: 'x' }, 'referrer'],
        ['{"url": ', 'JSON'],
        ['[1, 2]', 'object'],
      ];
      for (const [body, says] of cases) {
        const response = await beacon(t, tracker.key, 'pageview', body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json(), JSON.stringify(body)).toMatchObject({ reason: expect.any(String), detail: expect.stringContaining(says) });
      }
      const email = await beacon(t, tracker.key, 'identify', { anonymousId: 'b', email: 'not an address' });
      expect(email.statusCode).toBe(400);
      expect(email.json()).toMatchObject({ detail: expect.stringContaining('email') });
      const large = await beacon(t, tracker.key, 'pageview', { url: `https://hearth.dev/${'a'.repeat(5000)}`, anonymousId: 'b' });
      expect(large.statusCode).toBe(413);
      expect(large.headers['access-control-allow-origin']).toBe('*');
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: `/community/v1/t/${tracker.key}/pageview`,
            headers: { 'content-type': 'application/xml' },
            payload: '<a/>',
          })
        ).statusCode,
      ).toBe(415);
    });

    it('refuses a malformed key (400), an unknown one (404), and a rotated or revoked one (403)', async () => {
      const view = { url: 'https://hearth.dev/', anonymousId: 'browser-keys' };
      const malformed = await beacon(t, 'not-a-key', 'pageview', view);
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({ reason: 'invalid-tracker-key', detail: expect.stringContaining('is not a tracker key') });
      const unknown = await beacon(t, `pk_${t.communityId}_${'A'.repeat(24)}`, 'pageview', view);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ status: 'not-found', reason: expect.stringContaining('no website tracker has the key') });

      const source = (await t.services.sources.create(cliWriter(t.communityId), { name: 'Rotated' })).id;
      const old = await enable(t, source, { allowedOrigins: [SITE] });
      const rotated = await t.send('POST', `/api/v2/admin/sources/${source}/tracker/rotate`, {});
      expect(rotated.statusCode, rotated.body).toBe(200);
      const fresh = (rotated.json() as { data: Tracker }).data;
      expect(fresh.key).not.toBe(old.key);
      const refused = await beacon(t, old.key, 'pageview', view);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ status: 'forbidden', reason: expect.stringContaining('was revoked or replaced') });
      expect((await beacon(t, fresh.key, 'pageview', view)).statusCode).toBe(202);

      const revoked = await t.send('DELETE', `/api/v2/admin/sources/${source}/tracker`, undefined);
      expect(revoked.statusCode).toBe(200);
      expect((await beacon(t, fresh.key, 'pageview', view)).statusCode).toBe(403);
      expect((await t.get(`/api/v2/admin/sources/${source}/tracker`)).statusCode).toBe(404);
      expect((await t.send('DELETE', `/api/v2/admin/sources/${source}/tracker`, undefined)).statusCode).toBe(404);
      // Enabled again: a new key; the visits recorded stay the source's.
      expect((await enable(t, source, { allowedOrigins: [SITE] })).key).not.toBe(fresh.key);
    });
  });

  describe('who may identify a browser, and which pages are recorded', () => {
    /** A source of its own with a tracker of SITE, so that its visits and browsers are the test's alone. */
    async function freshTracker(name: string, body: object = {}) {
      const source = (await t.services.sources.create(cliWriter(t.communityId), { name })).id;
      return { source, tracker: await enable(t, source, { allowedOrigins: [SITE], ...body }) };
    }
    const held = (anonymousId: string) =>
      t.services.db.selectFrom('website_unverified_visitors').select(['source_id', 'email']).where('anonymous_id', '=', anonymousId).execute();

    it('shows the identify secret in the answer that made it only, and a new one on rotation', async () => {
      const { source, tracker: made } = await freshTracker('Secrets');
      expect(made.identifySecret).toMatch(/^tsk_[A-Za-z0-9_-]{43}$/);
      expect(made).toMatchObject({ allowUnverifiedIdentify: false, identifySecretCreatedAt: expect.any(String) });
      const reads = [
        (await t.get(`/api/v2/admin/sources/${source}/tracker`)).json() as { data: Tracker },
        (await t.send('PUT', `/api/v2/admin/sources/${source}/tracker`, { allowUnverifiedIdentify: false })).json() as { data: Tracker },
      ];
      for (const read of reads) {
        expect(read.data).not.toHaveProperty('identifySecret');
        expect(JSON.stringify(read)).not.toContain(made.identifySecret!);
      }
      expect(JSON.stringify(await t.services.trackers.list(t.communityId))).not.toContain(made.identifySecret!);

      const rotated = await t.send('POST', `/api/v2/admin/sources/${source}/tracker/rotate-secret`, {});
      expect(rotated.statusCode, rotated.body).toBe(200);
      const renewed = (rotated.json() as { data: Tracker }).data;
      expect(renewed.key).toBe(made.key);
      expect(renewed.identifySecret).toMatch(/^tsk_/);
      expect(renewed.identifySecret).not.toBe(made.identifySecret);
      // The old secret's signatures are refused from now on, the new one's taken.
      expect((await identify(made.key, 'browser-secrets', 'ada@acme.io', made.identifySecret!)).statusCode).toBe(403);
      expect((await identify(made.key, 'browser-secrets', 'ada@acme.io', renewed.identifySecret!)).statusCode).toBe(202);
      const newKey = (await t.send('POST', `/api/v2/admin/sources/${source}/tracker/rotate`, {})).json() as { data: Tracker };
      expect(newKey.data.identifySecret).toMatch(/^tsk_/);
      expect(newKey.data.identifySecret).not.toBe(renewed.identifySecret);
      expect((await t.send('POST', '/api/v2/admin/sources/999999/tracker/rotate-secret', {})).statusCode).toBe(404);
      expect((await t.send('POST', `/api/v2/admin/sources/${source}/tracker/rotate-secret`, {}, await t.issueToken(['read', 'write']))).statusCode).toBe(403);
    });

    it("keeps an unsigned identify apart: the browser's page views never become the contact's", async () => {
      const { source, tracker: site } = await freshTracker('Unsigned');
      const victim = (await accepted(t, 'user', { id: 'u-victim', email: 'victim@acme.io', fullName: 'Victim' })).contactId;
      for (const path of ['/forged-1', '/forged-2']) {
        expect((await beacon(t, site.key, 'pageview', { url: `${SITE}${path}`, anonymousId: 'browser-attacker' })).statusCode).toBe(202);
      }
      const claimed = await beacon(t, site.key, 'identify', { anonymousId: 'browser-attacker', email: 'victim@acme.io' });
      expect(claimed.statusCode, claimed.body).toBe(202);
      expect(claimed.json()).toEqual({ status: 'accepted' });
      // A later page view of the same browser stays anonymous too.
      await beacon(t, site.key, 'pageview', { url: `${SITE}/forged-3`, anonymousId: 'browser-attacker' });

      expect(await visitsOf(t, `contactId=${victim}`)).toEqual([]);
      expect(await webOf(t, victim)).toMatchObject({ recentWebPages: [], recentWebVisitsNumber: 0 });
      const forged = (await visitsOf(t, '')).filter((visit) => visit.url.startsWith(`${SITE}/forged`));
      expect(forged).toHaveLength(3);
      expect(forged.every((visit) => visit.contactId === null && visit.organizationId === null)).toBe(true);
      // Kept apart, for its source, linked to nothing.
      expect(await held('browser-attacker')).toEqual([{ source_id: source, email: 'victim@acme.io' }]);
      expect(await t.services.db.selectFrom('website_visitors').select('anonymous_id').where('anonymous_id', '=', 'browser-attacker').execute()).toEqual([]);
    });

    it('refuses a signature that does not sign the address, and one made with another secret', async () => {
      const { tracker: site } = await freshTracker('Wrong signatures');
      const victim = (await accepted(t, 'user', { id: 'u-victim-2', email: 'victim2@acme.io', fullName: 'Victim' })).contactId;
      await beacon(t, site.key, 'pageview', { url: `${SITE}/mine`, anonymousId: 'browser-forger' });
      const cases: [string, string][] = [
        [sign(site.identifySecret!, 'forger@evil.example'), 'signature'],
        [sign(tracker.identifySecret!, 'victim2@acme.io'), 'signature'],
        [sign('tsk_guessed', 'victim2@acme.io'), 'signature'],
      ];
      for (const [signature, says] of cases) {
        const response = await beacon(t, site.key, 'identify', { anonymousId: 'browser-forger', email: 'victim2@acme.io', signature });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ status: 'forbidden', reason: expect.stringContaining(says) });
      }
      const malformed = await beacon(t, site.key, 'identify', { anonymousId: 'browser-forger', email: 'victim2@acme.io', signature: 'abc' });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({ detail: expect.stringContaining('signature') });
      expect(await visitsOf(t, `contactId=${victim}`)).toEqual([]);
      // The right signature, of the address as the page gives it or lower-cased: hers.
      const signed = await beacon(t, site.key, 'identify', {
        anonymousId: 'browser-forger',
        email: ' Victim2@ACME.io',
        signature: sign(site.identifySecret!, 'victim2@acme.io').toUpperCase(),
      });
      expect(signed.statusCode, signed.body).toBe(202);
      expect((await visitsOf(t, `contactId=${victim}`)).map((visit) => visit.url)).toEqual([`${SITE}/mine`]);
    });

    it('links unsigned identify calls as before when the admin allows them, and never lets one replace a signed one', async () => {
      const { source, tracker: site } = await freshTracker('Allowed', { allowUnverifiedIdentify: true });
      expect(site.allowUnverifiedIdentify).toBe(true);
      const cy = (await accepted(t, 'user', { id: 'u-cy', email: 'cy@acme.io', fullName: 'Cy' })).contactId;
      const di = (await accepted(t, 'user', { id: 'u-di', email: 'di@acme.io', fullName: 'Di' })).contactId;
      await beacon(t, site.key, 'pageview', { url: `${SITE}/allowed`, anonymousId: 'browser-cy' });
      expect((await beacon(t, site.key, 'identify', { anonymousId: 'browser-cy', email: 'cy@acme.io' })).statusCode).toBe(202);
      expect((await visitsOf(t, `contactId=${cy}`)).map((visit) => visit.url)).toEqual([`${SITE}/allowed`]);

      // Signed as Di's, the browser is Di's; an unsigned call cannot take it back.
      expect((await identify(site.key, 'browser-di', 'di@acme.io', site.identifySecret!)).statusCode).toBe(202);
      await beacon(t, site.key, 'pageview', { url: `${SITE}/di`, anonymousId: 'browser-di' });
      expect((await beacon(t, site.key, 'identify', { anonymousId: 'browser-di', email: 'cy@acme.io' })).statusCode).toBe(202);
      await beacon(t, site.key, 'pageview', { url: `${SITE}/di-2`, anonymousId: 'browser-di' });
      expect((await visitsOf(t, `contactId=${di}`)).map((visit) => visit.url).sort()).toEqual([`${SITE}/di`, `${SITE}/di-2`]);
      expect((await visitsOf(t, `contactId=${cy}`)).map((visit) => visit.url)).toEqual([`${SITE}/allowed`]);

      // Turned off: unsigned calls are kept apart again.
      const off = await t.send('PUT', `/api/v2/admin/sources/${source}/tracker`, { allowUnverifiedIdentify: false });
      expect((off.json() as { data: Tracker }).data.allowUnverifiedIdentify).toBe(false);
      await beacon(t, site.key, 'pageview', { url: `${SITE}/later`, anonymousId: 'browser-later' });
      expect((await beacon(t, site.key, 'identify', { anonymousId: 'browser-later', email: 'cy@acme.io' })).statusCode).toBe(202);
      expect((await visitsOf(t, `contactId=${cy}`)).map((visit) => visit.url)).toEqual([`${SITE}/allowed`]);
      expect(await held('browser-later')).toEqual([{ source_id: source, email: 'cy@acme.io' }]);
    });

    it('answers identify calls alike whether or not a contact holds the address', async () => {
      const { tracker: site } = await freshTracker('Alike');
      await accepted(t, 'user', { id: 'u-known', email: 'known@acme.io', fullName: 'Known' });
      const answers = async (email: string) => {
        const calls = [
          await identify(site.key, `browser-alike-${email}`, email, site.identifySecret!),
          await beacon(t, site.key, 'identify', { anonymousId: `browser-alike-2-${email}`, email }),
        ];
        return calls.map((response) => ({ status: response.statusCode, body: response.body, type: response.headers['content-type'] }));
      };
      expect(await answers('known@acme.io')).toEqual(await answers('unknown@acme.io'));
    });

    it('records pages of the allowed origins only, and nothing for a tracker that names none', async () => {
      const { source, tracker: site } = await freshTracker('Origins');
      const count = async () => (await visitsOf(t, '')).length;
      const before = await count();
      for (const url of ['https://evil.example/page', 'http://hearth.dev/page', 'https://hearth.dev:8443/page', 'https://sub.hearth.dev/page']) {
        const response = await beacon(t, site.key, 'pageview', { url, anonymousId: 'browser-origins' });
        expect(response.statusCode, url).toBe(403);
        expect(response.json(), url).toMatchObject({ status: 'forbidden', reason: expect.stringContaining("are not among the tracker's allowedOrigins") });
      }
      expect(await count()).toBe(before);
      expect((await beacon(t, site.key, 'pageview', { url: 'HTTPS://Hearth.dev:443/fine', anonymousId: 'browser-origins' })).statusCode).toBe(202);
      expect(await count()).toBe(before + 1);

      // No origins: nothing is recorded, and the answer says what the admin must do.
      await t.send('PUT', `/api/v2/admin/sources/${source}/tracker`, { allowedOrigins: [] });
      for (const [event, body] of [
        ['pageview', { url: `${SITE}/none`, anonymousId: 'browser-origins' }],
        ['identify', { anonymousId: 'browser-origins', email: 'ada@acme.io' }],
      ] as const) {
        const response = await beacon(t, site.key, event, body);
        expect(response.statusCode, event).toBe(403);
        expect(response.json()).toMatchObject({ reason: expect.stringContaining('names no allowedOrigins') });
      }
      const preflight = await t.app.inject({ method: 'OPTIONS', url: `/community/v1/t/${site.key}/pageview`, headers: { origin: SITE } });
      expect(preflight.statusCode).toBe(403);
      expect(await count()).toBe(before + 1);
      // A new tracker given no origins records nothing either.
      const bare = await enable(t, (await t.services.sources.create(cliWriter(t.communityId), { name: 'No origins' })).id);
      expect(bare.allowedOrigins).toEqual([]);
      expect((await beacon(t, bare.key, 'pageview', { url: `${SITE}/bare`, anonymousId: 'browser-origins' })).statusCode).toBe(403);
    });

    it('erases the unsigned identify calls kept apart that name an erased address', async () => {
      const { tracker: site } = await freshTracker('Held erasure');
      await beacon(t, site.key, 'identify', { anonymousId: 'browser-held-gone', email: 'held-gone@nowhere.io' });
      expect(await held('browser-held-gone')).toHaveLength(1);
      expect((await t.send('DELETE', '/community/v1/user/held-gone@nowhere.io', undefined)).statusCode).toBe(200);
      await createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs }).runUntilIdle();
      expect(await held('browser-held-gone')).toEqual([]);
      await beacon(t, site.key, 'identify', { anonymousId: 'browser-held-gone', email: 'held-gone@nowhere.io' });
      expect(await held('browser-held-gone')).toEqual([]);
    });
  });

  it('refuses a key revoked behind its back (a plain UPDATE, announced as docs/scaling.md says) once the change is heard', async () => {
    const source = (await t.services.sources.create(cliWriter(t.communityId), { name: 'Behind its back' })).id;
    const { key } = await enable(t, source, { allowedOrigins: [SITE] });
    const view = { url: 'https://hearth.dev/cached', anonymousId: 'browser-cache' };
    // Read, then kept in memory.
    expect((await beacon(t, key, 'pageview', view)).statusCode).toBe(202);
    expect((await beacon(t, key, 'pageview', view)).statusCode).toBe(202);
    await t.services.db.transaction().execute(async (trx) => {
      await trx.updateTable('website_trackers').set({ revoked_at: new Date() }).where('public_key', '=', key).execute();
      await sql`select pg_notify('hearth_trackers_changed', ${key})`.execute(trx);
    });
    const deadline = Date.now() + 5_000;
    let status = 202;
    while (status === 202 && Date.now() < deadline) {
      status = (await beacon(t, key, 'pageview', view)).statusCode;
      if (status === 202) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(403);
  });

  describe('CORS', () => {
    it('answers a preflight for the allowed origins only, and refuses a page of another origin', async () => {
      const open = await t.app.inject({
        method: 'OPTIONS',
        url: `/community/v1/t/${tracker.key}/pageview`,
        headers: { origin: SITE, 'access-control-request-method': 'POST' },
      });
      expect(open.statusCode).toBe(204);
      expect(open.headers).toMatchObject({
        'access-control-allow-origin': SITE,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'Content-Type',
      });

      const source = (await t.services.sources.create(cliWriter(t.communityId), { name: 'Shop' })).id;
      const shop = await enable(t, source, { allowedOrigins: ['https://shop.example'] });
      const allowed = await t.app.inject({ method: 'OPTIONS', url: `/community/v1/t/${shop.key}/identify`, headers: { origin: 'https://shop.example' } });
      expect(allowed.statusCode).toBe(204);
      expect(allowed.headers).toMatchObject({ 'access-control-allow-origin': 'https://shop.example', vary: 'Origin' });
      const other = await t.app.inject({ method: 'OPTIONS', url: `/community/v1/t/${shop.key}/pageview`, headers: { origin: 'https://evil.example' } });
      expect(other.statusCode).toBe(403);
      expect((await t.app.inject({ method: 'OPTIONS', url: `/community/v1/t/${shop.key}/other` })).statusCode).toBe(400);

      const view = { url: 'https://shop.example/cart', anonymousId: 'browser-shop' };
      expect((await beacon(t, shop.key, 'pageview', view, { origin: 'https://shop.example' })).statusCode).toBe(202);
      const refused = await beacon(t, shop.key, 'pageview', view, { origin: 'https://evil.example' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ reason: expect.stringContaining('https://evil.example may not send') });
      expect((await beacon(t, shop.key, 'pageview', view, { origin: '' })).statusCode).toBe(403);
    });
  });

  describe('isolation', () => {
    it("records into the key's own community only, and identifies among its contacts only", async () => {
      const other = await t.services.communities.create('Elsewhere', 'test');
      const otherAdmin = await t.issueToken(['read', 'write', 'admin'], other.communityId);
      const otherSource = (await t.services.sources.create(cliWriter(other.communityId), { name: 'Site' })).id;
      const theirs = await enable(t, otherSource, { allowedOrigins: ['https://elsewhere.example'] }, otherAdmin);
      expect(theirs.key.startsWith(`pk_${other.communityId}_`)).toBe(true);
      // Our key's secret part under their community's number is no key of theirs.
      const forged = `pk_${other.communityId}_${tracker.key.split('_').slice(2).join('_')}`;
      expect((await beacon(t, forged, 'pageview', { url: 'https://hearth.dev/', anonymousId: 'x' })).statusCode).toBe(404);
      // Their admin cannot see our source's tracker.
      expect((await t.get(`/api/v2/admin/sources/${t.sourceId}/tracker`, otherAdmin)).statusCode).toBe(404);

      // The same browser ID and Ada's address in their community: their visit stays theirs and without a contact.
      const elsewhere = { origin: 'https://elsewhere.example' };
      expect((await beacon(t, theirs.key, 'pageview', { url: 'https://elsewhere.example/', anonymousId: 'browser-ada' }, elsewhere)).statusCode).toBe(202);
      expect((await identify(theirs.key, 'browser-ada', 'ada@acme.io', theirs.identifySecret!, elsewhere)).statusCode).toBe(202);
      const theirVisits = (await t.get('/api/v2/website-visits?cols=url,contactId', otherAdmin)).json() as { data: Visit[] };
      expect(theirVisits.data).toEqual([expect.objectContaining({ url: 'https://elsewhere.example/', contactId: null })]);
      expect((await visitsOf(t, '')).some((visit) => visit.url.startsWith('https://elsewhere.example'))).toBe(false);
    });
  });
});

describe.each(ENGINES)('website tracker rate limits (%s)', (engine) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { rateLimit: { trackerPerKey: 4, trackerPerAddress: 3, windowSeconds: 3600 } });
    key = (await enable(t, t.sourceId, { allowedOrigins: [SITE] })).key;
  });
  afterAll(() => t.close());

  it('counts each client address and each key apart from the API, and answers 429 with Retry-After', async () => {
    const view = (n: number) => ({ url: `https://hearth.dev/${n}`, anonymousId: 'browser-limits' });
    const first = await beacon(t, key, 'pageview', view(0), {}, '10.0.0.1');
    expect(first.statusCode).toBe(202);
    expect(first.headers['x-ratelimit-limit']).toBe('3');
    expect((await beacon(t, key, 'pageview', view(1), {}, '10.0.0.1')).statusCode).toBe(202);
    expect((await beacon(t, key, 'pageview', view(2), {}, '10.0.0.1')).statusCode).toBe(202);
    const limited = await beacon(t, key, 'pageview', view(3), {}, '10.0.0.1');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['access-control-allow-origin']).toBe('*');
    expect(limited.json()).toMatchObject({ reason: expect.stringContaining('rate limit'), rateLimit: { intervalLimit: 3, intervalRemaining: 0 } });

    // Another address may still send with the key, until the key's own limit (4) is spent.
    expect((await beacon(t, key, 'pageview', view(4), {}, '10.0.0.2')).statusCode).toBe(202);
    const keyLimited = await beacon(t, key, 'pageview', view(5), {}, '10.0.0.3');
    expect(keyLimited.statusCode).toBe(429);
    expect(keyLimited.json()).toMatchObject({ rateLimit: { intervalLimit: 4 } });
    // The API's own limits are not the tracker's.
    expect((await t.get('/api/v2/website-visits')).statusCode).toBe(200);
    const stored = (await t.get('/api/v2/website-visits?limit=100')).json() as { data: unknown[] };
    expect(stored.data).toHaveLength(4);
  });
});
