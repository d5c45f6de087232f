import type { ConnectorKind, PlatformAccess } from '../connector-kind.ts';
import { STREAMS, postsPage } from './discourse-backfill.ts';
import { DiscourseNotFound, discourseGet } from './discourse-client.ts';
import { actingUser, readProfiles } from './discourse-people.ts';
import { DiscourseSecretsSchema, DiscourseSettingsSchema, type DiscourseSecrets, type DiscourseSettings } from './discourse.schemas.ts';
import { discourseDeliveryId, discourseEventOf, translateDiscourse, verifyDiscourse } from './discourse-webhooks.ts';

export type { DiscourseSecrets, DiscourseSettings } from './discourse.schemas.ts';

/**
 * Discourse forums: topics, replies and accepted answers from the API (backfill and incremental syncs) and
 * from webhooks; likes from webhooks only. People are Discourse user IDs.
 */
export const discourseConnector: ConnectorKind<DiscourseSettings, DiscourseSecrets> = {
  kind: 'discourse',
  platformName: 'Discourse',
  settingsSchema: DiscourseSettingsSchema,
  secretsSchema: DiscourseSecretsSchema,
  receiver: { verify: verifyDiscourse, deliveryId: discourseDeliveryId, eventOf: discourseEventOf, translate: translateDiscourse },
  async streams() {
    return [...STREAMS];
  },
  async page(stream, checkpoint, settings, secrets, access) {
    if (stream !== 'posts') throw new Error(`the Discourse connector has no stream "${stream}"`);
    return postsPage(checkpoint, settings, secrets, access);
  },
  profiles: readProfiles,
  test: testForum,
};

/**
 * Reaches the forum (GET /site/basic-info.json, public), then tries the key as its user
 * (GET /u/{username}.json: a bad key, or a user the key may not act as, is refused) and says whether that
 * user is an admin, whose key reads emails.
 */
async function testForum(settings: DiscourseSettings, secrets: DiscourseSecrets, access: PlatformAccess): Promise<string> {
  const info = await discourseGet<{ title?: string }>('/site/basic-info.json', settings, secrets, access, { anonymous: true }).catch((error: unknown) => {
    if (error instanceof DiscourseNotFound) throw new Error(`${settings.url} does not answer as a Discourse forum (GET /site/basic-info.json: 404)`);
    throw error;
  });
  const title = info.title || settings.url;
  const me = await actingUser(settings, secrets, access);
  return `forum '${title}' reached; key works as '${me.username}' (${me.admin ? 'admin: emails will be read' : 'not an admin: emails will not be read'})`;
}
