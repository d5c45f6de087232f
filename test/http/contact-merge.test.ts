import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import type { DB } from '../../src/db/schema.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { contactState } from '../helpers/contact-state.ts';
import { accepted, pushUser } from '../helpers/ingest.ts';
import { sweep } from '../helpers/sweep.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * Merging two contacts by hand and undoing a merge (docs/ingestion.md, "Merging by hand, and undoing a
 * merge"), through the API: what each side holds before, after and after the undo, never-merge pairs at
 * ingestion, the history, webhooks, the audit log, erasure after an undo, and the 4xx of each route.
 */
describe.each(ENGINES)('contact merge and unmerge (%s)', (engine) => {
  let t: TestApp;
  let worker: Worker;
  const receiver = webhookReceiver();
  let base: string;
  const clock = new ManualClock(new Date('2026-11-01T10:00:00Z'));
  const db = (): Kysely<DB> => t.services.db;
  const key = (id: string) => Number(id.slice(2));
  // The test app's token is made for the console's first user.
  const ACTOR = 'user:admin@hearth.local';
  let other: { communityId: number; token: string; contact: string };
  let tag: { champion: string; speaker: string };
  let field: { plan: string; seats: string };
  let segment: { vip: string; event: string };

  const merge = (id: string, contactId: string, token?: string) => t.send('POST', `/api/v2/contacts/${id}/merge`, { contactId }, token);
  const unmerge = (id: string, mergedId: string, token?: string) => t.send('POST', `/api/v2/contacts/${id}/unmerge`, { mergedId }, token);
  const state = (id: string) => contactState(db(), t.communityId, key(id));
  const bulk = async (body: Record<string, unknown>) => {
    const response = await t.send('POST', '/api/v2/contacts/bulk-update', body);
    expect(response.statusCode, response.body).toBe(200);
  };
  const history = async (id: string) => {
    const response = await t.get(`/api/v2/contacts/${id}/merges`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: Record<string, unknown>[] }).data;
  };
  const activity = (userId: string, id: string, title: string) =>
    accepted(t, 'activity', { id, activityType: 'made_post_topic', title, user: { id: userId }, timestamp: clock.now().toISOString() });

  /** Two people of their own, each with activities, tags, values and memberships, the first made first. */
  async function twoPeople(prefix: string) {
    const a = await pushUser(t, {
      id: `${prefix}-a`,
      email: `${prefix}.a@example.org`,
      fullName: `${prefix} Ada`,
      github: { type: 'handle', value: `${prefix}-ada` },
    });
    clock.advance(60_000);
    const b = await pushUser(t, { id: `${prefix}-bee`, email: `${prefix}.b@elsewhere.example`, rawLocation: 'Paris, France', bio: `${prefix} writes docs` });
    await activity(`${prefix}-a`, `${prefix}-a1`, 'by a');
    await activity(`${prefix}-bee`, `${prefix}-b1`, 'by b');
    await activity(`${prefix}-bee`, `${prefix}-b2`, 'by b again');
    const value = (id: string, type: string, given: unknown) => ({ customFieldId: id, customFieldValue: { type, value: given } });
    await bulk({ contactIds: [a], tagIdsToAdd: [tag.champion], customFields: [value(field.plan, 'string', 'gold')], segmentId: segment.vip });
    await bulk({
      contactIds: [b],
      tagIdsToAdd: [tag.champion, tag.speaker],
      customFields: [value(field.plan, 'string', 'free'), value(field.seats, 'int', 3)],
      segmentId: segment.event,
    });
    return { a, b };
  }

  beforeAll(async () => {
    base = await receiver.start();
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
    worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    const communityId = (await t.services.communities.create('Other', cliActor())).communityId;
    const sourceId = (await t.services.sources.create(cliWriter(communityId), { name: 'Other API' })).id;
    const token = await t.issueToken(['read', 'write'], communityId);
    other = { communityId, token, contact: await pushUser(t, { id: 'theirs', email: 'theirs@example.org' }, { sourceId, token }) };
    const makeTag = async (name: string) => {
      const response = await t.send('POST', '/community/v1/tags', { name, entityTypes: ['member'] });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { id: string }).id;
    };
    tag = { champion: await makeTag('Champion'), speaker: await makeTag('Speaker') };
    const customField = async (name: string, valueType: string) =>
      (
        await db()
          .insertInto('custom_fields')
          .values({ community_id: t.communityId, name, entity_types: ['contact'], value_type: valueType })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const contactSegment = async (name: string) =>
      (await db().insertInto('segments').values({ community_id: t.communityId, name, entity_type: 'contact' }).returning('id').executeTakeFirstOrThrow()).id;
    field = {
      plan: `cf_${await customField('Plan', 'string')}`,
      seats: `cf_${await customField('Seats', 'int')}`,
    };
    segment = {
      vip: `s_${await contactSegment('VIP')}`,
      event: `s_${await contactSegment('Event')}`,
    };
  });
  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });

  it('merges by hand as a push would, and says who did it', async () => {
    const { a, b } = await twoPeople('hand');
    const before = { a: await state(a), b: await state(b) };
    // Asked from the younger side: the older contact survives all the same.
    const response = await merge(b, a);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { data: { survivorId: string; mergedId: string; contact: { id: string; activityCount: number } } };
    expect(body.data).toMatchObject({ survivorId: a, mergedId: b, contact: { id: a } });

    const after = await state(a);
    expect(after.activities.map((row) => row.external_id).sort()).toEqual(['hand-a1', 'hand-b1', 'hand-b2']);
    expect(after.identities.map((row) => row.value).sort()).toEqual(['hand-ada', 'hand.a@example.org', 'hand.b@elsewhere.example']);
    expect(after.contact).toMatchObject({ bio: 'hand writes docs', raw_location: 'Paris, France', full_name: 'hand Ada', activity_count_all: 3 });
    // The survivor's own value wins; the merged one's fills what the survivor lacked.
    expect(after.values.map((row) => (row.value as { value: unknown }).value)).toEqual(['gold', 3]);
    expect(after.tags).toHaveLength(2);
    expect(after.segments.map((row) => `s_${row.segment_id}`).sort()).toEqual([segment.vip, segment.event].sort());
    expect((await state(b)).contact).toBeNull();
    expect((await t.get(`/api/v2/contacts/${b}`)).json()).toMatchObject({ data: { id: a } });
    expect(await history(a)).toEqual([
      expect.objectContaining({ mergedId: b, reason: `merged by hand by ${ACTOR}`, providerId: null, mergedBy: ACTOR, unmergedAt: null, undoable: true }),
    ]);
    const audit = await t.get('/api/v2/admin/audit-log?operation=contact.merge');
    expect(audit.json()).toMatchObject({ data: [expect.objectContaining({ operation: 'contact.merge', entityIds: [a, b] })] });

    // Undone: both as they were.
    const undone = await unmerge(a, b);
    expect(undone.statusCode, undone.body).toBe(200);
    expect(undone.json()).toMatchObject({ data: { contact: { id: a }, restored: { id: b } } });
    expect(await state(a)).toEqual(before.a);
    expect(await state(b)).toEqual(before.b);
    expect(await history(a)).toEqual([expect.objectContaining({ mergedId: b, unmergedBy: ACTOR, unmergedAt: expect.any(String), undoable: false })]);
    expect((await t.get(`/api/v2/contacts/${b}`)).json()).toMatchObject({ data: { id: b } });
  });

  it('undoes an automatic merge, giving what arrived since to the side whose profile sent it', async () => {
    const { a, b } = await twoPeople('auto');
    const before = { a: await state(a), b: await state(b) };
    // A push with b's sender ID that names a's address: ingestion merges them.
    const merging = await accepted(t, 'user', { id: 'auto-bee', email: 'auto.a@example.org' });
    expect(merging.contactId).toBe(a);
    clock.advance(60_000);
    await activity('auto-bee', 'auto-b3', 'b after the merge');
    await activity('auto-a', 'auto-a2', 'a after the merge');
    expect((await history(a))[0]).toMatchObject({ mergedId: b, mergedBy: null, undoable: true });

    expect((await unmerge(a, b)).statusCode).toBe(200);
    const after = { a: await state(a), b: await state(b) };
    // What a pushed since is a's; what b's profile sent since is b's; the rest is as before the merge.
    expect(after.a.activities.map((row) => row.external_id)).toEqual(['auto-a1', 'auto-a2']);
    expect(after.b.activities.map((row) => row.external_id)).toEqual(['auto-b1', 'auto-b2', 'auto-b3']);
    // The merging push gave b's profile a's address: identities stay where they were.
    expect(after.a.identities).toEqual(before.a.identities);
    expect(after.b.identities).toEqual(before.b.identities);
    expect({ ...after.a, activities: [], contact: { ...after.a.contact, activity_count_all: 0, latest_activity_at: null } }).toEqual({
      ...before.a,
      activities: [],
      contact: { ...before.a.contact, activity_count_all: 0, latest_activity_at: null },
    });
    expect(after.b.tags).toEqual(before.b.tags);
    expect(after.b.values).toEqual(before.b.values);
    expect(after.b.segments).toEqual(before.b.segments);
    expect(after.b.contact).toMatchObject({ activity_count_all: 3 });

    // Never again by ingestion: a push naming both sides goes where its sender's ID leads, with a warning.
    const both = await accepted(t, 'user', { id: 'auto-bee', email: 'auto.a@example.org', github: { type: 'handle', value: 'auto-ada' } });
    expect(both.contactId).toBe(b);
    expect(both.warnings).toEqual([
      expect.stringMatching(new RegExp(`email "auto\\.a@example\\.org", github "auto-ada" belong to ${a}, marked as another person than ${b}`)),
    ]);
    expect((await state(a)).identities).toEqual(before.a.identities);
    expect((await state(b)).contact).not.toBeNull();
    // A new sender naming both: the holder of its strongest identity (the email before the GitHub account).
    const fresh = await accepted(t, 'user', { id: 'auto-new', github: { type: 'handle', value: 'auto-ada' }, email: 'auto.b@elsewhere.example' });
    expect(fresh.contactId).toBe(b);
    expect(fresh.warnings).toHaveLength(1);

    // A person may still merge them by hand: the mark is lifted.
    clock.advance(1000);
    expect((await merge(a, b)).statusCode).toBe(200);
    expect((await history(a)).map((row) => [row.mergedId, row.unmergedAt === null])).toEqual([
      [b, true],
      [b, false],
    ]);
    const again = await accepted(t, 'user', { id: 'auto-bee', email: 'auto.a@example.org' });
    expect(again).toMatchObject({ contactId: a, warnings: [] });
  });

  it('tells webhook subscribers of merges and of merges undone', async () => {
    const hook = await t.send('POST', '/api/v2/admin/webhooks', { url: `${base}/merges`, events: ['contact.merged', 'contact.unmerged'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const { a, b } = await twoPeople('hook');
    expect((await merge(a, b)).statusCode).toBe(200);
    expect((await unmerge(a, b)).statusCode).toBe(200);
    await worker.runSteps();
    const messages = receiver.received.filter((message) => message.path === '/merges').map((message) => message.json);
    expect(messages).toEqual([
      expect.objectContaining({
        type: 'contact.merged',
        data: expect.objectContaining({ survivorId: a, mergedIds: [b], reason: `merged by hand by ${ACTOR}` }),
      }),
      expect.objectContaining({
        type: 'contact.unmerged',
        data: {
          survivorId: a,
          restoredId: b,
          contact: expect.objectContaining({ id: a }),
          restored: expect.objectContaining({ id: b, name: expect.any(String) }),
        },
      }),
    ]);
    expect((await t.send('DELETE', `/api/v2/admin/webhooks/${(hook.json() as { data: { id: string } }).data.id}`, undefined)).statusCode).toBe(200);
  });

  it('leaves nothing of either side erased after an undone merge', async () => {
    const erase = async (address: string) => {
      const removal = await t.send('DELETE', `/community/v1/user/${encodeURIComponent(address)}`, undefined);
      expect(removal.statusCode, removal.body).toBe(200);
      await worker.runUntilIdle();
    };
    // The merged side erased: the survivor keeps its own.
    const first = await twoPeople('erase');
    expect((await merge(first.a, first.b)).statusCode).toBe(200);
    expect((await unmerge(first.a, first.b)).statusCode).toBe(200);
    await erase('erase.b@elsewhere.example');
    expect(await sweep(db(), ['erase.b@elsewhere.example', 'erase writes docs', 'erase-bee'])).toEqual({});
    expect((await state(first.a)).contact).toMatchObject({ full_name: 'erase Ada' });
    // The surviving side erased: the merge's reason quoted its address, also in its event, not sent yet.
    const hook = await t.send('POST', '/api/v2/admin/webhooks', { url: `${base}/erased`, events: ['contact.merged'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const second = await twoPeople('wipe');
    expect((await accepted(t, 'user', { id: 'wipe-bee', email: 'wipe.a@example.org' })).contactId).toBe(second.a);
    expect((await unmerge(second.a, second.b)).statusCode).toBe(200);
    await erase('wipe.a@example.org');
    expect(await sweep(db(), ['wipe.a@example.org', 'wipe ada', 'wipe-ada'])).toEqual({});
    expect((await state(second.b)).contact).toMatchObject({ bio: 'wipe writes docs' });
    await worker.runSteps();
    expect(receiver.received.filter((message) => message.path === '/erased').map((message) => message.json.type)).toEqual(['contact.merged']);
    expect(JSON.stringify(receiver.received.map((message) => message.body))).not.toContain('wipe.a@example.org');
    expect((await t.send('DELETE', `/api/v2/admin/webhooks/${(hook.json() as { data: { id: string } }).data.id}`, undefined)).statusCode).toBe(200);
  });

  it('answers what is wrong', async () => {
    const { a, b } = await twoPeople('bad');
    expect((await merge(a, a)).json()).toMatchObject({ error: { code: 'invalid_parameters', message: expect.stringContaining('one contact already') } });
    expect((await merge(a, 'b_1')).json()).toMatchObject({ error: { code: 'invalid_contact_id', message: expect.stringContaining('"b_1"') } });
    expect((await merge(a, 'c_99999999')).statusCode).toBe(404);
    expect((await merge(a, other.contact)).json()).toMatchObject({ error: { code: 'contact_not_found' } });
    expect((await merge(other.contact, a, other.token)).json()).toMatchObject({ error: { code: 'contact_not_found' } });
    expect((await t.send('POST', `/api/v2/contacts/${a}/merge`, { contactId: b, extra: 1 })).statusCode).toBe(400);
    expect((await t.send('POST', `/api/v2/contacts/${a}/merge`, {})).statusCode).toBe(400);
    const reader = await t.issueToken(['read']);
    expect((await merge(a, b, reader)).statusCode).toBe(403);
    expect((await unmerge(a, b)).json()).toMatchObject({
      error: { code: 'merge_not_found', message: expect.stringContaining(`${b} is not merged into ${a}`) },
    });
    expect((await merge(a, b)).statusCode).toBe(200);
    expect((await unmerge(a, b, other.token)).statusCode).toBe(404);
    expect((await unmerge(a, a)).json()).toMatchObject({ error: { code: 'merge_not_found' } });
    expect((await unmerge(a, b)).statusCode).toBe(200);
    expect((await unmerge(a, b)).json()).toMatchObject({ error: { code: 'merge_not_found' } });
    // A merge that kept no record of what it brought (made before merges kept one) cannot be undone.
    clock.advance(1000);
    expect((await merge(a, b)).statusCode).toBe(200);
    await sql`update contact_merges set snapshot = null where community_id = ${t.communityId} and merged_id = ${key(b)} and unmerged_at is null`.execute(db());
    expect((await unmerge(a, b)).json()).toMatchObject({ error: { code: 'conflict', message: expect.stringContaining('cannot be undone') } });
  });
});
