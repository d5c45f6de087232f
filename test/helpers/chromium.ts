import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';

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
