import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWriter } from '../../src/core/writer.ts';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * Identity matching as pushes meet it (docs/behaviour.md, Ingestion), through the ingestion service, on both
 * engines: a person pushed by another source is found by an identity they share, emails matched whatever
 * their case, and never across communities. identity.test.ts tests the identity service's own steps.
 */
describe.each(ENGINES)('identity matching of pushes (%s)', (engine) => {
  let ctx: TestContext;
  let forumId: number;

  beforeAll(async () => {
    ctx = await createTestContext(engine);
    forumId = (await ctx.services.sources.create(cliWriter(ctx.communityId), { name: 'Forum' })).id;
  });
  afterAll(() => ctx?.close());

  it('another source pushing the same email, in another case, reaches the same contact', async () => {
    const ada = await ctx.newContact({ id: 'ada', email: 'ada@example.org' });
    const again = await ctx.newContact({ id: 'forum-17', email: 'ADA@Example.ORG', sourceId: forumId });
    expect(again.id).toBe(ada.id);
  });

  it('a shared GitHub handle matches too; a person with nothing in common is someone new', async () => {
    const grace = await ctx.newContact({ id: 'grace', github: 'grace-h' });
    expect((await ctx.newContact({ id: 'forum-18', github: 'grace-h', sourceId: forumId })).id).toBe(grace.id);
    expect((await ctx.newContact({ id: 'forum-19', github: 'someone-else', sourceId: forumId })).id).not.toBe(grace.id);
  });

  it("the same sender's ID in another source is not the same person", async () => {
    const first = await ctx.newContact({ id: 'u-1', email: 'first@example.org' });
    const other = await ctx.newContact({ id: 'u-1', email: 'other@example.org', sourceId: forumId });
    expect(other.id).not.toBe(first.id);
  });

  it('the same email in another community is another contact', async () => {
    const ours = await ctx.newContact({ id: 'linus', email: 'linus@example.org' });
    const other = await ctx.newCommunity('Other');
    const theirs = await ctx.newContact({ id: 'linus', email: 'linus@example.org', communityId: other.communityId });
    expect(theirs.id).not.toBe(ours.id);
    const row = await ctx.services.db.selectFrom('contacts').select('community_id').where('id', '=', theirs.key).executeTakeFirstOrThrow();
    expect(Number(row.community_id)).toBe(other.communityId);
  });
});
