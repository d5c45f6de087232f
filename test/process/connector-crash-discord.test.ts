import { expect } from 'vitest';
import { startDiscordStandIn, type DiscordStandIn } from '../stand-ins/discord-api.ts';
import { describeCrashes } from '../helpers/connector-crash.ts';
import { waitUntil } from '../helpers/process.ts';

const PEOPLE = 30;
/** Five pages of the channel (the connector asks for 100 a page). */
const MESSAGES = 450;
const BOT_TOKEN = 'MTEyMDAwMDAwMDAwMDAwMDAwMQ.Gcrash.discord-crash-test-token-000000';

/**
 * A Discord connector's backfill killed with SIGKILL in the middle (the stand-in answers its second page of
 * the channel slowly) goes on from its checkpoint when the server starts again, and every message is stored
 * exactly once; no log holds the bot token.
 */
describeCrashes(
  'a Discord backfill survives kill -9 of its server',
  ({ serveWithConnector, recordsRead, kill, restart, activitiesOf, contactsOf, expectNoSecretLogged, cleanups, test }) => {
    test('goes on from its checkpoint after the restart and stores every message once', { timeout: 240_000 }, async () => {
      const discord: DiscordStandIn = await startDiscordStandIn({ token: BOT_TOKEN, channels: [{ name: 'crashes' }] });
      cleanups.push(() => discord.stop());
      const channel = discord.channel('crashes');
      const history = discord.generate({ seed: 42, channelId: channel, messages: MESSAGES, people: PEOPLE });
      expect(history.messages).toBe(MESSAGES);
      // The second page of the channel, the first time it is asked for, answers very slowly: the server is killed meanwhile.
      discord.slow({ path: /\/messages\?before=/, ms: 5_000, times: 1 });
      const channelPages = () => discord.requests.filter((request) => request.startsWith(`/channels/${channel}/messages?`));

      const served = await serveWithConnector({
        kind: 'discord',
        settings: { guildId: discord.guildId, channels: [channel], apiUrl: discord.url },
        secrets: { botToken: BOT_TOKEN },
      });
      await waitUntil(async () => channelPages().length >= 2, 'the second page of the channel asked for', 60_000).catch((error: Error) => {
        throw new Error(`${error.message}; asked: ${discord.requests.join(', ') || 'nothing'}`);
      });
      await waitUntil(async () => (await recordsRead(served, `channel:${channel}`)) >= 100, 'the first page stored', 60_000);
      expect(channelPages()).toHaveLength(2);
      await kill(served);
      const { second, streams } = await restart(served);
      expect(streams.map((stream) => stream.stream).sort()).toEqual([`channel:${channel}`, 'members', `threads:${channel}`]);

      // Every message once, and each person's join.
      expect(await activitiesOf(second, served, 'discord_message')).toBe(MESSAGES);
      expect(await activitiesOf(second, served, 'discord_joined_server')).toBe(PEOPLE);
      expect(await activitiesOf(second, served)).toBe(MESSAGES + PEOPLE);
      // One contact per Discord user (the community's admin, made by init, is a console user).
      expect(await contactsOf(second, served)).toBe(PEOPLE);
      // The restarted sync went on from the checkpoint: the newest page (no `before`) was asked for once.
      expect(channelPages().filter((request) => !/[?&](before|after)=/.test(request))).toHaveLength(1);
      expectNoSecretLogged([served.first, second], [BOT_TOKEN]);
    });
  },
);
