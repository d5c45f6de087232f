import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor } from '../../src/core/writer.ts';

interface CustomObject {
  id: string;
  name: string;
  customFields: Record<string, { type: string; value: unknown }>;
}
type Item = { success: true; data: CustomObject };
type Failure = { success: false; error: { code: string; message: string; invalidIds?: string[] } };
type Response = { statusCode: number; body: string; json(): unknown };

/**
 * PATCH /api/v2/objects/{id} and POST /api/v2/objects/{id}/segments (docs/writing.md, Custom objects;
 * docs/behaviour.md, IDs, Errors, Scopes).
 */
describe.each(ENGINES)('custom object writes (%s)', (engine) => {
  const clock = new ManualClock('2026-05-01T10:00:00.000Z');
  const created = new Date('2026-01-01T00:00:00.000Z');
  let t: TestApp;
  const type = { deal: 0, ticket: 0, theirs: 0 };
  const object = { acme: 0, globex: 0, ticket: 0, theirs: 0 };
  /** size: number, deal only; stage: enum, any object type; labels: multi-value enum; due: date, ticket only. */
  const field = { size: 0, stage: 0, labels: 0, due: 0, old: 0, contactNote: 0, theirs: 0 };
  const segment = { deals: 0, tickets: 0, contacts: 0, organizations: 0, theirs: 0 };

  const db = () => t.services.db;
  const co = (key: keyof typeof object) => `co_${object[key]}`;
  const cf = (key: keyof typeof field) => `cf_${field[key]}`;
  const seg = (key: keyof typeof segment) => `s_${segment[key]}`;

  const send = (method: 'POST' | 'PATCH', url: string, payload: unknown, token: string | null = t.token) => t.send(method, url, payload, token);
  const patch = (id: string, customFields: unknown, token?: string | null) => send('PATCH', `/api/v2/objects/${id}`, { customFields }, token);
  const addTo = (id: string, segmentId: unknown, token?: string | null) => send('POST', `/api/v2/objects/${id}/segments`, { segmentId }, token);
  const value = (type: string, value: unknown) => ({ type, value });

  function expectFailure(response: Response, status: number, code: string) {
    expect(response.statusCode, response.body).toBe(status);
    const body = response.json() as Failure;
    expect(body).toMatchObject({ success: false, error: { code } });
    return body.error;
  }

  async function valuesOf(objectId: number) {
    const rows = await db()
      .selectFrom('custom_field_values')
      .select(['custom_field_id as fieldId', 'value', 'updated_at as updatedAt'])
      .where('entity_type', '=', 'object')
      .where('entity_id', '=', objectId)
      .orderBy('custom_field_id')
      .execute();
    return rows;
  }
  const updatedAt = async (objectId: number) =>
    (await db().selectFrom('objects').select('updated_at').where('id', '=', objectId).executeTakeFirstOrThrow()).updated_at;
  const membersOf = async (segmentId: number) =>
    (
      await db()
        .selectFrom('segment_memberships')
        .select(['entity_id as entityId', 'added_at as addedAt'])
        .where('segment_id', '=', segmentId)
        .orderBy('entity_id')
        .execute()
    ).map((row) => ({ entityId: row.entityId, addedAt: row.addedAt.toISOString() }));

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    const { communityId: otherId } = await t.services.communities.create('Other', cliActor());
    const newType = async (communityId: number, name: string) =>
      (await db().insertInto('object_types').values({ community_id: communityId, name }).returning('id').executeTakeFirstOrThrow()).id;
    type.deal = await newType(t.communityId, 'Deal');
    type.ticket = await newType(t.communityId, 'Ticket');
    type.theirs = await newType(otherId, 'Deal');

    const newObject = async (communityId: number, objectTypeId: number, name: string) =>
      (
        await db()
          .insertInto('objects')
          .values({ community_id: communityId, object_type_id: objectTypeId, name, record_key: name.toLowerCase(), updated_at: created })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    object.acme = await newObject(t.communityId, type.deal, 'Acme');
    object.globex = await newObject(t.communityId, type.deal, 'Globex');
    object.ticket = await newObject(t.communityId, type.ticket, 'Ticket');
    object.theirs = await newObject(otherId, type.theirs, 'Theirs');

    const newField = async (
      communityId: number,
      name: string,
      values: { entityTypes?: string[]; valueType: string; objectTypeId?: number | null; enumValues?: string[]; multivalue?: boolean; deleted?: boolean },
    ) =>
      (
        await db()
          .insertInto('custom_fields')
          .values({
            community_id: communityId,
            name,
            entity_types: values.entityTypes ?? ['object'],
            value_type: values.valueType,
            object_type_id: values.objectTypeId ?? null,
            enum_values: values.enumValues ?? [],
            multivalue: values.multivalue ?? false,
            deleted_at: values.deleted ? created : null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    field.size = await newField(t.communityId, 'Size', { valueType: 'number', objectTypeId: type.deal });
    field.stage = await newField(t.communityId, 'Stage', { valueType: 'enum', enumValues: ['open', 'won', 'lost'] });
    field.labels = await newField(t.communityId, 'Labels', { valueType: 'enum', enumValues: ['a', 'b', 'c'], multivalue: true });
    field.due = await newField(t.communityId, 'Due', { valueType: 'date', objectTypeId: type.ticket });
    field.old = await newField(t.communityId, 'Old', { valueType: 'string', deleted: true });
    field.contactNote = await newField(t.communityId, 'Note', { valueType: 'string', entityTypes: ['contact'] });
    field.theirs = await newField(otherId, 'Their size', { valueType: 'number' });

    const newSegment = async (communityId: number, name: string, entityType: string, objectTypeId: number | null) =>
      (
        await db()
          .insertInto('segments')
          .values({ community_id: communityId, name, entity_type: entityType, object_type_id: objectTypeId })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    segment.deals = await newSegment(t.communityId, 'Hot deals', 'object', type.deal);
    segment.tickets = await newSegment(t.communityId, 'Open tickets', 'object', type.ticket);
    segment.contacts = await newSegment(t.communityId, 'Champions', 'contact', null);
    segment.organizations = await newSegment(t.communityId, 'Accounts', 'organization', null);
    segment.theirs = await newSegment(otherId, 'Their deals', 'object', type.theirs);
    await db().insertInto('segment_memberships').values({ community_id: otherId, segment_id: segment.theirs, entity_id: object.theirs }).execute();
  });
  afterAll(() => t?.close());

  describe('PATCH /api/v2/objects/{id}', () => {
    beforeEach(async () => {
      await db().deleteFrom('custom_field_values').where('community_id', '=', t.communityId).execute();
    });

    it('sets the values and answers the object as GET /api/v2/objects/{id} shows it', async () => {
      clock.advance(1000);
      const response = await patch(co('acme'), [
        { customFieldId: cf('size'), customFieldValue: value('number', 12.5) },
        { customFieldId: cf('stage'), customFieldValue: value('enum', 'open') },
        { customFieldId: cf('labels'), customFieldValue: value('enum', ['b', 'a', 'b']) },
      ]);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as Item;
      expect(Object.keys(body)).toEqual(['success', 'data']);
      expect(body).toEqual({
        success: true,
        data: {
          id: co('acme'),
          name: 'Acme',
          customFields: {
            [cf('size')]: { type: 'number', value: 12.5 },
            [cf('stage')]: { type: 'enum', value: 'open' },
            [cf('labels')]: { type: 'enum', value: ['b', 'a'] },
          },
        },
      });
      expect((await t.get(`/api/v2/objects/${co('acme')}`)).json()).toEqual(body);
      expect(await updatedAt(object.acme)).toEqual(clock.now());
      for (const row of await valuesOf(object.acme)) expect(row.updatedAt).toEqual(clock.now());
      // The other objects are untouched.
      expect(await valuesOf(object.globex)).toEqual([]);
    });

    it('overwrites a value, and null (as the value or as customFieldValue) clears it; fields not named stay', async () => {
      await patch(co('acme'), [
        { customFieldId: cf('size'), customFieldValue: value('number', 1) },
        { customFieldId: cf('stage'), customFieldValue: value('enum', 'open') },
        { customFieldId: cf('labels'), customFieldValue: value('enum', ['c']) },
      ]);
      const response = await patch(co('acme'), [
        { customFieldId: cf('size'), customFieldValue: value('number', 2) },
        { customFieldId: cf('stage'), customFieldValue: null },
      ]);
      expect(response.statusCode, response.body).toBe(200);
      expect((response.json() as Item).data.customFields).toEqual({
        [cf('size')]: { type: 'number', value: 2 },
        [cf('labels')]: { type: 'enum', value: ['c'] },
      });
      const cleared = await patch(co('acme'), [{ customFieldId: cf('labels'), customFieldValue: value('enum', null) }]);
      expect((cleared.json() as Item).data.customFields).toEqual({ [cf('size')]: { type: 'number', value: 2 } });
      // Clearing a field that has no value is not an error.
      expect((await patch(co('globex'), [{ customFieldId: cf('stage'), customFieldValue: null }])).statusCode).toBe(200);
    });

    it('a field without an object type applies to every object type; one with a type only to its own', async () => {
      const response = await patch(co('ticket'), [
        { customFieldId: cf('stage'), customFieldValue: value('enum', 'won') },
        { customFieldId: cf('due'), customFieldValue: value('date', '2026-06-30') },
      ]);
      expect(response.statusCode, response.body).toBe(200);
      expect((response.json() as Item).data.customFields).toEqual({
        [cf('stage')]: { type: 'enum', value: 'won' },
        [cf('due')]: { type: 'date', value: '2026-06-30' },
      });
      const error = expectFailure(
        await patch(co('acme'), [{ customFieldId: cf('due'), customFieldValue: value('date', '2026-06-30') }]),
        400,
        'invalid_custom_field_id',
      );
      expect(error.invalidIds).toEqual([cf('due')]);
      expect(error.message).toContain(`cot_${type.ticket}`);
    });

    it('names every fault in one 400 with invalidIds, and writes nothing', async () => {
      await patch(co('acme'), [{ customFieldId: cf('size'), customFieldValue: value('number', 7) }]);
      const before = { values: await valuesOf(object.acme), updatedAt: await updatedAt(object.acme) };
      clock.advance(1000);
      const response = await patch(co('acme'), [
        { customFieldId: cf('stage'), customFieldValue: value('enum', 'won') }, // fine on its own
        { customFieldId: 'size', customFieldValue: value('number', 1) }, // malformed
        { customFieldId: 'cf_999999', customFieldValue: value('string', 'x') }, // unknown
        { customFieldId: cf('old'), customFieldValue: value('string', 'x') }, // deleted
        { customFieldId: cf('contactNote'), customFieldValue: value('string', 'x') }, // a contact field
        { customFieldId: cf('theirs'), customFieldValue: value('number', 1) }, // another community's
        { customFieldId: cf('due'), customFieldValue: value('date', '2026-06-30') }, // another object type's
        { customFieldId: cf('size'), customFieldValue: value('number', '5') }, // not coerced: a string is no number
        { customFieldId: cf('labels'), customFieldValue: value('enum', ['a', 'z']) }, // not an allowed value
        { customFieldId: cf('stage'), customFieldValue: value('enum', 'lost') }, // given twice
      ]);
      const error = expectFailure(response, 400, 'invalid_parameters');
      expect(error.invalidIds).toEqual(['size', 'cf_999999', cf('old'), cf('contactNote'), cf('theirs'), cf('due'), cf('size'), cf('labels'), cf('stage')]);
      for (const index of [1, 2, 3, 4, 5, 6, 7, 8, 9]) expect(error.message).toContain(`customFields[${index}]`);
      expect(error.message).not.toContain('customFields[0]');
      expect(error.message).toContain('customFields[7].customFieldValue');
      expect(error.message).toContain('customFields[9].customFieldId: custom field');
      expect(await valuesOf(object.acme)).toEqual(before.values);
      expect(await updatedAt(object.acme)).toEqual(before.updatedAt);
    });

    it('the code is invalid_custom_field_id when only field IDs are at fault', async () => {
      const error = expectFailure(
        await patch(co('acme'), [
          { customFieldId: `c_${field.size}`, customFieldValue: value('number', 1) },
          { customFieldId: cf('contactNote'), customFieldValue: value('string', 'x') },
        ]),
        400,
        'invalid_custom_field_id',
      );
      expect(error.invalidIds).toEqual([`c_${field.size}`, cf('contactNote')]);
    });

    it('checks each value against its field: its type, and a value of that type', async () => {
      const cases: [string, unknown][] = [
        [cf('size'), value('string', 5)],
        [cf('size'), value('number', 'big')],
        [cf('stage'), value('enum', 'maybe')],
        [cf('stage'), value('enum', ['open'])],
        [cf('labels'), value('enum', [1])],
      ];
      for (const [customFieldId, customFieldValue] of cases) {
        const error = expectFailure(await patch(co('acme'), [{ customFieldId, customFieldValue }]), 400, 'invalid_parameters');
        expect(error.invalidIds, JSON.stringify(customFieldValue)).toEqual([customFieldId]);
      }
      expect(await valuesOf(object.acme)).toEqual([]);
    });

    it('bodies are strict: unknown fields at any level, a missing or empty customFields, a missing type are 400', async () => {
      const fine = { customFieldId: cf('stage'), customFieldValue: value('enum', 'won') };
      const cases: [unknown, string | null][] = [
        [{ customFields: [fine], name: 'Renamed' }, '"name"'],
        [{ customFields: [{ ...fine, note: 1 }] }, '"customFields.0.note"'],
        [{ customFields: [{ ...fine, customFieldValue: { type: 'enum', value: 'won', extra: true } }] }, '"customFields.0.customFieldValue.extra"'],
        [{ customFields: [] }, 'customFields'],
        [{}, '"customFields" is required'],
        [{ customFields: [{ customFieldId: cf('stage') }] }, 'customFieldValue'],
        [{ customFields: [{ customFieldId: cf('stage'), customFieldValue: { value: 'won' } }] }, 'type'],
        [{ customFields: [{ customFieldId: field.stage, customFieldValue: value('enum', 'won') }] }, 'customFieldId'],
        [{ customFields: Array.from({ length: 101 }, () => fine) }, 'customFields'],
      ];
      for (const [body, mentions] of cases) {
        const error = expectFailure(await send('PATCH', `/api/v2/objects/${co('acme')}`, body), 400, 'invalid_parameters');
        if (mentions) expect(error.message, JSON.stringify(body).slice(0, 200)).toContain(mentions);
      }
      expect(await valuesOf(object.acme)).toEqual([]);
    });

    it("a malformed ID is 400 invalid_object_id; an unknown or other community's object is 404, and is not touched", async () => {
      const write = [{ customFieldId: cf('stage'), customFieldValue: value('enum', 'won') }];
      for (const id of [`${object.acme}`, 'co_x', `cot_${object.acme}`]) {
        const error = expectFailure(await patch(id, write), 400, 'invalid_object_id');
        expect(error.invalidIds).toEqual([id]);
      }
      expectFailure(await patch('co_999999', write), 404, 'object_not_found');
      // Another community's object is missing here, even with a field of that community.
      expectFailure(await patch(co('theirs'), write), 404, 'object_not_found');
      expectFailure(await patch(co('theirs'), [{ customFieldId: cf('theirs'), customFieldValue: value('number', 1) }]), 404, 'object_not_found');
      expect(await valuesOf(object.theirs)).toEqual([]);
      expect(await updatedAt(object.theirs)).toEqual(created);
    });

    it('needs objects:write (or write): another scope is 403', async () => {
      const write = [{ customFieldId: cf('stage'), customFieldValue: value('enum', 'won') }];
      for (const scopes of [['objects:read'], ['read'], ['segments:write', 'contacts:write']]) {
        const response = await patch(co('globex'), write, await t.issueToken(scopes));
        expect(response.statusCode, scopes.join()).toBe(403);
        expect(response.json()).toMatchObject({ status: 'forbidden' });
      }
      expect((await patch(co('globex'), write, null)).statusCode).toBe(403);
      expect(await valuesOf(object.globex)).toEqual([]);
      expect((await patch(co('globex'), write, await t.issueToken(['objects:write']))).statusCode).toBe(200);
      expect((await patch(co('globex'), write, await t.issueToken(['write']))).statusCode).toBe(200);
    });
  });

  describe('POST /api/v2/objects/{id}/segments', () => {
    beforeEach(async () => {
      await db().deleteFrom('segment_memberships').where('community_id', '=', t.communityId).execute();
      await db().deleteFrom('custom_field_values').where('community_id', '=', t.communityId).execute();
    });

    it('adds the object to an object segment of its type and answers the object', async () => {
      await patch(co('globex'), [{ customFieldId: cf('size'), customFieldValue: value('number', 3) }]);
      const response = await addTo(co('globex'), seg('deals'));
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as Item;
      expect(body).toEqual((await t.get(`/api/v2/objects/${co('globex')}`)).json());
      expect(body.data).toEqual({ id: co('globex'), name: 'Globex', customFields: { [cf('size')]: { type: 'number', value: 3 } } });
      const listed = await t.get(`/api/v2/objects?objectTypeId=cot_${type.deal}&segmentId=${seg('deals')}`);
      expect((listed.json() as { data: CustomObject[] }).data.map((item) => item.id)).toEqual([co('globex')]);
      expect(await membersOf(segment.deals)).toEqual([{ entityId: object.globex, addedAt: clock.now().toISOString() }]);
    });

    it('is idempotent: adding again answers 200 and changes nothing', async () => {
      expect((await addTo(co('acme'), seg('deals'))).statusCode).toBe(200);
      const first = await membersOf(segment.deals);
      clock.advance(60_000);
      const again = await addTo(co('acme'), seg('deals'));
      expect(again.statusCode, again.body).toBe(200);
      expect((again.json() as Item).data.id).toBe(co('acme'));
      expect(await membersOf(segment.deals)).toEqual(first);
      expect((await addTo(co('globex'), seg('deals'))).statusCode).toBe(200);
      expect((await membersOf(segment.deals)).map((member) => member.entityId)).toEqual([object.acme, object.globex]);
    });

    it('a segment of another entity type or object type is a 400 invalid_segment_id naming it', async () => {
      for (const [key, mentions] of [
        ['contacts', 'a contact segment'],
        ['organizations', 'an organization segment'],
        ['tickets', `object type cot_${type.ticket}`],
      ] as const) {
        const error = expectFailure(await addTo(co('acme'), seg(key)), 400, 'invalid_segment_id');
        expect(error.invalidIds).toEqual([seg(key)]);
        expect(error.message).toContain(mentions);
        expect(await membersOf(segment[key])).toEqual([]);
      }
      expect((await addTo(co('ticket'), seg('tickets'))).statusCode).toBe(200);
    });

    it("an unknown or other community's segment is 404 segment_not_found; a malformed one 400 invalid_segment_id", async () => {
      expectFailure(await addTo(co('acme'), 's_999999'), 404, 'segment_not_found');
      expectFailure(await addTo(co('acme'), seg('theirs')), 404, 'segment_not_found');
      for (const segmentId of [`${segment.deals}`, 's_x', `cot_${type.deal}`]) {
        const error = expectFailure(await addTo(co('acme'), segmentId), 400, 'invalid_segment_id');
        expect(error.invalidIds).toEqual([segmentId]);
      }
      expect(await membersOf(segment.theirs)).toEqual([{ entityId: object.theirs, addedAt: expect.any(String) }]);
      expect(await membersOf(segment.deals)).toEqual([]);
    });

    it("a malformed object ID is 400 invalid_object_id; an unknown or other community's object is 404", async () => {
      expectFailure(await addTo('co_x', seg('deals')), 400, 'invalid_object_id');
      expectFailure(await addTo(`${object.acme}`, seg('deals')), 400, 'invalid_object_id');
      expectFailure(await addTo('co_999999', seg('deals')), 404, 'object_not_found');
      expectFailure(await addTo(co('theirs'), seg('deals')), 404, 'object_not_found');
      // Their object into their own segment, through our token: still a missing object.
      expectFailure(await addTo(co('theirs'), seg('theirs')), 404, 'object_not_found');
      expect(await membersOf(segment.deals)).toEqual([]);
    });

    it('bodies are strict: segmentId is required, a string, and alone', async () => {
      const url = `/api/v2/objects/${co('acme')}/segments`;
      expect(expectFailure(await send('POST', url, {}), 400, 'invalid_parameters').message).toContain('"segmentId" is required');
      expectFailure(await send('POST', url, { segmentId: segment.deals }), 400, 'invalid_parameters');
      expect(expectFailure(await send('POST', url, { segmentId: seg('deals'), statusId: 1 }), 400, 'invalid_parameters').message).toContain('"statusId"');
      expectFailure(await send('POST', url, [seg('deals')]), 400, 'invalid_parameters');
      expect(await membersOf(segment.deals)).toEqual([]);
    });

    it('needs objects:write (or write): another scope is 403', async () => {
      for (const scopes of [['objects:read'], ['segments:write'], ['read']]) {
        const response = await addTo(co('acme'), seg('deals'), await t.issueToken(scopes));
        expect(response.statusCode, scopes.join()).toBe(403);
      }
      expect(await membersOf(segment.deals)).toEqual([]);
      expect((await addTo(co('acme'), seg('deals'), await t.issueToken(['objects:write']))).statusCode).toBe(200);
    });
  });
});
