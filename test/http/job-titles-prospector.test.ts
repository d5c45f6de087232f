import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { upsertContacts } from '../../src/modules/prospector/prospector-contact.repository.ts';
import { expectedTitles } from '../helpers/job-titles.ts';
import { walkPages, withQuery } from '../helpers/paging.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

type Page = { success: true; data: { value: string }[]; meta: { nextCursor: string | null } };
type Counts = Map<string, number>;

/** The community's own contacts' titles, and how many carry each. */
const OWN: [string, number][] = [
  ['CTO', 2],
  ['Engineer', 1],
  ['Community Manager', 2],
];
/** The prospector contacts' titles: some the community's contacts carry too ("CTO", "Engineer"), one in another case. */
const PROSPECTS: [string, number][] = [
  ['CTO', 1],
  ['Designer', 3],
  ['Engineer', 2],
  ['VP Sales', 1],
  ['cto', 1],
  ['Data_Analyst', 2],
];

const sum = (...maps: Counts[]) => {
  const total: Counts = new Map();
  for (const map of maps) for (const [title, n] of map) total.set(title, (total.get(title) ?? 0) + n);
  return total;
};

/**
 * GET /api/v2/job-titles counts the community's contacts and every prospector contact (docs/behaviour.md,
 * Record fields): prospector imports reach every community's counts through the global change log (migration
 * 0023).
 */
