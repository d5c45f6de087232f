import { expect } from 'vitest';
import { startStackExchangeStandIn, type StackExchangeStandIn } from '../stand-ins/stackexchange-api.ts';
import { describeCrashes } from '../helpers/connector-crash.ts';
import { waitUntil } from '../helpers/process.ts';

const TAG = 'hearth';
/** Five pages of the tag's questions (the connector asks for 100 a page), each with its answers and comments. */
const QUESTIONS = 450;
const PEOPLE = 30;
const KEY = 'crash*test*app*key((';

/**
 * A Stack Overflow backfill killed with SIGKILL in the middle (the API answers the second page of the tag's
 * questions slowly, the first time) goes on from the tag's checkpoint when the server starts again: every
 * post is stored exactly once, and no log holds the app key.
 */
describeCrashes(
  'a Stack Overflow backfill survives kill -9 of its server',
  ({ serveWithConnector, recordsRead, kill, restart, activitiesOf, contactsOf, expectNoSecretLogged, cleanups, test }) => {
    test('goes on from its checkpoint after the restart and stores every post once', { timeout: 240_000 }, async () => {
      const api: StackExchangeStandIn = await startStackExchangeStandIn({ key: KEY, history: { questions: QUESTIONS, tags: [TAG], people: PEOPLE, seed: 5 } });
      cleanups.push(() => api.stop());
      // The second page of questions (from the newest creation date of the first), the first time it is asked
      // for, answers very slowly: the server is killed meanwhile. Slower than storing the first page (500 posts
      // and their people) takes on a busy machine.
      api.fault({ kind: 'slow', ms: 20_000 }, { times: 1, path: /^\/questions\?.*\bfromdate=/ });
      const creationPages = () => api.requests.filter((request) => request.path.startsWith('/questions?') && request.path.includes('sort=creation'));

      const served = await serveWithConnector({ kind: 'stackoverflow', settings: { tags: [TAG], apiUrl: api.url }, secrets: { key: KEY } });
      await waitUntil(async () => creationPages().length >= 2, 'the second page of questions asked for', 60_000);
      await waitUntil(async () => (await recordsRead(served, `tag:${TAG}`)) >= 100, 'the first page stored', 60_000);
      expect(creationPages()).toHaveLength(2);
      await kill(served);
      const { second } = await restart(served);

      // Every post once: as many activities of each type as the API has posts by people.
      const expected = api.counts([TAG]);
      expect(await activitiesOf(second, served, 'stackoverflow_question')).toBe(QUESTIONS);
      expect(await activitiesOf(second, served, 'stackoverflow_answer')).toBe(expected.answers);
      expect(await activitiesOf(second, served, 'stackoverflow_comment')).toBe(expected.comments);
      expect(await activitiesOf(second, served, 'stackoverflow_accepted_answer')).toBe(expected.accepted);
      expect(await activitiesOf(second, served)).toBe(QUESTIONS + expected.answers + expected.comments + expected.accepted);
      // One contact per person who posted (the community's admin, made by init, is a console user).
      expect(await contactsOf(second, served)).toBe(expected.people);
      // The restarted sync went on from the checkpoint: the first page (no fromdate) was asked for once.
      expect(creationPages().filter((request) => !/[?&]fromdate=/.test(request.path))).toHaveLength(1);
      expect(api.requests.every((request) => request.keyed)).toBe(true);
      expectNoSecretLogged([served.first, second], [KEY]);
    });
  },
);
