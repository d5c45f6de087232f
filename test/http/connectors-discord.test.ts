import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startDiscordStandIn, type DiscordStandIn, type StandInUser } from '../stand-ins/discord-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with Discord's connector, against the local HTTP API built from Discord's published OpenAPI
 * description: through the admin API and the worker, as in production. Discord sends no webhooks, so the
 * connector has no receiver and everything comes from its syncs.
 */

const TOKEN = 'MTEyMDAwMDAwMDAwMDAwMDAwMQ.Gstand.in-bot-token-for-hearth-0123456789';
const MINUTE = 60_000;
const ago = (minutes: number) => new Date(Date.now() - minutes * MINUTE);

/** A server with two followed channels: #general (text) and #help (a forum). */
async function server() {
  const discord = await startDiscordStandIn({
    token: TOKEN,
    guild: { name: 'Hearth Community' },
    channels: [{ name: 'general' }, { name: 'help', kind: 'forum' }],
  });
  const general = discord.channel('general');
  const help = discord.channel('help');
  const alice = discord.user({ username: 'alice', globalName: 'Alice Liddell', avatar: '8342729096ea3675442027381ff50dfe' });
  const bob = discord.user({ username: 'Bob', discriminator: '4321' });
  const carol = discord.user({ username: 'carol' });
  const deploy = discord.user({ username: 'deploy-bot', bot: true });
  for (const [person, minutes] of [
    [alice, 600],
    [bob, 500],
    [deploy, 400],
  ] as const)
    discord.join(person.id, ago(minutes));
  const release = discord.post(general, { author: alice.id, content: 'Has anyone tried the new release?', at: ago(60) });
  discord.react(release.id, '👍', bob.id);
  discord.react(release.id, '🎉', carol.id);
  discord.react(release.id, '👍', deploy.id);
  const thread = discord.startThread(general, { from: release.id, name: 'Release thoughts', author: alice.id, at: ago(59) });
  const threadReply = discord.post(thread.id, { author: bob.id, content: 'Works for me', at: ago(58) });
  const welcome = discord.post(general, { author: bob.id, content: 'It does!', replyTo: release.id, at: ago(55) });
  discord.post(general, { author: deploy.id, content: 'deployed v2', at: ago(50) });
  discord.post(general, { author: carol.id, content: 'pushed 3 commits', webhook: true, at: ago(49) });
  // Carol joins: Discord posts the join message in the system channel, and she is in the member list.
  discord.join(carol.id, ago(48));
  discord.post(general, { author: carol.id, type: 7, at: ago(48) });
  discord.post(general, { author: alice.id, type: 6, at: ago(47) });
  const post = discord.startThread(help, { name: 'How do I configure it?', author: carol.id, content: 'I tried everything', at: ago(40) });
  const answer = discord.post(post.id, { author: alice.id, content: 'See the docs', at: ago(39) });
  discord.archive(post.id, ago(30));
  return {
    discord,
    general,
    help,
    alice,
    bob,
    carol,
    ids: { release: release.id, thread: thread.id, threadReply: threadReply.id, welcome: welcome.id, post: post.id, answer: answer.id },
  };
}

