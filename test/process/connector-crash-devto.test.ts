import { expect } from 'vitest';
import { startDevtoStandIn, type DevtoStandIn } from '../stand-ins/devto-api.ts';
import { describeCrashes } from '../helpers/connector-crash.ts';
import { waitUntil } from '../helpers/process.ts';

const ORGANIZATION = 'crashes';
/** Three pages of the organization's articles (the connector asks for 100 a page). */
const ARTICLES = 250;
const COMMENTS = 250;
const PEOPLE = 30;
const API_KEY = 'devCrashTestKey0123456789';

/**
 * A DEV backfill killed with SIGKILL while the second page of an organization's articles is on its way (the
 * stand-in answers it slowly) goes on from the stream's checkpoint when the server starts again: every article
 * and comment is stored exactly once, and no log holds the API key.
 */
describeCrashes(
  'a DEV backfill survives kill -9 of its server',
  ({ serveWithConnector, recordsRead, kill, restart, activitiesOf, contactsOf, expectNoSecretLogged, cleanups, test }) => {
    test('goes on from its checkpoint after the restart and stores every article and comment once', { timeout: 240_000 }, async () => {
      const dev: DevtoStandIn = await startDevtoStandIn({ apiKeys: [{ key: API_KEY, username: 'person0' }] });
      cleanups.push(() => dev.stop());
      const history = dev.generate({ seed: 7, articles: ARTICLES, comments: COMMENTS, people: PEOPLE, organization: ORGANIZATION, tag: 'crashes' });
      // The second page of the list, the first time it is asked for, answers very slowly (storing the first page's
      // articles, comments and new people takes a few seconds on a busy machine): the server is killed meanwhile.
      dev.slowPages(20_000, 1, new RegExp(`^/organizations/${ORGANIZATION}/articles\\?`));
      const listPages = () =>
        dev.requests.filter((request) => request.path.startsWith(`/organizations/${ORGANIZATION}/articles?`)).map((request) => request.path);

      const served = await serveWithConnector({
        kind: 'devto',
        settings: { organizations: [ORGANIZATION], apiUrl: dev.url },
        secrets: { apiKey: API_KEY },
      });
      await waitUntil(async () => listPages().length >= 2, 'the second page of the articles asked for', 60_000);
      await waitUntil(async () => (await recordsRead(served, `organization:${ORGANIZATION}`)) >= 100, 'the first page stored', 60_000);
      expect(listPages()).toHaveLength(2);
      await kill(served);
      const { second, streams } = await restart(served);
      expect(streams.map((stream) => stream.stream)).toEqual([`organization:${ORGANIZATION}`]);

      // Every record once: an activity per article and per comment (their IDs are DEV's).
      expect(await activitiesOf(second, served, 'devto_article')).toBe(ARTICLES);
      expect(await activitiesOf(second, served, 'devto_comment')).toBe(COMMENTS);
      expect(await activitiesOf(second, served)).toBe(ARTICLES + COMMENTS);
      // One contact per DEV user who wrote something (the community's admin, made by init, is a console user).
      expect(await contactsOf(second, served)).toBe(history.authors.length);
      // The restarted sync went on from the checkpoint: the first page was asked for once.
      expect(listPages().filter((path) => /[?&]page=1(&|$)/.test(path))).toHaveLength(1);
      expect(listPages().filter((path) => /[?&]page=2(&|$)/.test(path))).toHaveLength(2);
      expect(dev.requests.every((request) => request.withKey)).toBe(true);
      expectNoSecretLogged([served.first, second], [API_KEY]);
    });
  },
);
