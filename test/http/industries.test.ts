import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readIndustryCodes } from '../../src/modules/industries/industry-codes.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { walkPages, withQuery } from '../helpers/paging.ts';

type Industry = { id: string; code: number; name: string };
type Page = { success: true; data: Industry[]; meta: { nextCursor: string | null } };

/**
 * GET /api/v2/industries (docs/reading.md, Industry codes; docs/behaviour.md, IDs and Scopes): the NAICS 2022
 * codes, searchable.
 */
describe.each(ENGINES)('industry codes (%s)', (engine) => {
  let t: TestApp;
  const list = (params: Record<string, string | number | null>, token = t.token) => t.get(withQuery('/api/v2/industries', params), token);
  const names = async (query: string) => {
    const response = await list({ query, limit: 1000 });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as Page).data.map((row) => `${row.code} ${row.name}`);
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t?.close());

  it('lists every code of the shipped list, each under its parent, page by page', async () => {
    const walked = await walkPages<Industry>((cursor) => list({ limit: 1000, cursor }), 1000);
    const shipped = readIndustryCodes();
    expect(walked).toHaveLength(shipped.length);
    expect(walked.slice(0, 6).map((row) => row.code)).toEqual([11, 111, 1111, 11111, 111110, 11112]);
    expect(walked.map((row) => String(row.code))).toEqual(shipped.map((row) => String(row.code)).sort());
    expect(walked.find((row) => row.code === 541511)).toEqual({ id: 'naics_541511', code: 541511, name: 'Custom Computer Programming Services' });
    const first = (await list({})).json() as Page;
    expect(first.data).toHaveLength(50);
    expect(first.meta).toEqual({ nextCursor: expect.any(String) });
  });

  it('finds names by words in any order and case, and codes by their leading digits', async () => {
    expect(await names('software publishers')).toEqual(['5132 Software Publishers', '51321 Software Publishers', '513210 Software Publishers']);
    expect(await names('PUBLISHERS software')).toEqual(await names('software publishers'));
    expect(await names('  computer   programming ')).toEqual(['541511 Custom Computer Programming Services']);
    expect(await names('5415')).toEqual(
      expect.arrayContaining(['5415 Computer Systems Design and Related Services', '541511 Custom Computer Programming Services']),
    );
    expect((await names('5415')).every((row) => row.startsWith('5415'))).toBe(true);
    expect(await names('no such industry')).toEqual([]);
    expect(await names('100%')).toEqual([]);
    const walked = await walkPages<Industry>((cursor) => list({ query: 'software publishers', limit: 1, cursor }), 1);
    expect(walked.map((row) => row.code)).toEqual([5132, 51321, 513210]);
  });

  it('binds a cursor to its query', async () => {
    const cursor = ((await list({ query: 'manufacturing', limit: 2 })).json() as Page).meta.nextCursor!;
    expect((await list({ query: 'MANUFACTURING', limit: 2, cursor })).statusCode).toBe(200);
    expect((await list({ query: 'retail', limit: 2, cursor })).statusCode).toBe(400);
    expect((await list({ limit: 2, cursor })).statusCode).toBe(400);
  });

  it('needs organizations:read, and refuses what it does not take', async () => {
    expect((await list({}, await t.issueToken(['organizations:read']))).statusCode).toBe(200);
    expect((await list({}, await t.issueToken(['contacts:read']))).statusCode).toBe(403);
    for (const params of [{ sort: 'name' }, { cols: 'recordCount' }, { direction: 'desc' }, { limit: 1001 }, { cursor: 'x' }] as Record<
      string,
      string | number
    >[]) {
      const response = await list(params);
      expect(response.statusCode, JSON.stringify(params)).toBe(400);
      expect(response.body).toContain(Object.keys(params)[0]);
    }
  });
});