describe.each(ENGINES)('connectors with the Discord connector (%s)', (engine) => {
  let t: TestApp;
  let clock: ManualClock;
  let world: Awaited<ReturnType<typeof server>>;
  let discord: DiscordStandIn;

  beforeEach(async () => {
    world = await server();
    discord = world.discord;
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
  });
  afterEach(async () => {
    await t.close();
    await discord.stop();
  });

  const create = async (botToken = TOKEN) => {
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'discord',
      settings: { guildId: discord.guildId, channels: [world.general, world.help], apiUrl: discord.url },
      secrets: { botToken },
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.body).not.toContain(botToken);
    return made.json().data as { id: string; sourceId: number; receiverUrl: string | null };
  };
  const sync = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
  const show = async (id: string) => {
    const answer = await t.get(`/api/v2/admin/connectors/${id}`);
    expect(answer.body).not.toContain(TOKEN);
    return answer.json().data;
  };
  const activities = async (sourceId: number) =>
    sorted(
      await t.services.db
        .selectFrom('activities as a')
        .leftJoin('activities as p', (join) => join.onRef('p.community_id', '=', 'a.community_id').onRef('p.id', '=', 'a.parent_id'))
        .select(['a.external_id as externalId', 'a.activity_type as type', 'p.external_id as parent'])
        .where('a.source_id', '=', sourceId)
        .execute(),
    );
  const sorted = <T extends { externalId: string }>(rows: T[]) => [...rows].sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
  const profiles = (sourceId: number) =>
    t.services.db.selectFrom('source_profiles').select(['external_id', 'contact_id']).where('source_id', '=', sourceId).orderBy('external_id').execute();

  it('backfills messages, threads, forum posts, reactions and joins; a later sync brings only what is new; reading again duplicates nothing', async () => {
    const connector = await create();
    expect(connector.receiverUrl).toBeNull();
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({
      ok: true,
      message:
        "server 'Hearth Community' (5 members) reached as 'hearth'; channels: #general (text, history readable); #help (forum, posts readable); members: listable",
    });

    await sync();
    let shown = await show(connector.id);
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'active', reason: null, receiverUrl: null, secrets: ['botToken'] });
    expect(shown.streams.map((stream: { stream: string }) => stream.stream).sort()).toEqual(
      [`channel:${world.general}`, `threads:${world.general}`, `channel:${world.help}`, `threads:${world.help}`, 'members'].sort(),
    );
    const guild = discord.guildId;
    const { alice, bob, carol, ids } = world;
    const message = (id: string) => `message:${id}`;
    const expected = [
      { externalId: message(ids.release), type: 'discord_message', parent: null },
      { externalId: message(ids.threadReply), type: 'discord_thread_reply', parent: message(ids.release) },
      { externalId: message(ids.welcome), type: 'discord_message', parent: message(ids.release) },
      { externalId: message(ids.post), type: 'discord_message', parent: null },
      { externalId: message(ids.answer), type: 'discord_thread_reply', parent: message(ids.post) },
      { externalId: `reaction:${ids.release}:👍:${bob.id}`, type: 'discord_reaction', parent: message(ids.release) },
      { externalId: `reaction:${ids.release}:🎉:${carol.id}`, type: 'discord_reaction', parent: message(ids.release) },
      // Carol's join: the join message and the member list name the same activity.
      { externalId: `joined:${guild}:${alice.id}`, type: 'discord_joined_server', parent: null },
      { externalId: `joined:${guild}:${bob.id}`, type: 'discord_joined_server', parent: null },
      { externalId: `joined:${guild}:${carol.id}`, type: 'discord_joined_server', parent: null },
    ];
    expect(await activities(connector.sourceId)).toEqual(sorted(expected));

    // One contact per Discord user, never the bot or the webhook; each with what Discord says of them.
    const people = await profiles(connector.sourceId);
    expect(people.map((row) => row.external_id)).toEqual([alice.id, bob.id, carol.id].sort());
    const contactOf = async (user: StandInUser) => {
      const row = people.find((one) => one.external_id === user.id)!;
      return (await t.get(`/api/v2/contacts/c_${row.contact_id}?cols=fullName,avatarUrl,profiles`)).json().data;
    };
    expect(await contactOf(alice)).toMatchObject({
      name: 'Alice Liddell',
      avatarUrl: `https://cdn.discordapp.com/avatars/${alice.id}/8342729096ea3675442027381ff50dfe.png`,
      profiles: [{ type: 'discord', value: 'alice' }],
    });
    expect(await contactOf(bob)).toMatchObject({ name: 'Bob', profiles: [{ type: 'discord', value: 'Bob#4321' }] });

    // What is new since: a message, a reply in the old thread, a member. The members list is read hourly.
    const later = discord.post(world.general, { author: carol.id, content: 'Thanks all' });
    const lateReply = discord.post(ids.thread, { author: carol.id, content: 'Same here' });
    const dave = discord.user({ username: 'dave', globalName: 'Dave' });
    discord.join(dave.id);
    discord.requests.splice(0);
    clock.advance(61 * MINUTE);
    expect(await t.services.connectors.enqueueDueSyncs()).toBe(1);
    await sync();
    expect(await show(connector.id)).toMatchObject({ state: 'active', reason: null });
    const next = await activities(connector.sourceId);
    expect(next).toEqual(
      sorted([
        ...expected,
        { externalId: message(later.id), type: 'discord_message', parent: null },
        { externalId: message(lateReply.id), type: 'discord_thread_reply', parent: message(ids.release) },
        { externalId: `joined:${guild}:${dave.id}`, type: 'discord_joined_server', parent: null },
      ]),
    );
    // Incremental: the channel was read after its newest message, the thread alone of the threads.
    expect(discord.requests.filter((request) => /\/messages\?/.test(request))).toEqual([
      expect.stringMatching(new RegExp(`^/channels/${world.general}/messages\\?after=\\d+&limit=100$`)),
      expect.stringMatching(new RegExp(`^/channels/${ids.thread}/messages\\?after=\\d+&limit=100$`)),
    ]);

    // Read everything again from scratch: the same activities and contacts, none twice.
    await t.services.db.deleteFrom('connector_streams').where('source_id', '=', connector.sourceId).execute();
    expect((await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined)).statusCode).toBe(200);
    await sync();
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active' });
    expect(await activities(connector.sourceId)).toEqual(next);
    expect((await profiles(connector.sourceId)).length).toBe(4);
  });

  it('waits out a 429 for as long as Discord says, asking nothing meanwhile, then goes on', async () => {
    discord.rateLimitOnce({ retryAfter: 90, path: /\/messages/, scope: 'shared' });
    const connector = await create();
    await sync();
    let shown = await show(connector.id);
    expect(shown, JSON.stringify(shown)).toMatchObject({
      state: 'waiting',
      waitingUntil: new Date(clock.now().getTime() + 90_000).toISOString(),
      reason: `Discord asked to wait 90 s (429 on /api/v10/channels/${world.general}/messages, the resource's shared limit)`,
    });
    const asked = discord.requests.length;
    clock.advance(80_000);
    await t.services.connectors.enqueueDueSyncs();
    expect(await sync()).toBe(0);
    expect(discord.requests.length).toBe(asked);
    clock.set(new Date(Date.parse(shown.waitingUntil) + 1000));
    expect(await sync()).toBe(1);
    shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
    expect(shown.streams.every((stream: { done: boolean }) => stream.done)).toBe(true);
    expect(await activities(connector.sourceId)).toHaveLength(10);
  });

  it('fails on a refused token until its secrets change, never showing it', async () => {
    const revoked = 'MTEyMDAwMDAwMDAwMDAwMDAwMQ.Gstand.revoked-token-0000000000000000000';
    const connector = await create(revoked);
    await sync();
    const refused =
      "Discord refused the bot token (401: 401: Unauthorized). Replace it in the connector's secrets (the bot's token, from the Developer Portal's Bot page).";
    const shown = await show(connector.id);
    expect(shown).toMatchObject({ state: 'failed', reason: refused });
    expect(JSON.stringify(shown)).not.toContain(revoked);
    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toEqual({ ok: false, message: refused });
    expect(tested.body).not.toContain(revoked);
    const patched = await t.send('PATCH', `/api/v2/admin/connectors/${connector.id}`, { secrets: { botToken: TOKEN } });
    expect(patched.json().data).toMatchObject({ state: 'backfilling', reason: null });
    expect(patched.body).not.toContain(TOKEN);
    await sync();
    expect(await show(connector.id)).toMatchObject({ state: 'active' });
  });

  it('says which field of bad settings or secrets is wrong, never their values; the kind has no receiver', async () => {
    const badToken = 'Bot not-a-discord-token';
    const answer = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'discord',
      settings: { guildId: discord.guildId, channels: [world.general], apiUrl: discord.url },
      secrets: { botToken: badToken },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.message).toContain('secrets.botToken');
    expect(answer.body).not.toContain('not-a-discord-token');
    const badChannel = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'discord',
      settings: { guildId: discord.guildId, channels: ['#general'] },
      secrets: { botToken: TOKEN },
    });
    expect(badChannel.statusCode).toBe(400);
    expect(badChannel.json().error.message).toContain('settings.channels');
    expect(badChannel.body).not.toContain(TOKEN);
    const noGuild = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'discord',
      settings: { channels: [world.general] },
      secrets: { botToken: TOKEN },
    });
    expect(noGuild.json().error.message).toContain('body field "settings.guildId" is required');
    const withWebhookSecret = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'discord',
      settings: { guildId: discord.guildId, channels: [world.general] },
      secrets: { botToken: TOKEN, webhookSecret: 'not-for-discord-0000' },
    });
    expect(withWebhookSecret.statusCode).toBe(400);
    expect(withWebhookSecret.json().error.message).toContain('unknown body field "secrets.webhookSecret"');
    const kinds = await t.get('/api/v2/admin/connector-kinds');
    expect(kinds.json().data.find((one: { kind: string }) => one.kind === 'discord')).toMatchObject({ platformName: 'Discord', receives: false });
  });
});
