import type { ConnectorKind, PlatformAccess } from '../connector-kind.ts';
import { STREAM_PREFIX, channelPage } from './slack-backfill.ts';
import { slackCall } from './slack-client.ts';
import { readProfiles } from './slack-people.ts';
import { SlackSecretsSchema, SlackSettingsSchema, type SlackSecrets, type SlackSettings } from './slack.schemas.ts';
import { slackAnswer, slackDeliveryId, slackEventOf, translateSlack, verifySlack } from './slack-events.ts';

export type { SlackSecrets, SlackSettings } from './slack.schemas.ts';

/**
 * Slack workspaces: the followed channels' messages, thread replies and joins from the history (backfill and
 * incremental syncs) and from the Events API; reactions from the Events API only. People are Slack user IDs.
 */
export const slackConnector: ConnectorKind<SlackSettings, SlackSecrets> = {
  kind: 'slack',
  platformName: 'Slack',
  settingsSchema: SlackSettingsSchema,
  secretsSchema: SlackSecretsSchema,
  receiver: {
    platformIssuesWebhookSecret: true,
    verify: verifySlack,
    deliveryId: slackDeliveryId,
    eventOf: slackEventOf,
    answer: slackAnswer,
    translate: translateSlack,
  },
  async streams(settings) {
    return settings.channels.map((channel) => `${STREAM_PREFIX}${channel}`);
  },
  async page(stream, checkpoint, settings, secrets, access) {
    if (!stream.startsWith(STREAM_PREFIX)) throw new Error(`the Slack connector has no stream "${stream}"`);
    return channelPage(stream.slice(STREAM_PREFIX.length), checkpoint, settings, secrets, access);
  },
  profiles: readProfiles,
  test: testWorkspace,
};

interface ChannelInfo {
  channel?: { id: string; name?: string; is_private?: boolean; is_member?: boolean; is_archived?: boolean };
}

/** Tries the token (auth.test), then reads each followed channel (conversations.info) and says what it found. */
async function testWorkspace(settings: SlackSettings, secrets: SlackSecrets, access: PlatformAccess): Promise<string> {
  const me = await slackCall<{ team?: string; user?: string }>('auth.test', {}, settings, secrets, access);
  const channels: string[] = [];
  for (const id of settings.channels) {
    const { channel } = await slackCall<ChannelInfo>('conversations.info', { channel: id }, settings, secrets, access);
    const notes = [channel?.is_private ? 'private' : 'public', channel?.is_member ? 'the bot is in it' : 'the bot is not in it'];
    if (channel?.is_archived) notes.push('archived');
    channels.push(`#${channel?.name ?? id} (${notes.join(', ')})`);
  }
  return `workspace '${me.team ?? '?'}' reached as '${me.user ?? '?'}'; channels: ${channels.join('; ')}`;
}
