import { type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { describeInChromium, firstAdminPage } from '../helpers/chromium.ts';
import { freePort } from '../helpers/free-port.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Suggestion {
  id: string;
  reasons: string[];
  contacts: { id: string }[];
}

const LIST = '/api/v2/contacts/merge-suggestions';

/** Pairs of namesakes at one company besides the three the tests act on, so that the list has a second page. */
const FILLERS = 9;

/**
 * Merging contacts in the web console, in a real browser driven by labels and roles: the Duplicates page
 * shows the pairs the suggestions step found side by side with the evidence, merges one (then the survivor's
 * page shows the merge, and undoes it), dismisses one by the keyboard, pages with "Load more", and shows the
 * API's refusal in its words; a contact's page merges it with another found by a search. What the browser
 * did is checked through the API.
 */
describeInChromium('merging contacts in the console', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let url: string;
    let page: Page;
    let worker: Worker;
    const ids: Record<string, string> = {};
    const names: Record<string, string> = {};

    const push = async (key: string, body: Record<string, unknown>) => {
      ids[key] = (await accepted(t, 'user', { id: key, ...body })).contactId;
      names[key] = (await t.get(`/api/v2/contacts/${ids[key]}`)).json().data.name;
    };
    const suggestions = async (): Promise<Suggestion[]> => {
      const response = await t.get(`${LIST}?limit=100`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data;
    };
    const pairOf = (a: string, b: string) => (suggestion: Suggestion) => suggestion.contacts.map((contact) => contact.id).join() === [ids[a], ids[b]].join();
    /** The console names a pair by both contacts, older first, each with its ID: two namesakes stay apart. */
    const pairName = (a: string, b: string) => `${names[a]} (${ids[a]}) and ${names[b]} (${ids[b]})`;
    const card = (a: string, b: string): Locator => page.getByRole('article', { name: pairName(a, b) });
    const openDuplicates = async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Duplicates' }).click();
      await page.getByRole('heading', { name: 'Duplicates', exact: true }).waitFor();
    };
    const contactOf = async (id: string) => (await t.get(`/api/v2/contacts/${id}?cols=primaryEmail`)).json().data as { id: string; primaryEmail: string };

    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await createTestApp(engine, { publicUrl: url });
      await t.app.listen({ port, host: '127.0.0.1' });
      worker = createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs });
      // One person pushed twice, with two addresses at work: the same full name and company domain.
      await push('ada-1', { fullName: 'Ada Lovelace', email: 'ada@analytical.com', titleAtCompany: 'Engineer' });
      await push('ada-2', { fullName: 'Ada Lovelace', email: 'a.lovelace@analytical.com' });
      await accepted(t, 'activity', {
        id: 'ada-post',
        activityType: 'made_post_topic',
        title: 'Notes on the engine',
        user: { id: 'ada-1' },
        timestamp: new Date().toISOString(),
      });
      await push('alan-1', { fullName: 'Alan Turing', email: 'alan@bletchley.io' });
      await push('alan-2', { fullName: 'Alan Turing', email: 'a.turing@bletchley.io' });
      // One mailbox with and without a +tag.
      await push('grace-1', { fullName: 'Grace Hopper', email: 'grace+meetups@cobol.io' });
      await push('grace-2', { email: 'grace@cobol.io' });
      for (let n = 1; n <= FILLERS; n += 1) {
        await push(`filler-${n}a`, { fullName: `Filler Person${n}`, email: `kiwi@filler${n}.com` });
        await push(`filler-${n}b`, { fullName: `Filler Person${n}`, email: `mango@filler${n}.com` });
      }
      page = await firstAdminPage(t, browser());
    });
    afterAll(async () => {
      await page?.close();
      await t?.close();
    });

    it('says what the page is for while there is nothing to review', async () => {
      await openDuplicates();
      await page.getByText('No likely duplicates to review.').waitFor();
      expect(new URL(page.url()).pathname).toBe('/contacts/duplicates');
      expect(await page.getByRole('link', { name: 'Duplicates' }).getAttribute('aria-current')).toBe('page');
      expect(await page.getByRole('link', { name: 'Contacts' }).getAttribute('aria-current')).toBeNull();
      expect(await page.getByRole('article').count()).toBe(0);
    });

    it('shows the pairs the step found side by side, with the score and the reasons, and pages with "Load more"', async () => {
      await worker.runSteps();
      expect(await suggestions()).toHaveLength(FILLERS + 3);
      await page.reload();
      const ada = card('ada-1', 'ada-2');
      await ada.waitFor();
      // The reasons as the API words them.
      const reasons = ada.getByRole('list', { name: 'Why' }).getByRole('listitem');
      await reasons.first().waitFor();
      expect(await reasons.allTextContents()).toEqual((await suggestions()).find(pairOf('ada-1', 'ada-2'))!.reasons);
      expect(await reasons.first().textContent()).toBe('both are named "Ada Lovelace" and work at analytical.com');
      expect(await ada.getByText(/^\d+% likely$/).textContent()).toMatch(/^(8\d|9\d|100)% likely$/);
      // Each contact on its side: name, email, organization, identities, activity counts.
      const older = ada.getByRole('region', { name: `Ada Lovelace (${ids['ada-1']})` });
      const newer = ada.getByRole('region', { name: `Ada Lovelace (${ids['ada-2']})` });
      await older.getByRole('link', { name: 'Ada Lovelace' }).waitFor();
      await older.getByText('ada@analytical.com', { exact: true }).first().waitFor();
      await older.getByText('Email: ada@analytical.com').waitFor();
      await older.getByText('1 (1 in the last 28 days)').waitFor();
      await older.getByText('Engineer').waitFor();
      await newer.getByText('Email: a.lovelace@analytical.com').waitFor();
      await newer.getByText('0 (0 in the last 28 days)').waitFor();
      for (const side of [older, newer]) await side.getByText('analytical.com').first().waitFor();
      // Best first, a page at a time.
      await expect.poll(() => page.getByRole('article').count()).toBe(10);
      expect(await page.getByRole('article').first().getAttribute('aria-label')).toBe(pairName('ada-1', 'ada-2'));
      await page.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => page.getByRole('article').count()).toBe(FILLERS + 3);
      expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
      // A contact's page lists its own pairs.
      await older.getByRole('link', { name: 'Ada Lovelace' }).click();
      await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();
      const own = page.getByRole('region', { name: 'Likely duplicates' });
      await own.getByRole('article', { name: pairName('ada-1', 'ada-2') }).waitFor();
      expect(await own.getByRole('article').count()).toBe(1);
    });

    it('reaches Merge and Dismiss by Tab; Dismiss takes the pair off the list for good', async () => {
      await openDuplicates();
      const first = page.getByRole('article').first();
      await first.waitFor();
      // The page's heading has the focus when it opens: the first tab stops are the best pair's buttons.
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Duplicates');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe(`Merge ${pairName('ada-1', 'ada-2')}`);
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe(`Dismiss ${pairName('ada-1', 'ada-2')}`);
      // On to the next pair's Dismiss by the keyboard alone, and press it.
      const target = `Dismiss ${pairName('alan-1', 'alan-2')}`;
      for (let presses = 0; presses < 40 && (await page.evaluate('document.activeElement.textContent')) !== target; presses += 1) {
        await page.keyboard.press('Tab');
      }
      expect(await page.evaluate('document.activeElement.textContent')).toBe(target);
      await page.keyboard.press('Enter');
      await page.getByText(`Dismissed: ${pairName('alan-1', 'alan-2')} will not be suggested again.`, { exact: false }).waitFor();
      expect(await card('alan-1', 'alan-2').count()).toBe(0);
      expect((await suggestions()).find(pairOf('alan-1', 'alan-2'))).toBeUndefined();
      // Computed again, it stays dismissed.
      await page.reload();
      await card('ada-1', 'ada-2').waitFor();
      expect(await card('alan-1', 'alan-2').count()).toBe(0);
    });

    it("shows the API's refusal in its words, on the pair it concerns", async () => {
      const grace = card('grace-1', 'grace-2');
      await grace.waitFor();
      // Someone else merged them meanwhile.
      expect((await t.send('POST', `/api/v2/contacts/${ids['grace-1']}/merge`, { contactId: ids['grace-2'] })).statusCode).toBe(200);
      await grace.getByRole('button', { name: `Merge ${pairName('grace-1', 'grace-2')}` }).click();
      const again = await t.send('POST', `/api/v2/contacts/${ids['grace-1']}/merge`, { contactId: ids['grace-2'] });
      expect(again.statusCode).toBe(400);
      const message = again.json().error.message as string;
      expect(message).toContain('one contact already');
      expect(await grace.getByRole('alert').textContent()).toBe(message);
    });

    it('merges a pair, names the survivor with a link, whose page shows the merge and undoes it after a confirmation', async () => {
      await page.reload();
      const ada = card('ada-1', 'ada-2');
      await ada.getByRole('button', { name: `Merge ${pairName('ada-1', 'ada-2')}` }).click();
      const status = page.getByRole('status').filter({ hasText: `Merged ${ids['ada-2']} into Ada Lovelace (${ids['ada-1']}).` });
      await status.waitFor();
      expect(await ada.count()).toBe(0);
      // The older contact survived; the other's ID leads to it; the pair is no longer suggested.
      expect((await contactOf(ids['ada-2']!)).id).toBe(ids['ada-1']);
      expect((await suggestions()).find(pairOf('ada-1', 'ada-2'))).toBeUndefined();
      // The focus moved to the message, whose link comes next.
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.getAttribute("href")')).toBe(`/contacts/${ids['ada-1']}`);

      await status.getByRole('link', { name: 'Ada Lovelace' }).click();
      await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();
      const merges = page.getByRole('region', { name: 'Merges' });
      const row = merges.getByRole('row', { name: new RegExp(ids['ada-2']!) });
      await row.getByRole('cell', { name: 'user:admin@hearth.local', exact: true }).waitFor();
      await row.getByText('merged by hand by user:admin@hearth.local').waitFor();
      await page.getByRole('region', { name: 'Identities' }).getByText('a.lovelace@analytical.com').waitFor();
      const asked: string[] = [];
      page.once('dialog', (dialog) => void asked.push(dialog.message()));
      await row.getByRole('button', { name: `Undo merge of ${ids['ada-2']}` }).click();
      const undone = page.getByRole('status').filter({ hasText: `Undone: Ada Lovelace (${ids['ada-2']}) is a contact of its own again.` });
      await undone.waitFor();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(`Undo the merge of ${ids['ada-2']} into Ada Lovelace (${ids['ada-1']})?`);
      await row.getByRole('cell', { name: /^Undone .* by user:admin@hearth\.local$/ }).waitFor();
      expect(await row.getByRole('button').count()).toBe(0);
      // Both contacts again, each with its own address.
      expect(await contactOf(ids['ada-1']!)).toMatchObject({ id: ids['ada-1'], primaryEmail: 'ada@analytical.com' });
      expect(await contactOf(ids['ada-2']!)).toMatchObject({ id: ids['ada-2'], primaryEmail: 'a.lovelace@analytical.com' });
      const history = (await t.get(`/api/v2/contacts/${ids['ada-1']}/merges`)).json().data;
      expect(history).toEqual([expect.objectContaining({ mergedId: ids['ada-2'], unmergedBy: 'user:admin@hearth.local', undoable: false })]);
      await undone.getByRole('link', { name: 'Ada Lovelace' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/contacts/${ids['ada-2']}`);
      await page.getByRole('region', { name: 'Profile' }).getByText('a.lovelace@analytical.com').waitFor();
    });

    it('merges a contact with another found by a search, and moves to the survivor', async () => {
      // On the newer contact's page: it is the one merged away.
      const form = page.getByRole('form', { name: 'Find the contact to merge with' });
      await form.getByLabel('Find a contact').fill('c_99999999');
      await form.getByRole('button', { name: 'Search' }).click();
      const missing = (await t.get('/api/v2/contacts/c_99999999')).json();
      await page.getByRole('region', { name: 'Merge with…' }).getByRole('alert').filter({ hasText: missing.error.message }).waitFor();
      await form.getByLabel('Find a contact').fill('LOVELACE');
      await form.getByRole('button', { name: 'Search' }).click();
      const choice = page.getByRole('radio', { name: new RegExp(`^Ada Lovelace ${ids['ada-1']} · ada@analytical\\.com`) });
      await choice.check();
      await page
        .getByRole('group', { name: 'Confirm the merge' })
        .getByText(`Make Ada Lovelace (${ids['ada-2']}) and Ada Lovelace (${ids['ada-1']}) one contact?`)
        .waitFor();
      await page.getByRole('button', { name: 'Merge with Ada Lovelace' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Merged ${ids['ada-2']} into Ada Lovelace (${ids['ada-1']}).` })
        .waitFor();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/contacts/${ids['ada-1']}`);
      expect((await contactOf(ids['ada-2']!)).id).toBe(ids['ada-1']);
      const history = (await t.get(`/api/v2/contacts/${ids['ada-1']}/merges`)).json().data as { unmergedAt: string | null; undoable: boolean }[];
      expect(history.map((merge) => [merge.unmergedAt === null, merge.undoable])).toEqual([
        [true, true],
        [false, false],
      ]);
      const merges = page.getByRole('region', { name: 'Merges' });
      await expect.poll(() => merges.getByRole('button', { name: `Undo merge of ${ids['ada-2']}` }).count()).toBe(1);
    });
  });
});
