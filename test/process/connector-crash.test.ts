import { expect } from 'vitest';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { startSlackStandIn, type SlackStandIn } from '../stand-ins/slack-api.ts';
import { describeCrashes } from '../helpers/connector-crash.ts';
import { waitUntil } from '../helpers/process.ts';

const REPO = 'acme/widgets';
const STARS = 300;
/** Issues only (no pull requests among them); the even ones are closed. */
const ISSUES = 200;
const TOKEN = 'ghp_hearth_test';
const WEBHOOK_SECRET = 'crash-webhook-secret-0000';

const CHANNEL = 'C0CRASHES1';
const PEOPLE = 30;
/** Three pages of the history (the connector asks for 200 a page). */
const MESSAGES = 450;
const BOT_TOKEN = 'xoxb-crash-test-token';
const SIGNING_SECRET = 'slack-crash-signing-secret';

/**
 * A connector's backfill killed with SIGKILL in the middle (its platform, answering its lists slowly, has
 * served some pages but not all) goes on from its checkpoints when the server starts again, and every record
 * is stored exactly once; no log holds a secret of the connector's.
 */
describeCrashes(
  'connector backfills survive kill -9 of their server',
  ({ serveWithConnector, recordsRead, kill, restart, activitiesOf, contactsOf, expectNoSecretLogged, cleanups, test }) => {
    test('GitHub: goes on from its checkpoints after the restart and stores every record once', { timeout: 240_000 }, async () => {
      const standIn: GitHubStandIn = await startGitHubStandIn({
        repositories: [{ fullName: REPO, stargazers: STARS, issues: ISSUES, pullEvery: ISSUES + 1, forks: 0 }],
      });
      cleanups.push(() => standIn.stop());
      // The lists of stars and issues answer slowly, and the second page of stars, the first time, very slowly:
      // the server is killed while it waits for it.
      standIn.fault({ kind: 'slow', ms: 3_000 }, { times: 1, path: /\/stargazers\?.*\bpage=2\b/ });
      standIn.fault({ kind: 'slow', ms: 300 }, { times: 1_000, path: /\/(stargazers|issues)\?/ });
      const starPages = () => standIn.requests.filter((request) => request.path.startsWith(`/repos/${REPO}/stargazers?`));

      const served = await serveWithConnector({
        kind: 'github',
        settings: { repositories: [REPO], apiUrl: standIn.url },
        secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
      });
      // The second page of stars is read while the first is stored: once the first page's checkpoint is saved,
      // kill the server while the second is on its way.
      await waitUntil(async () => starPages().length >= 2, 'the second page of stars asked for', 60_000);
      await waitUntil(async () => (await recordsRead(served, `${REPO}:stargazers`)) >= 100, 'the first page of stars stored', 60_000);
      expect(starPages().length).toBe(2);
      await kill(served);
      expect(starPages().length).toBeLessThan(Math.ceil(STARS / 100));
      const { second, streams } = await restart(served);
      expect(streams.length).toBe(9);

      // Every record once: as many activities of each type as GitHub has records (an activity's ID is the platform's).
      expect(await activitiesOf(second, served, 'starred_repo')).toBe(STARS);
      expect(await activitiesOf(second, served, 'issue_opened')).toBe(ISSUES);
      expect(await activitiesOf(second, served, 'issue_closed')).toBe(ISSUES / 2);
      expect(await activitiesOf(second, served)).toBe(STARS + ISSUES + ISSUES / 2);
      // One contact per GitHub account (people 1-300 starred; issue authors and closers are among them); the
      // community's admin, made by init, is a console user, not a member, and not listed.
      expect(await contactsOf(second, served)).toBe(STARS);
      // The restarted sync went on from the checkpoint: the first page of stars was read once.
      expect(starPages().filter((request) => !/[?&]page=/.test(request.path))).toHaveLength(1);
      expectNoSecretLogged([served.first, second], [TOKEN, WEBHOOK_SECRET]);
    });

    test('Slack: goes on from its checkpoint after the restart and stores every message once', { timeout: 240_000 }, async () => {
      const slack: SlackStandIn = await startSlackStandIn({
        token: BOT_TOKEN,
        channels: [{ id: CHANNEL, name: 'crashes', isMember: true }],
        users: Array.from({ length: PEOPLE }, (_, i) => ({ id: `U0CRASH${String(i).padStart(3, '0')}`, name: `person${i}`, realName: `Person ${i}` })),
      });
      cleanups.push(() => slack.stop());
      for (let i = 0; i < MESSAGES; i++) slack.post(CHANNEL, { user: `U0CRASH${String(i % PEOPLE).padStart(3, '0')}`, text: `Message ${i}` });
      // The second page of the history, the first time it is asked for, answers very slowly: the server is killed meanwhile.
      slack.slowPages('conversations.history', 5_000, 1);
      const historyPages = () => slack.requests.filter((request) => request.startsWith('conversations.history?'));

      const served = await serveWithConnector({
        kind: 'slack',
        settings: { channels: [CHANNEL], apiUrl: slack.url },
        secrets: { botToken: BOT_TOKEN, webhookSecret: SIGNING_SECRET },
      });
      await waitUntil(async () => historyPages().length >= 2, 'the second page of the history asked for', 60_000);
      await waitUntil(async () => (await recordsRead(served, `channel:${CHANNEL}`)) >= 200, 'the first page stored', 60_000);
      expect(historyPages()).toHaveLength(2);
      await kill(served);
      const { second } = await restart(served);

      expect(await activitiesOf(second, served)).toBe(MESSAGES);
      // One contact per Slack member (the community's admin, made by init, is not one).
      expect(await contactsOf(second, served)).toBe(PEOPLE);
      // The restarted sync went on from the checkpoint: the first page (no cursor) was asked for once.
      expect(historyPages().filter((request) => !/[?&]cursor=/.test(request))).toHaveLength(1);
      expectNoSecretLogged([served.first, second], [BOT_TOKEN, SIGNING_SECRET]);
    });
  },
);
