import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invocation, Terminal } from '../../src/cli/command.ts';
import { runCommand } from '../../src/cli/run.ts';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { discourseConnector } from '../../src/modules/connectors/discourse/discourse-connector.ts';
import { createGitHubConnector } from '../../src/modules/connectors/github/github-connector.ts';
import { startDiscourseStandIn, type DiscourseStandIn } from '../stand-ins/discourse-api.ts';
import { bodies, signedDelivery as discourseDelivery } from '../stand-ins/discourse-webhooks.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../stand-ins/github-api.ts';
import { signedDelivery as githubDelivery, standInDelivery, type StandInEvent } from '../stand-ins/github-webhooks.ts';
import { KIND_NAMES } from '../../src/modules/webhooks/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * Both platforms' connectors end to end, in one app per engine whose log is kept: signatures (bad, missing,
 * stale after a rotation), redeliveries, a webhook and the backfill of the same record, one person on both
 * platforms, and no secret in any answer, log line or CLI output. The tests run in order, on the same
 * connectors: each goes on from what the one before left.
 */

const REPO = 'acme/widgets';
const TOKEN = 'ghp_hearth_test';
const GITHUB_SECRET = 'gh-webhook-secret-first-1111';
const GITHUB_SECRET_ROTATED = 'gh-webhook-secret-second-2222';
const API_KEY = 'admin-key';
const FORUM_SECRET = 'forum-webhook-secret-first-3333';
const FORUM_SECRET_ROTATED = 'forum-webhook-secret-second-4444';
const WRONG_TOKEN = 'ghp_wrong_token_5555';
const WRONG_API_KEY = 'forum-wrong-api-key-6666';
const CLI_SECRET = 'cli-webhook-secret-7777';
const APP = { appId: 4242, installationId: 77 };
const { publicKey, privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

const github = createGitHubConnector({ retryBaseMs: 1, retries: 1, throttle: false }) as ConnectorKind<unknown, unknown>;
const discourse = discourseConnector as ConnectorKind<unknown, unknown>;

/**
 * The repository: 2 stars, 1 fork, issues #1, #2, #4, #5 (#2 and #4 closed), pull requests #3 and #6 (#6
 * merged) with a review each, 2 issue comments, 1 review comment, 1 release:
 * 2 + 1 + 4 + 2 + 2 + 1 + 2 + 2 + 1 + 1 = 18 activities.
 */
const GITHUB_ACTIVITIES = 18;
/**
 * The forum: 3 topics of 2 posts by members 1-4, but the first post of topic 1 is the system user's (left out);
 * topic 3's second post is its accepted answer: 5 posts + 1 accepted answer = 6 activities.
 */
const FORUM_ACTIVITIES = 6;
/** GitHub's user2 shows this public email, which the forum's member2 has. */
const SHARED_EMAIL = 'member2@example.com';

describe.each(ENGINES)('GitHub and Discourse connectors end to end (%s)', (engine) => {
  let t: TestApp;
  let standIn: GitHubStandIn;
  let forum: DiscourseStandIn;
  let clock: ManualClock;
  let log = '';
  /** Every answer's body, and every CLI output, for the secrets check at the end. */
  const answers: string[] = [];
  /** Hearth's own webhooks, subscribed to every event before the connectors are made: their payloads are checked too. */
  const outgoing = webhookReceiver();
  let gh: { id: string; sourceId: number; receiverUrl: string };
  let dc: { id: string; sourceId: number; receiverUrl: string };

  beforeAll(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    standIn = await startGitHubStandIn({
      repositories: [{ fullName: REPO, stargazers: 2, forks: 1, issues: 6, pullEvery: 3, issueComments: 2, reviewComments: 1, reviewsPerPull: 1, releases: 1 }],
      emails: { 2: SHARED_EMAIL },
      app: { ...APP, publicKeyPem: publicKey },
    });
    forum = await startDiscourseStandIn({ topics: 3, postsPerTopic: 2, users: 4 });
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        log += String(chunk);
        done();
      },
    });
    t = await createTestApp(engine, { clock, allowPrivateFetch: true, connectorKinds: [github, discourse], logStream });
    await api('POST', '/api/v2/admin/webhooks', { url: `${await outgoing.start()}/hearth`, events: KIND_NAMES });
    // The forum's connector first: its people are there when GitHub's profiles are read.
    dc = (
      await api('POST', '/api/v2/admin/connectors', {
        kind: 'discourse',
        settings: { url: forum.url, apiUsername: 'system' },
        secrets: { apiKey: API_KEY, webhookSecret: FORUM_SECRET },
      })
    ).json().data;
    gh = (
      await api('POST', '/api/v2/admin/connectors', {
        kind: 'github',
        settings: { repositories: [REPO], apiUrl: standIn.url },
        secrets: { token: TOKEN, webhookSecret: GITHUB_SECRET },
      })
    ).json().data;
  });
  afterAll(async () => {
    await t?.close();
    await standIn?.stop();
    await forum?.stop();
    await outgoing.stop();
  });

  async function api(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse> {
    const answer = method === 'GET' ? await t.get(url) : await t.send(method, url, body);
    answers.push(answer.body);
    expect(answer.statusCode, `${method} ${url}: ${answer.body}`).toBeLessThan(300);
    return answer;
  }
  async function post(receiverUrl: string, delivery: { raw: Buffer; headers: Record<string, string> }) {
    const answer = await t.app.inject({ method: 'POST', url: new URL(receiverUrl).pathname, headers: delivery.headers, payload: delivery.raw });
    answers.push(answer.body);
    return answer;
  }
  const processed = async () => {
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
  };
  const worker = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs, log: t.app.log });
  const deliveriesOf = async (sourceId: number) =>
    (await t.services.db.selectFrom('connector_deliveries').select('id').where('source_id', '=', sourceId).execute()).length;
  const activitiesOf = async (sourceId: number) =>
    (await t.services.db.selectFrom('activities').select('external_id').where('source_id', '=', sourceId).execute()).map((row) => row.external_id);
  const star = (index: number) => standInDelivery(standIn, REPO, 'star', index);
  const forumPost = (id: number, secret: string, eventId: number) =>
    discourseDelivery({ secret, type: 'post', event: 'post_created', body: bodies.postCreated(forum.webhookPost(id)), instance: forum.url, eventId });

  it('refuses a bad, missing or stale signature (storing nothing), takes the rotated secret, and stores a redelivery once', async () => {
    // GitHub
    const good = await githubDelivery(star(1).event, star(1).body, GITHUB_SECRET, 'gh-1');
    const { 'x-hub-signature-256': _dropped, ...unsigned } = good.headers;
    const wrong = await githubDelivery(star(1).event, star(1).body, 'not-the-secret', 'gh-1');
    for (const delivery of [{ raw: good.raw, headers: unsigned }, wrong, { raw: good.raw, headers: { ...good.headers, 'x-hub-signature-256': 'sha256=' } }]) {
      const answer = await post(gh.receiverUrl, delivery);
      expect(answer.statusCode).toBe(401);
      expect(answer.json()).toEqual({ status: 'unauthorized', reason: expect.any(String) });
    }
    expect((await api('PATCH', `/api/v2/admin/connectors/${gh.id}`, { secrets: { webhookSecret: GITHUB_SECRET_ROTATED } })).json().data.secrets).toEqual([
      'token',
      'webhookSecret',
    ]);
    expect((await post(gh.receiverUrl, good)).statusCode).toBe(401);
    await processed();
    expect(await deliveriesOf(gh.sourceId)).toBe(0);
    expect(await activitiesOf(gh.sourceId)).toEqual([]);
    const fresh = await githubDelivery(star(1).event, star(1).body, GITHUB_SECRET_ROTATED, 'gh-1');
    expect((await post(gh.receiverUrl, fresh)).json()).toEqual({ received: true, duplicate: false });
    expect((await post(gh.receiverUrl, fresh)).json()).toEqual({ received: true, duplicate: true });

    // Discourse
    const first = forumPost(3, FORUM_SECRET, 1);
    expect((await post(dc.receiverUrl, { raw: first.raw, headers: { ...first.headers, 'x-discourse-event-signature': '' } })).statusCode).toBe(401);
    const { 'x-discourse-event-signature': _none, ...unsignedForum } = first.headers;
    expect((await post(dc.receiverUrl, { raw: first.raw, headers: unsignedForum })).statusCode).toBe(401);
    expect((await post(dc.receiverUrl, forumPost(3, 'another-secret-of-12', 1))).statusCode).toBe(401);
    await api('PATCH', `/api/v2/admin/connectors/${dc.id}`, { secrets: { webhookSecret: FORUM_SECRET_ROTATED } });
    expect((await post(dc.receiverUrl, first)).statusCode).toBe(401);
    await processed();
    expect(await deliveriesOf(dc.sourceId)).toBe(0);
    expect(await activitiesOf(dc.sourceId)).toEqual([]);
    const rotated = forumPost(3, FORUM_SECRET_ROTATED, 1);
    expect((await post(dc.receiverUrl, rotated)).json()).toEqual({ received: true, duplicate: false });
    // Redelivered from the webhook's Events tab: the same event ID.
    expect((await post(dc.receiverUrl, forumPost(3, FORUM_SECRET_ROTATED, 1))).json()).toEqual({ received: true, duplicate: true });

    await processed();
    expect(await deliveriesOf(gh.sourceId)).toBe(1);
    expect(await deliveriesOf(dc.sourceId)).toBe(1);
    expect(await activitiesOf(gh.sourceId)).toEqual([`star:${standIn.repositoryId(REPO)}:${standIn.person(1).id}`]);
    expect(await activitiesOf(dc.sourceId)).toEqual(['topic:2']);
  });

  it('makes a webhook and the backfill of the same record one activity', async () => {
    const records: [StandInEvent, number][] = [
      ['fork', 1],
      ['issue-opened', 1],
      ['issue-closed', 2],
      ['issue-comment', 1],
      ['pull-opened', 3],
      ['pull-merged', 6],
      ['review', 3],
      ['review-comment', 1],
      ['release', 1],
    ];
    for (const [what, index] of records) {
      const { event, body } = standInDelivery(standIn, REPO, what, index);
      expect((await post(gh.receiverUrl, await githubDelivery(event, body, GITHUB_SECRET_ROTATED))).statusCode).toBe(202);
    }
    // A reply, and topic 3's accepted answer.
    expect((await post(dc.receiverUrl, forumPost(4, FORUM_SECRET_ROTATED, 2))).statusCode).toBe(202);
    const answer = discourseDelivery({
      secret: FORUM_SECRET_ROTATED,
      type: 'solved',
      event: 'accepted_solution',
      body: bodies.acceptedSolution(forum.webhookPost(6)),
      instance: forum.url,
      eventId: 3,
    });
    expect((await post(dc.receiverUrl, answer)).statusCode).toBe(202);
    await processed();
    const delivered = { github: await activitiesOf(gh.sourceId), forum: await activitiesOf(dc.sourceId) };
    expect(delivered.github).toHaveLength(records.length + 1);
    expect(delivered.forum.sort()).toEqual(['accepted:6', 'post:4', 'topic:2']);

    await worker().runUntilIdle();
    for (const connector of [gh, dc])
      expect((await api('GET', `/api/v2/admin/connectors/${connector.id}`)).json().data).toMatchObject({ state: 'active', reason: null });
    const github = await activitiesOf(gh.sourceId);
    const forumActivities = await activitiesOf(dc.sourceId);
    expect(github).toHaveLength(GITHUB_ACTIVITIES);
    expect(github).toEqual(expect.arrayContaining(delivered.github));
    expect(forumActivities).toHaveLength(FORUM_ACTIVITIES);
    expect(forumActivities).toEqual(expect.arrayContaining(delivered.forum));
    // Each answer is threaded under what it answers (when that is stored: not the system user's topic), whichever came first.
    const threads = await t.services.db
      .selectFrom('activities as a')
      .leftJoin('activities as p', (join) => join.onRef('p.community_id', '=', 'a.community_id').onRef('p.id', '=', 'a.parent_id'))
      .select(['a.external_id as id', 'a.parent_external_id as parent', 'p.external_id as threadedUnder'])
      .where('a.source_id', 'in', [gh.sourceId, dc.sourceId])
      .where('a.parent_external_id', 'is not', null)
      .execute();
    const stored = new Set([...github, ...forumActivities]);
    const replies = threads.filter((thread) => stored.has(thread.parent!));
    expect(replies.length).toBeGreaterThan(8);
    for (const thread of replies) expect(thread.threadedUnder, thread.id).toBe(thread.parent);
    expect(threads.filter((thread) => !stored.has(thread.parent!)).map((thread) => thread.parent)).toEqual(['topic:1']);
  });

  it("makes GitHub's user with a public email and the forum's member with that email one contact with both identities", async () => {
    const [identity] = await t.services.db
      .selectFrom('contact_identities')
      .select(['contact_id'])
      .where('type', '=', 'email')
      .where('value', '=', SHARED_EMAIL)
      .execute();
    expect(identity).toBeDefined();
    const contactId = String(identity!.contact_id);
    const profiles = await t.services.db
      .selectFrom('source_profiles')
      .select(['source_id', 'external_id', 'contact_id'])
      .where('contact_id', '=', identity!.contact_id)
      .execute();
    expect(profiles.map((p) => [Number(p.source_id), p.external_id]).sort()).toEqual(
      [
        [gh.sourceId, String(standIn.person(2).id)],
        [dc.sourceId, '2'],
      ].sort(),
    );
    const contact = (await api('GET', `/api/v2/contacts/c_${contactId}?cols=profiles,primaryEmail,activityCountAll`)).json().data;
    expect(contact.profiles).toEqual(
      expect.arrayContaining([
        { type: 'github', value: 'user2' },
        { type: 'email', value: SHARED_EMAIL },
      ]),
    );
    expect(contact.primaryEmail).toBe(SHARED_EMAIL);
    // Their star and their GitHub issue (number 2), and topic 2 of the forum, are this one contact's.
    const theirs = await t.services.db.selectFrom('activities').select(['source_id', 'external_id']).where('contact_id', '=', identity!.contact_id).execute();
    expect(new Set(theirs.map((row) => Number(row.source_id)))).toEqual(new Set([gh.sourceId, dc.sourceId]));
    expect(theirs.map((row) => row.external_id)).toEqual(expect.arrayContaining([`star:${standIn.repositoryId(REPO)}:${standIn.person(2).id}`, 'topic:2']));
    // No second contact holds either identity.
    const others = await t.services.db
      .selectFrom('contact_identities')
      .select('contact_id')
      .where((eb) => eb.or([eb('value', '=', SHARED_EMAIL), eb.and([eb('type', '=', 'github'), eb('value', '=', 'user2')])]))
      .execute();
    expect(new Set(others.map((row) => String(row.contact_id)))).toEqual(new Set([contactId]));
  });

  it('shows no secret in any answer, log line or CLI output, a failing sync and a GitHub App included', async () => {
    // Credentials the platforms refuse: the syncs fail, saying why.
    const badGitHub = (
      await api('POST', '/api/v2/admin/connectors', {
        kind: 'github',
        name: 'Refused',
        settings: { repositories: [REPO], apiUrl: standIn.url },
        secrets: { token: WRONG_TOKEN },
      })
    ).json().data;
    const badForum = (
      await api('POST', '/api/v2/admin/connectors', {
        kind: 'discourse',
        name: 'Refused forum',
        settings: { url: forum.url, apiUsername: 'system' },
        secrets: { apiKey: WRONG_API_KEY, webhookSecret: FORUM_SECRET },
      })
    ).json().data;
    // A GitHub App: its private key, and the installation tokens GitHub gives for it.
    const app = (
      await api('POST', '/api/v2/admin/connectors', {
        kind: 'github',
        name: 'GitHub App',
        settings: { repositories: [REPO], apiUrl: standIn.url, installationId: APP.installationId },
        secrets: { appId: APP.appId, privateKey, webhookSecret: GITHUB_SECRET },
      })
    ).json().data;
    // Platforms' errors other than a refused credential: the sync attempt fails and the worker logs the error whole.
    const missingRepo = (
      await api('POST', '/api/v2/admin/connectors', {
        kind: 'github',
        name: 'Missing',
        settings: { repositories: ['acme/missing'], apiUrl: standIn.url },
        secrets: { token: TOKEN, webhookSecret: GITHUB_SECRET },
      })
    ).json().data;
    const missingForum = (
      await api('POST', '/api/v2/admin/connectors', {
        kind: 'discourse',
        name: 'Missing forum',
        settings: { url: `${forum.url}/nowhere`, apiUsername: 'system' },
        secrets: { apiKey: API_KEY, webhookSecret: FORUM_SECRET },
      })
    ).json().data;
    await worker().runUntilIdle();
    for (const failing of [missingRepo, missingForum]) {
      expect((await api('GET', `/api/v2/admin/connectors/${failing.id}`)).json().data.reason).toMatch(/^the last sync attempt failed/);
    }
    expect(log).toContain('job attempt failed; will retry');
    expect((await api('GET', `/api/v2/admin/connectors/${badGitHub.id}`)).json().data).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('GitHub refused the access token (401'),
    });
    expect((await api('GET', `/api/v2/admin/connectors/${badForum.id}`)).json().data).toMatchObject({ state: 'failed' });
    expect((await api('GET', `/api/v2/admin/connectors/${app.id}`)).json().data).toMatchObject({ state: 'active' });
    expect(standIn.installationTokens.length).toBeGreaterThan(0);
    for (const id of [badGitHub.id, badForum.id, app.id, gh.id, dc.id, missingRepo.id, missingForum.id]) {
      await api('POST', `/api/v2/admin/connectors/${id}/test`);
      await api('GET', `/api/v2/admin/connectors/${id}`);
    }
    await api('POST', '/api/v2/admin/connectors/test', {
      kind: 'github',
      settings: { repositories: [REPO], apiUrl: standIn.url },
      secrets: { token: WRONG_TOKEN },
    });
    await api('POST', '/api/v2/admin/connectors/test', {
      kind: 'discourse',
      settings: { url: forum.url, apiUsername: 'system' },
      secrets: { apiKey: API_KEY, webhookSecret: FORUM_SECRET },
    });
    // A refused body names the field, not the value.
    const refused = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'github',
      settings: { repositories: [REPO] },
      secrets: { token: TOKEN, privateKey },
    });
    expect(refused.statusCode).toBe(400);
    answers.push(refused.body);
    for (const url of [
      '/api/v2/admin/connectors',
      '/api/v2/admin/connector-kinds',
      '/api/v2/admin/audit-log?limit=100',
      '/api/v2/admin/jobs?limit=100',
      '/metrics',
    ])
      await api('GET', url);

    // The CLI, on the same services.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-connector-secrets-'));
    try {
      const hearth = async (sub: string, args: string[], values: Invocation['values'] = {}, stdin?: string) => {
        let output = '';
        const terminal: Terminal = {
          out: async (text) => void (output += text),
          err: (text) => void (output += text),
          errIsTTY: false,
          cwd: dir,
          onInterrupt: () => () => undefined,
        };
        const code = await runCommand(
          { name: 'connector', sub, args, values, ...(stdin === undefined ? {} : { stdin }) },
          { services: t.services, database: t.db.database, terminal },
        );
        answers.push(output);
        return { code, output };
      };
      const added = await hearth(
        'add',
        [],
        { kind: 'github', name: 'From the CLI', settings: JSON.stringify({ repositories: [REPO], apiUrl: standIn.url }), secrets: '-' },
        JSON.stringify({ token: TOKEN, webhookSecret: CLI_SECRET }),
      );
      expect(added.code, added.output).toBe(0);
      const id = /^Added (sig_\d+)/.exec(added.output)![1]!;
      for (const json of [false, true]) {
        expect((await hearth('list', [], { json })).code).toBe(0);
        for (const connector of [id, gh.id, dc.id, badGitHub.id, app.id]) await hearth('show', [connector], { json });
      }
      await hearth('update', [id], {}, JSON.stringify({ token: TOKEN }));
      expect((await hearth('update', [id], { secrets: '-', json: true }, JSON.stringify({ token: TOKEN }))).code).toBe(0);
      expect((await hearth('test', [badGitHub.id])).code).toBe(1);
      expect((await hearth('test', [app.id])).code).toBe(0);
      expect((await hearth('test', [dc.id], { json: true })).code).toBe(0);
      await hearth('sync', [id]);
      // What the connectors brought, exported.
      for (const what of ['contacts', 'activities']) {
        let output = '';
        const terminal: Terminal = {
          out: async (text) => void (output += text),
          err: () => undefined,
          errIsTTY: false,
          cwd: dir,
          onInterrupt: () => () => undefined,
        };
        expect(await runCommand({ name: 'export', sub: what, args: [], values: {} }, { services: t.services, database: t.db.database, terminal })).toBe(0);
        expect(output.split('\n').length, what).toBeGreaterThan(10);
        answers.push(output);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // Hearth's own webhooks: every event the connectors' work made (contacts, activities, finished sync jobs), sent.
    const run = worker();
    await run.runSteps();
    await run.runSteps();
    const sent = outgoing.received.map((message) => message.json.type);
    expect(sent).toEqual(expect.arrayContaining(['contact.created', 'activity.created', 'job.finished']));
    for (const message of outgoing.received) answers.push(message.body);

    const keyLines = privateKey.split('\n').filter((line) => line && !line.startsWith('-----'));
    const secrets = [
      TOKEN,
      GITHUB_SECRET,
      GITHUB_SECRET_ROTATED,
      API_KEY,
      FORUM_SECRET,
      FORUM_SECRET_ROTATED,
      WRONG_TOKEN,
      WRONG_API_KEY,
      CLI_SECRET,
      ...standIn.installationTokens,
      ...keyLines,
    ];
    expect(log).toContain('"url":"/api/v2/receivers/github/[redacted]"');
    expect(log).toContain('"url":"/api/v2/admin/connectors"');
    expect(answers.length).toBeGreaterThan(50);
    for (const secret of secrets) {
      expect(log.includes(secret), `the log holds ${secret.slice(0, 8)}…`).toBe(false);
      for (const answer of answers) expect(answer.includes(secret), `an answer holds ${secret.slice(0, 8)}…: ${answer.slice(0, 300)}`).toBe(false);
    }
    // Nor the connector's receiver key (not a credential, but not for the log either).
    expect(log).not.toContain(new URL(gh.receiverUrl).pathname.split('/').pop()!);
  });
});
