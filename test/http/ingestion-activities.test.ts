import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { push as pushCore } from '../helpers/ingest.ts';

describe.each(ENGINES)('core activity pushes (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');
  let counter = 0;
  const uid = (prefix = 'act') => `${prefix}-${++counter}`;

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
  });
  afterAll(() => t.close());

  const push = (body: Record<string, unknown>, sourceId = t.sourceId) => pushCore(t, 'activity', body, { sourceId });
  async function accepted(body: Record<string, unknown>) {
    const response = await push(body);
    expect(response.statusCode, response.body).toBe(202);
    return response.json() as { status: string; contactId: string; activityId: string; warnings: string[] };
  }
  const key = (id: string) => Number(id.replace(/^[a-z]+_/, ''));
  async function activity(activityId: string) {
    return t.services.db
      .selectFrom('activities')
      .selectAll()
      .where('community_id', '=', t.communityId)
      .where('id', '=', key(activityId))
      .executeTakeFirstOrThrow();
  }

  it('accepts the payload real clients send: markdown, an RFC 1123 time, a sub-source and a parent', async () => {
    const parent = await accepted({
      id: 'thread-1',
      activityType: 'made_post_topic',
      user: { id: 'u-100', email: 'poster@example.org', fullName: 'Poster' },
      content: { type: 'text', value: 'How do I configure the ingress controller?' },
      timestamp: '2026-03-01T09:30:00Z',
    });
    const reply = await accepted({
      destinationSourceId: t.sourceId,
      id: 'reply-1',
      activityType: 'commented_replied',
      user: { id: 'u-101', github: { type: 'handle', value: 'helpful-dev' } },
      activityTitle: { type: 'text', value: 'Re: ingress' },
      content: { type: 'markdown', value: '**Great question!** Use the `ingressClassName` field; it works well.' },
      timestamp: 'Tue, 03 Mar 2026 10:15:30 GMT',
      url: 'https://forum.example.org/t/1/2',
      subSource: { type: 'name', name: '#kubernetes' },
      parentActivity: { id: 'thread-1', activityType: 'made_post_topic' },
    });
    expect(reply).toEqual({ status: 'accepted', contactId: expect.stringMatching(/^c_/), activityId: expect.stringMatching(/^a_/), warnings: [] });
    const row = await activity(reply.activityId);
    expect(row).toMatchObject({
      activity_type: 'commented_replied',
      external_id: 'reply-1',
      title: 'Re: ingress',
      content_type: 'markdown',
      url: 'https://forum.example.org/t/1/2',
      parent_id: key(parent.activityId),
      sentiment: 'positive',
    });
    expect(row.activity_time.toISOString()).toBe('2026-03-03T10:15:30.000Z');
    const subSource = await t.services.db
      .selectFrom('sub_sources')
      .select('name')
      .where('community_id', '=', t.communityId)
      .where('id', '=', row.sub_source_id!)
      .executeTakeFirstOrThrow();
    expect(subSource.name).toBe('#kubernetes');
  });

  it('keeps only an http or https url: any other is dropped with a warning, and the activity stored', async () => {
    for (const url of ['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'JAVA\nSCRIPT:alert(1)', 'forum.example.org/t/9']) {
      const pushed = await accepted({ id: uid(), activityType: 'tweet', user: { id: 'u-150' }, content: 'still stored', url });
      expect(pushed.warnings, url).toEqual(['url: not an http or https URL; the value was dropped']);
      expect(await activity(pushed.activityId), url).toMatchObject({ content: 'still stored', url: null });
    }
    const kept = await accepted({ id: uid(), activityType: 'tweet', user: { id: 'u-150' }, url: ' http://forum.example.org/t/9 ' });
    expect(kept.warnings).toEqual([]);
    expect((await activity(kept.activityId)).url).toBe('http://forum.example.org/t/9');
    // The same rule for the activities of a batch.
    const batch = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/activities`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: [{ id: uid(), activityType: 'tweet', user: { id: 'u-150' }, url: 'javascript:alert(1)' }],
    });
    expect(batch.statusCode, batch.body).toBe(202);
    const [result] = (batch.json() as { results: { activityId: string; warnings: string[] }[] }).results;
    expect(result!.warnings).toEqual(['url: not an http or https URL; the value was dropped']);
    expect((await activity(result!.activityId)).url).toBeNull();
  });

  it('threads a reply that arrives before its parent', async () => {
    const reply = await accepted({
      id: 'early-reply',
      activityType: 'commented_replied',
      user: { id: 'u-200' },
      parentActivity: { id: 'late-parent', activityType: 'made_post_topic' },
    });
    expect((await activity(reply.activityId)).parent_id).toBeNull();
    const parent = await accepted({ id: 'late-parent', activityType: 'made_post_topic', user: { id: 'u-201' } });
    expect((await activity(reply.activityId)).parent_id).toBe(key(parent.activityId));
  });

  it('never threads a loop: a parent that is the activity itself or one of its replies is not linked, and the 202 says so', async () => {
    const loop = 'threads cannot loop';
    const self = {
      id: 'loop-self',
      activityType: 'made_post_topic',
      user: { id: 'u-250' },
      parentActivity: { id: 'loop-self', activityType: 'made_post_topic' },
    };
    expect((await accepted(self)).warnings).toEqual([]);
    const again = await accepted(self);
    expect(again.warnings).toEqual([expect.stringContaining(loop)]);
    expect((await activity(again.activityId)).parent_id).toBeNull();

    // Two pushes naming each other: the second links to the first, and the first is left waiting.
    const a = await accepted({
      id: 'loop-a',
      activityType: 'made_post_topic',
      user: { id: 'u-251' },
      parentActivity: { id: 'loop-b', activityType: 'made_post_topic' },
    });
    const b = await accepted({
      id: 'loop-b',
      activityType: 'made_post_topic',
      user: { id: 'u-252' },
      parentActivity: { id: 'loop-a', activityType: 'made_post_topic' },
    });
    expect(a.warnings).toEqual([]);
    expect(b.warnings).toEqual([expect.stringMatching(/^1 earlier activity names this one as parent but is among its own parents/)]);
    expect((await activity(b.activityId)).parent_id).toBe(key(a.activityId));
    expect((await activity(a.activityId)).parent_id).toBeNull();
    // Pushed again, the first now finds its parent, which is its own reply.
    const aAgain = await accepted({
      id: 'loop-a',
      activityType: 'made_post_topic',
      user: { id: 'u-251' },
      parentActivity: { id: 'loop-b', activityType: 'made_post_topic' },
    });
    expect(aAgain.warnings).toEqual([expect.stringContaining(loop)]);
    expect((await activity(a.activityId)).parent_id).toBeNull();

    const read = await t.get(`/api/v2/activities/${a.activityId}?cols=replyCount,participantCount`);
    expect(read.json()).toMatchObject({ data: { replyCount: 1, participantCount: 2 } });
  });

  it('deduplicates on (source, activityType, id): the latest push wins', async () => {
    const id = uid();
    const first = await accepted({ id, activityType: 'tweet', user: { id: 'u-300' }, content: { type: 'text', value: 'first' } });
    const second = await accepted({ id, activityType: 'tweet', user: { id: 'u-300' }, content: { type: 'text', value: 'second' } });
    expect(second.activityId).toBe(first.activityId);
    expect((await activity(first.activityId)).content).toBe('second');
    const otherType = await accepted({ id, activityType: 'pr_comment', user: { id: 'u-300' } });
    expect(otherType.activityId).not.toBe(first.activityId);
  });

  it("keeps the contact's activity count and first and latest times", async () => {
    const user = { id: 'u-400', email: 'counted@example.org' };
    await accepted({ id: uid(), activityType: 'tweet', user, timestamp: '2026-02-01T00:00:00Z' });
    await accepted({ id: uid(), activityType: 'tweet', user, timestamp: '2026-03-05T00:00:00Z' });
    const last = await accepted({ id: uid(), activityType: 'tweet', user, timestamp: '2026-01-15T00:00:00Z' });
    const contact = await t.services.db
      .selectFrom('contacts')
      .select(['activity_count_all', 'first_activity_at', 'latest_activity_at'])
      .where('community_id', '=', t.communityId)
      .where('id', '=', key(last.contactId))
      .executeTakeFirstOrThrow();
    expect(contact.activity_count_all).toBe(3);
    expect(contact.first_activity_at?.toISOString()).toBe('2026-01-15T00:00:00.000Z');
    expect(contact.latest_activity_at?.toISOString()).toBe('2026-03-05T00:00:00.000Z');
  });

  it('resolves the embedded user like a user push', async () => {
    const user = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/user`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: { id: 'u-500', email: 'same.person@example.org' },
    });
    const pushed = await accepted({ id: uid(), activityType: 'tweet', user: { id: 'x-9', email: 'SAME.person@example.org' } });
    expect(pushed.contactId).toBe(user.json().contactId);
  });

  it('uses the service clock when the timestamp is absent', async () => {
    const pushed = await accepted({ id: uid(), activityType: 'tweet', user: { id: 'u-600' } });
    expect((await activity(pushed.activityId)).activity_time.toISOString()).toBe(clock.now().toISOString());
  });

  it('computes sentiment at ingest', async () => {
    const negative = await accepted({
      id: uid(),
      activityType: 'commented_replied',
      user: { id: 'u-700' },
      content: { type: 'text', value: 'This is terrible, the upgrade broke everything and I hate it.' },
    });
    expect((await activity(negative.activityId)).sentiment).toBe('negative');
  });

  it('refuses an unknown activityType, naming it', async () => {
    const response = await push({ id: uid(), activityType: 'juggled', user: { id: 'u-800' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ reason: 'invalid-request-body', detail: expect.stringContaining('"juggled"') });
  });

  it("accepts a community's own activity type", async () => {
    await t.services.activityTypes.add(cliWriter(t.communityId), { id: 'gave_talk', displayName: 'Gave a talk' });
    await accepted({ id: uid(), activityType: 'gave_talk', user: { id: 'u-801' } });
  });

  it.each(['yesterday', '2026-02-30T10:00:00Z', '', 'Tue, 32 Mar 2026 10:00:00 GMT'])('refuses the timestamp %j', async (timestamp) => {
    const response = await push({ id: uid(), activityType: 'tweet', user: { id: 'u-900' }, timestamp });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ reason: 'invalid-request-body', detail: expect.stringMatching(/timestamp/) });
  });

  it('stores a time more than a day ahead as given, with a warning, and counts it in no window until it is past', async () => {
    const start = clock.now();
    const ahead = new Date(start.getTime() + 30 * 24 * 3600 * 1000).toISOString();
    const pushed = await accepted({ id: uid(), activityType: 'tweet', user: { id: 'u-950' }, timestamp: ahead });
    expect(pushed.warnings).toEqual([expect.stringMatching(/^timestamp is .*more than a day after the current time/)]);
    expect((await activity(pushed.activityId)).activity_time.toISOString()).toBe(ahead);
    const counts = async () => (await t.get(`/api/v2/contacts/${pushed.contactId}?cols=activityCount7d,activityCount1y,activityCountAll`)).json().data;
    expect(await counts()).toMatchObject({ activityCount7d: 0, activityCount1y: 0, activityCountAll: 1 });
    try {
      clock.advance(31 * 24 * 3600 * 1000);
      expect(await counts()).toMatchObject({ activityCount7d: 1, activityCount1y: 1, activityCountAll: 1 });
    } finally {
      clock.set(start);
    }
    // Within a day ahead is ordinary clock skew: no warning.
    const skewed = await accepted({ id: uid(), activityType: 'tweet', user: { id: 'u-951' }, timestamp: new Date(start.getTime() + 3600_000).toISOString() });
    expect(skewed.warnings).toEqual([]);
  });

  it('refuses a push without a user or an id', async () => {
    for (const body of [
      { id: uid(), activityType: 'tweet' },
      { activityType: 'tweet', user: { id: 'u' } },
      { id: uid(), activityType: 'tweet', user: {} },
    ]) {
      const response = await push(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('tags the activity by id and by name', async () => {
    const pushed = await accepted({ id: uid(), activityType: 'tweet', user: { id: 'u-1000' }, tags: [{ type: 'name', name: 'Launch' }] });
    const tags = await t.services.db
      .selectFrom('tag_assignments')
      .select('tag_id')
      .where('community_id', '=', t.communityId)
      .where('entity_type', '=', 'activity')
      .where('entity_id', '=', key(pushed.activityId))
      .execute();
    expect(tags).toHaveLength(1);
  });
});
