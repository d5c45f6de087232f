import { expect } from 'vitest';
import { startRedditStandIn, type RedditStandIn } from '../stand-ins/reddit-api.ts';
import { describeCrashes } from '../helpers/connector-crash.ts';
import { waitUntil } from '../helpers/process.ts';

const SUBREDDIT = 'crashes';
const PEOPLE = 30;
/** Five pages of posts and three of comments (the connector asks for 100 a page). */
const POSTS = 450;
const COMMENTS = 280;
const CLIENT_ID = 'crashTestClient01';
const CLIENT_SECRET = 'reddit_crash_client_secret_value';

/**
 * The Reddit connector's backfill killed with SIGKILL in the middle (Reddit, answering its later pages
 * slowly, has served some pages of the subreddit's posts but not all) goes on from its checkpoints when the
 * server starts again, and every post and comment is stored exactly once; no log holds a secret of the
 * connector's.
 */
describeCrashes(
  'the Reddit connector survives kill -9 of its server',
  ({ serveWithConnector, recordsRead, kill, restart, activitiesOf, contactsOf, expectNoSecretLogged, cleanups, test }) => {
    test('goes on from its checkpoints after the restart and stores every post and comment once', { timeout: 300_000 }, async () => {
      const reddit: RedditStandIn = await startRedditStandIn({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, subreddits: [{ name: SUBREDDIT }] });
      cleanups.push(() => reddit.stop());
      const history = reddit.generate({ subreddit: SUBREDDIT, posts: POSTS, comments: COMMENTS, people: PEOPLE, seed: 42 });
      expect(history).toMatchObject({ posts: POSTS, comments: COMMENTS, skipped: 0, people: PEOPLE });
      // The second page of posts, the first time it is asked for, answers very slowly: the server is killed meanwhile.
      reddit.slowPages(new RegExp(`^/r/${SUBREDDIT}/new$`), 20_000, 1);
      const postPages = () => reddit.requests.filter((request) => request.path.startsWith(`/r/${SUBREDDIT}/new?`));

      const served = await serveWithConnector({
        kind: 'reddit',
        settings: { subreddits: [SUBREDDIT], apiUrl: reddit.url, authUrl: reddit.authUrl, userAgent: 'server:hearth-crash-test:v1 (by /u/hearth_tests)' },
        secrets: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      });
      await waitUntil(async () => postPages().length >= 2, 'the second page of posts asked for', 60_000);
      await waitUntil(async () => (await recordsRead(served, `subreddit:${SUBREDDIT}:posts`)) >= 100, 'the first page stored', 60_000);
      expect(postPages()).toHaveLength(2);
      await kill(served);
      const { second, streams } = await restart(served);
      expect(streams.map((stream) => stream.stream).sort()).toEqual([`subreddit:${SUBREDDIT}:comments`, `subreddit:${SUBREDDIT}:posts`]);

      expect(await activitiesOf(second, served, 'reddit_post')).toBe(POSTS);
      expect(await activitiesOf(second, served, 'reddit_comment')).toBe(COMMENTS);
      expect(await activitiesOf(second, served)).toBe(POSTS + COMMENTS);
      // One contact per Reddit account (the community's admin, made by init, is a console user).
      expect(await contactsOf(second, served)).toBe(PEOPLE);
      // The restarted sync went on from the checkpoint: the first page (no `after`) was asked for once.
      expect(postPages().filter((request) => !/[?&]after=/.test(request.path))).toHaveLength(1);
      // Neither the app's secret nor a bearer token Reddit gave (one before the kill, one after).
      expect(reddit.tokensIssued()).toHaveLength(2);
      expectNoSecretLogged([served.first, second], [CLIENT_SECRET, ...reddit.tokensIssued()]);
    });
  },
);
