import { type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { describeInChromium, firstAdminPage } from '../helpers/chromium.ts';
import { freePort } from '../helpers/free-port.ts';
import { push } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/** The server's today (its clock, far from the browser's): the home page must take its periods from the server. */
const TODAY = '2025-06-20';

const day = (offset: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * The console's home page, in a real browser: the first-day guide of a new community, whose token button
 * makes a token that pushes the first activity (then the page turns into the dashboard); the dashboard of a
 * community seeded over several days through the ingestion API: charts with their names and tables of the
 * same numbers, a bar's part opening the activities it counts, the active and new contacts' links, the
 * period and grouping kept in the URL.
 */
describeInChromium('the console home', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let url: string;
    let page: Page;
    let forumSourceId: number;
    const clock = new ManualClock(`${TODAY}T15:00:00.000Z`);

    const activity = (sourceId: number, id: string, user: string, date: string, activityType = 'made_post_topic') =>
      push(
        t,
        'activity',
        { id, activityType, user: { id: user, fullName: `Person ${user}`, email: `${user}@example.org` }, timestamp: `${date}T10:00:00.000Z` },
        { sourceId },
      ).then((response) => expect(response.statusCode, response.body).toBe(202));
    const figure = (name: string): Locator => page.getByRole('figure', { name });
    /** The rows of a chart's table, as the texts of their cells. */
    const rows = async (name: string): Promise<string[][]> => {
      const table = page.getByRole('table', { name });
      const body = table.locator('tbody tr');
      const result: string[][] = [];
      for (let i = 0; i < (await body.count()); i += 1) result.push((await body.nth(i).locator('th, td').allTextContents()).map((text) => text.trim()));
      return result;
    };

    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await createTestApp(engine, { publicUrl: url, clock });
      await t.app.listen({ port, host: '127.0.0.1' });
      page = await firstAdminPage(t, browser());
    });
    afterAll(async () => {
      await page?.close();
      await t?.close();
    });

    it('opens a new community on a guide to bringing data in; its token pushes, and the charts follow the first data', async () => {
      await page.goto(`${url}/`);
      await page.getByRole('heading', { name: 'Welcome to Hearth', level: 1 }).waitFor();
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).getAttribute('aria-current')).toBe('page');
      for (const step of ['Connect a platform', 'Push through the API', 'Import a file']) await page.getByRole('heading', { name: step }).waitFor();
      expect(await page.getByRole('link', { name: 'add a connector on the Sources page' }).getAttribute('href')).toBe('/sources');
      const request = page.getByLabel('Example push of an activity');
      await expect.poll(() => request.textContent()).toContain(`/community/v1/source/${t.sourceId}/activity`);
      expect(await request.textContent()).toContain('Bearer $TOKEN');

      await page.getByRole('button', { name: 'Make an ingestion token' }).click();
      await page.getByText('Made a token with just the sources:write scope').waitFor();
      const curl = (await request.textContent())!;
      const token = /Bearer ([^"\s]+)"/.exec(curl)![1]!;
      expect(token).not.toBe('$TOKEN');
      // Just the ingestion scope: it pushes, and reads nothing.
      const made = (await t.get('/api/v2/admin/tokens')).json().data as { name: string; scopes: string[] }[];
      expect(made.find((item) => item.name === 'Ingestion (made on the home page)')?.scopes).toEqual(['sources:write']);
      expect((await t.get('/api/v2/contacts', token)).statusCode).toBe(403);
      // The request as shown, sent with the token it shows.
      const body = JSON.parse(/-d '([\s\S]*)'$/.exec(curl.trim())![1]!) as Record<string, unknown>;
      const pushed = await push(t, 'activity', body, { token });
      expect(pushed.statusCode, pushed.body).toBe(202);
      // The guide looks again every few seconds, and gives way to the dashboard.
      await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 10_000 });
      const chart = figure('Activities per day, by source');
      await chart.waitFor();
      expect(await chart.locator('canvas').count()).toBeGreaterThan(0);
      expect((await rows('Activities per day, by source')).at(-1)).toEqual([expect.any(String), '1', '0']);
    });

    it('shows the activity of the period against the one before, with a table of the same numbers', async () => {
      const forum = await t.send('POST', '/api/v2/admin/sources', { name: 'Forum' });
      expect(forum.statusCode, forum.body).toBe(201);
      forumSourceId = forum.json().data.sourceId;
      // This period (the 28 days to today): three days with activity; the previous period: one.
      for (let n = 0; n < 3; n += 1) await activity(t.sourceId, `api-5-${n}`, `u${n}`, day(-5));
      for (let n = 0; n < 2; n += 1) await activity(forumSourceId, `forum-5-${n}`, `u${n + 3}`, day(-5), 'commented_replied');
      await activity(forumSourceId, 'forum-2', 'u0', day(-2));
      await activity(t.sourceId, 'api-old', 'u9', day(-40));

      await page.goto(`${url}/`);
      const name = 'Activities per day, by source';
      await figure(name).waitFor();
      await page.getByRole('img', { name: `${name}: chart; the table below has its numbers` }).waitFor();
      expect(await figure(name).locator('canvas').count()).toBeGreaterThan(0);
      await expect.poll(async () => (await rows(name)).length, { timeout: 15_000 }).toBe(28);
      const table = await rows(name);
      const headers = await page.getByRole('table', { name }).locator('thead th').allTextContents();
      expect(headers).toEqual(['Day', 'API', 'Forum', 'Total', 'Previous period']);
      // Day −5: three through the API, two on the forum; day −2 one on the forum; today the first push.
      expect(table[22]!.slice(1, 4)).toEqual(['3', '2', '5']);
      expect(table[25]!.slice(1, 4)).toEqual(['0', '1', '1']);
      expect(table[27]!.slice(1, 4)).toEqual(['1', '0', '1']);
      // The previous period's day −40 is its 16th day (it starts on day −55).
      expect(table.map((row) => row[4])).toEqual(table.map((_, i) => (i === 15 ? '1' : '0')));
      const activities = page.getByRole('region', { name: 'Activities', exact: true });
      expect(await activities.locator('.kpi-value').textContent()).toBe('7');
      expect(await activities.getByText('+600 %').count()).toBe(1);
    });

    it('opens, from a bar, the activities it counts, filtered the same way', async () => {
      await page.goto(`${url}/`);
      const name = 'Activities per day, by source';
      await expect.poll(async () => (await rows(name)).length, { timeout: 15_000 }).toBe(28);
      // The bottom of day −5's bar: its first group, the API source (most activities first).
      const over = figure(name).locator('.u-over');
      await over.scrollIntoViewIfNeeded();
      const box = (await over.boundingBox())!;
      await page.mouse.click(box.x + ((22 + 0.5) * box.width) / 28, box.y + box.height - 3);
      await page.getByRole('heading', { name: 'Activities', level: 1 }).waitFor();
      const opened = new URL(page.url());
      expect(opened.pathname).toBe('/activities');
      expect(opened.searchParams.get('startDate')).toBe(day(-5));
      expect(opened.searchParams.get('endDate')).toBe(day(-5));
      expect(opened.searchParams.get('lightFilter')).toBeTruthy();
      await page.getByText('3 match.').waitFor();
      await expect.poll(() => page.locator('main tbody tr').count()).toBe(3);
      await page.getByText(`Filtered by the link you followed from ${day(-5)} to ${day(-5)}.`).waitFor();
      // The table's cell is the same link, for the keyboard (the table is visually hidden, still in the tab order).
      await page.goBack();
      await expect.poll(async () => (await rows(name)).length, { timeout: 15_000 }).toBe(28);
      const cell = page.getByRole('table', { name }).locator('tbody tr').nth(22).getByRole('link', { name: '2', exact: true });
      expect(new URL(`${url}${await cell.getAttribute('href')}`).searchParams.get('startDate')).toBe(day(-5));
      await cell.focus();
      await page.keyboard.press('Enter');
      await page.getByText('2 match.').waitFor();
      await expect.poll(() => page.locator('main tbody tr').count()).toBe(2);
    });

    it('counts active and new contacts against the previous period, each linked to its contacts', async () => {
      await page.goto(`${url}/`);
      const active = page.getByRole('region', { name: 'Active contacts' });
      const fresh = page.getByRole('region', { name: 'New contacts' });
      // Active: u0..u4 and the first push's person; new: the same six (u9 was active only before).
      await expect.poll(() => active.locator('.kpi-value').textContent()).toBe('6');
      expect(await active.getByText('+500 %').count()).toBe(1);
      expect(await active.getByText('(1 in the previous 28 days)').count()).toBe(1);
      expect(await fresh.locator('.kpi-value').textContent()).toBe('6');
      const stats = (await t.get(`/api/v2/stats/contacts?startDate=${day(-27)}&endDate=${TODAY}`)).json().data;
      for (const [region, stat] of [
        [active, stats.active],
        [fresh, stats.new],
      ] as const) {
        const link = region.getByRole('link');
        if (stat.lightFilter === null) {
          expect(await link.count()).toBe(0);
          continue;
        }
        expect(new URL(`${url}${await link.getAttribute('href')}`).searchParams.get('lightFilter')).toBe(stat.lightFilter);
      }
      if (stats.active.lightFilter !== null) {
        await active.getByRole('link').click();
        await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
        await page.getByText('6 match.').waitFor();
        await expect.poll(() => page.locator('main tbody tr').count()).toBe(6);
      }
    });

    it('keeps the period and the grouping in the URL', async () => {
      await page.goto(`${url}/`);
      const period = page.getByRole('navigation', { name: 'Period' });
      await period.getByRole('link', { name: '7 days' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('period')).toBe('7');
      await expect.poll(async () => (await rows('Activities per day, by source')).length, { timeout: 15_000 }).toBe(7);
      await page.reload();
      await expect.poll(async () => (await rows('Activities per day, by source')).length, { timeout: 15_000 }).toBe(7);
      expect(await period.getByRole('link', { name: '7 days' }).getAttribute('aria-current')).toBe('page');
      await page.getByRole('button', { name: 'By category' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('by')).toBe('category');
      expect(new URL(page.url()).searchParams.get('period')).toBe('7');
      await figure('Activities per day, by category').waitFor();
      expect(await page.getByRole('button', { name: 'By category' }).getAttribute('aria-pressed')).toBe('true');
      await period.getByRole('link', { name: '90 days' }).click();
      await figure('Activities per week, by category').waitFor();
      const weeks = await rows('Activities per week, by category');
      // 90 days from Monday-aligned weeks: 14 or 15 buckets, the first and last partial; every activity counted once.
      expect(weeks.length).toBeGreaterThanOrEqual(13);
      expect(weeks.reduce((sum, row) => sum + Number(row.at(-2)), 0)).toBe(8);
      await page.goBack();
      await figure('Activities per day, by category').waitFor();
    });
  });
});
