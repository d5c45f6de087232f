import type { ConnectorKind, PlatformAccess } from '../connector-kind.ts';
import { listArticles, listingOf, streamPage, streamsOf, subSourceOf } from './devto-backfill.ts';
import { devtoGet } from './devto-client.ts';
import { readProfiles } from './devto-people.ts';
import { publishedAt } from './devto-activities.ts';
import { DevtoSecretsSchema, DevtoSettingsSchema, type DevtoArticle, type DevtoSecrets, type DevtoSettings, type DevtoUser } from './devto.schemas.ts';

export type { DevtoSecrets, DevtoSettings } from './devto.schemas.ts';

/**
 * DEV (dev.to), or any Forem community: the published articles of followed tags and organizations, and their
 * comments, read through the API (a backfill, then what is new at each sync: Forem sends no webhooks a
 * connector could take). People are DEV usernames.
 */
export const devtoConnector: ConnectorKind<DevtoSettings, DevtoSecrets> = {
  kind: 'devto',
  platformName: 'DEV',
  settingsSchema: DevtoSettingsSchema,
  secretsSchema: DevtoSecretsSchema,
  async streams(settings) {
    return streamsOf(settings);
  },
  page: streamPage,
  profiles: readProfiles,
  test: testCommunity,
};

/** The first page of a listing, in a few words: how many articles, and the newest's date. */
function described(articles: DevtoArticle[]): string {
  if (articles.length === 0) return 'no published articles';
  const times = articles.map(publishedAt).filter((time): time is string => time !== null && !Number.isNaN(Date.parse(time)));
  const newest = times.sort((a, b) => Date.parse(b) - Date.parse(a))[0];
  return `${articles.length} article${articles.length === 1 ? '' : 's'} on the first page${newest ? `, the newest published ${newest.slice(0, 10)}` : ''}`;
}

/**
 * With a key, whose it is (GET /users/me); then one page of each followed tag and organization. A refused
 * key, or an organization DEV does not have, fails the test saying so.
 */
async function testCommunity(settings: DevtoSettings, secrets: DevtoSecrets, access: PlatformAccess): Promise<string> {
  let who = 'without an API key';
  if (secrets.apiKey) {
    const me = await devtoGet<DevtoUser>('/users/me', {}, settings, secrets, access);
    who = `with the API key of '${me.username ?? '?'}'`;
  }
  const found: string[] = [];
  for (const stream of streamsOf(settings)) {
    const listing = listingOf(stream)!;
    const articles = await listArticles(listing, 1, 30, settings, secrets, access);
    found.push(`${listing.kind === 'tag' ? `tag ${subSourceOf(listing)}` : `organization ${listing.name}`}: ${described(articles)}`);
  }
  return `DEV reached ${who}; ${found.join('; ')}`;
}
