import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { cliActor } from '../../src/core/writer.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { accepted, pushUser } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { verifySignature, webhookReceiver, type Received } from '../helpers/webhook-receiver.ts';

/**
 * Webhooks (docs/webhooks.md) against a local receiver: Standard Webhooks signatures checked as a receiver checks
 * them, retries after failures, per-record ordering, filters, rotation, replay and redelivery, disabling
 * after persistent failure, and the admin routes' refusals.
 */
describe.each(ENGINES)('webhooks (%s)', (engine) => {
  const clock = new ManualClock('2026-03-02T10:00:00.000Z');
  const receiver = webhookReceiver();
  let t: TestApp;
  let worker: Worker;
  let base: string;
  const SECOND = 1000;
  const DAY = 86_400_000;

  beforeAll(async () => {
    base = await receiver.start();
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
    worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
  });
  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });
  afterEach(async () => {
    receiver.respondWith(() => 200);
    for (const hook of (await t.get('/api/v2/admin/webhooks')).json().data as { id: string }[]) {
      expect((await t.send('DELETE', `/api/v2/admin/webhooks/${hook.id}`, undefined)).statusCode).toBe(200);
    }
  });

  async function subscribe(path: string, body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
    const response = await t.send('POST', '/api/v2/admin/webhooks', { url: `${base}${path}`, ...body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().data as { id: string; secret: string };
  }
  const at = (path: string) => receiver.received.filter((message) => message.path === path);
  const deliveries = async (id: string, query = '') =>
    (await t.get(`/api/v2/admin/webhooks/${id}/deliveries${query}`)).json().data as Record<string, unknown>[];

  it('delivers contact.created with the contact as v2 shows it, signed as Standard Webhooks says', async () => {
    const hook = await subscribe('/created', { events: ['contact.created'] });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const contactId = await pushUser(t, { id: 'u-1', fullName: 'Ada Lovelace', email: 'ada@example.org' });
    await worker.runSteps();

    const [message, ...more] = at('/created');
    expect(more).toEqual([]);
    expect(verifySignature(hook.secret, message!)).toBe(true);
    expect(verifySignature('whsec_' + Buffer.from('another key').toString('base64'), message!)).toBe(false);
    expect(message!.id).toMatch(/^msg_\d+$/);
    expect(Number(message!.timestamp)).toBe(Math.floor(clock.now().getTime() / 1000));
    expect(message!.json.type).toBe('contact.created');
    const cols =
      'fullName,avatarUrl,location,primaryEmail,phoneNumbers,title,companyName,companyWebsite,profiles,jobHistory,leadScores,segments,activityCountAll,tags,url,cf_*';
    const contact = (await t.get(`/api/v2/contacts/${contactId}?cols=${cols}`)).json().data;
    expect(contact.primaryEmail).toBe('ada@example.org');
    expect(message!.json.data).toEqual(contact);

    const [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200, event: 'contact.created', messageId: message!.id });
  });

  it('forgets what it rendered about a contact erased on request (docs/behaviour.md, Removal), and tells of the erasure', async () => {
    const hook = await subscribe('/erased', { events: ['contact.created', 'contact.updated', 'activity.created'] });
    await pushUser(t, { id: 'u-erase', fullName: 'Erin Erased', email: 'erin@example.org' });
    await accepted(t, 'activity', {
      id: 'erin-1',
      activityType: 'commented_replied',
      user: { id: 'u-erase', email: 'erin@example.org' },
      content: { type: 'text', value: 'a secret of Erin' },
    });
    await worker.runSteps();
    expect(
      at('/erased')
        .map((message) => message.json.type)
        .sort(),
    ).toEqual(['activity.created', 'contact.created']);
    const before = await deliveries(hook.id);
    expect(before).toHaveLength(2);

    const token = await t.issueToken(['privacy:write']);
    expect(
      (await t.app.inject({ method: 'DELETE', url: '/community/v1/user/erin%40example.org', headers: { authorization: `Bearer ${token}` } })).statusCode,
    ).toBe(200);
    await worker.runUntilIdle();
    await worker.runSteps();

    // The deliveries that carried her name, address and words are gone, bodies and all.
    const after = await deliveries(hook.id);
    expect(after.map((delivery) => delivery.id)).not.toContain(before[0]!.id);
    expect(after.map((delivery) => delivery.id)).not.toContain(before[1]!.id);
    for (const delivery of after) {
      const detail = (await t.get(`/api/v2/admin/webhooks/${hook.id}/deliveries/${delivery.id as string}`)).json().data;
      expect(detail.payload).not.toMatch(/Erin|erin@example\.org|a secret/);
    }
    // The erasure itself reached the subscriber, as the shell the contact became.
    const updated = at('/erased').filter((message) => message.json.type === 'contact.updated');
    expect(updated.at(-1)!.json.data).toMatchObject({ name: 'Anonymized contact', primaryEmail: null });
  });

  it('writes no event while no webhook wants its kind', async () => {
    await pushUser(t, { id: 'u-quiet', fullName: 'Nobody Listening' });
    const hook = await subscribe('/late', { events: ['contact.created'] });
    await worker.runSteps();
    expect(at('/late')).toEqual([]);
    expect(await deliveries(hook.id)).toEqual([]);
  });

  it('retries a failed delivery with backoff, and lists each attempt', async () => {
    const hook = await subscribe('/flaky', { events: ['contact.created'] });
    let calls = 0;
    receiver.respondWith(() => (++calls <= 2 ? 503 : 200));
    await pushUser(t, { id: 'u-2', fullName: 'Grace Hopper' });
    await worker.runSteps();
    expect(at('/flaky')).toHaveLength(1);
    let [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 503, lastError: 'the receiver answered 503' });
    expect(delivery!.nextAttemptAt).toBe(new Date(clock.now().getTime() + 5 * SECOND).toISOString());

    await worker.runSteps();
    expect(at('/flaky')).toHaveLength(1);
    clock.advance(5 * SECOND);
    await worker.runSteps();
    expect(at('/flaky')).toHaveLength(2);
    clock.advance(10 * SECOND);
    await worker.runSteps();
    const messages = at('/flaky');
    expect(messages).toHaveLength(3);
    expect(new Set(messages.map((m) => m.id)).size).toBe(1);
    expect(new Set(messages.map((m) => m.body)).size).toBe(1);
    expect(messages.every((m) => verifySignature(hook.secret, m))).toBe(true);

    [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, lastStatus: 200 });
    const detail = (await t.get(`/api/v2/admin/webhooks/${hook.id}/deliveries/${delivery!.id as string}`)).json().data;
    expect(detail.attemptLog.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([503, 503, 200]);
    expect(JSON.parse(detail.payload)).toEqual(messages[0]!.json);
  });

  it('delivers the events of one record in order, holding later ones while an earlier one fails', async () => {
    await subscribe('/ordered', { events: ['contact.created', 'contact.updated'] });
    let failing = true;
    receiver.respondWith((message) =>
      failing && message.json.type === 'contact.created' && String(message.json.data.fullName).startsWith('Katherine') ? 500 : 200,
    );
    await pushUser(t, { id: 'u-3', fullName: 'Katherine Johnson' });
    await worker.runSteps();
    clock.advance(SECOND);
    await pushUser(t, { id: 'u-3', fullName: 'Katherine G. Johnson', titleAtCompany: 'Mathematician' });
    await worker.runSteps();
    clock.advance(SECOND);
    await pushUser(t, { id: 'u-3', titleAtCompany: 'Research mathematician' });
    await worker.runSteps();
    // Another contact's events are not held by this one's.
    await pushUser(t, { id: 'u-4', fullName: 'Dorothy Vaughan' });
    await worker.runSteps();
    const types = () => at('/ordered').map((m) => `${m.json.type} ${(m.json.data as { fullName: string }).fullName}`);
    expect(types()).toEqual(['contact.created Katherine Johnson', 'contact.created Dorothy Vaughan']);

    failing = false;
    clock.advance(5 * SECOND);
    await worker.runSteps();
    expect(types().slice(2)).toEqual(['contact.created Katherine Johnson', 'contact.updated Katherine G. Johnson', 'contact.updated Katherine G. Johnson']);
    // Each update's body is the contact as it was when the event was fanned out.
    expect(
      at('/ordered')
        .slice(3)
        .map((m) => (m.json.data as { title: string }).title),
    ).toEqual(['Mathematician', 'Research mathematician']);
  });

  it('filters with lightFilter: activities of one type, from one source', async () => {
    const hook = await subscribe('/filtered', {
      events: ['activity.created'],
      lightFilter: {
        type: 'and',
        clauses: [
          { type: 'stringListFilter', field: 'type', params: { op: 'any', value: ['commented_replied'] } },
          { type: 'stringListFilter', field: 'providerId', params: { op: 'any', value: [`sig_${t.sourceId}`] } },
        ],
      },
    });
    expect(await t.get(`/api/v2/admin/webhooks/${hook.id}`).then((r) => r.json().data.filterEntity)).toBe('activity');
    await accepted(t, 'activity', { id: 'act-1', activityType: 'made_post_topic', user: { id: 'u-5' } });
    const talk = await accepted(t, 'activity', { id: 'act-2', activityType: 'commented_replied', user: { id: 'u-5' } });
    await worker.runSteps();
    const messages = at('/filtered');
    expect(messages.map((m) => m.json.data.id)).toEqual([talk.activityId]);
    expect(messages[0]!.json.data).toEqual((await t.get(`/api/v2/activities/${talk.activityId}?cols=content,url`)).json().data);
  });

  it('filters contacts by segment, and reports segment membership and tags', async () => {
    const segment = (await t.send('POST', '/api/v2/segments', { name: 'Champions', entityType: 'contact' })).json().data as { id: string };
    await subscribe('/members', {
      events: ['segment.membership.changed', 'tag.assigned', 'contact.updated'],
      filterEntity: 'contact',
      lightFilter: { type: 'and', clauses: [{ type: 'stringListFilter', field: 'segments', params: { op: 'any', value: [segment.id] } }] },
    });
    const ada = await pushUser(t, { id: 'u-6', fullName: 'In Segment' });
    const bob = await pushUser(t, { id: 'u-7', fullName: 'Not In Segment' });
    const tag = (await t.send('POST', '/community/v1/tags', { name: 'Speaker', entityTypes: ['member'] })).json() as { id: string };
    const bulk = await t.send('POST', '/api/v2/contacts/bulk-update', { contactIds: [ada], segmentId: segment.id });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect((await t.send('POST', '/api/v2/contacts/bulk-update', { contactIds: [ada, bob], tagIdsToAdd: [tag.id] })).statusCode).toBe(200);
    await worker.runSteps();
    const messages = at('/members').map((m) => m.json);
    expect(messages).toEqual([
      expect.objectContaining({ type: 'segment.membership.changed', data: { segmentId: segment.id, change: 'added', entityType: 'contact', entityId: ada } }),
      expect.objectContaining({ type: 'tag.assigned', data: { tagId: tag.id, entityType: 'contact', entityId: ada } }),
    ]);
  });

  it('rotates the secret: both sign while the old one lasts, then only the new one', async () => {
    const hook = await subscribe('/rotated', { events: ['contact.created'] });
    const rotated = await t.send('POST', `/api/v2/admin/webhooks/${hook.id}/rotate-secret`, { keepPreviousHours: 1 });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const secret = rotated.json().data.secret as string;
    expect(secret).not.toBe(hook.secret);
    await pushUser(t, { id: 'u-8', fullName: 'Rotating Rita' });
    await worker.runSteps();
    const [during] = at('/rotated');
    expect(during!.signature.split(' ')).toHaveLength(2);
    expect(verifySignature(secret, during!)).toBe(true);
    expect(verifySignature(hook.secret, during!)).toBe(true);

    clock.advance(3_600_000 + SECOND);
    await pushUser(t, { id: 'u-9', fullName: 'Later Larry' });
    await worker.runSteps();
    const after = at('/rotated')[1]!;
    expect(after.signature.split(' ')).toHaveLength(1);
    expect(verifySignature(secret, after)).toBe(true);
    expect(verifySignature(hook.secret, after)).toBe(false);
  });

  it('replays every event since a time, and redelivers one delivery', async () => {
    const hook = await subscribe('/replayed', { events: ['contact.created'] });
    await pushUser(t, { id: 'u-10', fullName: 'First Replayed' });
    await pushUser(t, { id: 'u-11', fullName: 'Second Replayed' });
    await worker.runSteps();
    const first = at('/replayed').map((m: Received) => m.id);
    expect(first).toHaveLength(2);
    // Events carry the database's time of their transaction.
    const since = (await deliveries(hook.id)).at(-1)!.occurredAt as string;

    const replay = await t.send('POST', `/api/v2/admin/webhooks/${hook.id}/replay`, { since });
    expect(replay.statusCode, replay.body).toBe(202);
    expect(replay.json().data).toMatchObject({ webhookId: hook.id, deliveries: 2 });
    await worker.runSteps();
    // The same two events again; the two sending lanes may deliver them in either order.
    const replayed = at('/replayed').map((m) => m.id);
    expect(replayed.slice(0, 2)).toEqual(first);
    expect(replayed.slice(2).sort()).toEqual([...first].sort());

    const [latest] = await deliveries(hook.id);
    const again = await t.send('POST', `/api/v2/admin/webhooks/${hook.id}/deliveries/${latest!.id as string}/redeliver`, undefined);
    expect(again.statusCode, again.body).toBe(202);
    await worker.runSteps();
    expect(at('/replayed')).toHaveLength(5);
    expect(at('/replayed')[4]!.body).toBe(at('/replayed').find((m) => m.id === latest!.messageId)!.body);

    const backwards = await t.send('POST', `/api/v2/admin/webhooks/${hook.id}/replay`, { since, until: new Date(Date.parse(since) - DAY).toISOString() });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().error.message).toMatch(/until is before since/);
  });

  it('gives up after 3 days, disables a webhook that kept failing, and an admin enables it again', async () => {
    const hook = await subscribe('/down', { events: ['contact.created'] });
    receiver.respondWith(() => 500);
    await pushUser(t, { id: 'u-12', fullName: 'Unlucky Ulla' });
    await worker.runSteps();
    for (let hours = 0; hours < 80; hours += 1) {
      clock.advance(3_600_000);
      await worker.runSteps();
    }
    const [delivery] = await deliveries(hook.id);
    expect(delivery).toMatchObject({ status: 'failed', lastStatus: 500 });
    expect(delivery!.attempts as number).toBeGreaterThan(10);
    const disabled = (await t.get(`/api/v2/admin/webhooks/${hook.id}`)).json().data;
    expect(disabled).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/^every attempt failed since /) });

    // Disabled: deliveries wait.
    await pushUser(t, { id: 'u-13', fullName: 'While Disabled' });
    await worker.runSteps();
    const count = at('/down').length;
    clock.advance(DAY);
    await worker.runSteps();
    expect(at('/down')).toHaveLength(count);

    receiver.respondWith(() => 200);
    const enabled = await t.send('POST', `/api/v2/admin/webhooks/${hook.id}/enable`, undefined);
    expect(enabled.json().data).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    await worker.runSteps();
    expect(at('/down').at(-1)!.json.data).toMatchObject({ fullName: 'While Disabled' });
    expect((await deliveries(hook.id, '?status=failed')).map((d) => d.id)).toEqual([delivery!.id]);
  });

  it('reports merges, finished jobs and completed removals without erased data', async () => {
    await subscribe('/ops', { events: ['contact.merged', 'job.finished', 'removal.completed', 'contact.updated'] });
    const a = await pushUser(t, { id: 'm-1', email: 'merge.me@example.org', fullName: 'Merge Me' });
    const b = await pushUser(t, { id: 'm-2', github: { type: 'handle', value: 'merge-me' }, fullName: 'Merge Me Too' });
    await pushUser(t, { id: 'm-3', email: 'merge.me@example.org', github: { type: 'handle', value: 'merge-me' } });
    const removal = await t.app.inject({ method: 'DELETE', url: '/community/v1/user/merge.me%40example.org', headers: { authorization: `Bearer ${t.token}` } });
    expect(removal.statusCode).toBe(200);
    await worker.runUntilIdle();
    await worker.runSteps();
    const messages = at('/ops').map((m) => m.json);
    const merged = messages.find((m) => m.type === 'contact.merged')!;
    expect(merged.data).toMatchObject({ survivorId: a, mergedIds: [b], reason: expect.any(String) });
    expect(messages.find((m) => m.type === 'job.finished')!.data).toMatchObject({ kind: 'privacy.erase', status: 'completed' });
    const removed = messages.find((m) => m.type === 'removal.completed')!;
    expect(removed.data).toEqual({ requestId: expect.any(Number), status: 'completed' });
    const erasedUpdate = messages.filter((m) => m.type === 'contact.updated').at(-1)!;
    expect(erasedUpdate.data).toMatchObject({ id: a, name: 'Anonymized contact', primaryEmail: null });
    expect(
      JSON.stringify(
        at('/ops')
          .slice(-3)
          .map((m) => m.body),
      ),
    ).not.toMatch(/merge\.me@example\.org|Merge Me/);
  });

  it('reports organizations created and lead scores that changed value', async () => {
    await subscribe('/scores', { events: ['organization.created', 'lead_score.changed'] });
    const ada = await pushUser(t, { id: 'ls-1', fullName: 'Scored Sam', companyDomain: 'scoredexample.com' });
    await accepted(t, 'activity', { id: 'ls-act-1', activityType: 'commented_replied', user: { id: 'ls-1' } });
    const definition = await t.send('POST', '/api/v2/admin/lead-scores', {
      name: 'Commenters',
      entityType: 'contact',
      halfLifeDays: 10,
      activityCap: 20,
      weights: [{ activityType: 'commented_replied', weight: 2 }],
      fit: [],
    });
    expect(definition.statusCode, definition.body).toBe(201);
    await worker.runUntilIdle();
    await worker.runSteps();
    const messages = at('/scores').map((m) => m.json);
    const organization = messages.find((m) => m.type === 'organization.created')!;
    expect(organization.data).toMatchObject({ primaryDomain: 'scoredexample.com' });
    const score = messages.find((m) => m.type === 'lead_score.changed' && m.data.entityId === ada)!;
    expect(score.data).toEqual({
      scoreId: Number(String(definition.json().data.id).slice(3)),
      entityType: 'contact',
      entityId: ada,
      score: 2,
      previousScore: null,
    });
  });

  it('prunes the events before a time that wait for nothing, with their deliveries; pending and unsent ones stay', async () => {
    const hook = await subscribe('/prune', { events: ['contact.created'] });
    receiver.respondWith((message) => (message.path === '/prune' && message.json.data.fullName === 'Pat Pending' ? 500 : 200));
    const sent = await pushUser(t, { id: 'u-prune-1', fullName: 'Pam Pruned', email: 'pam@example.org' });
    const pending = await pushUser(t, { id: 'u-prune-2', fullName: 'Pat Pending', email: 'pat@example.org' });
    await worker.runSteps();
    const unsent = await pushUser(t, { id: 'u-prune-3', fullName: 'Una Unsent', email: 'una@example.org' });
    // Events carry the database's time, not the test's clock.
    const before = (await sql<{ now: Date }>`select now() as now`.execute(t.services.db)).rows[0]!.now.toISOString();
    const events = async () =>
      (
        await sql<{ entity_id: string }>`select entity_id from webhook_events where community_id = ${t.communityId} and kind = 'contact.created'
          and entity_id in (${sql.join([sent, pending, unsent].map((id) => Number(id.replace(/\D/g, ''))))})`.execute(t.services.db)
      ).rows
        .map((row) => `c_${row.entity_id}`)
        .sort();
    expect(await events()).toEqual([sent, pending, unsent].sort());
    expect((await deliveries(hook.id)).map((delivery) => delivery.status).sort()).toEqual(['delivered', 'pending']);

    // Another community's prune leaves this one's events.
    const other = (await t.services.communities.create('Other', cliActor())).communityId;
    expect((await t.services.webhooks.prune(other, before, 'cli:test')).deleted).toBe(0);
    expect(await events()).toHaveLength(3);

    const pruned = await t.services.webhooks.prune(t.communityId, before, 'cli:test');
    expect(pruned.deleted).toBeGreaterThanOrEqual(1);
    expect(await events()).toEqual([pending, unsent].sort());
    expect((await deliveries(hook.id)).map((delivery) => delivery.status)).toEqual(['pending']);
    // The unsent event is still sent.
    await worker.runSteps();
    expect(at('/prune').map((message) => message.json.data.fullName)).toContain('Una Unsent');
    const entries = (await t.get('/api/v2/admin/audit-log?operation=webhook.prune')).json().data as { actor: string; detail: unknown }[];
    expect(entries).toEqual([expect.objectContaining({ actor: 'cli:test', detail: { before: pruned.before.toISOString(), deleted: pruned.deleted } })]);
    await expect(t.services.webhooks.prune(t.communityId, 'last week', 'cli:test')).rejects.toThrow(/before must be an ISO 8601 date/);
  });

  it('refuses what is wrong with a 400 naming it', async () => {
    const bad = async (body: Record<string, unknown>, pattern: RegExp) => {
      const response = await t.send('POST', '/api/v2/admin/webhooks', { url: `${base}/x`, events: ['contact.created'], ...body });
      expect(response.statusCode, response.body).toBe(400);
      expect(JSON.stringify(response.json().error ?? response.json())).toMatch(pattern);
    };
    await bad({ events: ['contact.deleted'] }, /contact.deleted.{0,4} is not an event kind/);
    await bad({ url: 'ftp://example.org/hook' }, /http or https/);
    await bad({ events: ['job.finished'], lightFilter: { type: 'and', clauses: [] } }, /job.finished is about no record/);
    await bad({ events: ['contact.created', 'activity.created'], lightFilter: { type: 'and', clauses: [] } }, /one kind of record/);
    await bad({ lightFilter: { type: 'and', clauses: [{ type: 'stringListFilter', field: 'nope', params: { op: 'any', value: ['x'] } }] } }, /clauses\[0\]/);
    expect((await t.get('/api/v2/admin/webhooks/wh_x')).statusCode).toBe(400);
    expect((await t.get('/api/v2/admin/webhooks/wh_999999')).statusCode).toBe(404);
    const reader = await t.issueToken(['contacts:read']);
    expect((await t.get('/api/v2/admin/webhooks', reader)).statusCode).toBe(403);
  });

  it('counts a receiver that does not answer in time as a failed attempt, and tries again', async () => {
    const impatient = await createTestApp(engine, { clock, allowPrivateFetch: true, webhookTimeoutMs: 300 });
    try {
      const made = await impatient.send('POST', '/api/v2/admin/webhooks', { url: `${base}/slow`, events: ['contact.created'] });
      expect(made.statusCode, made.body).toBe(201);
      let calls = 0;
      receiver.respondWith(async () => {
        if (++calls === 1) await new Promise((resolve) => setTimeout(resolve, 1_500));
        return 200;
      });
      const impatientWorker = createWorker({ db: impatient.services.db, clock, queue: impatient.services.jobs });
      await pushUser(impatient, { id: 'u-slow', fullName: 'Slow Sally' });
      await impatientWorker.runSteps();
      const deliveriesOf = async () => (await impatient.get(`/api/v2/admin/webhooks/${made.json().data.id}/deliveries`)).json().data;
      expect((await deliveriesOf())[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatus: null, lastError: 'no answer within 300 ms' });
      clock.advance(5 * SECOND);
      await impatientWorker.runSteps();
      expect((await deliveriesOf())[0]).toMatchObject({ status: 'delivered', attempts: 2, lastStatus: 200 });
      expect(at('/slow').map((m) => m.id)).toEqual([at('/slow')[0]!.id, at('/slow')[0]!.id]);
    } finally {
      await impatient.close();
    }
  });

  it('refuses private and loopback addresses unless the operator allows them', async () => {
    const strict = await createTestApp(engine, { clock });
    try {
      const response = await strict.send('POST', '/api/v2/admin/webhooks', { url: `${base}/private`, events: ['contact.created'] });
      expect(response.statusCode).toBe(400);
      expect(response.body).toMatch(/127\.0\.0\.1 is a private or special address/);
      const named = await strict.send('POST', '/api/v2/admin/webhooks', {
        url: base.replace('127.0.0.1', 'localhost') + '/private',
        events: ['contact.created'],
      });
      expect(named.statusCode).toBe(201);
      const strictWorker = createWorker({ db: strict.services.db, clock, queue: strict.services.jobs });
      await pushUser(strict, { id: 'u-private', fullName: 'Private Pete' });
      await strictWorker.runSteps();
      expect(at('/private')).toEqual([]);
      const [delivery] = (await strict.get(`/api/v2/admin/webhooks/${named.json().data.id}/deliveries`)).json().data;
      // What the name resolved to is not said: an admin could otherwise map the server's network by its names.
      expect(delivery).toMatchObject({ status: 'pending', lastStatus: null, lastError: 'refused: private address' });
    } finally {
      await strict.close();
    }
  });
});
