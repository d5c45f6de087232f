import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { compileBodyValidator } from '../../src/core/validation.ts';
import { CredentialRejected, RateLimitWait, type PlatformAccess, type Translation } from '../../src/modules/connectors/connector-kind.ts';
import { slackConnector, type SlackSecrets, type SlackSettings } from '../../src/modules/connectors/slack/slack-connector.ts';
import { ActivityPushBody, UserPushBody } from '../../src/modules/ingestion/index.ts';
import { startSlackStandIn, type SlackStandIn } from '../stand-ins/slack-api.ts';
import { bodies, sign, signedDelivery, type SignedDelivery } from '../stand-ins/slack-events.ts';

const kind = slackConnector;
const receiver = slackConnector.receiver!;
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';
const NOW = new Date('2026-02-01T00:00:00.000Z');
const secrets: SlackSecrets = { botToken: TOKEN, webhookSecret: SECRET };
const checkActivity = compileBodyValidator(ActivityPushBody);
const checkUser = compileBodyValidator(UserPushBody);

function translated(delivery: SignedDelivery, settings: SlackSettings): Translation {
  const body: unknown = JSON.parse(delivery.raw.toString());
  const event = receiver.eventOf(delivery.headers, body);
  expect(event).not.toBeNull();
  const translation = receiver.translate({ headers: delivery.headers, event: event!, body }, settings);
  for (const activity of translation.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
  return translation;
}

const settings: SlackSettings = { channels: ['C0GENERAL', 'G0PRIVATE'] };
const deliver = (event: Record<string, unknown>, eventId?: string) => signedDelivery({ secret: SECRET, body: bodies.eventCallback(event, eventId), at: NOW });

describe('the Slack connector: signatures', () => {
  const good = deliver(bodies.message('C0GENERAL', { ts: '1767225660.000100', user: 'U0ALICE', text: 'hello' }));

  it('takes a delivery signed with the signing secret within five minutes', async () => {
    expect(await receiver.verify(good.raw, good.headers, secrets, NOW)).toBe(true);
    expect(await receiver.verify(good.raw, good.headers, secrets, new Date(NOW.getTime() + 299_000))).toBe(true);
  });

  it('refuses a wrong signature, a changed body, another secret and missing headers', async () => {
    const tampered = Buffer.from(good.raw.toString().replace('hello', 'hullo'));
    expect(await receiver.verify(tampered, good.headers, secrets, NOW)).toBe(false);
    expect(await receiver.verify(good.raw, { ...good.headers, 'x-slack-signature': 'v0=00' }, secrets, NOW)).toBe(false);
    expect(await receiver.verify(good.raw, { ...good.headers, 'x-slack-signature': 'v1=' + good.headers['x-slack-signature']!.slice(3) }, secrets, NOW)).toBe(
      false,
    );
    expect(await receiver.verify(good.raw, good.headers, { ...secrets, webhookSecret: 'another-signing-secret' }, NOW)).toBe(false);
    const { 'x-slack-request-timestamp': _timestamp, ...noTimestamp } = good.headers;
    expect(await receiver.verify(good.raw, noTimestamp, secrets, NOW)).toBe(false);
    // The timestamp is part of what is signed: another one with the same signature does not pass.
    const shifted = { ...good.headers, 'x-slack-request-timestamp': String(Number(good.headers['x-slack-request-timestamp']) + 1) };
    expect(await receiver.verify(good.raw, shifted, secrets, NOW)).toBe(false);
    // Without the receiver's clock the age cannot be checked: refused.
    expect(await receiver.verify(good.raw, good.headers, secrets)).toBe(false);
  });

  it('refuses a timestamp more than five minutes old (a replay), even correctly signed', async () => {
    const at = Math.floor(NOW.getTime() / 1000) - 301;
    const headers = { ...good.headers, 'x-slack-request-timestamp': String(at), 'x-slack-signature': sign(SECRET, at, good.raw) };
    expect(await receiver.verify(good.raw, headers, secrets, NOW)).toBe(false);
    expect(await receiver.verify(good.raw, headers, secrets, new Date(NOW.getTime() - 2000))).toBe(true);
  });
});

describe('the Slack connector: deliveries', () => {
  it('names the event and the delivery from the body; answers the URL handshake', () => {
    const handshake = bodies.urlVerification('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
    expect(receiver.eventOf({}, handshake)).toBe('url_verification');
    expect(receiver.answer!({ headers: {}, event: 'url_verification', body: handshake })).toEqual({
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
    const callback = bodies.eventCallback(bodies.memberJoined('C0GENERAL', 'U0ALICE'), 'Ev0RETRIED');
    expect(receiver.eventOf({}, callback)).toBe('member_joined_channel');
    expect(receiver.answer!({ headers: {}, event: 'member_joined_channel', body: callback })).toBeNull();
    expect(receiver.deliveryId({ 'x-slack-retry-num': '1' }, callback)).toBe('Ev0RETRIED');
    expect(receiver.eventOf({}, {})).toBeNull();
    expect(receiver.deliveryId({}, {})).toBeNull();
  });

  it('makes a message and a thread reply under its parent, with Slack IDs', () => {
    const message = translated(deliver(bodies.message('C0GENERAL', { ts: '1767225660.000100', user: 'U0ALICE', text: 'hello' })), settings);
    expect(message).toEqual({
      users: [],
      skipped: [],
      activities: [
        {
          id: 'message:C0GENERAL:1767225660.000100',
          activityType: 'slack_message',
          user: { id: 'U0ALICE' },
          content: { type: 'text', value: 'hello' },
          timestamp: '2026-01-01T00:01:00.000Z',
          parentActivity: null,
          subSource: 'C0GENERAL',
        },
      ],
    });
    const reply = translated(
      deliver(bodies.message('G0PRIVATE', { ts: '1767225720.000200', user: 'U0BOB', text: 'hi', thread_ts: '1767225660.000100' })),
      settings,
    );
    expect(reply.activities[0]).toMatchObject({
      id: 'message:G0PRIVATE:1767225720.000200',
      activityType: 'slack_thread_reply',
      parentActivity: { id: 'message:G0PRIVATE:1767225660.000100', activityType: 'slack_message' },
    });
  });

  it('makes a reaction under the message and a join of the channel', () => {
    const reaction = translated(deliver(bodies.reactionAdded('C0GENERAL', '1767225660.000100', 'U0BOB', 'tada')), settings);
    expect(reaction.activities).toEqual([
      expect.objectContaining({
        id: 'reaction:C0GENERAL:1767225660.000100:U0BOB:tada',
        activityType: 'slack_reaction',
        user: { id: 'U0BOB' },
        parentActivity: { id: 'message:C0GENERAL:1767225660.000100', activityType: 'slack_message' },
      }),
    ]);
    const joined = translated(deliver(bodies.memberJoined('C0GENERAL', 'U0CAROL')), settings);
    expect(joined.activities).toEqual([
      expect.objectContaining({ id: 'joined:C0GENERAL:U0CAROL', activityType: 'slack_joined_channel', user: { id: 'U0CAROL' } }),
    ]);
    // The channel_join message of the same join (history, or message events) is the same activity.
    const joinMessage = translated(deliver(bodies.message('C0GENERAL', { ts: '1767225700.000300', user: 'U0CAROL', subtype: 'channel_join' })), settings);
    expect(joinMessage.activities[0]).toMatchObject({ id: 'joined:C0GENERAL:U0CAROL', activityType: 'slack_joined_channel' });
  });

  it('skips bots, Slackbot, unfollowed channels and events it does not follow, saying why', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [bodies.message('C0GENERAL', { ts: '1.1', subtype: 'bot_message', bot_id: 'B0DEPLOY', text: 'deployed' }), /a bot's message \(B0DEPLOY\)/],
      [bodies.message('C0GENERAL', { ts: '1.2', user: 'U0APPBOT', bot_id: 'B0APP', text: 'hi' }), /a bot's message/],
      [bodies.message('C0GENERAL', { ts: '1.3', user: 'USLACKBOT', text: 'reminder' }), /by Slackbot/],
      [bodies.message('C0RANDOM', { ts: '1.4', user: 'U0ALICE', text: 'hi' }), /channel C0RANDOM is not followed/],
      [bodies.message('C0GENERAL', { ts: '1.5', user: 'U0ALICE', subtype: 'channel_topic' }), /subtype channel_topic is not followed/],
      [bodies.reactionAdded('C0RANDOM', '1.6', 'U0BOB', 'eyes'), /channel C0RANDOM is not followed/],
      [bodies.reactionAdded('C0GENERAL', '1.7', 'USLACKBOT', 'eyes'), /by Slackbot/],
      [bodies.memberJoined('C0RANDOM', 'U0ALICE'), /channel C0RANDOM is not followed/],
      [{ type: 'channel_rename', channel: { id: 'C0GENERAL', name: 'news' }, event_ts: '1.8' }, /channel_rename: not an event the Slack connector follows/],
    ];
    for (const [event, reason] of cases) {
      const translation = translated(deliver(event), settings);
      expect(translation.activities, JSON.stringify(event)).toEqual([]);
      expect(translation.skipped.join('; ')).toMatch(reason);
    }
  });
});

describe('the Slack connector against the stand-in', () => {
  let slack: SlackStandIn;
  let stand: SlackSettings;
  const clock = new ManualClock(NOW.toISOString());
  const access = (): PlatformAccess => ({ fetch: globalThis.fetch, now: () => clock.now(), signal: new AbortController().signal, cache: new Map() });

  beforeAll(async () => {
    slack = await startSlackStandIn({
      token: TOKEN,
      pageSize: 2,
      channels: [{ id: 'C0GENERAL', name: 'general' }],
      users: [
        { id: 'U0ALICE', name: 'alice', realName: 'Alice Liddell', title: 'Maintainer', email: 'alice@example.org' },
        { id: 'U0BOB', name: 'bob', realName: 'Bob Builder' },
        { id: 'U0DEPLOY', name: 'deploybot', isBot: true },
      ],
    });
    stand = { channels: ['C0GENERAL'], apiUrl: slack.url };
    const parent = slack.post('C0GENERAL', { user: 'U0ALICE', text: 'first' });
    slack.post('C0GENERAL', { user: 'U0BOB', text: 'a reply', thread_ts: parent.ts });
    slack.post('C0GENERAL', { user: 'U0BOB', text: 'second' });
    slack.post('C0GENERAL', { subtype: 'bot_message', bot_id: 'B0DEPLOY', text: 'deployed' });
    slack.post('C0GENERAL', { user: 'U0ALICE', text: 'third' });
  });
  afterAll(() => slack.stop());

  it('walks the history by cursor with the threads, then reads only what is new', async () => {
    let checkpoint = null as Parameters<typeof kind.page>[1];
    const ids: string[] = [];
    const skipped: string[] = [];
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(10);
      const page = await kind.page('channel:C0GENERAL', checkpoint, stand, secrets, access());
      ids.push(...page.translation.activities.map((activity) => `${activity.activityType} ${activity.id}`));
      skipped.push(...page.translation.skipped);
      checkpoint = page.checkpoint;
      if (page.done) break;
    }
    expect(ids).toHaveLength(4);
    expect(ids.filter((id) => id.startsWith('slack_thread_reply'))).toHaveLength(1);
    expect(skipped).toEqual([expect.stringMatching(/a bot's message/)]);
    expect(slack.requests.some((request) => request.startsWith('conversations.replies'))).toBe(true);

    const later = slack.post('C0GENERAL', { user: 'U0BOB', text: 'new' });
    const next = await kind.page('channel:C0GENERAL', checkpoint, stand, secrets, access());
    expect(next.done).toBe(true);
    expect(next.translation.activities.map((activity) => activity.id)).toEqual([`message:C0GENERAL:${later.ts}`]);
  });

  it('waits on a 429 as Retry-After says, and fails on a refused token', async () => {
    slack.rateLimitOnce(30);
    const error = await kind.page('channel:C0GENERAL', null, stand, secrets, access()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitWait);
    expect((error as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 30_000));
    const refused = await kind.page('channel:C0GENERAL', null, stand, { ...secrets, botToken: 'xoxb-revoked' }, access()).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(CredentialRejected);
    expect((refused as Error).message).toContain('invalid_auth');
    expect((refused as Error).message).not.toContain('xoxb-revoked');
  });

  it('reads profiles, never of bots, and tests the token and channels', async () => {
    const people = await kind.profiles!(['U0ALICE', 'U0BOB', 'U0DEPLOY', 'USLACKBOT', 'U0GONE'], stand, secrets, access());
    for (const person of people) expect(checkUser(person), JSON.stringify(checkUser.errors)).toBe(true);
    expect(people).toEqual([
      expect.objectContaining({ id: 'U0ALICE', username: 'alice', fullName: 'Alice Liddell', titleAtCompany: 'Maintainer', email: 'alice@example.org' }),
      expect.objectContaining({ id: 'U0BOB', username: 'bob', fullName: 'Bob Builder' }),
    ]);
    expect(people[1]).not.toHaveProperty('email');
    expect(await kind.test(stand, secrets, access())).toBe("workspace 'Stand-in Workspace' reached as 'hearth'; channels: #general (public, the bot is in it)");
    await expect(kind.test({ ...stand, channels: ['C0MISSING'] }, secrets, access())).rejects.toThrow(/channel_not_found/);
  });
});
