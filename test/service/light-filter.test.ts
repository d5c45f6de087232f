import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { createTestContext, type Made, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';

type Json = Record<string, unknown>;
const clause = (type: string, field: string, params: Json): Json => ({ type, field, params });
const and = (...clauses: Json[]): Json => ({ type: 'and', clauses });
const or = (...clauses: Json[]): Json => ({ type: 'or', clauses });

/**
 * A contact `lightFilter` compiled by the filter service and run against a real database, on both engines,
 * with what only the community's own data defines: its custom fields, lead scores and tags (the fields
 * every community has are tested field by field in test/db/filters). The compiled condition is about the
 * list's base row, `contacts as c`, as the contact list reads it.
 */
describe.each(ENGINES)('lightFilter compiled by the filter service (%s)', (engine) => {
  const clock = new ManualClock('2026-05-01T12:00:00.000Z');
  let ctx: TestContext;
  let plan: Made;
  let seats: Made;
  let score: Made;
  let champion: Made;
  const people: Record<string, Made> = {};

  beforeAll(async () => {
    ctx = await createTestContext(engine, { clock });
    plan = await ctx.newCustomField({ name: 'Plan', valueType: 'string' });
    seats = await ctx.newCustomField({ name: 'Seats', valueType: 'number' });
    champion = await ctx.newTag({ name: 'Champion' });
    const fields = (planValue: string, seatCount: number) => [
      { id: plan.key, value: { value: planValue } },
      { id: seats.key, value: { value: seatCount } },
    ];
    people.ada = await ctx.newContact({
      id: 'ada',
      fullName: 'Ada Lovelace',
      customFields: fields('enterprise', 500),
      tags: [{ type: 'id', id: champion.key }],
    });
    people.grace = await ctx.newContact({ id: 'grace', fullName: 'Grace Hopper', customFields: fields('team', 20) });
    people.linus = await ctx.newContact({
      id: 'linus',
      fullName: 'Linus Torvalds',
      customFields: fields('enterprise', 10),
      tags: [{ type: 'id', id: champion.key }],
    });
    people.eve = await ctx.newContact({ id: 'eve', fullName: 'Eve' });
    for (let n = 1; n <= 3; n += 1) await ctx.newActivity({ id: `ada-${n}`, user: { id: 'ada' } });
    await ctx.newActivity({ id: 'grace-1', user: { id: 'grace' } });
    score = await ctx.newLeadScore({ name: 'Posts', weights: [{ activityType: 'made_post_topic', weight: 10 }] });
    await createWorker({ db: ctx.services.db, clock, queue: ctx.services.jobs }).runUntilIdle();
  });
  afterAll(() => ctx?.close());

  /** The IDs of this community's contacts the filter selects, in ID order. */
  async function matching(filter: Json, communityId = ctx.communityId): Promise<string[]> {
    const compiled = await ctx.services.filters.compile(communityId, 'contact', JSON.stringify(filter));
    const rows = await ctx.services.db
      .selectFrom('contacts as c')
      .select('c.id')
      .where('c.community_id', '=', communityId)
      .where(compiled!.where)
      .orderBy('c.id')
      .execute();
    return rows.map((row) => `c_${row.id}`);
  }

  it("a custom field's values, by its cf_<id>", async () => {
    expect(await matching(and(clause('stringFilter', `cf_${plan.key}`, { op: 'eq', value: 'enterprise' })))).toEqual([people.ada!.id, people.linus!.id]);
    expect(await matching(and(clause('numberFilter', `cf_${seats.key}`, { op: 'gte', value: 20 })))).toEqual([people.ada!.id, people.grace!.id]);
    expect(await matching(and(clause('numberFilter', `cf_${seats.key}`, { op: 'lt', value: 20 })))).toEqual([people.linus!.id]);
  });

  it('a lead score, by its ls_<id>, as the recompute stored it', async () => {
    expect(await matching(and(clause('numberFilter', `ls_${score.key}`, { op: 'gte', value: 30 })))).toEqual([people.ada!.id]);
    expect(await matching(and(clause('numberFilter', `ls_${score.key}`, { op: 'gt', value: 0 })))).toEqual([people.ada!.id, people.grace!.id]);
  });

  it('tags, and clauses of every kind nested', async () => {
    expect(await matching(and(clause('stringListFilter', 'tags', { op: 'any', value: [champion.id] })))).toEqual([people.ada!.id, people.linus!.id]);
    const nested = or(
      and(clause('stringListFilter', 'tags', { op: 'any', value: [champion.id] }), clause('numberFilter', `cf_${seats.key}`, { op: 'lt', value: 100 })),
      clause('stringFilter', 'fullName', { op: 'like', value: 'HOPPER' }),
    );
    expect(await matching(nested)).toEqual([people.grace!.id, people.linus!.id]);
  });

  it("another community's custom field is not a field there", async () => {
    const other = await ctx.newCommunity('Other');
    await expect(matching(and(clause('stringFilter', `cf_${plan.key}`, { op: 'eq', value: 'enterprise' })), other.communityId)).rejects.toMatchObject({
      code: 'invalid_filter',
      message: `lightFilter clauses[0].field: "cf_${plan.key}" is not a filterable field of contacts`,
    });
  });
});
