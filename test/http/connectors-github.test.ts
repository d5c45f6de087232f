import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { createGitHubConnector } from '../../src/modules/connectors/github/github-connector.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { signedDelivery, standInDelivery, type StandInEvent } from '../stand-ins/github-webhooks.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * The framework with GitHub's connector, against the local GitHub built from its published API description
 * and webhook examples: through the admin API, the worker and the public receiver, as in production.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REPO = 'acme/widgets';
const TOKEN = 'ghp_hearth_test';
const WEBHOOK_SECRET = 'github-webhook-secret-1';
// No in-process throttling or waits between retries: the framework's waits are what is tested.
const github = createGitHubConnector({ retryBaseMs: 1, retries: 1, serverErrorWaitMs: 60_000, throttle: false }) as ConnectorKind<unknown, unknown>;

describe.each(ENGINES)('connectors with the GitHub connector (%s)', (engine) => {
  let standIn: GitHubStandIn;
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    standIn = await startGitHubStandIn({
      repositories: [
        {
          fullName: REPO,
          stargazers: 5,
          forks: 2,
          issues: 6,
          pullEvery: 3,
          issueComments: 4,
          reviewsPerPull: 1,
          releases: 1,
          discussions: 2,
          commentsPerDiscussion: 2,
        },
      ],
      // Person 5 (a stargazer, the author of the repository's issue number 5) and person 10 (the author of comment 3) are bots.
      botEvery: 5,
      // Person 1: a company named like an organization Hearth has; 2: a company that is a domain; 3: "@acme"
      // with the company's own site as blog. No public email for 1, 2 and 3, which would name a domain too, and
      // no company for 4, whose work email would make a second organization named Initech.
      companies: { 1: 'Initech', 2: 'initech.com', 4: null },
      emails: { 2: null },
    });
  });
  afterAll(() => standIn.stop());

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    t = await createTestApp(engine, { clock, allowPrivateFetch: true, connectorKinds: [github] });
  });
  afterEach(() => t.close());

  const settings = (more: Json = {}) => ({ repositories: [REPO], apiUrl: standIn.url, ...more });
  const create = async (more: Json = {}) => {
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'github',
      settings: settings(more),
      secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
    });
    expect(made.statusCode, made.body).toBe(201);
    return made.json().data as { id: string; sourceId: number; receiverUrl: string };
  };
  const sync = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
  const activitiesOf = (sourceId: number) =>
    t.services.db
      .selectFrom('activities')
      .select(['id', 'external_id', 'parent_external_id', 'parent_id', 'url', 'contact_id'])
      .where('source_id', '=', sourceId)
      .execute();
  const deliver = async (connector: { receiverUrl: string }, what: StandInEvent, index: number, change: (body: Json) => Json = (body) => body) => {
    const { event, body } = standInDelivery(standIn, REPO, what, index);
    const delivery = await signedDelivery(event, change(body), WEBHOOK_SECRET);
    const answer = await t.app.inject({ method: 'POST', url: new URL(connector.receiverUrl).pathname, headers: delivery.headers, payload: delivery.raw });
    expect(answer.statusCode, answer.body).toBe(202);
  };
  const processed = async () => {
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    const failed = await t.services.db.selectFrom('connector_deliveries').select(['delivery_id', 'error']).where('error', 'is not', null).execute();
    expect(failed).toEqual([]);
  };
  const sourceProfile = (sourceId: number, externalId: string) =>
    t.services.db
      .selectFrom('source_profiles')
      .select(['contact_id'])
      .where('source_id', '=', sourceId)
      .where('external_id', '=', externalId)
      .executeTakeFirst();

  it('backfills a repository, takes a signed delivery once, and names fields of bad secrets', async () => {
    const refused = await t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: { token: TOKEN, extra: 'x' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toContain('secrets');
    expect(refused.body).not.toContain(TOKEN);

    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'github',
      settings: settings(),
      secrets: { token: TOKEN, webhookSecret: WEBHOOK_SECRET },
    });
    expect(made.statusCode, made.body).toBe(201);
    const connector = made.json().data;
    expect(connector).toMatchObject({ name: 'GitHub', kind: 'github', secrets: ['token', 'webhookSecret'] });
    expect(made.body).not.toContain(TOKEN);
    expect(made.body).not.toContain(WEBHOOK_SECRET);

    const tested = await t.send('POST', `/api/v2/admin/connectors/${connector.id}/test`, undefined);
    expect(tested.json().data).toMatchObject({ ok: true, message: expect.stringContaining(REPO) });

    await sync();
    const shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'active', reason: null });
    expect(shown.streams.length).toBeGreaterThan(1);
    expect(shown.streams.every((stream: { done: boolean }) => stream.done)).toBe(true);
    const backfilled = await activitiesOf(connector.sourceId);
    expect(backfilled.length).toBeGreaterThan(20);

    // A star the backfill already read, delivered by webhook: the same activity, and a redelivery is stored once.
    const path = new URL(connector.receiverUrl).pathname;
    const star = standInDelivery(standIn, REPO, 'star', 1);
    const delivery = await signedDelivery(star.event, star.body, WEBHOOK_SECRET, 'delivery-1');
    const answer = await t.app.inject({ method: 'POST', url: path, headers: delivery.headers, payload: delivery.raw });
    expect(answer.statusCode, answer.body).toBe(202);
    expect((await t.app.inject({ method: 'POST', url: path, headers: delivery.headers, payload: delivery.raw })).json()).toEqual({
      received: true,
      duplicate: true,
    });
    const forged = await signedDelivery(star.event, star.body, 'not-the-secret', 'delivery-2');
    expect((await t.app.inject({ method: 'POST', url: path, headers: forged.headers, payload: forged.raw })).statusCode).toBe(401);
    // A discussion and its comment, read by the backfill through GraphQL, delivered: the same activities.
    await deliver(connector, 'discussion', 1);
    await deliver(connector, 'discussion-comment', 1);
    await processed();
    const [stored] = await t.services.db.selectFrom('connector_deliveries').select(['outcome', 'error']).where('delivery_id', '=', 'delivery-1').execute();
    expect(stored).toMatchObject({ error: null, outcome: expect.objectContaining({ activities: 1 }) });
    expect(await activitiesOf(connector.sourceId)).toHaveLength(backfilled.length);

    // A comment the backfill has not seen: one more activity, threaded under the pull request it answers.
    await deliver(connector, 'issue-comment', 6);
    await processed();
    const now = await activitiesOf(connector.sourceId);
    expect(now).toHaveLength(backfilled.length + 1);
    const comment = now.find((row) => row.external_id === `issue-comment:${standIn.record(REPO, 'issue-comment', 6).id}`)!;
    const pull = now.find((row) => row.external_id === `pr:${standIn.repositoryId(REPO)}:6`)!;
    expect(comment).toMatchObject({
      parent_external_id: pull.external_id,
      url: `https://github.com/${REPO}/pull/6#issuecomment-${standIn.record(REPO, 'issue-comment', 6).id}`,
    });
    expect(String(comment.parent_id)).toBe(String(pull.id));

    // Every backfilled answer is threaded under what it answers, when that was stored (not a bot's issue).
    const byExternalId = new Map(now.map((row) => [row.external_id, row]));
    const answers = now.filter((row) => row.parent_external_id !== null);
    expect(answers.length).toBeGreaterThan(10);
    for (const row of answers) {
      const parent = byExternalId.get(row.parent_external_id!);
      if (parent) expect(String(row.parent_id), row.external_id).toBe(String(parent.id));
      else expect(row.parent_external_id, row.external_id).toBe(`issue:${standIn.repositoryId(REPO)}:5`);
    }
    // The platform's address and time, and the repository as the sub-source.
    const discussion = byExternalId.get(`discussion:${standIn.record(REPO, 'discussion', 1).id}`)!;
    expect(discussion.url).toBe(`https://github.com/${REPO}/discussions/1`);
    const activity = (await t.get(`/api/v2/activities/a_${discussion.id}?cols=subSourceNames`)).json().data;
    expect(activity).toMatchObject({ type: 'discussion_opened', subSourceNames: [REPO] });
    expect(Date.parse(activity.activityTime)).toBe(Date.parse('2024-01-01T00:01:04Z'));
    const listed = (await t.get('/api/v2/activities?limit=100&cols=subSourceNames')).json().data as Json[];
    expect(listed).toHaveLength(now.length);
    expect(listed.every((activity) => activity.subSourceNames[0] === REPO)).toBe(true);
  });

  it("waits until GitHub's rate limit resets, then goes on", async () => {
    const connector = (await t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: settings(), secrets: { token: TOKEN } })).json().data;
    const reset = new Date('2026-01-15T12:30:00Z');
    standIn.fault({ kind: 'primary-limit', reset }, { times: 1 });
    const worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    await worker.runUntilIdle();
    let shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown, JSON.stringify(shown)).toMatchObject({ state: 'waiting' });
    expect(Date.parse(shown.waitingUntil)).toBeGreaterThanOrEqual(reset.getTime());
    clock.set(new Date(Date.parse(shown.waitingUntil) + 1000));
    await worker.runUntilIdle();
    shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    expect(shown).toMatchObject({ state: 'active', waitingUntil: null });
  });

  it('makes each person one contact by their numeric ID, with their public profile and company as an organization; bots are skipped', async () => {
    // An organization Hearth already has, named as person 1's company.
    const initech = await t.send('POST', `/community/v1/source/${t.sourceId}/organization`, { domain: 'initech.com' });
    expect(initech.statusCode, initech.body).toBe(200);
    const connector = await create();
    await sync();
    const contactOf = async (index: number, cols = 'fullName,primaryEmail,companyName,companyWebsite,location,profiles,avatarUrl') => {
      const profile = await sourceProfile(connector.sourceId, String(standIn.person(index).id));
      expect(profile, `person ${index}`).toBeDefined();
      const answer = await t.get(`/api/v2/contacts/c_${profile!.contact_id}?cols=${cols}`);
      expect(answer.statusCode).toBe(200);
      return answer.json().data as Json;
    };

    const four = await contactOf(4);
    expect(four).toMatchObject({
      fullName: 'User 4',
      primaryEmail: 'user4@example.com',
      avatarUrl: `https://avatars.githubusercontent.com/u/${standIn.person(4).id}?v=4`,
      location: expect.objectContaining({ city: 'Lisbon' }),
    });
    expect(four.profiles).toEqual(expect.arrayContaining([{ type: 'github', value: 'user4' }, expect.objectContaining({ type: 'twitter', value: 'user4_x' })]));
    // The company names an organization Hearth has; is a domain; or is "@acme" with acme.io as its blog.
    expect(await contactOf(1)).toMatchObject({ companyName: 'Initech', companyWebsite: 'https://initech.com' });
    expect(await contactOf(2)).toMatchObject({ companyWebsite: 'https://initech.com' });
    expect(await contactOf(3)).toMatchObject({ companyName: 'acme', companyWebsite: 'https://acme.io' });

    // Renamed on GitHub: the same numeric ID is the same contact, now with the new login.
    const before = await sourceProfile(connector.sourceId, String(standIn.person(1).id));
    await deliver(connector, 'star', 1, (body) => ({
      ...body,
      sender: { ...body.sender, login: 'user1-renamed', html_url: 'https://github.com/user1-renamed' },
    }));
    await processed();
    expect(await sourceProfile(connector.sourceId, String(standIn.person(1).id))).toEqual(before);
    expect((await contactOf(1, 'profiles')).profiles).toContainEqual({ type: 'github', value: 'user1-renamed' });

    // Bots (person 5, 10) are left out by default: no profile, no contact, no activity, no profile read.
    for (const index of [5, 10]) {
      const id = standIn.person(index).id;
      expect(await sourceProfile(connector.sourceId, String(id))).toBeUndefined();
      expect(await sourceProfile(connector.sourceId, `bot:${id}`)).toBeUndefined();
      expect(standIn.requests.some((request) => request.path === `/user/${id}`)).toBe(false);
    }
    const identities = await t.services.db.selectFrom('contact_identities').select(['value']).where('type', '=', 'github').execute();
    expect(identities.filter((row) => row.value.includes('bot'))).toEqual([]);
  });

  it('keeps bots, when told, as contacts of their own that hold no identity and are never one with a person', async () => {
    const connector = await create({ bots: 'keep' });
    await sync();
    const activities = await activitiesOf(connector.sourceId);
    const people = await t.services.db
      .selectFrom('source_profiles')
      .select(['external_id', 'contact_id'])
      .where('source_id', '=', connector.sourceId)
      .execute();
    const bots = people.filter((profile) => profile.external_id.startsWith('bot:'));
    expect(bots.map((profile) => profile.external_id).sort()).toEqual([5, 10].map((index) => `bot:${standIn.person(index).id}`).sort());
    const botContacts = new Set(bots.map((profile) => String(profile.contact_id)));
    expect(botContacts.size).toBe(2);
    for (const profile of people.filter((p) => !p.external_id.startsWith('bot:')))
      expect(botContacts.has(String(profile.contact_id)), profile.external_id).toBe(false);
    for (const bot of bots) {
      expect(await t.services.db.selectFrom('contact_identities').select('type').where('contact_id', '=', bot.contact_id).execute(), bot.external_id).toEqual(
        [],
      );
      const contact = (await t.get(`/api/v2/contacts/c_${bot.contact_id}?cols=profiles`)).json().data;
      expect(contact.name).toMatch(/^helper(5|10)\[bot\]$/);
      expect(activities.filter((row) => String(row.contact_id) === String(bot.contact_id)).length).toBeGreaterThan(0);
    }
    // Their star and issue: the bot's own activities.
    expect(activities.map((row) => row.external_id)).toEqual(
      expect.arrayContaining([`star:${standIn.repositoryId(REPO)}:${standIn.person(5).id}`, `issue:${standIn.repositoryId(REPO)}:5`]),
    );
  });
});
