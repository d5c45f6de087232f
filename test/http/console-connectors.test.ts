import { createHmac, randomUUID } from 'node:crypto';
import webhookExamples from '@octokit/webhooks-examples';
import { type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { describeInChromium, firstAdminPage } from '../helpers/chromium.ts';
import { freePort } from '../helpers/free-port.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { startDiscourseStandIn } from '../stand-ins/discourse-api.ts';
import { startGitHubStandIn } from '../stand-ins/github-api.ts';

/** GitHub's documented `ping` delivery (the first one a new webhook sends). */
const PING = (webhookExamples as unknown as { name: string; examples: Record<string, unknown>[] }[]).find((event) => event.name === 'ping')!.examples[0]!;

/**
 * The Sources page in a real browser, driven by labels and roles as a person would: a new admin adds a GitHub
 * connector (against the local GitHub stand-in), tests its connection first, copies the webhook secret shown
 * once, watches the backfill's state, then finds the people and activities it brought on the Contacts and
 * Activities pages. What the page did is checked through the API too: the secret it made is the one the
 * receiver checks, and no answer carries a secret.
 */
describeInChromium('connectors in the web console,', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let url: string;
    let page: Page;
    let github: Awaited<ReturnType<typeof startGitHubStandIn>>;
    let forum: Awaited<ReturnType<typeof startDiscourseStandIn>>;
    let worker: ReturnType<typeof createWorker>;
    const token = 'github_pat_console_test';
    const rotatedToken = 'github_pat_console_rotated';
    const repositories = ['hearth-dev/hearth'];

    beforeAll(async () => {
      github = await startGitHubStandIn({
        repositories: [{ fullName: 'hearth-dev/hearth', stargazers: 4, forks: 1, issues: 4, issueComments: 2 }],
        tokens: [token, rotatedToken],
      });
      forum = await startDiscourseStandIn({ topics: 3, postsPerTopic: 2, users: 3 });
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      // The stand-in listens on 127.0.0.1, which the outbound guard refuses unless told otherwise.
      t = await createTestApp(engine, { publicUrl: url, allowPrivateFetch: true });
      await t.app.listen({ port, host: '127.0.0.1' });
      worker = createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs, pollIntervalMs: 50 });
      worker.start();
      page = await firstAdminPage(t, browser());
    }, 60_000);
    afterAll(async () => {
      await page?.close();
      await worker?.stop();
      await t?.close();
      await github?.stop();
      await forum?.stop();
    });

    const card = (name: string) => page.getByRole('region', { name: new RegExp(`^${name} `) });
    const stateOf = async (name: string) =>
      (
        (await card(name)
          .getByText(/^State:/)
          .textContent()) ?? ''
      ).replace(/^State:\s*/, '');

    it('adds a GitHub connector after testing it, shows the webhook secret once, and the backfill brings contacts and activities', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources' }).click();
      await page.getByRole('heading', { name: 'Sources', exact: true }).waitFor();
      await page.getByText('No connector yet').waitFor();
      await page.getByRole('button', { name: 'Add a connector' }).click();
      const form = page.getByRole('form', { name: 'Add a connector' });
      expect(await form.getByLabel('GitHub', { exact: true }).isChecked()).toBe(true);
      await form.getByLabel('Repository names').fill(repositories.join('\n'));
      await form.getByText('Advanced').click();
      expect(await form.getByLabel('API URL').inputValue()).toBe('https://api.github.com');
      await form.getByLabel('API URL').fill(github.url);

      // A wrong token: the test says what GitHub answered, and nothing is saved.
      await form.getByLabel('Token', { exact: true }).fill('github_pat_wrong');
      expect(await form.getByLabel('Token', { exact: true }).getAttribute('type')).toBe('password');
      await form.getByRole('button', { name: 'Test connection' }).click();
      await form.getByRole('alert').waitFor();
      expect(await form.getByRole('alert').textContent()).toMatch(/\S/);
      expect((await t.get('/api/v2/admin/connectors')).json().data).toEqual([]);

      await form.getByLabel('Token', { exact: true }).fill(token);
      await form.getByRole('button', { name: 'Test connection' }).click();
      await expect.poll(() => form.getByRole('alert').count()).toBe(0);
      await form.getByRole('status').filter({ hasNotText: 'Asking' }).waitFor();

      await form.getByRole('button', { name: 'Add connector' }).click();
      const setup = page.getByRole('region', { name: /^Set up the webhook of / });
      const secret = (await setup.getByLabel('Webhook secret').textContent())!.trim();
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      const receiverUrl = (await setup.getByLabel('Receiver URL').textContent())!.trim();
      expect(receiverUrl.startsWith(`${url}/api/v2/receivers/github/`)).toBe(true);
      await setup.getByText('application/json', { exact: true }).waitFor();

      // The server names the secrets it holds and answers none of them.
      const listed = await t.get('/api/v2/admin/connectors');
      const [connector] = listed.json().data as { id: string; name: string; secrets: string[]; settings: Record<string, unknown> }[];
      expect(connector!.secrets.sort()).toEqual(['token', 'webhookSecret']);
      expect(connector!.settings).toEqual({ repositories, apiUrl: github.url, bots: 'skip', commits: false });
      expect(listed.body).not.toContain(secret);
      expect(listed.body).not.toContain(token);

      // The secret the page showed is the one the receiver checks: a delivery signed with it is taken.
      const body = JSON.stringify(PING);
      const delivered = await fetch(receiverUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'ping',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        },
        body,
      });
      expect(delivered.status).toBe(202);

      await setup.getByRole('button', { name: 'I have set up the webhook' }).click();
      expect(await setup.count()).toBe(0);

      // The page reads the state again by itself: the backfill ends, the ping shows as the last event.
      await expect.poll(() => stateOf(connector!.name), { timeout: 30_000 }).toBe('active');
      await expect
        .poll(async () => (await card(connector!.name).getByText('Last event received').locator('xpath=..').textContent()) ?? '', { timeout: 10_000 })
        .not.toContain('none yet');
      // One row per stream, each caught up, with the records it stored.
      const streams = card(connector!.name).getByRole('table', { name: `Streams of ${connector!.name}` });
      expect(await streams.getByRole('row').count()).toBeGreaterThan(1);
      expect(await streams.getByRole('cell', { name: 'reading' }).count()).toBe(0);

      const contacts = (await t.get('/api/v2/contacts?limit=5')).json().data as { name: string }[];
      expect(contacts.length).toBeGreaterThan(0);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).click();
      await page.getByRole('heading', { name: 'Contacts' }).waitFor();
      await page.getByRole('link', { name: contacts[0]!.name, exact: true }).first().waitFor();

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activities' }).click();
      await page.getByRole('heading', { name: 'Activities' }).waitFor();
      await page.getByRole('cell', { name: connector!.name, exact: true }).first().waitFor();
    }, 90_000);

    it('pauses, resumes, syncs now, takes new credentials, and removes the connector (its source stays)', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources' }).click();
      const [connector] = (await t.get('/api/v2/admin/connectors')).json().data as { id: string; name: string; sourceId: number }[];
      const name = connector!.name;
      await page.getByRole('button', { name: `Pause ${name}`, exact: true }).click();
      await expect.poll(() => stateOf(name)).toBe('paused');
      await page.getByRole('button', { name: `Resume ${name}`, exact: true }).click();
      await expect.poll(() => stateOf(name)).not.toBe('paused');

      // GitHub says the rate limit is spent until a time: the sync waits for it, and the page says until when.
      await expect.poll(() => stateOf(name)).toBe('active');
      github.fault({ kind: 'primary-limit', reset: new Date(Date.now() + 3_600_000) });
      await page.getByRole('button', { name: `Sync now ${name}`, exact: true }).click();
      await card(name)
        .getByText(/A sync of .* (is queued|is already queued or running) \(job \d+\)/)
        .waitFor();
      // The time alone when the wait ends today, with the date after midnight (the reset is an hour away): a
      // time either way.
      await expect.poll(() => stateOf(name), { timeout: 15_000 }).toMatch(/^waiting for the rate limit until .*\d{1,2}:\d{2}/);
      await page.getByRole('button', { name: `Resume ${name}`, exact: true }).click();
      await expect.poll(() => stateOf(name), { timeout: 15_000 }).toBe('active');

      // GitHub refuses the token: the connector fails with the reason, and new credentials resume it.
      github.fault({ kind: 'unauthorized' });
      await page.getByRole('button', { name: `Sync now ${name}`, exact: true }).click();
      await expect.poll(() => stateOf(name), { timeout: 15_000 }).toMatch(/^failed: \S/);
      await page.getByRole('button', { name: `Edit credentials of ${name}` }).click();
      const edit = page.getByRole('form', { name: `New credentials for ${name}` });
      await edit.getByText('This connector failed: saving new credentials resumes it.').waitFor();
      await edit.getByRole('button', { name: 'Save credentials' }).click();
      await edit.getByRole('alert').getByText('Nothing to change').waitFor();
      await edit.getByLabel('New token').fill(rotatedToken);
      await edit.getByLabel('Also make a new webhook secret').check();
      await edit.getByRole('button', { name: 'Save credentials' }).click();
      await card(name).getByText(`Saved the credentials of ${name}.`).waitFor();
      const rotated = (await page
        .getByRole('region', { name: `Set up the webhook of ${name}` })
        .getByLabel('Webhook secret')
        .textContent())!.trim();
      expect(rotated).toMatch(/^[0-9a-f]{64}$/);
      await page.getByRole('button', { name: 'I have set up the webhook' }).click();
      await expect.poll(() => stateOf(name), { timeout: 15_000 }).toBe('active');
      expect(((await t.get('/api/v2/admin/connectors')).json().data[0] as { secrets: string[] }).secrets.sort()).toEqual(['token', 'webhookSecret']);

      await page.getByRole('button', { name: `Remove ${name}`, exact: true }).click();
      await page.getByText('No connector yet').waitFor();
      expect((await t.get('/api/v2/admin/connectors')).json().data).toEqual([]);
      // The source and its data stay: it is listed with the push sources now.
      await page.getByRole('region', { name: `Source ${name}` }).waitFor();
      expect(((await t.get('/api/v2/admin/sources')).json().data as { sourceId: number }[]).some((source) => source.sourceId === connector!.sourceId)).toBe(
        true,
      );
    }, 60_000);

    it('adds a Discourse connector by its URL, API username and key, and its posts become activities', async () => {
      await page.getByRole('button', { name: 'Add a connector' }).click();
      const form = page.getByRole('form', { name: 'Add a connector' });
      await form.getByLabel('Discourse', { exact: true }).check();
      await form.getByLabel('Forum URL').fill(forum.url);
      await form.getByLabel('API username').fill('system');
      await form.getByLabel('API key').fill('admin-key');
      expect(await form.getByLabel('API key').getAttribute('type')).toBe('password');
      await form.getByRole('button', { name: 'Test connection' }).click();
      await form.getByRole('status').filter({ hasText: forum.title }).waitFor();
      await form.getByRole('button', { name: 'Add connector' }).click();
      const setup = page.getByRole('region', { name: 'Set up the webhook of Discourse' });
      await setup.getByText('Post event', { exact: false }).waitFor();
      expect((await setup.getByLabel('Receiver URL').textContent())!.trim().startsWith(`${url}/api/v2/receivers/discourse/`)).toBe(true);
      const [connector] = (await t.get('/api/v2/admin/connectors')).json().data as { settings: unknown; secrets: string[] }[];
      expect(connector!.settings).toEqual({ url: forum.url, apiUsername: 'system' });
      expect(connector!.secrets.sort()).toEqual(['apiKey', 'webhookSecret']);
      await setup.getByRole('button', { name: 'I have set up the webhook' }).click();
      await expect.poll(() => stateOf('Discourse'), { timeout: 30_000 }).toBe('active');

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activities' }).click();
      await page.getByRole('heading', { name: 'Activities' }).waitFor();
      await page.getByRole('cell', { name: 'Discourse', exact: true }).first().waitFor();
    }, 60_000);

    it('lists a connector made through the API (Slack) with its credentials editable, and offers every platform the server has', async () => {
      // Slack's API at a local port nobody listens on: its sync waits, and nothing leaves the machine.
      const made = await t.send('POST', '/api/v2/admin/connectors', {
        kind: 'slack',
        settings: { channels: ['C0CONSOLE1'], apiUrl: 'http://127.0.0.1:9/api' },
        secrets: { botToken: 'xoxb-console-test-token', webhookSecret: 'slack-signing-secret-console' },
      });
      expect(made.statusCode).toBe(201);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources' }).click();
      // Its form is made from the kind's schemas (console-connector-forms.test.ts drives it).
      await card('Slack').getByRole('button', { name: 'Edit credentials of Slack' }).waitFor();
      expect(await page.getByRole('form', { name: 'Add a connector' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Add a connector' }).click();
      const platforms = page.getByRole('form', { name: 'Add a connector' }).getByRole('group', { name: 'Platform' });
      const offered = (await t.get('/api/v2/admin/connector-kinds')).json().data as { platformName: string }[];
      expect(await platforms.getByRole('radio').count()).toBe(offered.length);
      for (const kind of offered) await platforms.getByLabel(kind.platformName, { exact: true }).waitFor();
    }, 60_000);
  });
});