describe.each(ENGINES)('job titles with prospector contacts (%s)', (engine) => {
  let t: TestApp;
  let admin: string;
  const own: Counts = new Map(OWN);
  // Prospector contacts by LinkedIn handle, with their titles: what the import holds.
  const prospects = new Map<string, string | null>();
  const prospectorCounts = (): Counts => {
    const counts: Counts = new Map();
    for (const title of prospects.values()) if (title !== null) counts.set(title, (counts.get(title) ?? 0) + 1);
    return counts;
  };

  const values = async (params: Record<string, string | number | null>, token = t.token) => {
    const response = await t.get(withQuery('/api/v2/job-titles', { limit: 1000, ...params }), token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as Page).data.map((row) => row.value);
  };
  /** The counts as stored, folded first by a read. */
  const stored = async (communityId: number, token: string) => {
    await values({}, token);
    const rows = await t.services.db.selectFrom('job_titles').select(['title', 'records']).where('community_id', '=', communityId).execute();
    return new Map(rows.map((row) => [row.title, row.records]));
  };
  const importProspects = async (records: { handle: string; title: string | null }[]) => {
    const body = records.map(({ handle, title }) => ({ linkedInHandle: handle, fullName: `Prospect ${handle}`, title }));
    const response = await t.send('POST', '/api/v2/admin/prospector/contacts', body, admin);
    expect(response.statusCode, response.body).toBe(200);
    for (const { handle, title } of records) prospects.set(handle, title);
    return response.json() as { data: { added: number; changed: number; unchanged: number } };
  };
  const pushUser = async (id: string, title: string, sourceId = t.sourceId, token = t.token) => {
    const response = await t.send('POST', `/community/v1/source/${sourceId}/user`, { id, fullName: `Person ${id}`, titleAtCompany: title }, token);
    expect(response.statusCode, response.body).toBe(202);
  };
  /** A new community with a source and a token, and its own contacts' titles pushed. */
  const community = async (name: string, titles: string[]) => {
    const { communityId } = await t.services.communities.create(name, cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: `${name} API` });
    const token = await t.issueToken(['read', 'write'], communityId);
    for (const [i, title] of titles.entries()) await pushUser(`${name}-${i}`, title, source.id, token);
    return { communityId, token };
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    admin = await t.issueToken(['admin']);
    let n = 0;
    for (const [title, count] of OWN) for (let i = 0; i < count; i++) await pushUser(`own-${n++}`, title);
    // Read once before any import: the community starts with no prospector titles, and the import below
    // reaches it as changes past its watermark.
    expect(await values({})).toEqual(expectedTitles(own, 'alphabetical', 'asc'));
    n = 0;
    await importProspects(PROSPECTS.flatMap(([title, count]) => Array.from({ length: count }, () => ({ handle: `prospect-${n++}`, title }))));
    await importProspects([{ handle: 'prospect-untitled', title: null }]);
  });
  afterAll(() => t?.close());

  it('counts each title of the community’s contacts and of the prospector contacts, a title in both counting both', async () => {
    const combined = sum(own, prospectorCounts());
    expect(await stored(t.communityId, t.token)).toEqual(combined);
    expect(combined.get('CTO')).toBe(3);
    expect(combined.get('Engineer')).toBe(3);
    expect(await values({})).toEqual(expectedTitles(combined, 'alphabetical', 'asc'));
    expect(await values({ sort: 'popularity' })).toEqual(expectedTitles(combined, 'popularity', 'desc'));
    expect((await values({ sort: 'popularity' })).slice(0, 3)).toEqual(['CTO', 'Designer', 'Engineer']);
  });

  it('walks both sorts in both directions page by page over the combined counts, and takes a prefix', async () => {
    const combined = sum(own, prospectorCounts());
    for (const sort of ['popularity', 'alphabetical'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const walked = await walkPages<{ value: string }>((cursor) => t.get(withQuery('/api/v2/job-titles', { sort, direction, limit: 2, cursor })), 2);
        expect(
          walked.map((row) => row.value),
          `${sort} ${direction}`,
        ).toEqual(expectedTitles(combined, sort, direction));
      }
    }
    expect(await values({ query: 'ct', sort: 'popularity' })).toEqual(['CTO', 'cto']);
    expect(await values({ query: 'data_' })).toEqual(['Data_Analyst']);
  });

  it('follows re-imports: a changed title moves its count, one nobody carries any more goes, an unchanged one stays', async () => {
    // prospect-1..3 are the three designers, prospect-6 the one "VP Sales".
    const counts = await importProspects([
      { handle: 'prospect-1', title: 'Engineer' },
      { handle: 'prospect-2', title: null },
      { handle: 'prospect-3', title: 'Designer' },
      { handle: 'prospect-6', title: 'Chief Designer' },
    ]);
    expect(counts.data).toEqual({ added: 0, changed: 3, unchanged: 1 });
    const combined = sum(own, prospectorCounts());
    expect(combined.get('Designer')).toBe(1);
    expect(combined.has('VP Sales')).toBe(false);
    expect(await stored(t.communityId, t.token)).toEqual(combined);
    expect(await values({ sort: 'popularity' })).toEqual(expectedTitles(combined, 'popularity', 'desc'));
    expect(await values({ query: 'vp' })).toEqual([]);
  });

  it('shows the prospector titles to a community made after the import, and to every other, each with its own contacts', async () => {
    const late = await community('Late', ['Founder', 'CTO']);
    const lateOwn: Counts = new Map([
      ['Founder', 1],
      ['CTO', 1],
    ]);
    const other = await community('Other', []);
    expect(await stored(late.communityId, late.token)).toEqual(sum(lateOwn, prospectorCounts()));
    expect(await stored(other.communityId, other.token)).toEqual(prospectorCounts());
    expect(await values({ query: 'founder' })).toEqual([]);

    // A later import reaches all three.
    await importProspects([{ handle: 'prospect-new', title: 'Founder' }]);
    expect(await stored(late.communityId, late.token)).toEqual(sum(lateOwn, prospectorCounts()));
    expect(await stored(other.communityId, other.token)).toEqual(prospectorCounts());
    expect(await stored(t.communityId, t.token)).toEqual(sum(own, prospectorCounts()));
    expect(await values({ query: 'founder' })).toEqual(['Founder']);
    expect(await values({ query: 'founder', sort: 'popularity' }, late.token)).toEqual(['Founder']);

    // Every community has folded every change: the log keeps none of them.
    const left = await t.services.db
      .selectFrom('prospector_title_changes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });

  it('counts an import that commits while a community is seeded or folded exactly once', async () => {
    const fresh = await community('Fresh', []);
    await pushUser('own-racing', 'Racing Title');
    own.set('Racing Title', 1);
    // The first import's rows are in the log, not committed, while both reads start and a second import
    // waits for it (one import writes at a time). A read that moved its watermark past IDs not yet
    // committed would never fold them: each waits for the first's commit (the log's lock). On the embedded
    // database transactions run one at a time, so the reads wait for the first import too.
    const pending: Promise<unknown>[] = [];
    await t.services.db.transaction().execute(async (trx) => {
      await upsertContacts(
        trx,
        [1, 2, 3].map((i) => ({
          ...{ linkedin_handle: `racer-${i}`, name: `Racer ${i}`, full_name: `Racer ${i}`, title: 'Racing Title', skills: [] },
          ...{ avatar_url: null, company_id: null, role: null, seniority: null, linkedin_follower_count: null },
          ...{ city: null, region: null, country: null, last_org_change_at: null },
        })),
      );
      pending.push(importProspects([{ handle: 'racer-late', title: 'Racing Title' }]), values({}, fresh.token), values({}));
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await Promise.all(pending);
    for (const i of [1, 2, 3]) prospects.set(`racer-${i}`, 'Racing Title');
    expect(await stored(fresh.communityId, fresh.token)).toEqual(prospectorCounts());
    expect(await stored(t.communityId, t.token)).toEqual(sum(own, prospectorCounts()));
    expect((await stored(t.communityId, t.token)).get('Racing Title')).toBe(5);
    const marks = await sql<{ n: number }>`select count(*)::int as n from job_title_prospector_marks`.execute(t.services.db);
    expect(marks.rows[0]!.n).toBe(4);
  });
});
