import { expect } from 'vitest';
import { startHackerNewsStandIn, type HackerNewsStandIn } from '../stand-ins/hackernews-api.ts';
import { describeCrashes } from '../helpers/connector-crash.ts';
import { call, waitUntil } from '../helpers/process.ts';

const KEYWORD = 'hearth';
/** Three pages of the walk: the stand-in answers at most 200 hits a page. */
const ITEMS = 450;
const PEOPLE = 30;

/**
 * The Hacker News connector's backfill killed with SIGKILL while the second page of its walk is on its way
 * (the search answering slowly) goes on from the stream's checkpoint when the server starts again, and every
 * item is stored exactly once; the logs hold nothing they should not.
 */
describeCrashes(
  'the Hacker News backfill survives kill -9 of its server',
  ({ serveWithConnector, recordsRead, kill, restart, activitiesOf, contactsOf, expectNoSecretLogged, cleanups, test }) => {
    test('goes on from its checkpoint after the restart and stores every item once', { timeout: 240_000 }, async () => {
      const hn: HackerNewsStandIn = await startHackerNewsStandIn({
        maxHitsPerPage: 200,
        history: { count: ITEMS, seed: 7, newest: new Date(Date.now() - 60 * 60_000), mentions: [KEYWORD], authors: PEOPLE },
      });
      cleanups.push(() => hn.stop());
      const authors = new Set(hn.items().map((item) => item.author)).size;
      // The walk's second page (the first with an upper time bound), the first time it is asked for, answers
      // very slowly: the server is killed meanwhile.
      hn.slowPages(20_000, 1);
      const searches = () => hn.requests.filter((request) => request.startsWith('search_by_date?'));

      const served = await serveWithConnector({ kind: 'hackernews', settings: { keywords: [KEYWORD], apiUrl: hn.url }, secrets: {} });
      await waitUntil(async () => searches().length >= 2, 'the second page of the walk asked for', 60_000);
      await waitUntil(async () => (await recordsRead(served, `keyword:${KEYWORD}`)) >= 200, 'the first page stored', 60_000);
      expect(searches(), searches().join('\n')).toHaveLength(2);
      await kill(served);
      const { second, streams } = await restart(served);
      expect(streams.map((stream) => stream.stream)).toEqual([`keyword:${KEYWORD}`]);

      // Every item once: as many activities as the history holds, stories and comments.
      const stories = hn.items().filter((item) => item.kind === 'story').length;
      expect(await activitiesOf(second, served, 'hackernews_story')).toBe(stories);
      expect(await activitiesOf(second, served, 'hackernews_comment')).toBe(ITEMS - stories);
      expect(await activitiesOf(second, served)).toBe(ITEMS);
      // One contact per Hacker News username (the community's admin, made by init, is a console user).
      expect(await contactsOf(second, served)).toBe(authors);
      // The restarted sync went on from the checkpoint: the walk's first page (no upper bound) was asked for once.
      expect(searches().filter((request) => !/created_at_i<=/.test(request))).toHaveLength(1);
      // Each item counted once in the stream's progress, against the total Algolia gave on the first page.
      const shown = await call(`${second.url}/api/v2/admin/connectors/${served.connectorId}`, { token: served.token });
      expect((shown.body as { data: { streams: unknown[] } }).data.streams).toEqual([
        expect.objectContaining({ stream: `keyword:${KEYWORD}`, done: true, records: ITEMS, total: ITEMS }),
      ]);
      // Hacker News Search takes no credential, so the connector has no secret to look for in the logs.
      expectNoSecretLogged([served.first, second], []);
    });
  },
);
