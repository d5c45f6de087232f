import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { freePort } from '../helpers/free-port.ts';
import { TEST_PUBLIC_URL } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Payload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * The bodies webhooks send (docs/webhooks.md), rendered by the webhook service from the events the
 * services record, on both engines: `{type, timestamp, data}`, data being the record's v2 representation
 * when the event is fanned out, rendered once. Nothing listens at the subscription's address: the
 * attempts fail, and the rendered bodies are read from the deliveries.
 */
describe.each(ENGINES)('webhook payloads (%s)', (engine) => {
  const clock = new ManualClock('2026-03-02T10:00:00.000Z');
  let ctx: TestContext;
  let webhookKey: number;

  beforeAll(async () => {
    ctx = await createTestContext(engine, { clock, allowPrivateFetch: true });
    const hook = await ctx.services.webhooks.create(cliWriter(ctx.communityId), {
      url: `http://127.0.0.1:${await freePort()}/hook`,
      events: ['contact.created', 'contact.merged', 'activity.created', 'tag.assigned'],
    });
    webhookKey = Number(hook.id.replace(/^wh_/, ''));
  });
  afterAll(() => ctx?.close());

  /** Fans out what is waiting, then the bodies of the deliveries of `kind`, oldest first. */
  async function sent(kind: string): Promise<Payload[]> {
    await ctx.services.webhooks.deliverNow();
    const deliveries = await ctx.services.webhooks.deliveries(ctx.communityId, webhookKey, { limit: 100 });
    const bodies: Payload[] = [];
    for (const delivery of deliveries.filter((row) => row.event === kind).reverse()) {
      const { payload } = await ctx.services.webhooks.delivery(ctx.communityId, Number(delivery.id.replace(/^whd_/, '')));
      bodies.push(JSON.parse(payload!) as Payload);
    }
    return bodies;
  }

  it('contact.created carries the contact as it was when rendered, and keeps those bytes after the contact changes', async () => {
    const ada = await ctx.newContact({ id: 'ada', fullName: 'Ada Lovelace', email: 'ada@example.org' });
    const [created, ...more] = await sent('contact.created');
    expect(more).toEqual([]);
    expect(created).toEqual({
      type: 'contact.created',
      // When the database recorded the event.
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: expect.objectContaining({ id: ada.id, fullName: 'Ada Lovelace', primaryEmail: 'ada@example.org' }),
    });

    clock.advance(60_000);
    await ctx.newContact({ id: 'ada', fullName: 'Ada King' });
    const [again] = await sent('contact.created');
    expect(again).toEqual(created);
  });

  it('activity.created carries the activity; tag.assigned only the IDs', async () => {
    const tag = await ctx.newTag({ name: 'Speaker' });
    const activity = await ctx.newActivity({ id: 'talk-1', user: { id: 'grace', fullName: 'Grace Hopper' } });
    await ctx.newContact({ id: 'grace', tags: [{ type: 'id', id: tag.key }] });
    expect((await sent('activity.created')).map((body) => body.data)).toEqual([
      expect.objectContaining({
        id: activity.id,
        type: 'made_post_topic',
        activityTime: clock.now().toISOString(),
        url: `${TEST_PUBLIC_URL}/activities/${activity.id}`,
      }),
    ]);
    expect((await sent('tag.assigned')).map((body) => body.data)).toEqual([{ tagId: tag.id, entityType: 'contact', entityId: activity.contact.id }]);
  });

  it('contact.merged names the survivor, the merged contact, the reason and the identity, with the survivor as it is', async () => {
    const older = await ctx.newContact({ id: 'lin-1', fullName: 'Linus', email: 'linus@example.org' });
    clock.advance(60_000);
    const newer = await ctx.newContact({ id: 'lin-2', fullName: 'Linus T', github: 'torvalds' });
    await ctx.newContact({ id: 'lin-3', email: 'linus@example.org', github: 'torvalds' });
    const [merged, ...more] = await sent('contact.merged');
    expect(more).toEqual([]);
    expect(merged!.data).toEqual({
      survivorId: older.id,
      mergedIds: [newer.id],
      reason: expect.any(String),
      identityType: expect.any(String),
      contact: expect.objectContaining({ id: older.id }),
    });
  });
});
