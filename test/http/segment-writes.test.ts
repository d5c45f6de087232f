import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';

type Created = { success: true; data: { id: string; name: string } };
type Failure = { success: false; error: { code: string; message: string; invalidIds?: string[] } };

/**
 * POST /api/v2/segments and PATCH /api/v2/segments/{id} (docs/writing.md, Segments; docs/behaviour.md,
 * Envelopes, Errors, Limits).
 */
describe.each(ENGINES)('segment writes (%s)', (engine) => {
  const clock = new ManualClock('2026-04-01T09:00:00.000Z');
  let t: TestContext;
  let other: { communityId: number; token: string; objectTypeId: number; segmentId: number };
  const type = { deal: 0, ticket: 0 };

  const db = () => t.services.db;
  const keyOf = (id: string) => Number(id.replace(/^s_/, ''));

  const send = (method: 'POST' | 'PATCH', url: string, payload: unknown, token: string | null = t.token) => t.send(method, url, payload, token);
  const create = (body: unknown, token?: string | null) => send('POST', '/api/v2/segments', body, token);
  const rename = (id: string, body: unknown, token?: string | null) => send('PATCH', `/api/v2/segments/${id}`, body, token);

  async function created(body: unknown): Promise<Created['data']> {
    const response = await create(body);
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as Created).data;
  }

  function expectFailure(response: { statusCode: number; json(): unknown; body: string }, status: number, code: string) {
    expect(response.statusCode, response.body).toBe(status);
    const body = response.json() as Failure;
    expect(body).toMatchObject({ success: false, error: { code } });
    return body.error;
  }

  const row = (id: string) =>
    db().selectFrom('segments').selectAll().where('community_id', '=', t.communityId).where('id', '=', keyOf(id)).executeTakeFirstOrThrow();

  beforeAll(async () => {
    t = await createTestContext(engine, { clock });
    type.deal = (await t.newObjectType({ name: 'Deal' })).key;
    type.ticket = (await t.newObjectType({ name: 'Ticket' })).key;
    const { communityId } = await t.newCommunity('Other');
    const objectTypeId = (await t.newObjectType({ communityId, name: 'Deal' })).key;
    const segmentId = (await t.newSegment({ communityId, name: 'Their segment' })).key;
    other = { communityId, token: await t.issueToken(['read', 'write'], communityId), objectTypeId, segmentId };
  });
  afterAll(() => t?.close());

  describe('create', () => {
    it('answers 201 {success, data: {id, name}}; a contact segment by default, with its description as written', async () => {
      const response = await create({ name: 'Champions', description: '# Our champions\n\nPeople who **advocate**.  \n' });
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json() as Created;
      expect(Object.keys(body)).toEqual(['success', 'data']);
      expect(body).toEqual({ success: true, data: { id: expect.stringMatching(/^s_[0-9]+$/), name: 'Champions' } });
      const got = await t.get(`/api/v2/segments/${body.data.id}`);
      expect(got.json()).toEqual({ success: true, data: { id: body.data.id, name: 'Champions', entityType: 'contact' } });
      const stored = await row(body.data.id);
      expect(stored).toMatchObject({
        entity_type: 'contact',
        object_type_id: null,
        description: '# Our champions\n\nPeople who **advocate**.  \n',
        created_at: clock.now(),
        updated_at: clock.now(),
      });
    });

    it('makes organization and object segments; an object segment keeps its object type', async () => {
      const organization = await created({ name: 'Target accounts', entityType: 'organization' });
      expect((await t.get(`/api/v2/segments/${organization.id}`)).json().data.entityType).toBe('organization');
      const object = await created({ name: 'Hot deals', entityType: 'object', objectTypeId: `cot_${type.deal}` });
      expect((await t.get(`/api/v2/segments/${object.id}`)).json().data.entityType).toBe('object');
      expect(await row(object.id)).toMatchObject({ entity_type: 'object', object_type_id: type.deal, description: null });
      // The new object segment is usable at once: GET /api/v2/objects takes it as a segmentId of its type.
      const listed = await t.get(`/api/v2/objects?objectTypeId=cot_${type.deal}&segmentId=${object.id}`);
      expect(listed.json()).toEqual({ success: true, data: [], meta: { nextCursor: null } });
      const contact = await created({ name: 'Explicit contacts', entityType: 'contact', objectTypeId: null, description: null });
      expect(await row(contact.id)).toMatchObject({ entity_type: 'contact', object_type_id: null, description: null });
    });

    it('trims the name; a blank description is stored as none', async () => {
      const segment = await created({ name: '  \tNewsletter readers \n', description: '   ' });
      expect(segment.name).toBe('Newsletter readers');
      expect(await row(segment.id)).toMatchObject({ name: 'Newsletter readers', description: null });
    });

    it('a name is 1..500 characters after trimming, counted as characters (not UTF-16 units)', async () => {
      const longest = 'n'.repeat(500);
      expect((await created({ name: `  ${longest}  ` })).name).toBe(longest);
      // 500 emoji are 1000 UTF-16 units but 500 characters, as PostgreSQL counts them.
      expect((await created({ name: '🔥'.repeat(500) })).name).toBe('🔥'.repeat(500));
      const tooLong = expectFailure(await create({ name: 'x'.repeat(501) }), 400, 'invalid_parameters');
      expect(tooLong.message).toContain('501 characters');
      for (const name of ['', '   ', '\n\t']) expectFailure(await create({ name }), 400, 'invalid_parameters');
      const missing = expectFailure(await create({ entityType: 'contact' }), 400, 'invalid_parameters');
      expect(missing.message).toContain('"name" is required');
      // Bodies are never coerced.
      expectFailure(await create({ name: 42 }), 400, 'invalid_parameters');
    });

    it('a description is markdown of at most 20000 characters', async () => {
      expect((await created({ name: 'Long description', description: 'd'.repeat(20_000) })).name).toBe('Long description');
      const error = expectFailure(await create({ name: 'Too long description', description: 'd'.repeat(20_001) }), 400, 'invalid_parameters');
      expect(error.message).toContain('description');
    });

    it('a name that another segment of the same entity type has, ignoring case, is a 409 naming that segment', async () => {
      const first = await created({ name: 'Power users' });
      for (const name of ['Power users', 'POWER USERS', '  power Users ']) {
        const error = expectFailure(await create({ name }), 409, 'conflict');
        expect(error.message).toContain(`segment ${first.id} ("Power users")`);
      }
      // Another entity type may use the name.
      await created({ name: 'Power users', entityType: 'organization' });
      await created({ name: 'power users', entityType: 'object', objectTypeId: `cot_${type.deal}` });
      // Names are unique per entity type (the segments_name index), so across object types too.
      expectFailure(await create({ name: 'Power Users', entityType: 'object', objectTypeId: `cot_${type.ticket}` }), 409, 'conflict');
      const count = await db()
        .selectFrom('segments')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('community_id', '=', t.communityId)
        .where((eb) => eb(eb.fn('lower', ['name']), '=', 'power users'))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(3);
    });

    it('concurrent creates of one name: exactly one wins, the others are 409', async () => {
      const responses = await Promise.all(Array.from({ length: 6 }, (_, index) => create({ name: index % 2 ? 'Race' : 'RACE' })));
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses, responses.map((response) => response.body).join('\n')).toEqual([201, 409, 409, 409, 409, 409]);
      for (const response of responses.filter((response) => response.statusCode === 409)) {
        expect(response.json()).toMatchObject({ success: false, error: { code: 'conflict' } });
      }
    });

    it('objectTypeId is required exactly for object segments', async () => {
      const missing = expectFailure(await create({ name: 'No type', entityType: 'object' }), 400, 'invalid_parameters');
      expect(missing.message).toContain('objectTypeId is required');
      expectFailure(await create({ name: 'Null type', entityType: 'object', objectTypeId: null }), 400, 'invalid_parameters');
      for (const entityType of [undefined, 'contact', 'organization']) {
        const error = expectFailure(await create({ name: `Typed ${entityType}`, entityType, objectTypeId: `cot_${type.deal}` }), 400, 'invalid_object_type_id');
        expect(error.invalidIds).toEqual([`cot_${type.deal}`]);
      }
    });

    it("a malformed, unknown or other community's object type is a 400 invalid_object_type_id, and nothing is made", async () => {
      for (const objectTypeId of ['deal', `${type.deal}`, 'cot_', 'cot_x', `co_${type.deal}`, 'cot_99999999999999999']) {
        const error = expectFailure(await create({ name: `Bad ${objectTypeId}`, entityType: 'object', objectTypeId }), 400, 'invalid_object_type_id');
        expect(error.invalidIds).toEqual([objectTypeId]);
      }
      for (const objectTypeId of ['cot_999999', `cot_${other.objectTypeId}`]) {
        const error = expectFailure(await create({ name: 'Unknown type', entityType: 'object', objectTypeId }), 400, 'invalid_object_type_id');
        expect(error.invalidIds).toEqual([objectTypeId]);
        expect(error.message).toContain(objectTypeId);
      }
      const made = await db().selectFrom('segments').select('id').where('name', 'in', ['Unknown type', 'Bad deal']).execute();
      expect(made).toEqual([]);
    });

    it('bodies are strict: an unknown field or a bad entity type is a 400 naming it', async () => {
      const unknown = expectFailure(await create({ name: 'Strict', color: 'red' }), 400, 'invalid_parameters');
      expect(unknown.message).toContain('"color"');
      const badType = expectFailure(await create({ name: 'Strict', entityType: 'person' }), 400, 'invalid_parameters');
      expect(badType.message).toContain('entityType');
      expectFailure(await create({ name: 'Strict', description: 7 }), 400, 'invalid_parameters');
      expectFailure(await create(['Strict']), 400, 'invalid_parameters');
    });

    it('needs segments:write (or write): another scope is 403', async () => {
      for (const scopes of [['segments:read'], ['read'], ['objects:write', 'contacts:write']]) {
        const response = await create({ name: `Scoped ${scopes.join()}` }, await t.issueToken(scopes));
        expect(response.statusCode, scopes.join()).toBe(403);
        expect(response.json()).toMatchObject({ status: 'forbidden' });
      }
      expect((await create({ name: 'No token' }, null)).statusCode).toBe(403);
      expect((await create({ name: 'Scoped write' }, await t.issueToken(['segments:write']))).statusCode).toBe(201);
      expect((await create({ name: 'Scoped all' }, await t.issueToken(['write']))).statusCode).toBe(201);
    });

    it("isolation: a name taken in another community is free here, and the segment is made in the token's community", async () => {
      const response = await create({ name: 'Their segment' });
      expect(response.statusCode, response.body).toBe(201);
      expect((await row((response.json() as Created).data.id)).community_id).toBe(t.communityId);
      const theirs = await create({ name: 'Champions' }, other.token);
      expect(theirs.statusCode, theirs.body).toBe(201);
      const theirId = (theirs.json() as Created).data.id;
      expect((await t.get(`/api/v2/segments/${theirId}`)).statusCode).toBe(404);
      expect((await t.get(`/api/v2/segments/${theirId}`, other.token)).json().data.name).toBe('Champions');
    });
  });

  describe('rename', () => {
    let contactIds: number[];

    beforeAll(async () => {
      contactIds = [];
      for (const name of ['Ada', 'Grace']) contactIds.push((await t.newContact({ fullName: name })).key);
    });

    it('sets the name and keeps the ID, entity type, description and members', async () => {
      const segment = await created({ name: 'Beta testers', description: 'Early access' });
      await db()
        .insertInto('segment_memberships')
        .values(contactIds.map((entity_id) => ({ community_id: t.communityId, segment_id: keyOf(segment.id), entity_id })))
        .execute();
      clock.advance(60_000);
      const response = await rename(segment.id, { name: '  Early adopters ' });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ success: true, data: { id: segment.id, name: 'Early adopters' } });
      const got = await t.get(`/api/v2/segments/${segment.id}?cols=entityCount`);
      expect(got.json()).toEqual({ success: true, data: { id: segment.id, name: 'Early adopters', entityType: 'contact', entityCount: 2 } });
      const stored = await row(segment.id);
      expect(stored).toMatchObject({ description: 'Early access', entity_type: 'contact', updated_at: clock.now() });
      expect(stored.created_at.getTime()).toBe(clock.now().getTime() - 60_000);
    });

    it("keeps an object segment's object type", async () => {
      const segment = await created({ name: 'Open tickets', entityType: 'object', objectTypeId: `cot_${type.ticket}` });
      expect((await rename(segment.id, { name: 'Urgent tickets' })).statusCode).toBe(200);
      expect(await row(segment.id)).toMatchObject({ name: 'Urgent tickets', entity_type: 'object', object_type_id: type.ticket });
    });

    it("the segment's own name in another case is fine; another segment's name of the same entity type is a 409", async () => {
      const first = await created({ name: 'Speakers' });
      const second = await created({ name: 'Sponsors' });
      const recased = await rename(first.id, { name: 'SPEAKERS' });
      expect(recased.json()).toEqual({ success: true, data: { id: first.id, name: 'SPEAKERS' } });
      const error = expectFailure(await rename(second.id, { name: 'speakers' }), 409, 'conflict');
      expect(error.message).toContain(`segment ${first.id} ("SPEAKERS")`);
      expect((await row(second.id)).name).toBe('Sponsors');
      // An organization segment may take a name that only a contact segment has.
      const organization = await created({ name: 'Sponsor accounts', entityType: 'organization' });
      expect((await rename(organization.id, { name: 'Sponsors' })).statusCode).toBe(200);
      const organizationTwin = await created({ name: 'Other accounts', entityType: 'organization' });
      expectFailure(await rename(organizationTwin.id, { name: 'SPONSORS' }), 409, 'conflict');
    });

    it('concurrent renames of two segments to one name: one wins, the other is 409', async () => {
      const a = await created({ name: 'Race A' });
      const b = await created({ name: 'Race B' });
      const responses = await Promise.all([rename(a.id, { name: 'Race winner' }), rename(b.id, { name: 'race WINNER' })]);
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409]);
    });

    it('name rules as on create; the body takes only name', async () => {
      const segment = await created({ name: 'Rules' });
      expectFailure(await rename(segment.id, { name: '   ' }), 400, 'invalid_parameters');
      expectFailure(await rename(segment.id, { name: 'x'.repeat(501) }), 400, 'invalid_parameters');
      expect((await rename(segment.id, { name: 'y'.repeat(500) })).statusCode).toBe(200);
      expectFailure(await rename(segment.id, {}), 400, 'invalid_parameters');
      for (const extra of [{ entityType: 'organization' }, { description: 'new' }, { objectTypeId: `cot_${type.deal}` }]) {
        const error = expectFailure(await rename(segment.id, { name: 'Rules', ...extra }), 400, 'invalid_parameters');
        expect(error.message).toContain(`"${Object.keys(extra)[0]}"`);
      }
      expect((await row(segment.id)).name).toBe('y'.repeat(500));
    });

    it("a malformed ID is 400 invalid_segment_id; an unknown or other community's segment is 404, and is not touched", async () => {
      for (const id of [`${contactIds[0]}`, 's_x', `c_${contactIds[0]}`]) {
        const error = expectFailure(await rename(id, { name: 'Nope' }), 400, 'invalid_segment_id');
        expect(error.invalidIds).toEqual([id]);
      }
      expectFailure(await rename('s_999999', { name: 'Nope' }), 404, 'segment_not_found');
      expectFailure(await rename(`s_${other.segmentId}`, { name: 'Hijacked' }), 404, 'segment_not_found');
      const theirs = await db().selectFrom('segments').select('name').where('id', '=', other.segmentId).executeTakeFirstOrThrow();
      expect(theirs.name).toBe('Their segment');
    });

    it('needs segments:write (or write): another scope is 403', async () => {
      const segment = await created({ name: 'Scope check' });
      for (const scopes of [['segments:read'], ['read'], ['objects:write']]) {
        expect((await rename(segment.id, { name: 'Renamed' }, await t.issueToken(scopes))).statusCode, scopes.join()).toBe(403);
      }
      expect((await row(segment.id)).name).toBe('Scope check');
      expect((await rename(segment.id, { name: 'Renamed' }, await t.issueToken(['segments:write']))).statusCode).toBe(200);
    });
  });
});
