import { type Page } from 'playwright-core';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { CONNECTOR_KINDS, type ConnectorKind } from '../../src/modules/connectors/index.ts';
import { describeInChromium, firstAdminPage } from '../helpers/chromium.ts';
import { freePort } from '../helpers/free-port.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { startSlackStandIn, type SlackStandInOptions } from '../stand-ins/slack-api.ts';
import { bodies, signedDelivery } from '../stand-ins/slack-events.ts';

/**
 * The Sources page's forms for platforms without a form written for them, made from the schemas the server
 * publishes for each kind (`GET /api/v2/admin/connector-kinds`), in a real browser driven by labels and roles.
 * Slack, against its local stand-in: the signing secret Slack issues is typed like any other secret, the
 * connection is tested, the connector made, and its bot token later rotated. And a platform without webhooks
 * (a test-only kind, as in connectors-polled.test.ts): no webhook secret is made, no webhook step is shown.
 */

const TOKEN = 'xoxb-0000000001-0000000002-consoleformtoken';
const ROTATED = 'xoxb-0000000001-0000000002-consolerotatedtoken';
const SIGNING_SECRET = 'slack-signing-secret-console-forms';

/** A public board read only by syncs, with a field of every kind a schema form makes. */
const board: ConnectorKind<{ section: string }, { apiKey: string }> = {
  kind: 'hackernews',
  platformName: 'Board',
  settingsSchema: Type.Object(
    {
      section: Type.String({ minLength: 1, description: 'The section of the board to read, e.g. news' }),
      topics: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true, description: 'Topics to follow' })),
      backfillDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, description: 'How many days back the first sync reads' })),
      profiles: Type.Optional(Type.Boolean({ description: 'Read profiles (default true)' })),
      order: Type.Optional(Type.Union([Type.Literal('new'), Type.Literal('top')], { description: 'Which posts first' })),
    },
    { additionalProperties: false },
  ),
  secretsSchema: Type.Object({ apiKey: Type.String({ minLength: 8, description: 'The board’s API key' }) }, { additionalProperties: false }),
  async streams(settings) {
    return [`section:${settings.section}`];
  },
  async page() {
    return {
      translation: {
        users: [],
        activities: [{ id: 'post-1', activityType: 'hackernews_story', timestamp: '2026-01-15T11:00:00Z', user: { id: 'poster-1', username: 'poster1' } }],
        skipped: [],
      },
      checkpoint: 1,
      done: true,
      records: 1,
    };
  },
  test: async () => 'the board answers',
};

