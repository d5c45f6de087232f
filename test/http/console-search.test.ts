import { type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInChromium, firstAdminPage } from '../helpers/chromium.ts';
import { freePort } from '../helpers/free-port.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The header's search box, in a real browser driven by roles and keys: `/` reaches it from the page, typing
 * a GitHub handle finds the contact and Enter opens its page, an organization is found by its domain and a
 * segment by its name, arrow keys move the active option (announced by aria-activedescendant), Escape closes.
 */
describeInChromium('searching from the console header', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let page: Page;
    const ids: Record<string, string> = {};

    const box = () => page.getByRole('combobox', { name: 'Search contacts, organizations and segments' });
    const listbox = () => page.getByRole('listbox', { name: 'Search results' });
    const option = (name: string | RegExp) => listbox().getByRole('option', { name });

    beforeAll(async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      t = await createTestApp(engine, { publicUrl: url });
      await t.app.listen({ port, host: '127.0.0.1' });
      ids.ada = (await accepted(t, 'user', { id: 'ada', fullName: 'Ada Lovelace', email: 'ada@analytical.com', github: 'enchantress-of-numbers' })).contactId;
      ids.adam = (await accepted(t, 'user', { id: 'adam', fullName: 'Adam Smith', email: 'adam@wealth.org' })).contactId;
      ids.adele = (await accepted(t, 'user', { id: 'adele', fullName: 'Adele Goldberg', email: 'adele@parc.com' })).contactId;
      const organization = await t.services.organizationUpserts.upsertInSource({ communityId: t.communityId, actor: 'test', tokenId: null }, t.sourceId, {
        domain: 'difference-engines.co.uk',
      });
      ids.organization = organization.organizationId;
      ids.segment = (await t.services.segmentWrites.create({ communityId: t.communityId, actor: 'test', tokenId: null }, { name: 'Pioneers of computing' })).id;
      page = await firstAdminPage(t, browser());
      await page.goto(`${url}/tags`);
      await page.getByRole('heading', { name: 'Tags' }).waitFor();
    });
    afterAll(async () => {
      await page?.close();
      await t?.close();
    });

    it('focuses the box on `/` from the page, and types `/` into text fields as a character', async () => {
      await page.locator('body').click();
      await page.keyboard.press('/');
      await expect.poll(() => box().evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
      expect(await box().inputValue()).toBe('');
      expect(await box().getAttribute('aria-expanded')).toBe('false');
      await page.keyboard.type('a/b');
      expect(await box().inputValue()).toBe('a/b');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      expect(await box().inputValue()).toBe('');
    });

    it('finds a contact by a GitHub handle, says how it matched, and Enter opens its page', async () => {
      await box().focus();
      await page.keyboard.type('enchantress');
      await option(/Ada Lovelace/).waitFor();
      expect(await box().getAttribute('aria-expanded')).toBe('true');
      expect(await box().getAttribute('aria-controls')).toBe(await listbox().getAttribute('id'));
      expect(await option(/Ada Lovelace/).textContent()).toContain('github enchantress-of-numbers');
      expect(await listbox().getByRole('group', { name: 'Contacts' }).getByRole('option').count()).toBe(1);
      await page.keyboard.press('ArrowDown');
      expect(await box().getAttribute('aria-activedescendant')).toBe(await option(/Ada Lovelace/).getAttribute('id'));
      expect(await option(/Ada Lovelace/).getAttribute('aria-selected')).toBe('true');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === `/contacts/${ids.ada}`);
      await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();
      expect(await box().inputValue()).toBe('');
      expect(await box().getAttribute('aria-expanded')).toBe('false');
    });

    it('finds an organization by its domain and a segment by its name, each in its group', async () => {
      await box().fill('difference-eng');
      const organizations = listbox().getByRole('group', { name: 'Organizations' });
      await organizations.getByRole('option').first().waitFor();
      expect(await organizations.getByRole('option').first().textContent()).toContain('difference-engines.co.uk');
      // The organization arrives only after the reader has started the next search: its name must not take
      // the focus from the box (and close the list) when it does.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const organizationRequest = (url: URL) => url.pathname === `/api/v2/organizations/${ids.organization}`;
      await page.route(organizationRequest, async (route) => {
        await held;
        await route.continue();
      });
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === `/organizations/${ids.organization}`);
      await page.getByRole('heading', { name: 'Organization', exact: true }).waitFor();

      await box().fill('pioneers');
      const segments = listbox().getByRole('group', { name: 'Segments' });
      await segments.getByRole('option', { name: /Pioneers of computing/ }).waitFor();
      release();
      await page.getByRole('heading', { name: 'Difference-engines' }).waitFor();
      await page.unroute(organizationRequest);
      expect(await box().evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
      expect(await box().getAttribute('aria-expanded')).toBe('true');
      await segments.getByRole('option', { name: /Pioneers of computing/ }).click();
      await page.waitForURL((url) => url.pathname === `/segments/${ids.segment}`);
      await page.getByRole('heading', { name: 'Pioneers of computing' }).waitFor();
    });

    it('moves through the options with the arrow keys, wrapping around, and Escape closes the list', async () => {
      await box().fill('ade');
      await expect.poll(() => listbox().getByRole('option').count()).toBe(1);
      await box().fill('ad');
      await expect.poll(() => listbox().getByRole('option').count()).toBe(3);
      const optionIds = await listbox()
        .getByRole('option')
        .evaluateAll((options) => options.map((element) => element.id));
      const active = () => box().getAttribute('aria-activedescendant');
      expect(await active()).toBeNull();
      await page.keyboard.press('ArrowDown');
      expect(await active()).toBe(optionIds[0]);
      await page.keyboard.press('ArrowDown');
      expect(await active()).toBe(optionIds[1]);
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('ArrowUp');
      expect(await active()).toBe(optionIds[2]);
      await page.keyboard.press('ArrowDown');
      expect(await active()).toBe(optionIds[0]);
      expect(await listbox().getByRole('option', { selected: true }).count()).toBe(1);
      await page.keyboard.press('Escape');
      expect(await box().getAttribute('aria-expanded')).toBe('false');
      expect(await active()).toBeNull();
      expect(await box().inputValue()).toBe('ad');
      await page.keyboard.press('ArrowDown');
      expect(await box().getAttribute('aria-expanded')).toBe('true');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === `/contacts/${ids.ada}`);
    });

    it('says when nothing matches', async () => {
      await box().fill('zzzz-nobody');
      await page.getByRole('status').filter({ hasText: 'No matches' }).waitFor();
      expect(await box().getAttribute('aria-expanded')).toBe('false');
    });
  });
});
