import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { walkPages } from '../helpers/paging.ts';
import { pushUser } from '../helpers/ingest.ts';

interface Location {
  id: string;
  name: string;
  type: string;
  city: string | null;
  region: string | null;
  country: string | null;
}
type Page = { success: true; data: Location[]; meta: { nextCursor: string | null; recordCount?: number } };

const TYPES = ['city', 'country_region', 'country', 'world_region'] as const;

/**
 * GET /api/v2/locations and /locations/{id} (docs/ingestion.md, Locations and topics; docs/behaviour.md, IDs,
 * cols, Paging): locations aggregated from the contacts' interpreted locations, kept up to date by pushes,
 * merges and erasure.
 */
describe.each(ENGINES)('locations (%s)', (engine) => {
  let t: TestApp;
  let worker: Worker;
  const clock = new ManualClock(new Date());
  let other: { communityId: number; sourceId: number; token: string };

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    const { communityId } = await t.services.communities.create('Beta', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Beta API' });
    other = { communityId, sourceId: source.id, token: await t.issueToken(['read', 'write', 'admin'], communityId) };
  });
  afterAll(() => t?.close());

  const push = (body: Record<string, unknown>, sourceId = t.sourceId, token = t.token) => pushUser(t, body, { sourceId, token });

  async function list(params: Record<string, string | number | null>, token = t.token) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== null) search.set(key, String(value));
    return t.get(`/api/v2/locations?${search}`, token);
  }

  /** Every location of the type, walking pages of `limit`; checks the cursor is null exactly on the last page. */
  function walk(locationType: string, limit: number, token = t.token): Promise<Location[]> {
    return walkPages(
      (cursor) => list({ locationType, limit, cursor }, token),
      limit,
      (body) => expect(Object.keys(body.meta)).toEqual(['nextCursor']),
    );
  }

  /** The member counts as stored, by "type|name". */
  async function storedCounts(communityId = t.communityId) {
    const rows = await t.services.db
      .selectFrom('locations')
      .select(['id', 'type', 'name', 'member_count as count'])
      .where('community_id', '=', communityId)
      .execute();
    return rows;
  }

  /** The invariant: every stored count equals a full recount from the contacts (zero rows may stay). */
  async function expectCountsMatchContacts(communityId = t.communityId) {
    const recount = await sql<{ type: string; name: string; count: number }>`
      select type, name, count(*)::int as count from (
        select 'city' as type, concat_ws(', ', city, region, country) as name from contacts where community_id = ${communityId} and city is not null
        union all
        select 'country_region', concat_ws(', ', region, country) from contacts where community_id = ${communityId} and region is not null and country is not null
        union all
        select 'country', country from contacts where community_id = ${communityId} and country is not null
        union all
        select 'world_region', world_region from contacts where community_id = ${communityId} and world_region is not null
      ) k group by type, name`.execute(t.services.db);
    const expected = Object.fromEntries(recount.rows.map((row) => [`${row.type}|${row.name}`, Number(row.count)]));
    const stored = Object.fromEntries((await storedCounts(communityId)).filter((row) => row.count !== 0).map((row) => [`${row.type}|${row.name}`, row.count]));
    expect(stored).toEqual(expected);
    return stored;
  }

  /** The list as served must be all locations with members, by count descending, ties by ID ascending. */
  async function expectListOrder(locationType: string, token = t.token, communityId = t.communityId) {
    const rows = (await storedCounts(communityId)).filter((row) => row.type === locationType && row.count > 0);
    rows.sort((a, b) => b.count - a.count || a.id - b.id);
    const served = await walk(locationType, 1000, token);
    expect(served.map((location) => location.id)).toEqual(rows.map((row) => `loc_${row.id}`));
    return served;
  }

  const ids: Record<string, string> = {};

  it('aggregates pushed contacts into the four location types', async () => {
    const people: [string, string][] = [
      ['austin-1', 'Austin, Texas'],
      ['austin-2', 'Austin, Texas'],
      ['austin-3', 'Austin, Texas'],
      ['dallas-1', 'Dallas, TX'],
      ['dallas-2', 'Dallas, TX'],
      ['houston-1', 'Houston, Texas'],
      ['berlin-1', 'Berlin, Germany'],
      ['berlin-2', 'Berlin, Germany'],
      ['munich-1', 'Munich, Germany'],
      ['toronto-1', 'Toronto, Canada'],
      ['germany-1', 'Germany'],
    ];
    for (const [id, rawLocation] of people) ids[id] = await push({ id, rawLocation, email: `${id}@example.org` });
    await push({ id: 'nowhere', fullName: 'No Location' });
    const counts = await expectCountsMatchContacts();
    expect(counts).toEqual({
      'city|Austin, Texas, United States': 3,
      'city|Dallas, Texas, United States': 2,
      'city|Houston, Texas, United States': 1,
      'city|Berlin, Berlin, Germany': 2,
      'city|Munich, Bavaria, Germany': 1,
      'city|Toronto, Ontario, Canada': 1,
      'country_region|Texas, United States': 6,
      'country_region|Berlin, Germany': 2,
      'country_region|Bavaria, Germany': 1,
      'country_region|Ontario, Canada': 1,
      'country|United States': 6,
      'country|Germany': 4,
      'country|Canada': 1,
      'world_region|North America': 7,
      'world_region|Europe': 4,
    });
    const cities = await expectListOrder('city');
    expect(cities.map((city) => city.name)).toEqual([
      'Austin, Texas, United States',
      'Dallas, Texas, United States',
      'Berlin, Berlin, Germany',
      'Houston, Texas, United States',
      'Munich, Bavaria, Germany',
      'Toronto, Ontario, Canada',
    ]);
    expect(cities[0]).toEqual({
      id: expect.stringMatching(/^loc_\d+$/),
      name: 'Austin, Texas, United States',
      type: 'city',
      city: 'Austin',
      region: 'Texas',
      country: 'United States',
    });
    const regions = await expectListOrder('country_region');
    expect(regions[0]).toMatchObject({ name: 'Texas, United States', type: 'country_region', city: null, region: 'Texas', country: 'United States' });
    const countries = await expectListOrder('country');
    expect(countries.map((country) => country.name)).toEqual(['United States', 'Germany', 'Canada']);
    expect(countries[0]).toMatchObject({ type: 'country', city: null, region: null, country: 'United States' });
    const worlds = await expectListOrder('world_region');
    expect(worlds.map((world) => world.name)).toEqual(['North America', 'Europe']);
    expect(worlds[0]).toMatchObject({ type: 'world_region', city: null, region: null, country: null });
  });

  it('pages every location exactly once and in order, at limit 1, 2 and 1000', async () => {
    for (const type of TYPES) {
      const all = await walk(type, 1000);
      for (const limit of [1, 2]) expect((await walk(type, limit)).map((location) => location.id)).toEqual(all.map((location) => location.id));
    }
  });

  it('GET /locations/{id} answers the location; malformed and unknown IDs are 400 and 404', async () => {
    const [austin] = await walk('city', 1).then((all) => all.filter((city) => city.city === 'Austin'));
    const response = await t.get(`/api/v2/locations/${austin!.id}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ success: true, data: austin });
    for (const bad of ['123', 'loc_', 'loc_x', 'c_1']) {
      const failed = await t.get(`/api/v2/locations/${bad}`);
      expect(failed.statusCode).toBe(400);
      expect(failed.json()).toMatchObject({ success: false, error: { code: 'invalid_location_id' } });
    }
    const missing = await t.get('/api/v2/locations/loc_999999');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ success: false, error: { code: 'location_not_found' } });
  });

  it('locationType is required and must be one of the four types', async () => {
    for (const params of [{} as Record<string, string>, { locationType: 'town' }, { locationType: '' }, { locationType: 'City' }]) {
      const response = await list(params);
      expect(response.statusCode, JSON.stringify(params)).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining('locationType') } });
    }
  });

  it('cols: recordCount adds meta.recordCount; any other name is a 400 naming it; unknown parameters are 400', async () => {
    const counted = (await list({ locationType: 'city', limit: 2, cols: 'recordCount' })).json() as Page;
    expect(counted.meta).toEqual({ nextCursor: expect.any(String), recordCount: 6 });
    expect(counted.data).toHaveLength(2);
    const bad = await list({ locationType: 'city', cols: 'recordCount,memberCount' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain('memberCount');
    expect((await list({ locationType: 'city', sort: 'name' })).statusCode).toBe(400);
  });

  it('a cursor is bound to its locationType; a tampered one is refused', async () => {
    const first = (await list({ locationType: 'city', limit: 1 })).json() as Page;
    const cursor = first.meta.nextCursor!;
    const elsewhere = await list({ locationType: 'country', limit: 1, cursor });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().error.code).toBe('invalid_cursor');
    const tampered = await list({ locationType: 'city', limit: 1, cursor: `${cursor.slice(0, 4)}${cursor[4] === 'A' ? 'B' : 'A'}${cursor.slice(5)}` });
    expect(tampered.statusCode).toBe(400);
  });

  it('needs contacts:read', async () => {
    expect((await list({ locationType: 'city' }, await t.issueToken(['organizations:read']))).statusCode).toBe(403);
    expect((await list({ locationType: 'city' }, await t.issueToken(['contacts:read']))).statusCode).toBe(200);
  });

  it('a contact that moves leaves its old location rows and joins the new ones', async () => {
    await push({ id: 'austin-1', rawLocation: 'Toronto, Canada' });
    const counts = await expectCountsMatchContacts();
    expect(counts['city|Austin, Texas, United States']).toBe(2);
    expect(counts['city|Toronto, Ontario, Canada']).toBe(2);
    expect(counts['country|Canada']).toBe(2);
    expect(counts['country|United States']).toBe(5);
    expect(counts['world_region|North America']).toBe(7);
    // A push repeating the same place changes nothing; one without a location keeps it.
    await push({ id: 'austin-1', rawLocation: 'Toronto, Canada' });
    await push({ id: 'austin-1', titleAtCompany: 'Engineer' });
    expect(await expectCountsMatchContacts()).toEqual(counts);
    for (const type of TYPES) await expectListOrder(type);
  });

  it('a location left without members leaves the list and answers 404', async () => {
    const houston = (await walk('city', 1000)).find((city) => city.city === 'Houston')!;
    await push({ id: 'houston-1', rawLocation: 'Dallas, Texas' });
    await expectCountsMatchContacts();
    const cities = await expectListOrder('city');
    expect(cities.map((city) => city.city)).not.toContain('Houston');
    expect((await t.get(`/api/v2/locations/${houston.id}`)).statusCode).toBe(404);
    // Coming back reuses the same row.
    await push({ id: 'houston-1', rawLocation: 'Houston, Texas' });
    expect((await t.get(`/api/v2/locations/${houston.id}`)).statusCode).toBe(200);
    await expectCountsMatchContacts();
  });

  it('a merge removes the merged contact from its locations', async () => {
    // munich-1 (Munich) and berlin-1 (Berlin) merge into berlin-1's contact (the older), which keeps Berlin.
    await push({ id: 'berlin-1', github: 'merge-me' });
    const before = await expectCountsMatchContacts();
    expect(before['city|Munich, Bavaria, Germany']).toBe(1);
    const survivor = await push({ id: 'munich-1', github: 'merge-me', email: 'munich-1@example.org' });
    expect(survivor).toBe(ids['berlin-1']);
    const after = await expectCountsMatchContacts();
    expect(after['city|Munich, Bavaria, Germany']).toBeUndefined();
    expect(after['city|Berlin, Berlin, Germany']).toBe(2);
    expect(after['country|Germany']).toBe(3);
    expect(after['world_region|Europe']).toBe(3);
    // A survivor without a location takes the merged contact's.
    await push({ id: 'loner', github: 'loner' });
    await push({ id: 'toronto-1', github: 'toronto-x' });
    await push({ id: 'loner', github: 'toronto-x' });
    const merged = await expectCountsMatchContacts();
    expect(merged['city|Toronto, Ontario, Canada']).toBe(2);
    for (const type of TYPES) await expectListOrder(type);
  });

  it('erasure takes the contact out of its locations', async () => {
    const before = await expectCountsMatchContacts();
    const response = await t.app.inject({
      method: 'DELETE',
      url: '/community/v1/user/dallas-1%40example.org',
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    await worker.runUntilIdle();
    const after = await expectCountsMatchContacts();
    expect(after['city|Dallas, Texas, United States']).toBe(before['city|Dallas, Texas, United States']! - 1);
    expect(after['country|United States']).toBe(before['country|United States']! - 1);
    for (const type of TYPES) await expectListOrder(type);
  });

  it('communities see only their own locations', async () => {
    await push({ id: 'paris-1', rawLocation: 'Paris, France' }, other.sourceId, other.token);
    await push({ id: 'paris-2', rawLocation: 'Paris, France' }, other.sourceId, other.token);
    await expectCountsMatchContacts(other.communityId);
    const theirs = await expectListOrder('city', other.token, other.communityId);
    expect(theirs.map((city) => city.name)).toEqual(['Paris, Île-de-France, France']);
    const ours = await walk('city', 1000);
    expect(ours.map((city) => city.city)).not.toContain('Paris');
    expect((await t.get(`/api/v2/locations/${theirs[0]!.id}`)).statusCode).toBe(404);
    expect((await t.get(`/api/v2/locations/${ours[0]!.id}`, other.token)).statusCode).toBe(404);
    // A cursor of one community's list is no cursor for the other's.
    const cursor = ((await list({ locationType: 'city', limit: 1 })).json() as Page).meta.nextCursor!;
    expect((await list({ locationType: 'city', limit: 1, cursor }, other.token)).statusCode).toBe(400);
    await expectCountsMatchContacts();
  });
});
