import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { walkPages, withQuery } from '../helpers/paging.ts';

type Opening = {
  id: string;
  jobTitle: string;
  location: string | null;
  jobDescription: string | null;
  firstSeenAt: string;
  isClosed: boolean;
  url?: string | null;
};
type News = { id: string; title: string; category: string | null; articleSentence: string | null; publishedAt: string };
type Page<R> = { success: true; data: R[]; meta: { nextCursor: string | null; recordCount?: number } };

const day = (n: number) => new Date(Date.UTC(2026, 5, 1 + n, 12)).toISOString();

/**
 * GET /api/v2/job-openings and /news (docs/reading.md, Job openings and news; docs/behaviour.md,
 * IDs, cols, Sorting and Record fields) and their admin imports.
 */
describe.each(ENGINES)('job openings and news (%s)', (engine) => {
  let t: TestApp;
  let org: string;
  let quiet: string;
  let object: string;
  let theirs: { org: string; token: string };

  const get = (path: string, params: Record<string, string | number | null | undefined>, token = t.token) => t.get(withQuery(path, params), token);
  const importOpenings = (jobOpenings: unknown[], token = t.token) => t.send('POST', '/api/v2/admin/job-openings', { jobOpenings }, token);
  const importNews = (news: unknown[], token = t.token) => t.send('POST', '/api/v2/admin/news', { news }, token);
  const organization = async (domain: string, sourceId = t.sourceId, token = t.token) => {
    const response = await t.send('POST', `/community/v1/source/${sourceId}/organization`, { domain }, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { organizationId: string }).organizationId;
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    org = await organization('acme.com');
    quiet = await organization('quiet.io');
    const type = await t.services.db
      .insertInto('object_types')
      .values({ community_id: t.communityId, name: 'Account' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const row = await t.services.db
      .insertInto('objects')
      .values({ community_id: t.communityId, object_type_id: type.id, name: 'Big account', record_key: 'big' })
      .returning('id')
      .executeTakeFirstOrThrow();
    object = `co_${row.id}`;
    const { communityId } = await t.services.communities.create('Other', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Other API' });
    const token = await t.issueToken(['read', 'write', 'admin'], communityId);
    theirs = { org: await organization('theirs.io', source.id, token), token };

    const imported = await importOpenings([
      ...[3, 7, 1, 5, 2, 6, 4].map((n) => ({
        organizationId: org,
        jobTitle: `Job ${n}`,
        jobDescription: n === 7 ? null : `Description ${n}`,
        location: n === 6 ? null : n % 2 ? 'Remote' : 'Berlin',
        url: `https://acme.com/jobs/${n}`,
        firstSeenAt: day(n),
        isClosed: n === 6,
      })),
      { objectId: object, jobTitle: 'Account job', firstSeenAt: day(1) },
    ]);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toEqual({ success: true, data: { added: 8, changed: 0, unchanged: 0 } });
    const news = await importNews([
      ...[2, 6, 1, 4, 3, 5].map((n) => ({
        organizationId: org,
        title: `News ${n}`,
        category: n === 1 ? null : n % 2 ? 'funding' : 'product',
        articleSentence: `Sentence ${n}`,
        url: `https://news.example.org/${n}`,
        publishedAt: day(n),
      })),
      { objectId: object, title: 'Account news', publishedAt: day(3) },
    ]);
    expect(news.statusCode, news.body).toBe(200);
  });
  afterAll(() => t?.close());

  const openings = async (params: Record<string, string | number | null | undefined>) => {
    const response = await get('/api/v2/job-openings', { organizationId: org, limit: 100, ...params });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Page<Opening>;
  };
  const newsOf = async (params: Record<string, string | number | null | undefined>) => {
    const response = await get('/api/v2/news', { organizationId: org, limit: 100, ...params });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Page<News>;
  };

  it('lists an organization’s openings newest first, with every field, url only through cols', async () => {
    const page = await openings({});
    expect(page.data.map((row) => row.jobTitle)).toEqual(['Job 7', 'Job 6', 'Job 5', 'Job 4', 'Job 3', 'Job 2', 'Job 1']);
    expect(page.data[0]).toEqual({
      id: expect.stringMatching(/^job_\d+$/),
      jobTitle: 'Job 7',
      location: 'Remote',
      jobDescription: null,
      firstSeenAt: day(7),
      isClosed: false,
    });
    expect(page.data[1]).toMatchObject({ location: null, isClosed: true });
    expect(page.meta).toEqual({ nextCursor: null });
    const withUrl = await openings({ cols: 'url,recordCount', limit: 2 });
    expect(withUrl.data[0]!.url).toBe('https://acme.com/jobs/7');
    expect(withUrl.meta.recordCount).toBe(7);
    expect((await openings({ direction: 'asc' })).data.map((row) => row.jobTitle)).toEqual(['Job 1', 'Job 2', 'Job 3', 'Job 4', 'Job 5', 'Job 6', 'Job 7']);
    expect((await openings({ sort: 'firstSeenAt', direction: 'desc' })).data[0]!.jobTitle).toBe('Job 7');
    expect((await get('/api/v2/job-openings', { objectId: object })).json()).toMatchObject({ data: [{ jobTitle: 'Account job' }] });
    expect((await get('/api/v2/job-openings', { organizationId: quiet })).json()).toEqual({ success: true, data: [], meta: { nextCursor: null } });
  });

  it('lists news newest first; news takes no opt-in column', async () => {
    const page = await newsOf({});
    expect(page.data.map((row) => row.title)).toEqual(['News 6', 'News 5', 'News 4', 'News 3', 'News 2', 'News 1']);
    expect(page.data[5]).toEqual({
      id: expect.stringMatching(/^news_\d+$/),
      title: 'News 1',
      category: null,
      articleSentence: 'Sentence 1',
      publishedAt: day(1),
    });
    expect((await newsOf({ cols: 'recordCount' })).meta.recordCount).toBe(6);
    const url = await get('/api/v2/news', { organizationId: org, cols: 'url' });
    expect(url.statusCode).toBe(400);
    expect(url.body).toContain('url');
    expect((await get('/api/v2/news', { objectId: object })).json()).toMatchObject({ data: [{ title: 'Account news', category: null }] });
  });

  it('walks both lists page by page in both directions, ties by ID, cursors bound to parent, direction and filter', async () => {
    // Two openings first seen at the same time: ID order breaks the tie in the list's direction.
    await importOpenings([
      { organizationId: quiet, jobTitle: 'Tie A', firstSeenAt: day(1) },
      { organizationId: quiet, jobTitle: 'Tie B', firstSeenAt: day(1) },
      { organizationId: quiet, jobTitle: 'Later', firstSeenAt: day(2) },
    ]);
    const walk = (direction: string) => walkPages<Opening>((cursor) => get('/api/v2/job-openings', { organizationId: quiet, direction, limit: 1, cursor }), 1);
    expect((await walk('desc')).map((row) => row.jobTitle)).toEqual(['Later', 'Tie B', 'Tie A']);
    expect((await walk('asc')).map((row) => row.jobTitle)).toEqual(['Tie A', 'Tie B', 'Later']);
    const walkedNews = await walkPages<News>((cursor) => get('/api/v2/news', { organizationId: org, limit: 4, cursor }), 4);
    expect(walkedNews.map((row) => row.title)).toEqual(['News 6', 'News 5', 'News 4', 'News 3', 'News 2', 'News 1']);

    const cursor = (await openings({ limit: 2 })).meta.nextCursor!;
    expect((await get('/api/v2/job-openings', { organizationId: org, limit: 2, cursor })).statusCode).toBe(200);
    for (const other of [
      { organizationId: quiet },
      { direction: 'asc' },
      { lightFilter: JSON.stringify({ type: 'and', clauses: [{ type: 'booleanFilter', field: 'isClosed', params: { op: 'eq', value: false } }] }) },
    ]) {
      const response = await get('/api/v2/job-openings', { organizationId: org, limit: 2, cursor, ...other });
      expect(response.statusCode, JSON.stringify(other)).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'invalid_cursor' } });
    }
  });

  it('filters with lightFilter on the published fields', async () => {
    const filter = (clauses: unknown[]) => JSON.stringify({ type: 'and', clauses });
    const open = await openings({
      lightFilter: filter([
        { type: 'booleanFilter', field: 'isClosed', params: { op: 'eq', value: false } },
        { type: 'stringFilter', field: 'location', params: { op: 'eq', value: 'Berlin' } },
      ]),
    });
    expect(open.data.map((row) => row.jobTitle)).toEqual(['Job 4', 'Job 2']);
    const recent = await openings({ lightFilter: filter([{ type: 'dateRangeFilter', field: 'firstSeenAt', params: { op: 'in', min: day(5), max: day(6) } }]) });
    expect(recent.data.map((row) => row.jobTitle)).toEqual(['Job 6', 'Job 5']);
    const funding = await newsOf({ lightFilter: filter([{ type: 'stringListFilter', field: 'category', params: { op: 'any', value: ['funding'] } }]) });
    expect(funding.data.map((row) => row.title)).toEqual(['News 5', 'News 3']);
    const liked = await newsOf({ lightFilter: filter([{ type: 'stringFilter', field: 'title', params: { op: 'like', value: 'ws 4' } }]) });
    expect(liked.data.map((row) => row.title)).toEqual(['News 4']);
    const refused = await get('/api/v2/job-openings', {
      organizationId: org,
      lightFilter: filter([{ type: 'stringFilter', field: 'salary', params: { op: 'eq', value: 'x' } }]),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('clauses[0]');
    for (const entity of ['job_opening', 'news']) {
      const fields = await t.get(`/api/v2/filter-fields?entity=${entity}`);
      expect(fields.statusCode, fields.body).toBe(200);
    }
    expect(((await t.get('/api/v2/filter-fields?entity=job_opening')).json() as { data: { field: string }[] }).data.map((row) => row.field)).toEqual([
      'jobTitle',
      'location',
      'jobDescription',
      'isClosed',
      'firstSeenAt',
    ]);
    expect(((await t.get('/api/v2/filter-fields?entity=news')).json() as { data: { field: string }[] }).data.map((row) => row.field)).toEqual([
      'title',
      'category',
      'articleSentence',
      'publishedAt',
    ]);
  });

  it('needs exactly one parent, of the caller’s community', async () => {
    for (const path of ['/api/v2/job-openings', '/api/v2/news']) {
      const none = await get(path, {});
      expect(none.statusCode).toBe(400);
      expect(none.json()).toMatchObject({
        success: false,
        error: { code: 'invalid_parameters', message: expect.stringContaining('exactly one of organizationId and objectId') },
      });
      expect((await get(path, { organizationId: org, objectId: object })).statusCode).toBe(400);
      expect((await get(path, { organizationId: '12' })).json()).toMatchObject({ error: { code: 'invalid_organization_id', invalidIds: ['12'] } });
      expect((await get(path, { objectId: 'o_1' })).json()).toMatchObject({ error: { code: 'invalid_object_id' } });
      const foreign = await get(path, { organizationId: theirs.org });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toMatchObject({ error: { code: 'org_not_found' } });
      expect((await get(path, { objectId: 'co_999999' })).json()).toMatchObject({ error: { code: 'object_not_found' } });
      expect((await get(path, { organizationId: org, sort: 'id' })).statusCode).toBe(400);
      expect((await get(path, { organizationId: org, limit: 1001 })).statusCode).toBe(400);
      expect((await get(path, { organizationId: org, extra: 1 })).statusCode).toBe(400);
      expect((await get(path, { organizationId: org }, await t.issueToken(['organizations:read']))).statusCode).toBe(200);
      expect((await get(path, { organizationId: org }, await t.issueToken(['contacts:read']))).statusCode).toBe(403);
    }
  });

  it('imports update by key: the latest values win, firstSeenAt keeps the earliest, nothing doubled', async () => {
    const again = await importOpenings([
      { organizationId: org, jobTitle: 'Job 7 (senior)', url: 'https://acme.com/jobs/7', firstSeenAt: day(9) },
      {
        organizationId: org,
        jobTitle: 'Job 6',
        url: 'https://acme.com/jobs/6',
        location: null,
        jobDescription: 'Description 6',
        firstSeenAt: day(6),
        isClosed: true,
      },
      { organizationId: org, key: 'no-url', jobTitle: 'Job 8', firstSeenAt: day(8) },
    ]);
    expect(again.json()).toEqual({ success: true, data: { added: 1, changed: 1, unchanged: 1 } });
    const page = await openings({});
    expect(page.data.map((row) => row.jobTitle)).toEqual(['Job 8', 'Job 7 (senior)', 'Job 6', 'Job 5', 'Job 4', 'Job 3', 'Job 2', 'Job 1']);
    expect(page.data[1]).toMatchObject({ firstSeenAt: day(7), jobDescription: null, location: null });
    // Without a key or url, the title and location identify an opening.
    await importOpenings([{ organizationId: quiet, jobTitle: 'Tie A', firstSeenAt: day(0) }]);
    expect((await get('/api/v2/job-openings', { organizationId: quiet })).json()).toMatchObject({
      data: [{ jobTitle: 'Later' }, { jobTitle: 'Tie B' }, { jobTitle: 'Tie A', firstSeenAt: day(0) }],
    });
    const news = await importNews([
      { organizationId: org, title: 'News 6, corrected', url: 'https://news.example.org/6', publishedAt: day(6), category: 'product' },
    ]);
    expect(news.json()).toEqual({ success: true, data: { added: 0, changed: 1, unchanged: 0 } });
    expect((await newsOf({ limit: 1 })).data[0]).toMatchObject({ title: 'News 6, corrected', articleSentence: null });
    // The organization's own recent items read the same rows.
    const acme = (await t.get(`/api/v2/organizations/${org}?cols=recentJobOpenings,recentNews`)).json() as {
      data: { recentJobOpenings: { jobTitle: string; url: string | null }[]; recentNews: { title: string }[] };
    };
    expect(acme.data.recentJobOpenings.map((row) => row.jobTitle)).toEqual(['Job 8', 'Job 7 (senior)', 'Job 6', 'Job 5', 'Job 4']);
    expect(acme.data.recentNews[0]!.title).toBe('News 6, corrected');
    const audit = await t.services.db
      .selectFrom('audit_log')
      .select(['operation', 'entity_ids'])
      .where('operation', 'in', ['job_openings.import', 'news.import'])
      .orderBy('id')
      .execute();
    expect(audit[0]).toEqual({ operation: 'job_openings.import', entity_ids: [org, object] });
  });

  it('refuses a whole import naming every fault, and takes it from admins only', async () => {
    const before = (await openings({})).data.length;
    const bad = await importOpenings([
      { organizationId: org, jobTitle: 'Fine', firstSeenAt: day(1) },
      { jobTitle: 'No parent' },
      { organizationId: org, objectId: object, jobTitle: 'Two parents' },
      { organizationId: 'o_999999', jobTitle: 'Unknown' },
      { organizationId: theirs.org, jobTitle: 'Foreign' },
      { organizationId: 'acme', jobTitle: 'Malformed' },
      { organizationId: org, jobTitle: '   ' },
      { organizationId: org, key: 'k', jobTitle: 'Once' },
      { organizationId: org, key: 'k', jobTitle: 'Twice' },
    ]);
    expect(bad.statusCode).toBe(400);
    const message = (bad.json() as { error: { message: string } }).error.message;
    for (const fault of [
      'jobOpenings[1]: exactly one of organizationId and objectId',
      'jobOpenings[2]: exactly one of organizationId and objectId',
      'jobOpenings[3]: organization o_999999 not found',
      `jobOpenings[4]: organization ${theirs.org} not found`,
      'jobOpenings[5]: organizationId "acme" is not a valid organization ID',
      'jobOpenings[6].jobTitle must not be empty',
    ]) {
      expect(message).toContain(fault);
    }
    expect((await openings({})).data.length).toBe(before);
    const twice = await importOpenings([
      { organizationId: org, key: 'k', jobTitle: 'Once' },
      { organizationId: org, key: 'k', jobTitle: 'Twice' },
    ]);
    expect(twice.statusCode).toBe(400);
    expect(twice.body).toContain('jobOpenings[1]: the same item as jobOpenings[0]');
    expect((await importNews([{ organizationId: org, title: 'No time' }])).statusCode).toBe(400);
    expect((await importNews([{ organizationId: org, title: 'Bad time', publishedAt: 'yesterday' }])).statusCode).toBe(400);
    expect((await importOpenings([])).statusCode).toBe(400);
    expect((await importOpenings([{ organizationId: org, jobTitle: 'X', salary: 1 }])).statusCode).toBe(400);
    expect((await importOpenings([{ organizationId: org, jobTitle: 'X' }], await t.issueToken(['read', 'write']))).statusCode).toBe(403);
    expect((await importNews([{ organizationId: org, title: 'X', publishedAt: day(1) }], await t.issueToken(['read', 'write']))).statusCode).toBe(403);
  });
});
