import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { createGitHubConnector } from '../../src/modules/connectors/github/github-connector.ts';
import { signedDelivery, webhookEventNames, webhookExamples } from '../stand-ins/github-webhooks.ts';
import { walkPages } from '../helpers/paging.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * Every published GitHub delivery (@octokit/webhooks-examples) of the events the connector follows, signed
 * as GitHub signs them and posted to a connector's receiver, becomes the activity docs/connectors.md says
 * (type, ID, time, address, repository, thread) of the contact it names; one delivery of every other event
 * and action is stored and skipped.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WEBHOOK_SECRET = 'table-webhook-secret';
const github = createGitHubConnector({ retryBaseMs: 1, throttle: false }) as ConnectorKind<unknown, unknown>;

interface Expected {
  id: string;
  type: string;
  person: Json;
  timestamp: string;
  url: string;
  repository: string;
  parent?: string;
}

/** What a delivery should make, written from the documented table (not from the connector's code). */
type Row = { event: string; action: string | null; bodies: () => Json[]; expect: (body: Json) => Expected[] };

const issueOf = (b: Json) => `issue:${b.repository.id}:${b.issue.number}`;
const pullOf = (b: Json, number: number) => `pr:${b.repository.id}:${number}`;
const one = (b: Json, e: Omit<Expected, 'repository'>): Expected[] => [{ ...e, repository: b.repository.full_name }];

const ROWS: Row[] = [
  {
    event: 'star',
    action: 'created',
    bodies: () => webhookExamples('star', 'created'),
    expect: (b) =>
      one(b, { id: `star:${b.repository.id}:${b.sender.id}`, type: 'starred_repo', person: b.sender, timestamp: b.starred_at, url: b.repository.html_url }),
  },
  {
    // GitHub's published forks are into an organization (skipped: not a person); the same forks by a person's account.
    event: 'fork',
    action: null,
    bodies: () => webhookExamples('fork').map((b) => ({ ...b, forkee: { ...b.forkee, owner: { ...b.forkee.owner, type: 'User' } } })),
    expect: (b) => one(b, { id: `fork:${b.forkee.id}`, type: 'forked_repo', person: b.forkee.owner, timestamp: b.forkee.created_at, url: b.forkee.html_url }),
  },
  {
    event: 'issues',
    action: 'opened',
    bodies: () => webhookExamples('issues', 'opened'),
    expect: (b) => one(b, { id: issueOf(b), type: 'issue_opened', person: b.issue.user, timestamp: b.issue.created_at, url: b.issue.html_url }),
  },
  {
    // GitHub publishes no issues.closed example: the opened ones, closed by their sender.
    event: 'issues',
    action: 'closed',
    bodies: () =>
      webhookExamples('issues', 'opened').map((b) => ({ ...b, action: 'closed', issue: { ...b.issue, state: 'closed', closed_at: '2019-05-16T10:00:00Z' } })),
    expect: (b) =>
      one(b, {
        id: `issue-closed:${b.repository.id}:${b.issue.number}`,
        type: 'issue_closed',
        person: b.sender,
        timestamp: b.issue.closed_at,
        url: b.issue.html_url,
        parent: issueOf(b),
      }),
  },
  {
    event: 'issue_comment',
    action: 'created',
    bodies: () => webhookExamples('issue_comment', 'created'),
    expect: (b) =>
      one(b, {
        id: `issue-comment:${b.comment.id}`,
        type: b.issue.pull_request ? 'pr_comment' : 'issue_comment',
        person: b.comment.user,
        timestamp: b.comment.created_at,
        url: b.comment.html_url,
        parent: b.issue.pull_request ? pullOf(b, b.issue.number) : issueOf(b),
      }),
  },
  {
    event: 'pull_request',
    action: 'opened',
    bodies: () => webhookExamples('pull_request', 'opened'),
    expect: (b) =>
      one(b, {
        id: pullOf(b, b.pull_request.number),
        type: 'pr_opened',
        person: b.pull_request.user,
        timestamp: b.pull_request.created_at,
        url: b.pull_request.html_url,
      }),
  },
  {
    // The published closed ones are not merged (skipped, below): the same, merged.
    event: 'pull_request',
    action: 'closed',
    bodies: () =>
      webhookExamples('pull_request', 'closed').map((b) => ({ ...b, pull_request: { ...b.pull_request, merged: true, merged_at: '2019-05-16T11:00:00Z' } })),
    expect: (b) =>
      one(b, {
        id: `pr-merged:${b.repository.id}:${b.pull_request.number}`,
        type: 'pr_merged',
        person: b.pull_request.user,
        timestamp: b.pull_request.merged_at,
        url: b.pull_request.html_url,
        parent: pullOf(b, b.pull_request.number),
      }),
  },
  {
    event: 'pull_request_review',
    action: 'submitted',
    bodies: () => webhookExamples('pull_request_review', 'submitted'),
    expect: (b) =>
      one(b, {
        id: `pr-review:${b.review.id}`,
        type: 'pr_review',
        person: b.review.user,
        timestamp: b.review.submitted_at,
        url: b.review.html_url,
        parent: pullOf(b, b.pull_request.number),
      }),
  },
  {
    event: 'pull_request_review_comment',
    action: 'created',
    bodies: () => webhookExamples('pull_request_review_comment', 'created'),
    expect: (b) =>
      one(b, {
        id: `pr-review-comment:${b.comment.id}`,
        type: 'pr_comment',
        person: b.comment.user,
        timestamp: b.comment.created_at,
        url: b.comment.html_url,
        parent: pullOf(b, b.pull_request.number),
      }),
  },
  {
    event: 'discussion',
    action: 'created',
    bodies: () => webhookExamples('discussion', 'created'),
    expect: (b) =>
      one(b, {
        id: `discussion:${b.discussion.id}`,
        type: 'discussion_opened',
        person: b.discussion.user,
        timestamp: b.discussion.created_at,
        url: b.discussion.html_url,
      }),
  },
  {
    event: 'discussion_comment',
    action: 'created',
    bodies: () => webhookExamples('discussion_comment', 'created'),
    expect: (b) =>
      one(b, {
        id: `discussion-comment:${b.comment.id}`,
        type: 'discussion_comment',
        person: b.comment.user,
        timestamp: b.comment.created_at,
        url: b.comment.html_url,
        parent: `discussion:${b.discussion.id}`,
      }),
  },
  {
    event: 'release',
    action: 'published',
    bodies: () => webhookExamples('release', 'published'),
    expect: (b) =>
      one(b, {
        id: `release:${b.release.id}`,
        type: 'release_published',
        person: b.release.author,
        timestamp: b.release.published_at,
        url: b.release.html_url,
      }),
  },
  {
    // With settings.commits: the pusher's own commits that are new to the repository.
    event: 'push',
    action: null,
    bodies: () => webhookExamples('push'),
    expect: (b) =>
      (b.commits as Json[])
        .filter((c) => c.distinct !== false && c.author?.username === b.sender.login)
        .map((c) => ({ id: `commit:${c.id}`, type: 'commit', person: b.sender, timestamp: c.timestamp, url: c.url, repository: b.repository.full_name })),
  },
];

