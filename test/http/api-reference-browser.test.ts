import type http from 'node:http';
import { type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { stubServer } from '../helpers/webhook-receiver.ts';
import { describeInChromium } from '../helpers/chromium.ts';
import { freePort } from '../helpers/free-port.ts';

/** What a script on a page gets when it asks the API for the console's session, with the browser's cookies. */
const READ_SESSION = `fetch('/api/v2/session', { credentials: 'include' }).then((r) => r.json()).then((body) => ({ csrfToken: body.data?.csrfToken ?? null }), (error) => ({ error: String(error) }))`;
const READ_CONTACTS = `fetch('/api/v2/contacts', { credentials: 'include' }).then((r) => r.status, (error) => String(error))`;
/** Opens a console page and reads it, as a script could if both pages shared an origin. */
const READ_CONSOLE_WINDOW = `new Promise((resolve) => {
  let opened;
  try { opened = window.open('/contacts'); } catch (error) { return resolve('open: ' + error); }
  if (!opened) return resolve('no window');
  setTimeout(() => { try { resolve('read: ' + opened.document.title); } catch (error) { resolve('refused: ' + error.name); } opened.close(); }, 1500);
})`;

/**
 * The API reference at /docs in a real browser: it renders from this server alone (no fonts or scripts from
 * the internet), and a script running on it can reach neither the console's session (its data, its CSRF
 * token) nor its windows, while the console's own pages can. No other site may frame it.
 */
describeInChromium('the API reference', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let url: string;
    let context: BrowserContext;
    let page: Page;
    const requested: string[] = [];
    /** What the server received: each request's path, and whether it carried the session cookie. */
    const received: { path: string; cookie: boolean }[] = [];

    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await createTestApp(engine, { publicUrl: url });
      await t.app.listen({ port, host: '127.0.0.1' });
      context = await browser().newContext();
      page = await context.newPage();
      page.on('request', (request) => requested.push(request.url()));
      t.app.server.on('request', (request: http.IncomingMessage) =>
        received.push({ path: request.url ?? '', cookie: /hearth_session=/.test(request.headers.cookie ?? '') }),
      );
      // Signed in to the console: its session cookie is in the browser.
      const admin = (await t.services.appUsers.list(t.communityId)).find((user) => user.role === 'admin')!;
      const link = await t.services.appUsers.firstRunLink(t.communityId, admin.id);
      const signedIn = await context.request.post(`${url}/api/v2/session/link`, { data: { link: link.url } });
      expect(signedIn.status()).toBe(201);
    });
    afterAll(async () => {
      await context?.close();
      await t?.close();
    });

    it('renders the reference in a sandbox, from this server alone', async () => {
      const answer = await page.goto(`${url}/docs/`);
      expect(answer!.headers()['content-security-policy']).toContain('sandbox allow-scripts');
      await page.getByRole('link', { name: 'List contacts' }).first().waitFor();
      await page.getByText('Download OpenAPI Document').first().waitFor();
      // An origin of its own: an opaque one, which is no other page's.
      expect(await page.evaluate('self.origin')).toBe('null');
      // Nothing from the internet: no fonts, no scripts, no telemetry.
      expect(new Set(requested.map((address) => new URL(address).origin))).toEqual(new Set([url]));
    });

    it("gives a script on the page neither the console's session, its CSRF token, its data nor its windows", async () => {
      // The console's own pages can read the session: that is how they get its token.
      const consolePage = await context.newPage();
      await consolePage.goto(`${url}/sign-in`);
      expect(await consolePage.evaluate(READ_SESSION)).toEqual({ csrfToken: expect.any(String) });
      await consolePage.close();

      await page.goto(`${url}/docs/`);
      received.length = 0;
      expect(await page.evaluate(READ_SESSION)).toEqual({ error: 'TypeError: Failed to fetch' });
      expect(await page.evaluate(READ_CONTACTS)).toBe('TypeError: Failed to fetch');
      // To the browser the page is another site: the session cookie did not even go with the requests. (The
      // browser's own request for the site's icon, which it makes when it pleases, is not the page's.)
      expect(received.filter(({ path }) => path !== '/favicon.ico')).toEqual([
        { path: '/api/v2/session', cookie: false },
        { path: '/api/v2/contacts', cookie: false },
      ]);
      // A console page it opens is out of its reach too.
      expect(await page.evaluate(READ_CONSOLE_WINDOW)).toBe('refused: SecurityError');
    });

    it('may not be framed by another site', async () => {
      const other = stubServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>other</title><iframe src="${url}/docs/"></iframe>`);
      });
      const otherUrl = await other.start();
      const framing = await context.newPage();
      try {
        const blocked = framing.waitForEvent('console', { predicate: (message) => message.text().includes('frame-ancestors'), timeout: 10_000 });
        await framing.goto(`${otherUrl}/`);
        await blocked;
        const frame = framing.frames().find((one) => one !== framing.mainFrame());
        expect(frame).toBeDefined();
        expect(await frame!.evaluate('document.title').catch(() => 'unreadable')).not.toBe('Hearth API');
      } finally {
        await framing.close();
        await other.stop();
      }
    });
  });
});
