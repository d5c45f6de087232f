import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';
import type { TestApp } from './test-app.ts';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it); the browser tests skip without it. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => fs.existsSync(file));
export const CHROMIUM_SKIP_REASON = 'skipped: no Chromium at /usr/bin/chromium (apt-get install -y chromium)';

/** Chromium headless, as root may run it in a container. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/**
 * A describe block that runs with one Chromium launched for it and closed after it (`browser()` is that
 * one), or is skipped, saying why, on a machine without Chromium.
 */
export function describeInChromium(title: string, body: (browser: () => Browser) => void): void {
  describe.skipIf(!CHROMIUM)(`${title} in Chromium${CHROMIUM ? '' : ` (${CHROMIUM_SKIP_REASON})`}`, () => {
    let browser: Browser | null = null;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });
    body(() => browser!);
  });
}

/** The password firstAdminPage sets. */
export const FIRST_ADMIN_PASSWORD = 'a long admin password';

/**
 * A page of `browser` where the community's admin followed the first-run link, as the server prints it, and
 * set a password: signed in. It accepts every dialog (the console confirms removals with one).
 */
export async function firstAdminPage(t: TestApp, browser: Browser): Promise<Page> {
  const admin = (await t.services.appUsers.list(t.communityId)).find((user) => user.role === 'admin')!;
  const link = await t.services.appUsers.firstRunLink(t.communityId, admin.id);
  // A page of its own context, as tools that open a second page beside it (axe-core) need.
  const page = await (await browser.newContext()).newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(link.url);
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  await page.getByLabel('New password').fill(FIRST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.getByText('Your password is set').waitFor();
  return page;
}
