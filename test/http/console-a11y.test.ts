import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInChromium, firstAdminPage } from '../helpers/chromium.ts';
import { freePort } from '../helpers/free-port.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** The little of the DOM that the functions run in the page use (the tests are compiled without the DOM's types). */
interface Node {
  tagName: string;
  className: unknown;
  textContent: string | null;
  children: ArrayLike<Node>;
  dataset: Record<string, string | undefined>;
  offsetParent: unknown;
  closest(selector: string): unknown;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { right: number };
  blur(): void;
}
declare const document: {
  activeElement: Node | null;
  body: { innerText: string };
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelectorAll(selector: string): ArrayLike<Node>;
};

/** The WCAG 2.1 A and AA rules; a serious or critical violation of any of them fails the page. */
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Phone width, and a 1280-pixel window zoomed to 200 %: both must read without scrolling sideways. */
const NARROW = [
  { name: 'a phone', width: 375, height: 740 },
  { name: '200 % zoom', width: 640, height: 400 },
];

/** What a page's controls are: everything a keyboard user must be able to reach. */
const CONTROLS =
  'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/**
 * Every page of the web console, in Chromium, on a community with one of each record: axe-core finds no
 * serious or critical WCAG 2.1 AA violation; Tab reaches every control the page shows; and the page reads
 * at phone width and at 200 % zoom without the whole page scrolling sideways (a wide table scrolls in its
 * own box).
 */
describeInChromium('the console for everyone', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let url: string;
    let page: Page;
    const paths: string[] = [];

    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await createTestApp(engine, { publicUrl: url });
      await t.app.listen({ port, host: '127.0.0.1' });
      const pushed = await accepted(t, 'activity', {
        id: 'a-1',
        activityType: 'made_post_topic',
        title: 'How do I page through contacts?',
        user: { id: 'u-1', fullName: 'Ada Lovelace', email: 'ada@example.org', companyDomain: 'analytical.example' },
        timestamp: '2026-01-10T10:00:00Z',
      });
      const segment = (await t.send('POST', '/api/v2/segments', { name: 'Champions' })).json().data;
      const organization = (await t.get('/api/v2/organizations')).json().data[0];
      await t.send('POST', '/api/v2/tokens', { name: 'CI', scopes: ['contacts:read'] });
      paths.push(
        '/',
        '/contacts',
        `/contacts/${pushed.contactId}`,
        '/contacts/duplicates',
        '/organizations',
        `/organizations/${organization.id}`,
        '/activities',
        `/activities/${pushed.activityId}`,
        '/segments',
        `/segments/${segment.id}`,
        '/tags',
        '/account',
        '/tokens',
        '/sources',
        '/users',
        '/removal-requests',
        '/jobs',
        '/audit-log',
      );
      page = await firstAdminPage(t, browser());
    });
    afterAll(async () => {
      await page?.close();
      await t?.close();
    });

    /** Opens a page and waits until it has loaded what it shows (no "Loading" left). */
    const open = async (path: string, viewport = { width: 1280, height: 900 }) => {
      await page.setViewportSize(viewport);
      await page.goto(url + path);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForFunction(() => !document.body.innerText.includes('Loading'));
    };

    it('has no serious or critical axe violation on any page', async () => {
      const found: string[] = [];
      for (const path of paths) {
        await open(path);
        const result = await new AxeBuilder({ page }).withTags(WCAG).analyze();
        for (const violation of result.violations) {
          if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
          found.push(`${path}: ${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
        }
      }
      expect(found).toEqual([]);
    }, 300_000);

    it('reaches every control of every page with Tab', async () => {
      const missed: string[] = [];
      for (const path of paths) {
        await open(path);
        const controls = await page.locator(CONTROLS).evaluateAll((elements) =>
          elements
            .filter((element) => (element as unknown as Node).offsetParent !== null)
            .map((element, index) => {
              (element as unknown as Node).dataset.a11yIndex = String(index);
              return `${element.tagName.toLowerCase()} "${(element.textContent || element.getAttribute('aria-label') || element.getAttribute('name') || '').trim().slice(0, 40)}"`;
            }),
        );
        const reached = new Set<string>();
        // From the top of the document, as a keyboard user arriving on the page.
        await page.evaluate(() => document.activeElement?.blur());
        for (let press = 0; press < controls.length + 10; press++) {
          await page.keyboard.press('Tab');
          const index = await page.evaluate(() => document.activeElement?.dataset.a11yIndex);
          if (index !== undefined) reached.add(index);
        }
        controls.forEach((control, index) => {
          if (!reached.has(String(index))) missed.push(`${path}: ${control}`);
        });
      }
      expect(missed).toEqual([]);
    }, 300_000);

    for (const size of NARROW) {
      it(`reads on ${size.name} without scrolling sideways`, async () => {
        const wide: string[] = [];
        for (const path of paths) {
          await open(path, size);
          // The elements that reach past the window's edge, innermost first: what to fix.
          const past = await page.evaluate(() => {
            const edge = document.documentElement.clientWidth;
            if (document.documentElement.scrollWidth <= edge + 1) return [];
            return Array.from(document.querySelectorAll('body *'))
              .filter(
                (element) =>
                  element.getBoundingClientRect().right > edge + 1 &&
                  !Array.from(element.children).some((child) => child.getBoundingClientRect().right > edge + 1),
              )
              .filter((element) => !element.closest('table'))
              .slice(0, 3)
              .map(
                (element) =>
                  `${element.tagName.toLowerCase()}${element.className ? `.${String(element.className).replace(/ /g, '.')}` : ''} "${(element.textContent ?? '').trim().slice(0, 30)}"`,
              );
          });
          if (past.length > 0) wide.push(`${path}: ${past.join(', ')}`);
        }
        expect(wide).toEqual([]);
      }, 300_000);
    }
  });
});
