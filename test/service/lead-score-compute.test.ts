import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';

const DAY = 86_400_000;

/**
 * Lead score computation (docs/lead-scores.md) through the services, on both engines: weights by activity
 * type, the half-life, the lookback, the activity cap and fit points, in a dry run and as stored by the
 * recompute job that a new definition queues.
 */
describe.each(ENGINES)('lead score computation (%s)', (engine) => {
  const clock = new ManualClock('2026-05-01T12:00:00.000Z');
  let ctx: TestContext;
  const rules = {
    entityType: 'contact' as const,
    halfLifeDays: 14,
    lookbackDays: 30,
    activityCap: 30,
    weights: [
      { activityType: 'made_post_topic', weight: 10 },
      { activityType: 'commented_replied', weight: 4 },
    ],
    fit: [{ field: 'titleSeniority' as const, values: ['vp'], points: 5 }],
  };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ctx = await createTestContext(engine, { clock });
    const daysAgo = (days: number) => new Date(clock.now().getTime() - days * DAY).toISOString();
    // Two posts today and a VP: 2 × 10 + 5.
    ids.ada = (await ctx.newContact({ id: 'ada', fullName: 'Ada', titleAtCompany: 'VP of Engineering' })).id;
    for (const id of ['ada-1', 'ada-2']) await ctx.newActivity({ id, user: { id: 'ada' }, timestamp: daysAgo(0) });
    // A comment one half-life ago (4 × 0.5), and a post older than the lookback (nothing).
    ids.grace = (await ctx.newContact({ id: 'grace', fullName: 'Grace' })).id;
    await ctx.newActivity({ id: 'grace-1', activityType: 'commented_replied', user: { id: 'grace' }, timestamp: daysAgo(14) });
    await ctx.newActivity({ id: 'grace-2', user: { id: 'grace' }, timestamp: daysAgo(31) });
    // Five posts today, held to the activity cap of 30.
    ids.linus = (await ctx.newContact({ id: 'linus', fullName: 'Linus' })).id;
    for (let n = 1; n <= 5; n += 1) await ctx.newActivity({ id: `linus-${n}`, user: { id: 'linus' }, timestamp: daysAgo(0) });
    // Only a type no rule weighs.
    ids.eve = (await ctx.newContact({ id: 'eve', fullName: 'Eve' })).id;
    await ctx.newActivity({ id: 'eve-1', activityType: 'reacted', user: { id: 'eve' }, timestamp: daysAgo(0) });
  });
  afterAll(() => ctx?.close());

  const expected = () => [
    [ids.linus, 30],
    [ids.ada, 25],
    [ids.grace, 2],
    [ids.eve, 0],
  ];

  it('a dry run scores every contact by the rules, highest first, without storing anything', async () => {
    const result = await ctx.services.leadScoreAdmin.dryRun(cliWriter(ctx.communityId), rules, 10);
    // Members only: the community's admin is a console user's contact, not scored.
    expect(result).toMatchObject({ entityType: 'contact', scored: 4, nonZero: 3 });
    const ours = new Set(Object.values(ids));
    expect(result.top.filter((row) => ours.has(row.id)).map((row) => [row.id, Number(row.score)])).toEqual(expected());
    expect(await ctx.services.db.selectFrom('lead_scores').select('entity_id').execute()).toEqual([]);
  });

  it('a new definition queues its recompute, which stores the same scores', async () => {
    const score = await ctx.newLeadScore(rules);
    const worker = createWorker({ db: ctx.services.db, clock, queue: ctx.services.jobs });
    expect(await worker.runUntilIdle()).toBe(1);
    const stored = await ctx.services.db
      .selectFrom('lead_scores')
      .select(['entity_id as entityId', 'score'])
      .where('community_id', '=', ctx.communityId)
      .where('score_id', '=', score.key)
      .execute();
    const byId = new Map(stored.map((row) => [`c_${row.entityId}`, Number(row.score)]));
    // A record that scores nothing may be stored as 0 or not at all.
    expect(expected().map(([id]) => [id, byId.get(id as string) ?? 0])).toEqual(expected());
  });
});
