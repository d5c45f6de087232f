import { type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWriter } from '../../src/core/writer.ts';
import { describeInChromium, firstAdminPage } from '../helpers/chromium.ts';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { freePort } from '../helpers/free-port.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** Posts by the contact in the "API" source: more than a page of the timeline (20). */
const POSTS = 23;
/** Comments by the contact in the "Forum" source, and one post there. */
const COMMENTS = 3;

/**
 * A contact's page in a real browser, driven by labels and roles: its timeline filtered by source and by
 * activity type (the filters kept in the URL, "Load more" for the next page), its removal from a segment
 * after a confirmation, tags added and removed, custom field values edited in place, and the API's refusal
 * of a value shown next to the field in its words. Everything the browser did is checked through the API.
 */
describeInChromium('the contact page', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestContext;
    let url: string;
    let page: Page;
    let forum: string;
    let contact: string;
    const segment: Record<string, string> = {};
    const tag: Record<string, string> = {};
    const field: Record<string, string> = {};

    const region = (name: string) => () => page.getByRole('region', { name, exact: true });
    const activities = region('Activities');
    const segments = region('Segments');
    const tags = region('Tags');
    const customFields = region('Custom fields');
    const rows = (): Locator => activities().getByRole('table', { name: 'Activities of the contact' }).locator('tbody tr');

    /** What the API counts for the contact's activities with these filter clauses. */
    const counted = async (clauses: { type: string; field: string; params: { op: string; value: string } }[]) => {
      const filter = clauses.length ? `&lightFilter=${encodeURIComponent(JSON.stringify({ type: 'and', clauses }))}` : '';
      const response = await t.get(`/api/v2/activities?contactId=${contact}&cols=recordCount&limit=1${filter}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().meta.recordCount as number;
    };
    const read = async () =>
      (await t.get(`/api/v2/contacts/${contact}?cols=segments,tags,cf_*`)).json().data as {
        segments: { id: string }[];
        tags: string[];
        customFields: Record<string, { type: string; value: unknown }>;
      };
    const open = async (query = '') => {
      await page.goto(`${url}/contacts/${contact}${query}`);
      await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();
    };

    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await createTestContext(engine, { publicUrl: url });
      await t.app.listen({ port, host: '127.0.0.1' });
      const source = await t.services.sources.create(cliWriter(t.communityId), { name: 'Forum' });
      forum = `sig_${source.id}`;
      const user = { id: 'ada', fullName: 'Ada Lovelace', email: 'ada@example.org' };
      contact = (await t.newContact(user)).id;
      const hour = 3_600_000;
      for (let n = 0; n < POSTS; n += 1) {
        await t.newActivity({
          id: `post-${n}`,
          user,
          content: { type: 'text', value: `Post ${n}` },
          timestamp: new Date(Date.now() - (n + 1) * hour).toISOString(),
        });
      }
      const forumUser = { id: 'ada-forum', fullName: 'Ada Lovelace', email: 'ada@example.org' };
      for (let n = 0; n < COMMENTS; n += 1) {
        await t.newActivity({
          sourceId: source.id,
          id: `comment-${n}`,
          activityType: 'commented_replied',
          user: forumUser,
          content: { type: 'text', value: `Comment ${n}` },
          timestamp: new Date(Date.now() - (n + 1) * 2 * hour).toISOString(),
        });
      }
      await t.newActivity({
        sourceId: source.id,
        id: 'forum-post',
        user: forumUser,
        content: { type: 'text', value: 'Forum post' },
        timestamp: new Date().toISOString(),
      });
      // Another person's activity in the forum: never on Ada's timeline.
      await t.newActivity({ sourceId: source.id, id: 'other-comment', activityType: 'commented_replied' });
      for (const name of ['Champions', 'Speakers', 'Newsletter']) segment[name] = (await t.newSegment({ name })).id;
      for (const name of ['vip', 'speaker']) tag[name] = (await t.newTag({ name })).id;
      field.Nickname = (await t.newCustomField({ name: 'Nickname', valueType: 'string' })).id;
      field.Seats = (await t.newCustomField({ name: 'Seats', valueType: 'int' })).id;
      const setup = await t.send('POST', '/api/v2/contacts/bulk-update', {
        contactIds: [contact],
        segmentId: segment.Champions,
        tagIdsToAdd: [tag.vip],
        customFields: [{ customFieldId: field.Nickname, customFieldValue: { type: 'string', value: 'Countess' } }],
      });
      expect(setup.statusCode, setup.body).toBe(200);
      expect((await t.send('POST', '/api/v2/contacts/bulk-update', { contactIds: [contact], segmentId: segment.Speakers })).statusCode).toBe(200);
      page = await firstAdminPage(t, browser());
    });
    afterAll(async () => {
      await page?.close();
      await t?.close();
    });

    it('shows the timeline newest first, counted as the API counts, a page at a time with "Load more"', async () => {
      await open();
      const all = await counted([]);
      expect(all).toBe(POSTS + COMMENTS + 1);
      await activities()
        .getByRole('status')
        .filter({ hasText: `${all} activities; 20 shown.` })
        .waitFor();
      expect(await rows().count()).toBe(20);
      expect(await rows().first().getByRole('cell').nth(3).textContent()).toBe('Forum post');
      await activities().getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => rows().count()).toBe(all);
      await activities()
        .getByRole('status')
        .filter({ hasText: `${all} activities.` })
        .waitFor();
      expect(await activities().getByRole('button', { name: 'Load more' }).count()).toBe(0);
      // The focus went to the first row "Load more" added.
      await expect.poll(() => page.evaluate('document.activeElement.closest("tr")?.rowIndex')).toBe(21);
    });

    it("filters by source and by type, kept in the URL; the counts are the API's", async () => {
      await open();
      await activities().getByLabel('Source').selectOption({ label: 'Forum' });
      const inForum = await counted([{ type: 'stringFilter', field: 'providerId', params: { op: 'eq', value: forum } }]);
      expect(inForum).toBe(COMMENTS + 1);
      await activities()
        .getByRole('status')
        .filter({ hasText: `${inForum} activities match the filters.` })
        .waitFor();
      await expect.poll(() => rows().count()).toBe(inForum);
      expect(new Set(await rows().locator('td:nth-child(3)').allTextContents())).toEqual(new Set(['Forum']));
      expect(new URL(page.url()).searchParams.get('source')).toBe(forum);

      await activities().getByLabel('Activity type').selectOption('commented_replied');
      const comments = await counted([
        { type: 'stringFilter', field: 'providerId', params: { op: 'eq', value: forum } },
        { type: 'stringFilter', field: 'type', params: { op: 'eq', value: 'commented_replied' } },
      ]);
      expect(comments).toBe(COMMENTS);
      await activities()
        .getByRole('status')
        .filter({ hasText: `${comments} activities match the filters.` })
        .waitFor();
      await expect.poll(() => rows().count()).toBe(comments);
      expect(new Set(await rows().locator('td:nth-child(2)').allTextContents())).toEqual(new Set(['commented_replied']));

      // By type alone, across sources.
      await activities().getByLabel('Source').selectOption({ label: 'All sources' });
      const posts = await counted([{ type: 'stringFilter', field: 'type', params: { op: 'eq', value: 'made_post_topic' } }]);
      await activities().getByLabel('Activity type').selectOption('made_post_topic');
      expect(posts).toBe(POSTS + 1);
      await activities()
        .getByRole('status')
        .filter({ hasText: `${posts} activities match the filters; 20 shown.` })
        .waitFor();
      const search = new URL(page.url()).searchParams;
      expect([search.get('source'), search.get('type')]).toEqual([null, 'made_post_topic']);

      // The URL alone opens the page filtered.
      await open(`?source=${forum}&type=made_post_topic`);
      await activities().getByRole('status').filter({ hasText: '1 activity match the filters.' }).waitFor();
      expect(await activities().getByLabel('Source').inputValue()).toBe(forum);
      expect(await activities().getByLabel('Activity type').inputValue()).toBe('made_post_topic');
      expect(await rows().first().getByRole('cell').nth(3).textContent()).toBe('Forum post');
      await activities().getByRole('button', { name: 'Clear filters' }).click();
      await activities()
        .getByRole('status')
        .filter({ hasText: `${POSTS + COMMENTS + 1} activities; 20 shown.` })
        .waitFor();
      expect(new URL(page.url()).search).toBe('');
    });

    it('removes the contact from a segment after a confirmation that Escape cancels', async () => {
      await open();
      const remove = segments().getByRole('button', { name: 'Remove from Champions' });
      // By the keyboard: Enter opens the confirmation, whose button takes the focus; Escape closes it.
      await remove.focus();
      await page.keyboard.press('Enter');
      const confirm = segments().getByRole('group', { name: 'Confirm the removal from Champions' });
      await confirm.getByText('Take Ada Lovelace out of the segment Champions?').waitFor();
      const focused = () => page.evaluate('document.activeElement.textContent');
      await expect.poll(focused).toBe('Yes, remove from Champions');
      await page.keyboard.press('Escape');
      await expect.poll(() => confirm.count()).toBe(0);
      await expect.poll(focused).toBe('Remove from Champions');
      expect((await read()).segments.map((item) => item.id)).toEqual([segment.Champions, segment.Speakers]);

      await remove.click();
      await confirm.getByRole('button', { name: 'Yes, remove from Champions' }).click();
      await segments().getByRole('status').filter({ hasText: 'Removed from Champions.' }).waitFor();
      await expect.poll(async () => (await read()).segments.map((item) => item.id)).toEqual([segment.Speakers]);
      await expect.poll(() => segments().getByRole('link', { name: 'Champions' }).count()).toBe(0);
      await segments().getByRole('link', { name: 'Speakers' }).waitFor();
      const entries = (await t.get('/api/v2/admin/audit-log?operation=segment.remove_contact')).json().data as { actor: string; entityIds: string[] }[];
      expect(entries[0]).toMatchObject({ actor: 'user:admin@hearth.local', entityIds: [segment.Champions, contact] });

      // And back in with "Add to segment".
      await segments().getByLabel('Segment to add to').selectOption({ label: 'Champions' });
      await segments().getByRole('button', { name: 'Add to segment' }).click();
      await segments().getByRole('status').filter({ hasText: 'Added to Champions.' }).waitFor();
      await expect.poll(async () => (await read()).segments.map((item) => item.id)).toEqual([segment.Champions, segment.Speakers]);
    });

    it('adds a tag and removes one', async () => {
      await open();
      await tags().getByLabel('Tag to add').selectOption({ label: 'speaker' });
      await tags().getByRole('button', { name: 'Add tag' }).click();
      await tags().getByRole('status').filter({ hasText: 'Added the tag speaker.' }).waitFor();
      await expect.poll(async () => (await read()).tags.sort()).toEqual([tag.vip, tag.speaker].sort());
      await tags().getByRole('list', { name: 'Tags of the contact' }).getByText('speaker', { exact: true }).waitFor();

      await tags().getByRole('button', { name: 'Remove the tag vip' }).click();
      await tags().getByRole('status').filter({ hasText: 'Removed the tag vip.' }).waitFor();
      await expect.poll(async () => (await read()).tags).toEqual([tag.speaker]);
      await expect.poll(() => tags().getByRole('button', { name: 'Remove the tag vip' }).count()).toBe(0);
    });

    it('edits a text and a number custom field in place; Escape cancels', async () => {
      await open();
      // Escape leaves the value as it was, and gives the focus back to "Edit".
      await customFields().getByRole('button', { name: 'Edit Nickname' }).click();
      const nickname = customFields().getByLabel('Nickname', { exact: true });
      expect(await nickname.inputValue()).toBe('Countess');
      await nickname.fill('Enchantress');
      await page.keyboard.press('Escape');
      await expect.poll(() => nickname.count()).toBe(0);
      await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('Edit Nickname');
      expect((await read()).customFields[field.Nickname!]).toEqual({ type: 'string', value: 'Countess' });

      await customFields().getByRole('button', { name: 'Edit Nickname' }).click();
      await nickname.fill('Enchantress of Numbers');
      await customFields().getByRole('button', { name: 'Save Nickname' }).click();
      await customFields().getByRole('status').filter({ hasText: 'Saved Nickname.' }).waitFor();
      await expect.poll(async () => (await read()).customFields[field.Nickname!]).toEqual({ type: 'string', value: 'Enchantress of Numbers' });
      await customFields().getByText('Enchantress of Numbers').waitFor();

      await customFields().getByRole('button', { name: 'Edit Seats' }).click();
      await customFields().getByLabel('Seats', { exact: true }).fill('12');
      await page.keyboard.press('Enter');
      await customFields().getByRole('status').filter({ hasText: 'Saved Seats.' }).waitFor();
      await expect.poll(async () => (await read()).customFields[field.Seats!]).toEqual({ type: 'int', value: 12 });
    });

    it("shows the API's refusal of a value next to the field, in its words", async () => {
      await open();
      const refusal = await t.send('POST', '/api/v2/contacts/bulk-update', {
        contactIds: [contact],
        customFields: [{ customFieldId: field.Seats, customFieldValue: { type: 'int', value: 1.5 } }],
      });
      expect(refusal.statusCode).toBe(400);
      const message = refusal.json().error.message as string;
      expect(message).toContain('needs an integer');
      await customFields().getByRole('button', { name: 'Edit Seats' }).click();
      const seats = customFields().getByLabel('Seats', { exact: true });
      await seats.fill('1.5');
      await customFields().getByRole('button', { name: 'Save Seats' }).click();
      const form = customFields().getByRole('form', { name: 'Edit Seats' });
      await form.getByRole('alert').waitFor();
      expect(await form.getByRole('alert').textContent()).toBe(message);
      expect(await seats.getAttribute('aria-invalid')).toBe('true');
      expect(await seats.evaluate((input) => input.getAttribute('aria-describedby')?.split(' ')[0])).toBe(await form.getByRole('alert').getAttribute('id'));
      // Text that is no number at all is the API's to refuse too.
      await seats.fill('a dozen');
      await customFields().getByRole('button', { name: 'Save Seats' }).click();
      await form.getByRole('alert').filter({ hasText: 'got "a dozen"' }).waitFor();
      expect((await read()).customFields[field.Seats!]).toEqual({ type: 'int', value: 12 });
      await customFields().getByRole('button', { name: 'Cancel editing Seats' }).click();
      await expect.poll(() => form.count()).toBe(0);
    });
  });
});