describeInChromium('connector forms made from the kinds’ schemas,', (browser) => {
  describe.each(ENGINES)('%s', (engine) => {
    let t: TestApp;
    let url: string;
    let page: Page;
    let worker: ReturnType<typeof createWorker>;
    let slack: Awaited<ReturnType<typeof startSlackStandIn>>;
    // Read by the stand-in at each request: changing `token` is Slack reissuing the app's bot token.
    const workspace: SlackStandInOptions = {
      token: TOKEN,
      channels: [{ id: 'C0GENERAL', name: 'general' }],
      users: [{ id: 'U0ALICE', name: 'alice', realName: 'Alice Liddell' }],
    };

    beforeAll(async () => {
      slack = await startSlackStandIn(workspace);
      slack.post('C0GENERAL', { user: 'U0ALICE', text: 'Hello from the stand-in' });
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      t = await createTestApp(engine, {
        publicUrl: url,
        allowPrivateFetch: true,
        connectorKinds: [CONNECTOR_KINDS.find((kind) => kind.kind === 'slack')!, board],
      });
      await t.app.listen({ port, host: '127.0.0.1' });
      worker = createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs, pollIntervalMs: 50 });
      worker.start();
      page = await firstAdminPage(t, browser());
    }, 60_000);
    afterAll(async () => {
      await page?.close();
      await worker?.stop();
      await t?.close();
      await slack?.stop();
    });

    const card = (name: string) => page.getByRole('region', { name: new RegExp(`^${name} `) });
    const stateOf = async (name: string) =>
      (
        (await card(name)
          .getByText(/^State:/)
          .textContent()) ?? ''
      ).replace(/^State:\s*/, '');
    /**
     * Waits for a connector's state to match. The stand-in closes a connection idle for 5 s (Node's default);
     * a request that reuses one just then is reset, and the sync waits as it would for an unreachable Slack:
     * that wait is cut short with Resume, as an admin would.
     */
    const settles = (name: string, expected: RegExp) =>
      expect
        .poll(
          async () => {
            const state = await stateOf(name);
            if (/^waiting .*could not be reached/.test(state)) {
              await card(name)
                .getByRole('button', { name: `Resume ${name}`, exact: true })
                .click({ timeout: 2_000 })
                .catch(() => undefined);
            }
            return state;
          },
          { timeout: 30_000 },
        )
        .toMatch(expected);
    type Listed = { id: string; name: string; kind: string; settings: unknown; secrets: string[]; receiverUrl: string | null };
    const listed = async () => (await t.get('/api/v2/admin/connectors')).json().data as Listed[];

    it('adds a Slack connector through the form made from its schemas, after testing it against Slack', async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources' }).click();
      await page.getByText('No connector yet').waitFor();
      await page.getByRole('button', { name: 'Add a connector' }).click();
      const form = page.getByRole('form', { name: 'Add a connector' });
      // Every kind the server offers, by its platform's name (counted once the kinds have arrived: count() does not wait).
      const platforms = form.getByRole('group', { name: 'Platform' }).getByRole('radio');
      await form.getByLabel('Board', { exact: true }).waitFor();
      await form.getByLabel('Slack', { exact: true }).waitFor();
      expect(await platforms.count()).toBe(2);
      await form.getByLabel('Slack', { exact: true }).check();

      // Slack issues the signing secret: it is a field like the bot token, with the schema's description, and none is made here.
      const signing = form.getByLabel('Webhook secret', { exact: true });
      expect(await signing.getAttribute('type')).toBe('password');
      expect(await signing.getAttribute('autocomplete')).toBe('off');
      const signingHint = await signing.getAttribute('aria-describedby');
      expect(await page.locator(`[id="${signingHint}"]`).textContent()).toContain('Signing Secret');
      expect(await form.getByText('Hearth makes the webhook’s secret').count()).toBe(0);
      expect(await form.getByLabel('Bot token', { exact: true }).getAttribute('type')).toBe('password');
      expect(await form.getByLabel('Channels').evaluate((element) => element.tagName)).toBe('TEXTAREA');
      expect(await form.getByLabel('Channels').getAttribute('required')).not.toBeNull();

      // A required field left empty is named, and the focus goes there, before anything is sent.
      await form.getByRole('button', { name: 'Test connection' }).click();
      await form.getByRole('alert').getByText('“Channels” is required.').waitFor();
      await expect.poll(() => form.getByLabel('Channels').evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
      expect(await form.getByLabel('Channels').getAttribute('aria-invalid')).toBe('true');

      await form.getByLabel('Channels').fill('C0GENERAL\n');
      await form.getByLabel('API URL').fill(slack.url);
      await form.getByLabel('Bot token', { exact: true }).fill('xoxb-0000000001-0000000002-wrongtoken');
      await signing.fill(SIGNING_SECRET);
      // What Slack answered a wrong token; nothing is saved.
      await form.getByRole('button', { name: 'Test connection' }).click();
      await form.getByRole('alert').getByText('invalid_auth', { exact: false }).waitFor();
      expect(await listed()).toEqual([]);

      await form.getByLabel('Bot token', { exact: true }).fill(TOKEN);
      await form.getByRole('button', { name: 'Test connection' }).click();
      await form.getByRole('status').getByText("workspace 'Stand-in Workspace' reached as 'hearth'; channels: #general", { exact: false }).waitFor();
      expect(await form.getByRole('alert').count()).toBe(0);

      await form.getByRole('button', { name: 'Add connector' }).click();
      // The receiver URL is left to give Slack; the secret was Slack's own, so none is shown.
      const setup = page.getByRole('region', { name: 'Set up the webhook of Slack' });
      const receiverUrl = (await setup.getByLabel('Receiver URL').textContent())!.trim();
      expect(receiverUrl.startsWith(`${url}/api/v2/receivers/slack/`)).toBe(true);
      expect(await setup.getByLabel('Webhook secret').count()).toBe(0);

      const [connector] = await listed();
      expect(connector).toMatchObject({ kind: 'slack', name: 'Slack', settings: { channels: ['C0GENERAL'], apiUrl: slack.url }, receiverUrl });
      expect(connector!.secrets.sort()).toEqual(['botToken', 'webhookSecret']);
      const answered = (await t.get('/api/v2/admin/connectors')).body;
      expect(answered).not.toContain(TOKEN);
      expect(answered).not.toContain(SIGNING_SECRET);
      const shown = await page.content();
      expect(shown).not.toContain(TOKEN);
      expect(shown).not.toContain(SIGNING_SECRET);

      // The signing secret typed into the form is the one the receiver checks: Slack's URL verification is answered.
      const verification = signedDelivery({ secret: SIGNING_SECRET, body: bodies.urlVerification('console-challenge'), at: new Date() });
      const delivered = await fetch(receiverUrl, { method: 'POST', headers: verification.headers, body: verification.raw });
      expect(delivered.status).toBe(200);
      expect(await delivered.json()).toEqual({ challenge: 'console-challenge' });

      await setup.getByRole('button', { name: 'I have set up the webhook' }).click();
      await settles('Slack', /^active( |$)/);
      await card('Slack').getByRole('button', { name: 'Test connection of Slack' }).click();
      await card('Slack').getByRole('status').getByText("workspace 'Stand-in Workspace'", { exact: false }).waitFor();
    }, 90_000);

    it('rotates the Slack bot token with "Edit credentials", sending only the secret given', async () => {
      const [connector] = await listed();
      // Slack reissues the bot token (the app reinstalled): the old one is refused, and the connector fails.
      workspace.token = ROTATED;
      await card('Slack').getByRole('button', { name: 'Sync now Slack', exact: true }).click();
      await settles('Slack', /^failed: Slack refused the bot token/);

      await card('Slack').getByRole('button', { name: 'Edit credentials of Slack' }).click();
      const edit = page.getByRole('form', { name: 'New credentials for Slack' });
      await edit.getByText('This connector failed: saving new credentials resumes it.').waitFor();
      // Every field may stay empty; Slack's signing secret is one of them, and no webhook secret is made here.
      for (const label of ['Bot token', 'Webhook secret']) {
        const field = edit.getByLabel(label, { exact: true });
        expect(await field.getAttribute('required')).toBeNull();
        expect(await field.getAttribute('type')).toBe('password');
      }
      await edit.getByText('Empty: the current value stays.').first().waitFor();
      expect(await edit.getByLabel('Also make a new webhook secret').count()).toBe(0);
      await edit.getByRole('button', { name: 'Save credentials' }).click();
      await edit.getByRole('alert').getByText('Nothing to change: give a new credential.').waitFor();

      // A value given is still checked before it is sent.
      await edit.getByLabel('Bot token', { exact: true }).fill('not-a-bot-token');
      await edit.getByRole('button', { name: 'Save credentials' }).click();
      await edit.getByRole('alert').getByText('“Bot token” does not have the expected form', { exact: false }).waitFor();

      await edit.getByLabel('Bot token', { exact: true }).fill(ROTATED);
      await edit.getByRole('button', { name: 'Save credentials' }).click();
      await card('Slack').getByText('Saved the credentials of Slack. It resumes now.').waitFor();
      expect(await page.getByRole('region', { name: 'Set up the webhook of Slack' }).count()).toBe(0);
      // The sync the change queued reads Slack with the new token.
      await settles('Slack', /^active( |$)/);

      const [after] = await listed();
      expect(after!.secrets.sort()).toEqual(['botToken', 'webhookSecret']);
      const audit = (await t.get('/api/v2/admin/audit-log?operation=connector.update')).json().data as {
        entityIds: string[];
        detail: Record<string, unknown>;
      }[];
      expect(audit[0]).toMatchObject({ entityIds: [connector!.id], detail: { secretsSet: ['botToken'], resumed: true } });
      expect(await page.content()).not.toContain(ROTATED);
    }, 60_000);

    it('adds a connector of a platform without webhooks: no webhook secret, no webhook step', async () => {
      await page.getByRole('button', { name: 'Add a connector' }).click();
      const form = page.getByRole('form', { name: 'Add a connector' });
      await form.getByLabel('Board', { exact: true }).check();
      await form.getByText('Board sends no webhooks: Hearth reads what is new by regular syncs', { exact: false }).waitFor();
      expect(await form.getByText('Hearth makes the webhook’s secret').count()).toBe(0);
      expect(await form.getByLabel('Webhook secret').count()).toBe(0);
      // Slack's fields are gone with its choice.
      expect(await form.getByLabel('Channels').count()).toBe(0);

      await form.getByLabel('Section').fill('news');
      await form.getByLabel('Topics').fill('ask\nshow');
      await form.getByLabel('Order').selectOption('top');
      await form.getByLabel('Profiles').selectOption('No');
      await form.getByLabel('API key').fill('board-key-1234');
      // Not a number: said before anything is sent, on the field.
      await form.getByLabel('Backfill days').fill('a year');
      await form.getByRole('button', { name: 'Add connector' }).click();
      await form.getByRole('alert').getByText('“Backfill days” must be a whole number.').waitFor();
      expect(await form.getByLabel('Backfill days').getAttribute('aria-invalid')).toBe('true');
      await form.getByLabel('Backfill days').fill('30');

      // What only the server checks is shown as it words it, naming the field.
      await form.getByLabel('Topics').fill('ask\nask');
      await form.getByRole('button', { name: 'Add connector' }).click();
      await form.getByRole('alert').getByText('settings.topics', { exact: false }).waitFor();
      expect((await listed()).length).toBe(1);

      await form.getByLabel('Topics').fill('ask, show');
      await form.getByRole('button', { name: 'Test connection' }).click();
      await form.getByRole('status').getByText('the board answers').waitFor();
      await form.getByRole('button', { name: 'Add connector' }).click();
      await page.getByText('Board sends no webhooks, so there is nothing to set up there', { exact: false }).waitFor();
      expect(await page.getByRole('region', { name: /^Set up the webhook of / }).count()).toBe(0);

      const made = (await listed()).find((connector) => connector.kind === 'hackernews')!;
      expect(made).toMatchObject({
        name: 'Board',
        receiverUrl: null,
        settings: { section: 'news', topics: ['ask', 'show'], backfillDays: 30, profiles: false, order: 'top' },
        secrets: ['apiKey'],
      });
      await card('Board').getByText('none: the platform sends no webhooks, it is read by syncs').waitFor();
      await settles('Board', /^active( |$)/);

      await card('Board').getByRole('button', { name: 'Edit credentials of Board' }).click();
      const edit = page.getByRole('form', { name: 'New credentials for Board' });
      expect(await edit.getByLabel('Also make a new webhook secret').count()).toBe(0);
      await edit.getByLabel('API key').fill('board-key-5678');
      await edit.getByRole('button', { name: 'Save credentials' }).click();
      await card('Board').getByText('Saved the credentials of Board.').waitFor();
      expect(await page.getByRole('region', { name: /^Set up the webhook of / }).count()).toBe(0);
      expect((await listed()).find((connector) => connector.kind === 'hackernews')!.secrets).toEqual(['apiKey']);
    }, 60_000);
  });
});