const FOLLOWED = new Set(ROWS.map((row) => (row.action ? `${row.event}.${row.action}` : row.event)));

describe.each(ENGINES)('GitHub deliveries through the receiver (%s)', (engine) => {
  let t: TestApp;
  let connector: { id: string; sourceId: number; receiverUrl: string };
  /** Each delivery: its ID, name, and what it should make. */
  const sent: { deliveryId: string; name: string; expected: Expected[] }[] = [];
  const skippedBecause = new Map<string, RegExp>();

  beforeAll(async () => {
    t = await createTestApp(engine, { clock: new ManualClock('2026-01-15T12:00:00Z'), connectorKinds: [github] });
    const followed = new Set(ROWS.flatMap((row) => row.bodies().map((b) => b.repository.full_name as string)));
    const made = await t.send('POST', '/api/v2/admin/connectors', {
      kind: 'github',
      settings: { repositories: [...followed], commits: true, apiUrl: 'http://127.0.0.1:9' },
      secrets: { token: 'ghp_unused', webhookSecret: WEBHOOK_SECRET },
    });
    expect(made.statusCode, made.body).toBe(201);
    connector = made.json().data;
    const path = new URL(connector.receiverUrl).pathname;
    const post = async (event: string, body: Json, name: string, expected: Expected[]) => {
      const delivery = await signedDelivery(event, body, WEBHOOK_SECRET);
      const answer = await t.app.inject({ method: 'POST', url: path, headers: delivery.headers, payload: delivery.raw });
      expect(answer.statusCode, `${name}: ${answer.body}`).toBe(202);
      sent.push({ deliveryId: delivery.headers['x-github-delivery']!, name, expected });
    };
    for (const row of ROWS) {
      for (const body of row.bodies()) await post(row.event, body, row.action ? `${row.event}.${row.action}` : row.event, row.expect(body));
    }
    // One published delivery of every other event and action; the published forks into an organization and
    // pull requests closed without merging.
    const others = new Map<string, { event: string; body: Json }>();
    for (const event of webhookEventNames()) {
      for (const body of webhookExamples(event)) {
        const name = typeof body.action === 'string' ? `${event}.${body.action}` : event;
        if (!FOLLOWED.has(name) && !others.has(name)) others.set(name, { event, body });
      }
    }
    for (const [name, { event, body }] of others) await post(event, body, name, []);
    for (const body of webhookExamples('fork')) await post('fork', body, 'fork (into an organization)', []);
    for (const body of webhookExamples('pull_request', 'closed')) await post('pull_request', body, 'pull_request.closed (not merged)', []);
    // Deliveries whose skipped records are named: a fork into an organization, a pull request closed unmerged.
    skippedBecause.set('fork (into an organization)', /organization account/);
    skippedBecause.set('pull_request.closed (not merged)', /closed without merging/);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
  }, 120_000);
  afterAll(() => t?.close());

  it('stores every delivery, and skips those of events not followed, saying which', async () => {
    const rows = await t.services.db.selectFrom('connector_deliveries').select(['delivery_id', 'processed_at', 'outcome', 'error']).execute();
    const byId = new Map(rows.map((row) => [row.delivery_id, row]));
    expect(rows).toHaveLength(sent.length);
    expect(sent.filter((delivery) => delivery.expected.length === 0).length).toBeGreaterThan(140);
    for (const delivery of sent) {
      const row = byId.get(delivery.deliveryId)!;
      expect(row, delivery.name).toMatchObject({ processed_at: expect.any(Date), error: null });
      const outcome = row.outcome as { activities: number; skipped?: string[] };
      expect(outcome.activities, delivery.name).toBe(delivery.expected.length);
      // (A push of no commits makes nothing, and has nothing to skip.)
      const because = skippedBecause.get(delivery.name);
      if (because) expect(outcome.skipped?.[0], delivery.name).toMatch(because);
      else if (delivery.expected.length === 0 && !FOLLOWED.has(delivery.name))
        expect(outcome.skipped, delivery.name).toEqual([`${delivery.name}: not followed`]);
    }
  });

  it('makes each followed delivery the documented activity of the contact it names', async () => {
    // A record delivered more than once (the examples repeat IDs): the last delivery's.
    const expected = new Map<string, Expected>();
    for (const delivery of sent) for (const activity of delivery.expected) expected.set(activity.id, activity);
    expect(expected.size).toBeGreaterThan(10);

    const providerIs = JSON.stringify({ type: 'and', clauses: [{ type: 'stringFilter', field: 'providerId', params: { op: 'eq', value: connector.id } }] });
    const listed = await walkPages<Json>(
      (cursor) =>
        t.get(
          `/api/v2/activities?${new URLSearchParams({ lightFilter: providerIs, cols: 'contactId,subSourceNames,replyCount,providerId', limit: '100', ...(cursor ? { cursor } : {}) })}`,
        ),
      100,
    );
    const stored = await t.services.db
      .selectFrom('activities')
      .select(['id', 'external_id', 'url', 'parent_external_id', 'parent_id'])
      .where('source_id', '=', connector.sourceId)
      .execute();
    expect(listed).toHaveLength(expected.size);
    expect(stored.map((row) => row.external_id).sort()).toEqual([...expected.keys()].sort());
    const apiOf = new Map(listed.map((activity) => [activity.id as string, activity]));
    const rowOf = new Map(stored.map((row) => [row.external_id, row]));
    const profiles = await t.services.db
      .selectFrom('source_profiles')
      .select(['external_id', 'contact_id'])
      .where('source_id', '=', connector.sourceId)
      .execute();
    const profileOf = new Map(profiles.map((profile) => [profile.external_id, String(profile.contact_id)]));
    const contacts = new Map<string, Json>();

    for (const activity of expected.values()) {
      const row = rowOf.get(activity.id)!;
      const shown = apiOf.get(`a_${row.id}`);
      expect(shown, activity.id).toMatchObject({ type: activity.type, subSourceNames: [activity.repository], providerId: connector.id });
      expect(Date.parse(shown!.activityTime), activity.id).toBe(Date.parse(activity.timestamp));
      expect(row.url, activity.id).toBe(activity.url);
      expect(row.parent_external_id ?? undefined, activity.id).toBe(activity.parent);
      if (activity.parent && rowOf.has(activity.parent)) {
        // Threaded under its parent when the parent was delivered too.
        const parent = rowOf.get(activity.parent)!;
        expect(String(row.parent_id), activity.id).toBe(String(parent.id));
        expect(apiOf.get(`a_${parent.id}`)!.replyCount, activity.parent).toBeGreaterThan(0);
      }
      // The person: their source profile is keyed by GitHub's numeric ID; their GitHub identity is the login.
      expect(`c_${profileOf.get(String(activity.person.id))}`, activity.id).toBe(shown!.contactId);
      let contact = contacts.get(shown!.contactId);
      if (!contact) {
        const answer = await t.get(`/api/v2/contacts/${shown!.contactId}?cols=profiles,avatarUrl`);
        expect(answer.statusCode).toBe(200);
        contact = answer.json().data as Json;
        contacts.set(shown!.contactId, contact);
      }
      expect(contact.profiles, activity.id).toContainEqual({ type: 'github', value: expect.stringMatching(new RegExp(`^${activity.person.login}$`, 'i')) });
    }
    // One contact per GitHub account.
    const people = new Set([...expected.values()].map((activity) => activity.person.id));
    expect(contacts.size).toBe(people.size);
  });
});
