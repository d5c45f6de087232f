import type { ConnectorKind, PlatformAccess } from '../connector-kind.ts';
import { backfillStart, searchOf, searchPage, searchParameters, streamsOf } from './hackernews-backfill.ts';
import { hackerNewsGet } from './hackernews-client.ts';
import { readProfiles } from './hackernews-people.ts';
import {
  DEFAULT_BACKFILL_DAYS,
  HackerNewsSecretsSchema,
  HackerNewsSettingsSchema,
  type HackerNewsSecrets,
  type HackerNewsSettings,
  type SearchAnswer,
} from './hackernews.schemas.ts';

export type { HackerNewsSecrets, HackerNewsSettings } from './hackernews.schemas.ts';

/**
 * Hacker News, through its search API (Hacker News Search, by Algolia): the stories and comments that
 * mention followed keywords, and the stories that link to followed domains. Hacker News sends no webhooks:
 * syncs, at the operator's interval, read what is new. People are Hacker News usernames.
 */
export const hackerNewsConnector: ConnectorKind<HackerNewsSettings, HackerNewsSecrets> = {
  kind: 'hackernews',
  platformName: 'Hacker News',
  settingsSchema: HackerNewsSettingsSchema,
  secretsSchema: HackerNewsSecretsSchema,
  async streams(settings) {
    return streamsOf(settings);
  },
  async page(stream, checkpoint, settings, _secrets, access) {
    return searchPage(stream, checkpoint, settings, access);
  },
  profiles: readProfiles,
  test: testSearch,
};

/** Counts, for each stream, what the first sync would find (one search each, a single hit asked for). */
async function testSearch(settings: HackerNewsSettings, _secrets: HackerNewsSecrets, access: PlatformAccess): Promise<string> {
  const from = backfillStart(settings, access.now());
  const found: string[] = [];
  for (const stream of streamsOf(settings)) {
    const search = searchOf(stream)!;
    const answer = await hackerNewsGet<SearchAnswer>(
      '/search_by_date',
      {
        ...searchParameters(search),
        numericFilters: `created_at_i>=${from}`,
        hitsPerPage: '1',
      },
      settings,
      access,
    );
    const count = typeof answer.nbHits === 'number' ? answer.nbHits.toLocaleString('en') : '?';
    // A domain's search matches words of links: some of its hits link elsewhere, and are left out when read.
    found.push(search.domain ? `domain ${search.domain}: up to ${count} stories` : `"${search.query}": ${count} stories and comments`);
  }
  return `Hacker News Search reached; in the last ${settings.backfillDays ?? DEFAULT_BACKFILL_DAYS} days: ${found.join('; ')}`;
}
