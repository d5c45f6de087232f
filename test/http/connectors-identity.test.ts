import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startDevtoStandIn, type DevtoStandIn } from '../stand-ins/devto-api.ts';
import { startDiscordStandIn, type DiscordStandIn } from '../stand-ins/discord-api.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { startSlackStandIn, type SlackStandIn } from '../stand-ins/slack-api.ts';
import { startStackExchangeStandIn, type StackExchangeStandIn } from '../stand-ins/stackexchange-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * One person on five platforms, each read by its connector, ends as the contacts docs/ingestion.md's rules
 * say (docs/connectors.md, "One person on several platforms"):
 * - GitHub: login `user1`, public email ada@example.org, blog user1.dev;
 * - Slack: the same email in the member's profile: the same person (a strong identity), merged, and the
 *   merge says why;
 * - DEV: the profile names the GitHub account `user1` (DEV fills it only from a GitHub sign-in): the same
 *   person, by the GitHub identity;
 * - Discord: the username `user1`, the same as the GitHub login: a Discord username is not a GitHub login,
 *   never merged on that alone;
 * - Stack Overflow: the website https://user1.dev, the GitHub profile's blog: a website is no identity, not merged.
 */

const EMAIL = 'ada@example.org';
const GITHUB_TOKEN = 'ghp_identity_test';
const SLACK_TOKEN = 'xoxb-identity-test-token';
const DISCORD_TOKEN = 'discord-identity-test-token';

describe.each(ENGINES)('one person on several platforms (%s)', (engine) => {
  let github: GitHubStandIn;
  let slack: SlackStandIn;
  let discord: DiscordStandIn;
  let stack: StackExchangeStandIn;
  let dev: DevtoStandIn;
  let channelId: string;
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    // Stargazer 1 is `user1`; the stand-in's profile of person 1 has the blog user1.dev.
    github = await startGitHubStandIn({
      repositories: [{ fullName: 'acme/widgets', stargazers: 1, forks: 0 }],
      tokens: [GITHUB_TOKEN],
      emails: { 1: EMAIL },
    });
    slack = await startSlackStandIn({
      token: SLACK_TOKEN,
      channels: [{ id: 'C0GENERAL', name: 'general', isMember: true }],
      users: [{ id: 'U0ADA', name: 'ada', realName: 'Ada Lovelace', email: EMAIL }],
    });
    slack.post('C0GENERAL', { user: 'U0ADA', text: 'Hello from Slack' });
    discord = await startDiscordStandIn({ token: DISCORD_TOKEN, channels: [{ name: 'general' }] });
    channelId = discord.channel('general');
    const onDiscord = discord.user({ username: 'user1', globalName: 'Ada' });
    discord.post(channelId, { author: onDiscord.id, content: 'Hello from Discord' });
    stack = await startStackExchangeStandIn({ people: [{ user_id: 4242, display_name: 'Ada', website_url: 'https://user1.dev' }] });
    stack.ask({ owner: 4242, tags: ['hearth'], title: 'How do I follow a tag?' });
    dev = await startDevtoStandIn({ users: [{ username: 'ada_dev', name: 'Ada Lovelace', github: 'user1' }] });
    dev.publish({ title: 'Hello from DEV', username: 'ada_dev', tags: ['hearth'] });
  });
  afterAll(async () => {
    for (const standIn of [github, slack, discord, stack, dev]) await standIn?.stop();
  });

  beforeEach(async () => {
    clock = new ManualClock(new Date());
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
  });
  afterEach(() => t.close());

  /** Makes the connector and runs its first sync to the end (profiles included). */
  const connect = async (body: Record<string, unknown>) => {
    const made = await t.send('POST', '/api/v2/admin/connectors', body);
    expect(made.statusCode, made.body).toBe(201);
    await createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
    const connector = (await t.get(`/api/v2/admin/connectors/${made.json().data.id}`)).json().data;
    expect(connector.state, JSON.stringify(connector)).toBe('active');
    return connector as { id: string; sourceId: number };
  };
  /** The contact each connector's people landed on (every one of a source's people, by its profile). */
  const contactsOf = async (sourceId: number) =>
    (
      await t.services.db
        .selectFrom('source_profiles')
        .select('contact_id')
        .where('community_id', '=', t.communityId)
        .where('source_id', '=', sourceId)
        .execute()
    ).map((row) => Number(row.contact_id));

  it('merges on a shared email and a GitHub account DEV names; never on a Discord username or a website', async () => {
    const onGitHub = await connect({
      kind: 'github',
      settings: { repositories: ['acme/widgets'], apiUrl: github.url },
      secrets: { token: GITHUB_TOKEN, webhookSecret: 'identity-webhook-secret' },
    });
    const onSlack = await connect({
      kind: 'slack',
      settings: { channels: ['C0GENERAL'], apiUrl: slack.url },
      secrets: { botToken: SLACK_TOKEN, webhookSecret: 'identity-signing-secret' },
    });
    const onDev = await connect({ kind: 'devto', settings: { tags: ['hearth'], apiUrl: dev.url }, secrets: {} });
    const onDiscord = await connect({
      kind: 'discord',
      settings: { guildId: discord.guildId, channels: [channelId], apiUrl: discord.url },
      secrets: { botToken: DISCORD_TOKEN },
    });
    const onStack = await connect({ kind: 'stackoverflow', settings: { tags: ['hearth'], apiUrl: stack.url }, secrets: {} });

    const [ada] = await contactsOf(onGitHub.sourceId);
    expect(await contactsOf(onGitHub.sourceId)).toEqual([ada]);
    expect(await contactsOf(onSlack.sourceId)).toEqual([ada]);
    expect(await contactsOf(onDev.sourceId)).toEqual([ada]);
    const [discordAda] = await contactsOf(onDiscord.sourceId);
    const [stackAda] = await contactsOf(onStack.sourceId);
    expect(new Set([ada, discordAda, stackAda]).size).toBe(3);

    // The contact has the identities each platform gave, each as its own kind of identity.
    const contact = (await t.get(`/api/v2/contacts/c_${ada}?cols=primaryEmail`)).json().data;
    expect(contact.primaryEmail).toBe(EMAIL);
    const identities = await t.services.db
      .selectFrom('contact_identities')
      .select(['contact_id', 'type', 'value'])
      .where('community_id', '=', t.communityId)
      .where('contact_id', 'in', [ada!, discordAda!, stackAda!])
      .orderBy('type')
      .execute();
    const of = (id: number | undefined) => identities.filter((row) => Number(row.contact_id) === id).map((row) => `${row.type}:${row.value}`);
    expect(of(ada)).toEqual(expect.arrayContaining(['email:ada@example.org', 'github:user1']));
    expect(of(discordAda)).toEqual(['discord:user1']);
    expect(of(stackAda)).toEqual([]);

    // Each merge says why: the Slack member was a contact of their own until their profile named the email.
    const merges = (await t.get(`/api/v2/contacts/c_${ada}/merges`)).json().data as {
      reason: string;
      identityType: string | null;
      providerId: string | null;
    }[];
    expect(merges).toEqual([
      expect.objectContaining({
        identityType: null,
        providerId: onSlack.id,
        reason: `a push from source ${onSlack.sourceId} came with the sender's ID "U0ADA", already linked to this contact, together with email "${EMAIL}", held by the surviving contact`,
      }),
    ]);
    // Everyone else stayed apart: Ada, Ada on Discord, Ada on Stack Overflow (the community's admin is a
    // console user, not listed).
    const list = (await t.get('/api/v2/contacts?cols=recordCount&limit=1')).json();
    expect(list.meta.recordCount).toBe(3);
  });
});
