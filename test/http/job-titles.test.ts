import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { expectedTitles as expected } from '../helpers/job-titles.ts';
import { walkPages, withQuery } from '../helpers/paging.ts';

type Page = { success: true; data: { value: string }[]; meta: { nextCursor: string | null } };

/** Titles and how many people carry each: ties, case variants and characters `like` treats specially. */
const PEOPLE: [string, number][] = [
  ['Software Engineer', 5],
  ['Developer Advocate', 3],
  ['CTO', 3],
  ['software engineer', 2],
  ['Engineering Manager', 2],
  ['Head of DevRel', 1],
  ['100% Remote Engineer', 1],
  ['Data_Scientist', 1],
  ['Énergie Consultant', 1],
  ['zeta tester', 1],
];

/** GET /api/v2/job-titles (docs/reading.md, Job titles; docs/behaviour.md, Sorting and Paging). */
describe.each(ENGINES)('job titles (%s)', (engine) => {
  let t: TestApp;
  const counts = new Map(PEOPLE);
  let person = 0;

  const pushUser = async (id: string, title: string | null, extra: Record<string, unknown> = {}, sourceId = t.sourceId, token = t.token) => {
    const response = await t.send('POST', `/community/v1/source/${sourceId}/user`, { id, fullName: `Person ${id}`, titleAtCompany: title, ...extra }, token);
    expect(response.statusCode, response.body).toBe(202);
    return (response.json() as { contactId: string }).contactId;
  };
  const list = (params: Record<string, string | number | null>, token = t.token) => t.get(withQuery('/api/v2/job-titles', params), token);
  const values = async (params: Record<string, string | number | null>) => {
    const response = await list({ limit: 1000, ...params });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as Page).data.map((row) => row.value);
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    for (const [title, n] of PEOPLE) for (let i = 0; i < n; i++) await pushUser(`p${person++}`, title);
    await pushUser(`p${person++}`, null);
    await pushUser(`p${person++}`, '   ');
  });
  afterAll(() => t?.close());

  it('lists each title once, as stored, alphabetically (byte order) by default, without meta other than nextCursor', async () => {
    const response = await list({});
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Page;
    expect(body.data.map((row) => row.value)).toEqual(expected(counts, 'alphabetical', 'asc'));
    expect(body.data[0]).toEqual({ value: '100% Remote Engineer' });
    expect(body.meta).toEqual({ nextCursor: null });
  });

  it('orders by popularity, desc by default, ties by title ascending in both directions', async () => {
    expect(await values({ sort: 'popularity' })).toEqual(expected(counts, 'popularity', 'desc'));
    expect((await values({ sort: 'popularity' })).slice(0, 3)).toEqual(['Software Engineer', 'CTO', 'Developer Advocate']);
    expect(await values({ sort: 'popularity', direction: 'asc' })).toEqual(expected(counts, 'popularity', 'asc'));
    expect((await values({ sort: 'popularity', direction: 'asc' })).slice(0, 2)).toEqual(['100% Remote Engineer', 'Data_Scientist']);
    expect(await values({ sort: 'alphabetical', direction: 'desc' })).toEqual(expected(counts, 'alphabetical', 'desc'));
  });

  it('walks every sort and direction page by page, each title once, in the order of one page', async () => {
    for (const sort of ['popularity', 'alphabetical'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const walked = await walkPages<{ value: string }>((cursor) => list({ sort, direction, limit: 3, cursor }), 3);
        expect(
          walked.map((row) => row.value),
          `${sort} ${direction}`,
        ).toEqual(expected(counts, sort, direction));
      }
    }
  });

  it('filters by a prefix in any case, taking % and _ literally', async () => {
    expect(await values({ query: 'SOFT' })).toEqual(['Software Engineer', 'software engineer']);
    expect(await values({ query: 'soft', sort: 'popularity' })).toEqual(['Software Engineer', 'software engineer']);
    expect(await values({ query: '100%' })).toEqual(['100% Remote Engineer']);
    expect(await values({ query: '1%' })).toEqual([]);
    expect(await values({ query: 'data_' })).toEqual(['Data_Scientist']);
    expect(await values({ query: 'data-' })).toEqual([]);
    expect(await values({ query: 'énergie' })).toEqual(['Énergie Consultant']);
    const walked = await walkPages<{ value: string }>((cursor) => list({ query: 'e', sort: 'popularity', limit: 1, cursor }), 1);
    expect(walked.map((row) => row.value)).toEqual(['Engineering Manager']);
  });

  it('binds a cursor to its sort, direction and query', async () => {
    const first = (await list({ sort: 'popularity', limit: 2 })).json() as Page;
    const cursor = first.meta.nextCursor!;
    expect(cursor).toEqual(expect.any(String));
    expect((await list({ sort: 'popularity', limit: 2, cursor })).statusCode).toBe(200);
    // The default direction of popularity is desc: naming it is the same list.
    expect((await list({ sort: 'popularity', direction: 'desc', limit: 2, cursor })).statusCode).toBe(200);
    for (const other of [{ sort: 'alphabetical' }, { sort: 'popularity', direction: 'asc' }, { sort: 'popularity', query: 'S' }] as Record<string, string>[]) {
      const response = await list({ limit: 2, cursor, ...other });
      expect(response.statusCode, JSON.stringify(other)).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_cursor' } });
    }
  });

  it('follows contacts: a changed title moves its count, one nobody carries any more goes', async () => {
    await pushUser('mover', 'Solo Title');
    expect(await values({ query: 'solo' })).toEqual(['Solo Title']);
    await pushUser('mover', 'CTO');
    expect(await values({ query: 'solo' })).toEqual([]);
    counts.set('CTO', counts.get('CTO')! + 1);
    expect((await values({ sort: 'popularity' })).slice(0, 2)).toEqual(['Software Engineer', 'CTO']);
    expect(await values({ sort: 'popularity' })).toEqual(expected(counts, 'popularity', 'desc'));
  });

  it('counts a merged contact once, and an erased one not at all', async () => {
    await pushUser('merge-a', 'Merge Title', { email: 'merge.a@example.org' });
    await pushUser('merge-b', 'Merge Title', { github: { type: 'handle', value: 'merge-b' } });
    expect(await values({ query: 'merge', sort: 'popularity' })).toEqual(['Merge Title']);
    // One push naming both identities merges the two contacts into the older.
    await pushUser('merge-c', null, { email: 'merge.a@example.org', github: { type: 'handle', value: 'merge-b' } });
    const merged = await t.services.db
      .selectFrom('contacts')
      .select('id')
      .where('community_id', '=', t.communityId)
      .where('title', '=', 'Merge Title')
      .execute();
    expect(merged).toHaveLength(1);
    await pushUser('merge-d', 'Merge Title');
    expect(await values({ query: 'merge', sort: 'popularity' })).toEqual(['Merge Title']);
    const remove = await t.app.inject({ method: 'DELETE', url: '/community/v1/user/merge.a%40example.org', headers: { authorization: `Bearer ${t.token}` } });
    expect(remove.statusCode, remove.body).toBe(200);
    await createWorker({ db: t.services.db, clock: t.services.clock, queue: t.services.jobs }).runUntilIdle();
    // merge-d still carries it; the erased contact no longer does.
    await values({});
    const after = await t.services.db
      .selectFrom('job_titles')
      .select('records')
      .where('community_id', '=', t.communityId)
      .where('title', '=', 'Merge Title')
      .execute();
    expect(after).toEqual([{ records: 1 }]);
  });

  it('leaves out a title too long to be one, and stays exact as such titles come and go, erasure included', async () => {
    const longest = `Longest ${'t'.repeat(242)}`;
    const tooLong = `Essay ${'é'.repeat(3000)}`;
    await pushUser('essayist', tooLong, { email: 'essayist@example.org' });
    await pushUser('longest', longest);
    expect(await values({ query: 'essay' })).toEqual([]);
    expect(await values({ query: 'longest' })).toEqual([longest]);
    // Its -1 is left out as its +1 was: the other counts do not move.
    await pushUser('essayist', 'CTO');
    await pushUser('essayist', tooLong);
    expect(await values({ query: 'cto' })).toEqual(['CTO']);
    // Erasure folds the log in its own transaction: a title the counts cannot hold must not stop it.
    const remove = await t.app.inject({ method: 'DELETE', url: '/community/v1/user/essayist%40example.org', headers: { authorization: `Bearer ${t.token}` } });
    expect(remove.statusCode, remove.body).toBe(200);
    await createWorker({ db: t.services.db, clock: t.services.clock, queue: t.services.jobs }).runUntilIdle();
    const erasure = await t.services.db
      .selectFrom('jobs')
      .select(['status', 'error'])
      .where('community_id', '=', t.communityId)
      .where('kind', '=', 'privacy.erase')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(erasure).toEqual({ status: 'completed', error: null });
    expect(await values({ query: 'essay' })).toEqual([]);
    expect(await values({ query: 'longest' })).toEqual([longest]);
    const cto = await t.services.db
      .selectFrom('job_titles')
      .select('records')
      .where('community_id', '=', t.communityId)
      .where('title', '=', 'CTO')
      .executeTakeFirstOrThrow();
    expect(cto.records).toBe(counts.get('CTO'));
  });

  it('shows only the caller’s community, and needs organizations:read', async () => {
    const { communityId } = await t.services.communities.create('Other', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Other API' });
    const theirs = await t.issueToken(['read', 'write'], communityId);
    await pushUser('theirs', 'Their Own Title', {}, source.id, theirs);
    expect(((await list({ limit: 1000 }, theirs)).json() as Page).data).toEqual([{ value: 'Their Own Title' }]);
    expect(await values({ query: 'their' })).toEqual([]);
    expect((await list({}, await t.issueToken(['organizations:read']))).statusCode).toBe(200);
    expect((await list({}, await t.issueToken(['contacts:read']))).statusCode).toBe(403);
  });

  it('refuses what it does not take, with a 400 that names it', async () => {
    for (const [params, words] of [
      [{ cols: 'recordCount' }, 'cols'],
      [{ sort: 'count' }, 'sort'],
      [{ direction: 'up' }, 'direction'],
      [{ limit: 1001 }, 'limit'],
      [{ limit: 0 }, 'limit'],
      [{ cursor: 'nonsense' }, 'cursor'],
    ] as const) {
      const response = await list(params);
      expect(response.statusCode, JSON.stringify(params)).toBe(400);
      expect(response.body).toContain(words);
    }
  });
});
