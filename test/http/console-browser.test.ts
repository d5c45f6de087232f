import { type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { describeInChromium, FIRST_ADMIN_PASSWORD, firstAdminPage } from '../helpers/chromium.ts';
import { freePort } from '../helpers/free-port.ts';

/**
 * The web console in a real browser, driven as a person would (labels, roles and buttons, no test
 * IDs): sign in, find a contact by a filter, add it to a segment, create a token and revoke it. What the
 * browser did is then checked through the API.
 */
describeInChromium('web console', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let url: string;
    let page: Page;
    let segmentId: string;
    let ada: string;

    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await createTestApp(engine, { publicUrl: url });
      await t.app.listen({ port, host: '127.0.0.1' });
      ada = (await accepted(t, 'user', { id: 'u-ada', fullName: 'Ada Lovelace', email: 'ada@example.org', titleAtCompany: 'Engineer' })).contactId;
      await accepted(t, 'user', { id: 'u-bob', fullName: 'Bob Babbage', email: 'bob@example.org' });
      await accepted(t, 'user', { id: 'u-cy', fullName: 'Cy Menabrea', email: 'cy@example.org' });
      segmentId = (await t.send('POST', '/api/v2/segments', { name: 'Champions' })).json().data.id;
      page = await firstAdminPage(t, browser());
      await page.getByRole('button', { name: 'Sign out' }).click();
    });
    afterAll(async () => {
      await page?.close();
      await t?.close();
    });

    it('signs in with the password, and refuses a wrong one', async () => {
      await page.goto(`${url}/contacts`);
      await page.getByLabel('Email address').fill('admin@hearth.local');
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).toBe('the email address or the password is wrong');
      await page.getByLabel('Password').fill(FIRST_ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Contacts' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/contacts');
      // Keyboard: a page that opens has the focus on its heading, so the next tab stop is its first control;
      // the skip link, first in the document, takes the keyboard past the navigation.
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Contacts');
      // The filter's first button is disabled, out of the tab order, until the filterable fields have loaded.
      await expect.poll(() => page.getByRole('button', { name: '+ Add filter' }).isEnabled()).toBe(true);
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe('+ Add filter');
      await page.getByRole('link', { name: 'Skip to content' }).focus();
      await page.keyboard.press('Enter');
      expect(await page.evaluate('document.activeElement.id')).toBe('main');
    });

    it('finds a contact by a filter and adds it to a segment', async () => {
      await page.getByRole('row').nth(3).waitFor();
      await page.getByRole('button', { name: '+ Add filter' }).click();
      await page.getByLabel('Field of filter 1').selectOption('title');
      await page.getByLabel('Operator of filter 1').selectOption('like');
      await page.getByLabel('Value of filter 1').fill('engine');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => page.getByRole('row').count()).toBe(2);
      expect(await page.getByRole('link', { name: 'Ada Lovelace' }).count()).toBe(1);
      await page.getByLabel('Select Ada Lovelace').check();
      await page.getByLabel('Segment', { exact: true }).selectOption({ label: 'Champions' });
      await page.getByRole('button', { name: 'Add to segment' }).click();
      await page.getByText('Added 1 contact(s) to the segment.').waitFor();
      const members = (await t.get(`/api/v2/contacts?segmentId=${segmentId}`)).json().data as { id: string }[];
      expect(members.map((member) => member.id)).toEqual([ada]);
      // The contact's page, by its url, lists the segment.
      await page.getByRole('link', { name: 'Ada Lovelace' }).click();
      await page.getByRole('heading', { name: 'Ada Lovelace' }).waitFor();
      await page.getByRole('region', { name: 'Segments' }).getByRole('link', { name: 'Champions' }).waitFor();
    });

    it('creates a token shown once, which works until it is revoked', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }).click();
      await page.getByRole('heading', { name: 'API tokens' }).waitFor();
      await page.getByLabel('Name').fill('nightly export');
      await page.getByLabel('contacts:read').check();
      await page.getByLabel('read', { exact: true }).uncheck();
      await page.getByRole('button', { name: 'Create token' }).click();
      const token = (await page.getByLabel('The new token').textContent())!.trim();
      expect(token).toMatch(/^eyJ/);
      expect((await t.get('/api/v2/contacts', token)).statusCode).toBe(200);
      expect((await t.get('/api/v2/segments', token)).statusCode).toBe(403);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      expect(await page.getByLabel('The new token').count()).toBe(0);
      await page.getByRole('button', { name: 'Revoke nightly export' }).click();
      await page.getByText('Revoked the token nightly export.').waitFor();
      const refused = await t.get('/api/v2/contacts', token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().reason).toBe('token has been revoked');
    });

    it('shows background jobs (GET /api/v2/admin/jobs) and removal requests', async () => {
      expect((await t.send('DELETE', '/community/v1/user/leave@example.org', undefined)).statusCode).toBe(200);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
      await page.getByRole('heading', { name: 'Jobs' }).waitFor();
      await page.getByRole('cell', { name: 'privacy.erase' }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Removal requests' }).click();
      await page.getByRole('cell', { name: 'leave@example.org' }).waitFor();
    });

    it('asks before a sign-in link replaces the signed-in user, and uses it only when told to', async () => {
      const added = await t.send('POST', '/api/v2/admin/users', { name: 'Mallory', loginEmail: 'mallory@example.org' });
      expect(added.statusCode, added.body).toBe(201);
      const link = added.json().data.signInLink.url as string;
      const signedInAs = async () =>
        ((await page.evaluate(`fetch('/api/v2/session').then((r) => r.json())`)) as { data: { user: { loginEmail: string } } }).data.user.loginEmail;
      await page.goto(link);
      await page.getByRole('heading', { name: 'Use this sign-in link?' }).waitFor();
      expect(await page.getByText('This browser is signed in as').textContent()).toContain('admin@hearth.local');
      expect(await signedInAs()).toBe('admin@hearth.local');
      await page.getByRole('button', { name: 'Stay signed in as Admin' }).click();
      // Back to the home page (the dashboard, or the first-day guide of a community without data).
      await page.getByRole('heading', { name: /^(Home|Welcome to Hearth)$/, level: 1 }).waitFor();
      expect(await signedInAs()).toBe('admin@hearth.local');
      // Staying used nothing: the same link still works, once confirmed.
      await page.goto(link);
      await page.getByRole('button', { name: 'Sign out and use the link' }).click();
      await page.getByRole('heading', { name: 'Your account' }).waitFor();
      expect(await signedInAs()).toBe('mallory@example.org');
    });
  });
});
