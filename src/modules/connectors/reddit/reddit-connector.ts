import type { ConnectorKind, PlatformAccess } from '../connector-kind.ts';
import { RedditError, newSession, redditGet } from './reddit-client.ts';
import { listingPage, parseStream, streamNames } from './reddit-listings.ts';
import { RedditSecretsSchema, RedditSettingsSchema, type RedditSecrets, type RedditSettings, type RedditSubredditAbout } from './reddit.schemas.ts';

export type { RedditSecrets, RedditSettings } from './reddit.schemas.ts';

/**
 * Reddit: the followed subreddits' posts and comments, and posts found by keywords across Reddit, read with
 * an application-only OAuth token. Reddit sends no webhooks: syncs are how the connector sees what is new,
 * and since a listing reaches back only about 1,000 things, they come every 5 minutes. People are Reddit
 * accounts, known by their username.
 */
export const redditConnector: ConnectorKind<RedditSettings, RedditSecrets> = {
  kind: 'reddit',
  platformName: 'Reddit',
  settingsSchema: RedditSettingsSchema,
  secretsSchema: RedditSecretsSchema,
  syncIntervalMs: 5 * 60_000,
  async streams(settings) {
    return streamNames(settings);
  },
  async page(stream, checkpoint, settings, secrets, access) {
    const parsed = parseStream(stream);
    if (!parsed) throw new Error(`the Reddit connector has no stream "${stream}"`);
    return listingPage(parsed, checkpoint, settings, secrets, access);
  },
  test: testReddit,
};

/**
 * Gets a token (the app's credentials), then reads each followed subreddit's `about` and says what it found;
 * a subreddit Reddit will not show (private, banned, quarantined, unknown) makes the test fail, naming each.
 */
async function testReddit(settings: RedditSettings, secrets: RedditSecrets, access: PlatformAccess): Promise<string> {
  const session = newSession();
  const found: string[] = [];
  const problems: string[] = [];
  for (const name of settings.subreddits ?? []) {
    try {
      const about = await redditGet<RedditSubredditAbout>(`/r/${name}/about`, {}, settings, secrets, access, session);
      if (about?.kind !== 't5' || !about.data) {
        problems.push(`r/${name} was not found on Reddit`);
        continue;
      }
      const subscribers =
        typeof about.data.subscribers === 'number' ? `${about.data.subscribers.toLocaleString('en-US')} subscribers` : 'subscribers not shown';
      const notes = [subscribers, ...(about.data.subreddit_type && about.data.subreddit_type !== 'public' ? [about.data.subreddit_type] : [])];
      found.push(`r/${about.data.display_name || name} (${notes.join(', ')})`);
    } catch (error) {
      if (!(error instanceof RedditError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new Error(`the app's token works, but ${problems.join('; ')}`);
  if (found.length === 0) {
    // Keywords only: one search proves the token and the User-Agent.
    await redditGet('/search', { q: settings.keywords![0]!, sort: 'new', type: 'link', limit: '1' }, settings, secrets, access, session);
  }
  const keywords = settings.keywords?.length ? `; ${settings.keywords.length} keyword${settings.keywords.length === 1 ? '' : 's'} searched across Reddit` : '';
  return `Reddit reached with the app's token${found.length ? `; ${found.join('; ')}` : ''}${keywords}`;
}
