import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { stubServer } from '../helpers/webhook-receiver.ts';
import { describeInChromium } from '../helpers/chromium.ts';

/** A site's page embedding the tracker as the admin route's snippet says, with the queue stub sites add. */
function page(hearthUrl: string, key: string, title: string): string {
  return `<!doctype html><html><head><title>${title}</title>
<script>window.hearth = window.hearth || function () { (window.hearth.q = window.hearth.q || []).push(arguments); };</script>
<script src="${hearthUrl}/t.js" data-key="${key}" async></script>
</head><body><h1>${title}</h1></body></html>`;
}

/** Polls `read` until `done` says its value is complete, or the deadline passes (then the last value is returned). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, deadlineMs = 15_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  let value = await read();
  while (!done(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/**
 * The website tracker in a real browser. A site (a local server on its own origin) embeds /t.js from a
 * running Hearth; the browser loads pages, navigates by history.pushState and back, identifies the visitor,
 * and the visits are then read through the API: recorded, in order, and the contact's.
 */
describeInChromium('website tracker', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let hearthUrl: string;
    let siteUrl: string;
    let site: ReturnType<typeof stubServer>;
    let key: string;
    let secret: string;

    beforeAll(async () => {
      t = await createTestApp(engine);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      hearthUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      site = stubServer((request, response) => {
        const path = request.path.split('?')[0]!;
        if (path === '/favicon.ico') return response.writeHead(404).end();
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(hearthUrl, key, path));
      });
      siteUrl = await site.start();
      // Only the site's origin may send: the browser's own Origin header is what lets its beacons in.
      const enabled = await t.send('PUT', `/api/v2/admin/sources/${t.sourceId}/tracker`, { allowedOrigins: [siteUrl] });
      expect(enabled.statusCode, enabled.body).toBe(201);
      ({ key, identifySecret: secret } = (enabled.json() as { data: { key: string; identifySecret: string } }).data);
    });
    afterAll(async () => {
      await site?.stop();
      await t?.close();
    });

    async function visits(query: string) {
      const response = await t.get(`/api/v2/website-visits?cols=url,contactId&limit=1000${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { data: { url: string; contactId: string | null }[] }).data;
    }

    it('records page loads and pushState and back navigations, and identify gives them to the contact', async () => {
      const ada = (await accepted(t, 'user', { id: 'u-ada', email: 'ada@acme.io', fullName: 'Ada' })).contactId;
      const context = await browser().newContext();
      try {
        const tab = await context.newPage();
        const loaded = () => tab.waitForFunction('window.hearth && window.hearth.loaded === true');
        await tab.goto(`${siteUrl}/`);
        await loaded();
        await tab.evaluate("history.pushState({}, '', '/pricing?plan=team#compare')");
        await tab.evaluate("history.pushState({}, '', '/about')");
        // Back, within the page: a popstate, which is a page view of /pricing again.
        await tab.evaluate("new Promise((resolve) => { addEventListener('popstate', () => resolve(), { once: true }); history.back(); })");
        await tab.goto(`${siteUrl}/docs`);
        await loaded();
        const anonymousId = await tab.evaluate<string | null>("localStorage.getItem('hearth_aid')");
        expect(anonymousId).toMatch(/^[0-9a-f-]{32,36}$/);

        const wanted = [`${siteUrl}/`, `${siteUrl}/pricing?plan=team`, `${siteUrl}/about`, `${siteUrl}/pricing?plan=team`, `${siteUrl}/docs`].sort();
        const anonymous = await eventually(
          () => visits(''),
          (rows) => rows.length >= wanted.length,
        );
        expect(anonymous.map((row) => row.url).sort()).toEqual(wanted);
        expect(anonymous.every((row) => row.contactId === null)).toBe(true);
        const stored = await t.services.db.selectFrom('website_visits').select('anonymous_id').distinct().execute();
        expect(stored).toEqual([{ anonymous_id: anonymousId }]);

        // Unsigned, the page's claim is kept apart: nothing becomes hers.
        await tab.evaluate("window.hearth('identify', { email: 'ada@acme.io' })");
        const held = await eventually(
          () => t.services.db.selectFrom('website_unverified_visitors').select('email').where('anonymous_id', '=', anonymousId!).execute(),
          (rows) => rows.length === 1,
        );
        expect(held).toEqual([{ email: 'ada@acme.io' }]);
        expect(await visits(`&contactId=${ada}`)).toEqual([]);

        // Signed by the site's backend (which renders the signature into the page of a signed-in visitor): hers.
        const signature = createHmac('sha256', secret).update('ada@acme.io').digest('hex');
        await tab.evaluate(`window.hearth('identify', { email: 'Ada@acme.io', signature: '${signature}' })`);
        const hers = await eventually(
          () => visits(`&contactId=${ada}`),
          (rows) => rows.length === wanted.length,
        );
        expect(hers.map((row) => row.url).sort()).toEqual(anonymous.map((row) => row.url).sort());

        // A later navigation is hers at once.
        await tab.evaluate("history.pushState({}, '', '/changelog')");
        const later = await eventually(
          () => visits(`&contactId=${ada}`),
          (rows) => rows.length === wanted.length + 1,
        );
        expect(later.map((row) => row.url)).toContain(`${siteUrl}/changelog`);
        const fields = (await t.get(`/api/v2/contacts/${ada}?cols=recentWebPages,recentWebVisitsNumber`)).json() as {
          data: { recentWebPages: { url: string; numVisits: number }[]; recentWebVisitsNumber: number };
        };
        expect(fields.data.recentWebVisitsNumber).toBe(wanted.length + 1);
        expect(fields.data.recentWebPages[0]).toEqual({ url: `${siteUrl}/pricing?plan=team`, numVisits: 2 });
      } finally {
        await context.close();
      }
    });

    it('sends nothing and stores nothing in the browser under Global Privacy Control', async () => {
      const before = (await visits('')).length;
      const context = await browser().newContext();
      try {
        await context.addInitScript("Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true })");
        const beacons: string[] = [];
        context.on('request', (request) => {
          if (request.url().includes('/community/v1/t/')) beacons.push(request.url());
        });
        const tab = await context.newPage();
        await tab.goto(`${siteUrl}/private`);
        await tab.waitForFunction('window.hearth && window.hearth.loaded === true');
        await tab.evaluate("history.pushState({}, '', '/private/2')");
        await tab.evaluate("window.hearth('identify', { email: 'ada@acme.io' })");
        expect(await tab.evaluate<string | null>("localStorage.getItem('hearth_aid')")).toBeNull();
        expect(await tab.evaluate<string>('document.cookie')).toBe('');
        // The same page without GPC in the same browser does send: the absence above is the script's choice.
        const other = await browser().newContext();
        try {
          const control = await other.newPage();
          await control.goto(`${siteUrl}/control`);
          await eventually(
            () => visits(''),
            (rows) => rows.some((row) => row.url === `${siteUrl}/control`),
          );
        } finally {
          await other.close();
        }
        expect(beacons).toEqual([]);
        expect((await visits('')).map((row) => row.url).filter((url) => url.includes('/private'))).toEqual([]);
        expect((await visits('')).length).toBe(before + 1);
      } finally {
        await context.close();
      }
    });
  });
});
