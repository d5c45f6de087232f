import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { walkPages } from '../helpers/paging.ts';

interface CustomObject {
  id: string;
  name: string;
  recordKey?: string;
  customFields: Record<string, { type: string; value: unknown }>;
}
type Page = { success: true; data: CustomObject[]; meta: { nextCursor: string | null; recordCount?: number } };
type Params = Record<string, string | number | null | undefined>;

/** GET /api/v2/objects and /objects/{id} (docs/behaviour.md: IDs, cols, Sorting, Paging, lightFilter, Scopes). */
describe.each(ENGINES)('custom objects (%s)', (engine) => {
  let t: TestContext;
  let other: { communityId: number; token: string };
  const type = { deal: 0, ticket: 0, theirs: 0 };
  const field = { size: 0, stage: 0, old: 0 };
  const segment = { hot: 0, tickets: 0, contacts: 0, theirs: 0 };
  /** Deal objects by name, in ID order. */
  const deal: Record<string, number> = {};
  let ticket: number;
  let theirObject: number;

  const db = () => t.services.db;
  const cot = (key: keyof typeof type) => `cot_${type[key]}`;
  const co = (name: string) => `co_${deal[name]}`;
  const seg = (key: keyof typeof segment) => `s_${segment[key]}`;
  const filter = (clauses: unknown[], groupType = 'and') => JSON.stringify({ type: groupType, clauses });

  async function insertObject(communityId: number, objectTypeId: number, name: string, recordKey: string) {
    const row = await db()
      .insertInto('objects')
      .values({ community_id: communityId, object_type_id: objectTypeId, name, record_key: recordKey })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function insertSegment(communityId: number, name: string, entityType: 'contact' | 'object', objectTypeId: number | null, members: number[]) {
    const row = await db()
      .insertInto('segments')
      .values({ community_id: communityId, name, entity_type: entityType, object_type_id: objectTypeId })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (members.length) {
      await db()
        .insertInto('segment_memberships')
        .values(members.map((entity_id) => ({ community_id: communityId, segment_id: row.id, entity_id })))
        .execute();
    }
    return row.id;
  }

  async function list(params: Params, token: string | null = t.token) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(key, String(value));
    return t.get(`/api/v2/objects?${search}`, token);
  }

  function walk(limit: number, params: Params = {}, token = t.token): Promise<CustomObject[]> {
    return walkPages((cursor) => list({ objectTypeId: cot('deal'), ...params, limit, cursor }, token), limit);
  }
  const namesOf = (objects: CustomObject[]) => objects.map((object) => object.name);

  beforeAll(async () => {
    t = await createTestContext(engine);
    const { communityId } = await t.newCommunity('Other');
    other = { communityId, token: await t.issueToken(['read'], communityId) };

    type.deal = (await t.newObjectType({ name: 'Deal' })).key;
    type.ticket = (await t.newObjectType({ name: 'Ticket' })).key;
    type.theirs = (await t.newObjectType({ communityId, name: 'Deal' })).key;

    // Lowercase-equal names tie ("alpha", "ALPHA") and are ordered by ID.
    for (const [index, name] of ['charlie', 'alpha', 'Echo', 'ALPHA', 'bravo', 'Delta'].entries()) {
      deal[name] = await insertObject(t.communityId, type.deal, name, `deal-${index + 1}`);
    }
    ticket = await insertObject(t.communityId, type.ticket, 'Ticket one', 'ticket-1');
    theirObject = await insertObject(communityId, type.theirs, 'alpha', 'deal-1');

    const fieldOf = async (name: string, valueType: string, deleted = false) =>
      (
        await db()
          .insertInto('custom_fields')
          .values({
            community_id: t.communityId,
            name,
            entity_types: ['object'],
            value_type: valueType,
            object_type_id: type.deal,
            deleted_at: deleted ? new Date() : null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    field.size = await fieldOf('Size', 'number');
    field.stage = await fieldOf('Stage', 'string');
    field.old = await fieldOf('Old', 'string', true);
    const values: [string, number, unknown][] = [
      ['alpha', field.size, { type: 'number', value: 100 }],
      ['alpha', field.stage, { type: 'string', value: 'won' }],
      ['alpha', field.old, { type: 'string', value: 'gone' }],
      ['charlie', field.size, { type: 'number', value: 20 }],
      ['Echo', field.size, { type: 'number', value: 75 }],
      ['Delta', field.stage, { type: 'string', value: 'open' }],
    ];
    await db()
      .insertInto('custom_field_values')
      .values(
        values.map(([name, id, value]) => ({
          community_id: t.communityId,
          entity_type: 'object',
          entity_id: deal[name]!,
          custom_field_id: id,
          value: JSON.stringify(value),
        })),
      )
      .execute();
    // A contact with the same key as an object: its values are not the object's.
    const contact = await db()
      .insertInto('contacts')
      .values({ community_id: t.communityId, id: deal.bravo!, name: 'Bravo the contact' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const contactField = await db()
      .insertInto('custom_fields')
      .values({ community_id: t.communityId, name: 'Contact note', entity_types: ['contact'], value_type: 'string' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('custom_field_values')
      .values({
        community_id: t.communityId,
        entity_type: 'contact',
        entity_id: contact.id,
        custom_field_id: contactField.id,
        value: JSON.stringify({ type: 'string', value: 'x' }),
      })
      .execute();

    segment.hot = await insertSegment(t.communityId, 'Hot deals', 'object', type.deal, [deal.alpha!, deal.charlie!, deal.Echo!]);
    segment.tickets = await insertSegment(t.communityId, 'Open tickets', 'object', type.ticket, [ticket]);
    segment.contacts = await insertSegment(t.communityId, 'Champions', 'contact', null, [deal.bravo!]);
    segment.theirs = await insertSegment(communityId, 'Their hot deals', 'object', type.theirs, [theirObject]);
  });
  afterAll(() => t?.close());

  const byId = ['charlie', 'alpha', 'Echo', 'ALPHA', 'bravo', 'Delta'];
  const byName = ['alpha', 'ALPHA', 'bravo', 'charlie', 'Delta', 'Echo'];

  it("lists one object type's objects in ID order: id, name and customFields always", async () => {
    const response = await list({ objectTypeId: cot('deal') });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Page;
    expect(Object.keys(body)).toEqual(['success', 'data', 'meta']);
    expect(body.meta).toEqual({ nextCursor: null });
    expect(namesOf(body.data)).toEqual(byId);
    for (const object of body.data) expect(Object.keys(object)).toEqual(['id', 'name', 'customFields']);
    expect(body.data[0]).toEqual({ id: co('charlie'), name: 'charlie', customFields: { [`cf_${field.size}`]: { type: 'number', value: 20 } } });
    const tickets = (await list({ objectTypeId: cot('ticket') })).json() as Page;
    expect(tickets.data).toEqual([{ id: `co_${ticket}`, name: 'Ticket one', customFields: {} }]);
  });

  it('customFields maps cf_<id> to {type, value} of the live fields; an object without values has {}', async () => {
    const all = await walk(100);
    const fields = Object.fromEntries(all.map((object) => [object.name, object.customFields]));
    expect(fields).toEqual({
      charlie: { [`cf_${field.size}`]: { type: 'number', value: 20 } },
      alpha: { [`cf_${field.size}`]: { type: 'number', value: 100 }, [`cf_${field.stage}`]: { type: 'string', value: 'won' } },
      Echo: { [`cf_${field.size}`]: { type: 'number', value: 75 } },
      ALPHA: {},
      bravo: {},
      Delta: { [`cf_${field.stage}`]: { type: 'string', value: 'open' } },
    });
  });

  it('cols: recordKey adds the record key; recordCount adds meta.recordCount; anything else is a 400', async () => {
    const body = (await list({ objectTypeId: cot('deal'), cols: 'recordKey', limit: 2 })).json() as Page;
    expect(body.data.map((object) => object.recordKey)).toEqual(['deal-1', 'deal-2']);
    // The serializer writes the always-present fields first; JSON objects are unordered anyway.
    for (const object of body.data) expect(Object.keys(object).sort()).toEqual(['customFields', 'id', 'name', 'recordKey']);
    expect(body.meta).toEqual({ nextCursor: expect.any(String) });
    const counted = (await list({ objectTypeId: cot('deal'), cols: 'recordCount,recordKey', limit: 2 })).json() as Page;
    expect(counted.meta).toEqual({ nextCursor: expect.any(String), recordCount: 6 });
    for (const cols of ['url', 'cf_*', `cf_${field.size}`, 'recordKey,tags']) {
      const bad = await list({ objectTypeId: cot('deal'), cols });
      expect(bad.statusCode, cols).toBe(400);
      expect(bad.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
      expect(bad.json().error.message).toContain(JSON.stringify(cols.split(',').pop()));
    }
  });

  it('sorts by id (default) and by name (case-insensitive, ties by ID), both directions', async () => {
    expect(namesOf(await walk(100, { sort: 'id' }))).toEqual(byId);
    expect(namesOf(await walk(100, { sort: 'id', direction: 'desc' }))).toEqual([...byId].reverse());
    expect(namesOf(await walk(100, { direction: 'desc' }))).toEqual([...byId].reverse());
    expect(namesOf(await walk(100, { sort: 'name' }))).toEqual(byName);
    expect(namesOf(await walk(100, { sort: 'name', direction: 'desc' }))).toEqual([...byName].reverse());
    for (const params of [{ sort: 'recordKey' }, { sort: 'Name' }, { sort: `cf_${field.size}` }, { direction: 'up' }]) {
      const bad = await list({ objectTypeId: cot('deal'), ...params });
      expect(bad.statusCode, JSON.stringify(params)).toBe(400);
    }
  });

  it('a cursor walk returns each object exactly once, in order, for every sort and direction', async () => {
    for (const sort of ['id', 'name']) {
      for (const direction of ['asc', 'desc']) {
        const all = await walk(100, { sort, direction });
        expect(all).toHaveLength(6);
        for (const limit of [1, 2, 4]) expect(await walk(limit, { sort, direction }), `${sort} ${direction} ${limit}`).toEqual(all);
      }
    }
  });

  it('a cursor reused with another sort, direction, type, segment or filter is a 400 invalid_cursor', async () => {
    const first = (await list({ objectTypeId: cot('deal'), sort: 'name', limit: 2 })).json() as Page;
    const cursor = first.meta.nextCursor!;
    const ok = await list({ objectTypeId: cot('deal'), sort: 'name', limit: 2, cursor });
    expect(namesOf((ok.json() as Page).data)).toEqual(['bravo', 'charlie']);
    const nameLike = filter([{ type: 'stringFilter', field: 'name', params: { op: 'like', value: 'a' } }]);
    for (const params of [
      { objectTypeId: cot('deal') },
      { objectTypeId: cot('deal'), sort: 'name', direction: 'desc' },
      { objectTypeId: cot('ticket'), sort: 'name' },
      { objectTypeId: cot('deal'), sort: 'name', segmentId: seg('hot') },
      { objectTypeId: cot('deal'), sort: 'name', lightFilter: nameLike },
    ]) {
      const response = await list({ ...params, limit: 2, cursor });
      expect(response.statusCode, JSON.stringify(params)).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_cursor' } });
    }
    expect((await list({ objectTypeId: `cot_${type.theirs}`, sort: 'name', limit: 2, cursor }, other.token)).statusCode).toBe(400);
  });

  it("objectTypeId: missing 400 invalid_parameters, malformed 400 invalid_object_type_id, unknown or another community's 404", async () => {
    const missing = await list({});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
    expect(missing.json().error.message).toContain('objectTypeId');
    for (const bad of [String(type.deal), 'cot_', 'co_1', 'cot_x']) {
      const response = await list({ objectTypeId: bad });
      expect(response.statusCode, bad).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_object_type_id' } });
    }
    for (const unknown of ['cot_999999', `cot_${type.theirs}`]) {
      const response = await list({ objectTypeId: unknown });
      expect(response.statusCode, unknown).toBe(404);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'object_type_not_found' } });
    }
  });

  it('segmentId keeps the members of an object segment of that type; other segments are refused', async () => {
    expect(namesOf(await walk(100, { segmentId: seg('hot') }))).toEqual(['charlie', 'alpha', 'Echo']);
    expect(namesOf(await walk(1, { segmentId: seg('hot'), sort: 'name', direction: 'desc' }))).toEqual(['Echo', 'charlie', 'alpha']);
    const counted = (await list({ objectTypeId: cot('deal'), segmentId: seg('hot'), cols: 'recordCount' })).json() as Page;
    expect(counted.meta.recordCount).toBe(3);
    expect(namesOf((await list({ objectTypeId: cot('ticket'), segmentId: seg('tickets') })).json().data)).toEqual(['Ticket one']);
    for (const [segmentId, code, status] of [
      ['s_x', 'invalid_segment_id', 400],
      [String(segment.hot), 'invalid_segment_id', 400],
      [seg('contacts'), 'invalid_segment_id', 400],
      [seg('tickets'), 'invalid_segment_id', 400],
      ['s_999999', 'segment_not_found', 404],
      [seg('theirs'), 'segment_not_found', 404],
    ] as const) {
      const response = await list({ objectTypeId: cot('deal'), segmentId });
      expect(response.statusCode, segmentId).toBe(status);
      expect(response.json()).toMatchObject({ success: false, error: { code } });
    }
  });

  it('lightFilter filters (fields, custom fields, segments); recordCount counts with it', async () => {
    const cases: [string, string[]][] = [
      [filter([{ type: 'stringFilter', field: 'name', params: { op: 'like', value: 'ALPH' } }]), ['alpha', 'ALPHA']],
      [filter([{ type: 'stringFilter', field: 'recordKey', params: { op: 'eq', value: 'deal-5' } }]), ['bravo']],
      [filter([{ type: 'numberFilter', field: `cf_${field.size}`, params: { op: 'gte', value: 75 } }]), ['alpha', 'Echo']],
      [filter([{ type: 'stringListFilter', field: `cf_${field.stage}`, params: { op: 'any', value: ['open', 'lost'] } }]), ['Delta']],
      [filter([{ type: 'stringListFilter', field: 'segments', params: { op: 'none', value: [seg('hot')] } }]), ['ALPHA', 'bravo', 'Delta']],
      [
        filter(
          [
            { type: 'numberFilter', field: `cf_${field.size}`, params: { op: 'lt', value: 50 } },
            { type: 'stringFilter', field: 'name', params: { op: 'startsWith', value: 'D' } },
          ],
          'or',
        ),
        ['charlie', 'Delta'],
      ],
    ];
    for (const [lightFilter, expected] of cases) {
      expect(namesOf(await walk(100, { lightFilter })), lightFilter).toEqual(expected);
      expect(namesOf(await walk(1, { lightFilter })), lightFilter).toEqual(expected);
      const counted = (await list({ objectTypeId: cot('deal'), lightFilter, cols: 'recordCount' })).json() as Page;
      expect(counted.meta.recordCount, lightFilter).toBe(expected.length);
    }
    // With a segment and a filter together.
    const both = await walk(100, { segmentId: seg('hot'), lightFilter: cases[2]![0] });
    expect(namesOf(both)).toEqual(['alpha', 'Echo']);
  });

  it('a bad lightFilter is a 400 naming the JSON path of the fault', async () => {
    const cases: [string, string][] = [
      [filter([{ type: 'stringFilter', field: 'fullName', params: { op: 'eq', value: 'x' } }]), 'clauses[0]'],
      [filter([{ type: 'booleanFilter', field: 'name', params: { op: 'eq', value: true } }]), 'clauses[0]'],
      [filter([{ type: 'and', clauses: [{ type: 'stringFilter', field: 'name', params: { op: 'nope', value: 'x' } }] }]), 'clauses[0].clauses[0]'],
      [filter([{ type: 'numberFilter', field: `cf_${field.old}`, params: { op: 'eq', value: 1 } }]), 'clauses[0]'],
      ['{not json', ''],
    ];
    for (const [lightFilter, path] of cases) {
      const response = await list({ objectTypeId: cot('deal'), lightFilter });
      expect(response.statusCode, lightFilter).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_filter' } });
      expect(response.json().error.message, lightFilter).toContain(path);
    }
  });

  it("GET /objects/{id}: always id, name, customFields; cols recordKey; malformed 400, missing or another community's 404", async () => {
    const response = await t.get(`/api/v2/objects/${co('alpha')}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        id: co('alpha'),
        name: 'alpha',
        customFields: { [`cf_${field.size}`]: { type: 'number', value: 100 }, [`cf_${field.stage}`]: { type: 'string', value: 'won' } },
      },
    });
    const keyed = await t.get(`/api/v2/objects/${co('bravo')}?cols=recordKey`);
    expect(keyed.json()).toEqual({ success: true, data: { id: co('bravo'), name: 'bravo', recordKey: 'deal-5', customFields: {} } });
    for (const cols of ['recordCount', 'url']) expect((await t.get(`/api/v2/objects/${co('bravo')}?cols=${cols}`)).statusCode, cols).toBe(400);
    for (const bad of [String(deal.alpha), 'co_', 'cot_1', 'c_1', 'co_1x']) {
      const failed = await t.get(`/api/v2/objects/${bad}`);
      expect(failed.statusCode, bad).toBe(400);
      expect(failed.json()).toMatchObject({ success: false, error: { code: 'invalid_object_id' } });
    }
    for (const missing of ['co_999999', `co_${theirObject}`]) {
      const failed = await t.get(`/api/v2/objects/${missing}`);
      expect(failed.statusCode, missing).toBe(404);
      expect(failed.json()).toMatchObject({ success: false, error: { code: 'object_not_found' } });
    }
  });

  it('needs objects:read (or read)', async () => {
    for (const scopes of [['contacts:read'], ['objects:write'], ['segments:read', 'organizations:read']]) {
      const token = await t.issueToken(scopes);
      expect((await list({ objectTypeId: cot('deal') }, token)).statusCode, scopes.join()).toBe(403);
      expect((await t.get(`/api/v2/objects/${co('alpha')}`, token)).statusCode).toBe(403);
    }
    for (const scopes of [['objects:read'], ['read']]) {
      const token = await t.issueToken(scopes);
      expect((await list({ objectTypeId: cot('deal') }, token)).statusCode).toBe(200);
      expect((await t.get(`/api/v2/objects/${co('alpha')}`, token)).statusCode).toBe(200);
    }
  });

  it('communities see only their own objects', async () => {
    const theirs = await list({ objectTypeId: `cot_${type.theirs}`, cols: 'recordCount' }, other.token);
    expect(theirs.json()).toEqual({
      success: true,
      data: [{ id: `co_${theirObject}`, name: 'alpha', customFields: {} }],
      meta: { nextCursor: null, recordCount: 1 },
    });
    const segmentOfTheirs = await list({ objectTypeId: `cot_${type.theirs}`, segmentId: seg('theirs') }, other.token);
    expect((segmentOfTheirs.json() as Page).data.map((object) => object.id)).toEqual([`co_${theirObject}`]);
    expect((await list({ objectTypeId: cot('deal') }, other.token)).statusCode).toBe(404);
    expect((await t.get(`/api/v2/objects/${co('alpha')}`, other.token)).statusCode).toBe(404);
    const everything = await walk(100, { lightFilter: filter([{ type: 'stringFilter', field: 'name', params: { op: 'like', value: 'alpha' } }]) });
    expect(everything.map((object) => object.id)).toEqual([co('alpha'), co('ALPHA')]);
  });
});
