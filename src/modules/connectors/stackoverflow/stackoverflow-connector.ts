import type { ConnectorKind, PlatformAccess } from '../connector-kind.ts';
import { STREAM_PREFIX, tagPage } from './stackoverflow-backfill.ts';
import { siteOf, stackGet } from './stackoverflow-client.ts';
import { readProfiles } from './stackoverflow-people.ts';
import {
  StackOverflowSecretsSchema,
  StackOverflowSettingsSchema,
  type Question,
  type StackOverflowSecrets,
  type StackOverflowSettings,
} from './stackoverflow.schemas.ts';

export type { StackOverflowSecrets, StackOverflowSettings } from './stackoverflow.schemas.ts';

/**
 * Stack Overflow, or any Stack Exchange site: the questions of the followed tags, their answers, comments
 * and accepted answers, read through the public API (a backfill, then what is new at each sync). The API
 * sends no webhooks, and its daily quota is small (300 requests without a key): the operator's sync interval
 * is kept. People are the site's user IDs.
 */
export const stackoverflowConnector: ConnectorKind<StackOverflowSettings, StackOverflowSecrets> = {
  kind: 'stackoverflow',
  platformName: 'Stack Overflow',
  settingsSchema: StackOverflowSettingsSchema,
  secretsSchema: StackOverflowSecretsSchema,
  async streams(settings) {
    return [...new Set(settings.tags.map((tag) => tag.toLowerCase()))].map((tag) => `${STREAM_PREFIX}${tag}`);
  },
  async page(stream, checkpoint, settings, secrets, access) {
    if (!stream.startsWith(STREAM_PREFIX)) throw new Error(`the Stack Overflow connector has no stream "${stream}"`);
    return tagPage(stream.slice(STREAM_PREFIX.length), checkpoint, settings, secrets, access);
  },
  profiles: readProfiles,
  test: testSite,
};

/**
 * Asks for each tag's newest question (one request a tag): a bad site or a refused key fails here, a tag
 * without questions (a typo) is named. The quota the API reports is shown, since it bounds how much can be read.
 */
async function testSite(settings: StackOverflowSettings, secrets: StackOverflowSecrets, access: PlatformAccess): Promise<string> {
  const tags: string[] = [];
  let quota = null as { max: number; remaining: number } | null;
  for (const tag of settings.tags) {
    const answer = await stackGet<Question>(
      'questions',
      'questions',
      { tagged: tag, sort: 'creation', order: 'desc', pagesize: 1, filter: 'default' },
      settings,
      secrets,
      access,
    );
    quota = answer.quota ?? quota;
    const newest = answer.items[0];
    tags.push(
      newest ? `${tag} (newest question ${new Date(newest.creation_date * 1000).toISOString().slice(0, 10)})` : `${tag} (no question: check the spelling)`,
    );
  }
  const left = quota ? `; ${quota.remaining.toLocaleString('en-US')} of ${quota.max.toLocaleString('en-US')} requests left today` : '';
  return `site '${siteOf(settings)}' reached ${secrets.key ? 'with the app key' : 'without a key'}${left}; tags: ${tags.join(', ')}`;
}
