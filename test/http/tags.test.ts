import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { TEST_PUBLIC_URL } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Tag {
  id: string;
  name: string;
  description: string | null;
  entityTypes: string[];
  createdAt: string;
  deletedAt?: string | null;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const keyOf = (id: string) => Number(id.slice(2));

describe.each(ENGINES)('tags (%s)', (engine) => {
  let t: TestContext;
  let writer: string;
  let reader: string;
  let betaId: number;
  let beta: string;

  const send = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, token = t.token) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as string }),
    });

  async function create(body: Record<string, unknown>, token = t.token): Promise<Tag> {
    const response = await send('POST', '/community/v1/tags', body, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  const db = () => t.services.db;

  async function assign(communityId: number, tagId: string, entityType: 'contact' | 'organization' | 'activity', entityId: number) {
    await db()
      .insertInto('tag_assignments')
      .values({ community_id: communityId, tag_id: keyOf(tagId), entity_type: entityType, entity_id: entityId })
      .execute();
  }

  async function assignmentsOf(communityId: number, tagId: string) {
    return db()
      .selectFrom('tag_assignments')
      .select(['entity_type as entityType', 'entity_id as entityId'])
      .where('community_id', '=', communityId)
      .where('tag_id', '=', keyOf(tagId))
      .orderBy('entity_type')
      .execute();
  }

  beforeAll(async () => {
    t = await createTestContext(engine);
    writer = await t.issueToken(['tags:write']);
    reader = await t.issueToken(['contacts:read']);
    betaId = (await t.newCommunity('Beta')).communityId;
    beta = await t.issueToken(['read', 'write'], betaId);
  });
  afterAll(() => t?.close());

  describe('create', () => {
    it('creates a tag and answers the Tag: l_N, trimmed name, entity types in order, no deletedAt', async () => {
      const response = await send('POST', '/community/v1/tags', { name: '  Champion  ', entityTypes: ['company', 'member', 'company'] }, writer);
      expect(response.statusCode).toBe(200);
      const tag = response.json();
      expect(tag).toStrictEqual({
        id: expect.stringMatching(/^l_\d+$/),
        name: 'Champion',
        description: null,
        entityTypes: ['member', 'company'],
        createdAt: expect.stringMatching(ISO),
      });
      expect((await send('GET', `/community/v1/tags/${tag.id}`, undefined, reader)).json()).toStrictEqual(tag);
    });

    it('keeps a description', async () => {
      const tag = await create({ name: 'Described', description: 'Has words', entityTypes: ['activity'] });
      expect(tag).toMatchObject({ name: 'Described', description: 'Has words', entityTypes: ['activity'] });
    });

    it('returns the existing tag for a name that matches trimmed and case-insensitively, adding entity types', async () => {
      const first = await create({ name: 'Power User', description: 'first', entityTypes: ['member'] });
      const again = await create({ name: '  power USER ', description: 'second', entityTypes: ['activity'] });
      expect(again.id).toBe(first.id);
      expect(again).toMatchObject({ name: 'Power User', description: 'first', entityTypes: ['member', 'activity'], createdAt: first.createdAt });
      const rows = await db()
        .selectFrom('tags')
        .select('id')
        .where('community_id', '=', t.communityId)
        .where(sql<boolean>`lower(name) = 'power user'`)
        .execute();
      expect(rows).toHaveLength(1);
    });

    it('undeletes a deleted tag whose name matches', async () => {
      const tag = await create({ name: 'Churned', entityTypes: ['member'] });
      expect((await send('DELETE', `/community/v1/tags/${tag.id}`)).statusCode).toBe(200);
      const again = await create({ name: 'CHURNED', entityTypes: ['member'] });
      expect(again.id).toBe(tag.id);
      expect(again).not.toHaveProperty('deletedAt');
      const listed = (await send('GET', '/community/v1/tags')).json().labels as Tag[];
      expect(listed.map((item) => item.id)).toContain(tag.id);
    });

    it.each([
      [{ name: 'X', entityTypes: ['member'], colour: 'red' }, 'unknown body field "colour"'],
      [{ entityTypes: ['member'] }, 'body field "name" is required'],
      [{ name: 'X' }, 'body field "entityTypes" is required'],
      [{ name: 'X', entityTypes: [] }, 'entityTypes'],
      [{ name: 'X', entityTypes: ['contact'] }, 'must be one of "member", "activity", "company"'],
      [{ name: 'X', entityTypes: 'member' }, 'entityTypes'],
      [{ name: 5, entityTypes: ['member'] }, 'name'],
      [{ name: '', entityTypes: ['member'] }, 'name'],
      [{ name: '   ', entityTypes: ['member'] }, 'not blank'],
      [{ name: 'x'.repeat(256), entityTypes: ['member'] }, 'at most 255 characters'],
      [{ name: 'X', description: 7, entityTypes: ['member'] }, 'description'],
      [{ name: 'X', description: 'd'.repeat(5001), entityTypes: ['member'] }, 'at most 5000 characters'],
      [{ name: 'a\u0000b', entityTypes: ['member'] }, 'NUL'],
      [{ name: 'X', description: 'd\u0000', entityTypes: ['member'] }, 'NUL'],
    ])('answers a core 400 for a bad body %j', async (body, detail) => {
      const response = await send('POST', '/community/v1/tags', body);
      expect(response.statusCode).toBe(400);
      const error = response.json();
      expect(error).toStrictEqual({ reason: expect.any(String), docs: `${TEST_PUBLIC_URL}/docs`, detail: expect.any(String) });
      expect(error.detail).toContain(detail);
    });

    it('answers a body that is not JSON with a core 400', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/community/v1/tags',
        headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
        payload: '{"name": ',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ reason: 'invalid-request-body', docs: expect.any(String) });
    });
  });

  describe('read', () => {
    it('lists tags in ID order as {labels}, leaving deleted ones out', async () => {
      const kept = await create({ name: 'Listed', entityTypes: ['member'] });
      const gone = await create({ name: 'Unlisted', entityTypes: ['member'] });
      await send('DELETE', `/community/v1/tags/${gone.id}`);
      const response = await send('GET', '/community/v1/tags', undefined, reader);
      expect(response.statusCode).toBe(200);
      const labels = response.json().labels as Tag[];
      expect(labels.map((tag) => tag.id)).toContain(kept.id);
      expect(labels.map((tag) => tag.id)).not.toContain(gone.id);
      expect(labels.every((tag) => !('deletedAt' in tag))).toBe(true);
      const keys = labels.map((tag) => keyOf(tag.id));
      expect(keys).toEqual([...keys].sort((a, b) => a - b));
    });

    it('keeps a deleted tag readable, with deletedAt, in both families', async () => {
      const tag = await create({ name: 'Readable when deleted', entityTypes: ['member'] });
      const deleted = (await send('DELETE', `/community/v1/tags/${tag.id}`)).json();
      const core = await send('GET', `/community/v1/tags/${tag.id}`, undefined, reader);
      expect(core.statusCode).toBe(200);
      expect(core.json()).toStrictEqual({ ...tag, deletedAt: expect.stringMatching(ISO) });
      expect(core.json().deletedAt).toBe(deleted.deletedAt);
      const v2 = await send('GET', `/api/v2/tags/${tag.id}`, undefined, reader);
      expect(v2.statusCode).toBe(200);
      expect(v2.json()).toStrictEqual({ success: true, data: { ...tag, entityTypes: ['contact'], deletedAt: deleted.deletedAt } });
    });

    it('takes the bare number in the core family', async () => {
      const tag = await create({ name: 'Bare number', entityTypes: ['member'] });
      const response = await send('GET', `/community/v1/tags/${keyOf(tag.id)}`);
      expect(response.statusCode).toBe(200);
      expect(response.json().id).toBe(tag.id);
    });

    it('renders deletedAt as null for an active tag in v2', async () => {
      const tag = await create({ name: 'Active v2', entityTypes: ['company'] });
      expect((await send('GET', `/api/v2/tags/${tag.id}`)).json().data).toStrictEqual({ ...tag, entityTypes: ['organization'], deletedAt: null });
    });

    it("names entity types in each family's vocabulary: member/company in core, contact/organization in v2", async () => {
      const tag = await create({ name: 'Every kind', entityTypes: ['member', 'company', 'activity'] });
      expect(tag.entityTypes).toEqual(['member', 'activity', 'company']);
      expect((await send('GET', `/api/v2/tags/${tag.id}`)).json().data.entityTypes).toEqual(['contact', 'activity', 'organization']);
      const listed = (await send('GET', '/api/v2/tags?limit=1000')).json().data as Tag[];
      expect(listed.find((item) => item.id === tag.id)!.entityTypes).toEqual(['contact', 'activity', 'organization']);
      expect((await send('GET', `/community/v1/tags/${tag.id}`)).json().entityTypes).toEqual(['member', 'activity', 'company']);
    });

    it('pages the v2 list by ID with a cursor, leaving deleted tags out', async () => {
      for (const name of ['Page 1', 'Page 2', 'Page 3', 'Page 4', 'Page 5']) await create({ name, entityTypes: ['member'] });
      const deleted = await create({ name: 'Page deleted', entityTypes: ['member'] });
      await send('DELETE', `/community/v1/tags/${deleted.id}`);
      const everything = (await send('GET', '/community/v1/tags')).json().labels as Tag[];

      for (const direction of ['asc', 'desc'] as const) {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const url: string = `/api/v2/tags?limit=2&direction=${direction}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          const response = await send('GET', url, undefined, reader);
          expect(response.statusCode).toBe(200);
          const body = response.json() as { success: boolean; data: Tag[]; meta: { nextCursor: string | null } };
          expect(body.success).toBe(true);
          expect(body.data.length).toBeLessThanOrEqual(2);
          seen.push(...body.data.map((tag) => tag.id));
          cursor = body.meta.nextCursor;
        } while (cursor);
        const expected = everything.map((tag) => tag.id);
        expect(seen).toEqual(direction === 'asc' ? expected : [...expected].reverse());
        expect(seen).not.toContain(deleted.id);
      }
    });

    it('refuses a cursor of another direction and a forged one', async () => {
      const page = (await send('GET', '/api/v2/tags?limit=1')).json();
      expect(page.meta.nextCursor).toEqual(expect.any(String));
      const other = await send('GET', `/api/v2/tags?limit=1&direction=desc&cursor=${page.meta.nextCursor}`);
      expect(other.statusCode).toBe(400);
      expect(other.json().error.code).toBe('invalid_cursor');
      const forged = await send('GET', '/api/v2/tags?cursor=abc.def');
      expect(forged.statusCode).toBe(400);
      expect(forged.json().error.code).toBe('invalid_cursor');
    });

    it('rejects bad v2 list parameters', async () => {
      for (const query of ['limit=0', 'limit=1001', 'limit=x', 'sort=name', 'direction=up']) {
        const response = await send('GET', `/api/v2/tags?${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(response.json().error.code).toBe('invalid_parameters');
      }
    });

    it('rejects unknown query parameters on the core list', async () => {
      const response = await send('GET', '/community/v1/tags?limit=5');
      expect(response.statusCode).toBe(400);
      expect(response.json().detail).toBe('unknown query parameter "limit"');
    });
  });

  describe('bad and unknown IDs', () => {
    it.each(['abc', 'l_', 'l_x', 'c_5', '-1', '1.5', 'l_99999999999999999'])('core %s is a 400 invalid-tag-id', async (id) => {
      for (const [method, payload] of [
        ['GET', undefined],
        ['POST', { name: 'Whatever' }],
        ['DELETE', undefined],
      ] as const) {
        const response = await send(method, `/community/v1/tags/${encodeURIComponent(id)}`, payload);
        expect(response.statusCode, `${method} ${id}`).toBe(400);
        expect(response.json()).toMatchObject({ reason: 'invalid-tag-id', docs: expect.any(String), detail: expect.stringContaining(id) });
      }
    });

    it('core: an unknown tag is a 404 in the core format', async () => {
      for (const [method, payload] of [
        ['GET', undefined],
        ['POST', { name: 'Whatever' }],
        ['DELETE', undefined],
      ] as const) {
        const response = await send(method, '/community/v1/tags/l_987654321', payload);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toStrictEqual({ status: 'not-found', reason: 'tag l_987654321 not found' });
      }
    });

    it('v2 takes only l_N: a bare number is a 400, an unknown tag a 404', async () => {
      const tag = await create({ name: 'V2 only prefixed', entityTypes: ['member'] });
      const bare = await send('GET', `/api/v2/tags/${keyOf(tag.id)}`);
      expect(bare.statusCode).toBe(400);
      expect(bare.json()).toMatchObject({ success: false, error: { code: 'invalid_tag_id', invalidIds: [String(keyOf(tag.id))] } });
      const unknown = await send('GET', '/api/v2/tags/l_987654321');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ success: false, error: { code: 'tag_not_found' } });
    });
  });

  describe('update', () => {
    it('renames and sets the description; omitting it keeps it, null clears it', async () => {
      const tag = await create({ name: 'Before', description: 'old', entityTypes: ['member'] });
      const renamed = await send('POST', `/community/v1/tags/${tag.id}`, { name: ' After ' }, writer);
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toStrictEqual({ ...tag, name: 'After', description: 'old' });
      const described = (await send('POST', `/community/v1/tags/${tag.id}`, { name: 'After', description: 'new' })).json();
      expect(described.description).toBe('new');
      const cleared = (await send('POST', `/community/v1/tags/${keyOf(tag.id)}`, { name: 'After', description: null })).json();
      expect(cleared).toStrictEqual({ ...tag, name: 'After', description: null });
    });

    it('undeletes a deleted tag without restoring its old assignments', async () => {
      const tag = await create({ name: 'Comeback', entityTypes: ['member'] });
      const contact = (await t.newContact({ fullName: 'Tagged once' })).key;
      await assign(t.communityId, tag.id, 'contact', contact);
      await send('DELETE', `/community/v1/tags/${tag.id}`);
      expect(await assignmentsOf(t.communityId, tag.id)).toEqual([]);

      const response = await send('POST', `/community/v1/tags/${tag.id}`, { name: 'Comeback' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual(tag);
      expect(await assignmentsOf(t.communityId, tag.id)).toEqual([]);
      expect(((await send('GET', '/community/v1/tags')).json().labels as Tag[]).map((item) => item.id)).toContain(tag.id);
    });

    it('answers 409 for the name of another tag, deleted or not, and allows a change of case of its own', async () => {
      const one = await create({ name: 'Taken', entityTypes: ['member'] });
      const other = await create({ name: 'Mine', entityTypes: ['member'] });
      const conflict = await send('POST', `/community/v1/tags/${other.id}`, { name: ' TAKEN ' });
      expect(conflict.statusCode).toBe(409);
      expect(conflict.json()).toStrictEqual({ status: 'conflict', reason: expect.stringContaining(one.id) });

      const ghost = await create({ name: 'Ghost', entityTypes: ['member'] });
      await send('DELETE', `/community/v1/tags/${ghost.id}`);
      const deletedConflict = await send('POST', `/community/v1/tags/${other.id}`, { name: 'ghost' });
      expect(deletedConflict.statusCode).toBe(409);
      expect(deletedConflict.json().reason).toContain('deleted');

      expect((await send('GET', `/community/v1/tags/${other.id}`)).json().name).toBe('Mine');
      const recased = await send('POST', `/community/v1/tags/${other.id}`, { name: 'MINE' });
      expect(recased.statusCode).toBe(200);
      expect(recased.json().name).toBe('MINE');
    });

    it.each([
      [{ name: 'X', entityTypes: ['member'] }, 'unknown body field "entityTypes"'],
      [{ description: 'only' }, 'body field "name" is required'],
      [{ name: '  ' }, 'not blank'],
      [{ name: 'X', description: ['a'] }, 'description'],
      [{ name: 'nul\u0000' }, 'NUL'],
    ])('answers a core 400 for a bad update body %j', async (body, detail) => {
      const tag = await create({ name: 'Update target', entityTypes: ['member'] });
      const response = await send('POST', `/community/v1/tags/${tag.id}`, body);
      expect(response.statusCode).toBe(400);
      expect(response.json().detail).toContain(detail);
    });
  });

  describe('delete', () => {
    it('removes the tag from every contact, organization and activity, and no other tag', async () => {
      const doomed = await create({ name: 'Doomed', entityTypes: ['member', 'activity', 'company'] });
      const survivor = await create({ name: 'Survivor', entityTypes: ['member', 'activity', 'company'] });
      const person = await t.newContact({ fullName: 'Tagged person' });
      const contact = person.key;
      const organization = (await t.newOrganization({ domain: 'tagged-example.com' })).key;
      const activity = (await t.newActivity({ id: 'tagged-1', user: { id: person.externalId } })).key;
      for (const tag of [doomed, survivor]) {
        await assign(t.communityId, tag.id, 'contact', contact);
        await assign(t.communityId, tag.id, 'organization', organization);
        await assign(t.communityId, tag.id, 'activity', activity);
      }

      const response = await send('DELETE', `/community/v1/tags/${doomed.id}`, undefined, writer);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ ...doomed, deletedAt: expect.stringMatching(ISO) });
      expect(await assignmentsOf(t.communityId, doomed.id)).toEqual([]);
      expect(await assignmentsOf(t.communityId, survivor.id)).toEqual([
        { entityType: 'activity', entityId: activity },
        { entityType: 'contact', entityId: contact },
        { entityType: 'organization', entityId: organization },
      ]);
      // The row stays, marked deleted.
      const row = await db()
        .selectFrom('tags')
        .select('deleted_at')
        .where('community_id', '=', t.communityId)
        .where('id', '=', keyOf(doomed.id))
        .executeTakeFirstOrThrow();
      expect(row.deleted_at).toBeInstanceOf(Date);
    });

    it('deleting a deleted tag changes nothing and keeps the first deletion time', async () => {
      const tag = await create({ name: 'Twice deleted', entityTypes: ['member'] });
      const first = (await send('DELETE', `/community/v1/tags/${tag.id}`)).json();
      const second = await send('DELETE', `/community/v1/tags/${keyOf(tag.id)}`);
      expect(second.statusCode).toBe(200);
      expect(second.json()).toStrictEqual(first);
    });

    it('is one transaction: when marking the tag deleted fails, its assignments stay', async () => {
      const tag = await create({ name: 'Unbreakable', entityTypes: ['member'] });
      const contact = (await t.newContact({ fullName: 'Still tagged' })).key;
      await assign(t.communityId, tag.id, 'contact', contact);
      await sql`
        create function refuse_tag_delete() returns trigger language plpgsql as $$
        begin
          if new.deleted_at is not null and new.name = 'Unbreakable' then raise exception 'refused for the test'; end if;
          return new;
        end $$`.execute(db());
      // A Citus cluster takes a trigger on a distributed table only when told to (a placeholder setting elsewhere).
      const withTriggersAllowed = (statement: ReturnType<typeof sql>) =>
        db()
          .connection()
          .execute(async (session) => {
            await sql`set citus.enable_unsafe_triggers = on`.execute(session);
            try {
              await statement.execute(session);
            } finally {
              await sql`reset citus.enable_unsafe_triggers`.execute(session);
            }
          });
      await withTriggersAllowed(sql`create trigger refuse_tag_delete before update on tags for each row execute function refuse_tag_delete()`);
      try {
        const response = await send('DELETE', `/community/v1/tags/${tag.id}`);
        expect(response.statusCode).toBe(500);
      } finally {
        await withTriggersAllowed(sql`drop trigger refuse_tag_delete on tags`);
        await sql`drop function refuse_tag_delete()`.execute(db());
      }
      expect(await assignmentsOf(t.communityId, tag.id)).toEqual([{ entityType: 'contact', entityId: contact }]);
      expect((await send('GET', `/community/v1/tags/${tag.id}`)).json()).not.toHaveProperty('deletedAt');
    });
  });

  describe('scopes', () => {
    it('writes need tags:write', async () => {
      const tag = await create({ name: 'Scoped', entityTypes: ['member'] });
      for (const [method, url, payload] of [
        ['POST', '/community/v1/tags', { name: 'Nope', entityTypes: ['member'] }],
        ['POST', `/community/v1/tags/${tag.id}`, { name: 'Nope' }],
        ['DELETE', `/community/v1/tags/${tag.id}`, undefined],
      ] as const) {
        const response = await send(method, url, payload, reader);
        expect(response.statusCode, `${method} ${url}`).toBe(403);
        expect(response.json()).toMatchObject({ status: 'forbidden', reason: expect.stringContaining('tags:write') });
      }
      expect((await send('GET', `/community/v1/tags/${tag.id}`)).json()).toStrictEqual(tag);
    });

    it('reads need contacts:read', async () => {
      const tag = await create({ name: 'Scoped read', entityTypes: ['member'] });
      for (const url of ['/community/v1/tags', `/community/v1/tags/${tag.id}`, '/api/v2/tags', `/api/v2/tags/${tag.id}`]) {
        expect((await send('GET', url, undefined, writer)).statusCode, url).toBe(403);
        expect((await send('GET', url, undefined, reader)).statusCode, url).toBe(200);
      }
    });
  });

  describe('isolation between communities', () => {
    it("keeps each community's tags to itself, names included", async () => {
      const ofA = await create({ name: 'Shared name', description: 'A', entityTypes: ['member'] });
      const ofB = await create({ name: 'shared NAME', description: 'B', entityTypes: ['company'] }, beta);
      expect(ofB.id).not.toBe(ofA.id);
      expect(ofB).toMatchObject({ name: 'shared NAME', description: 'B', entityTypes: ['company'] });

      const listB = (await send('GET', '/community/v1/tags', undefined, beta)).json().labels as Tag[];
      expect(listB.map((tag) => tag.id)).toEqual([ofB.id]);
      const pageB = (await send('GET', '/api/v2/tags?limit=1000', undefined, beta)).json();
      expect(pageB.data.map((tag: Tag) => tag.id)).toEqual([ofB.id]);
      const listA = (await send('GET', '/community/v1/tags')).json().labels as Tag[];
      expect(listA.map((tag) => tag.id)).not.toContain(ofB.id);
    });

    it("answers 404 for another community's tag, and changes nothing", async () => {
      const ofA = await create({ name: 'A private', entityTypes: ['member'] });
      const contact = (await t.newContact({ fullName: 'A tagged' })).key;
      await assign(t.communityId, ofA.id, 'contact', contact);
      for (const [method, url, payload] of [
        ['GET', `/community/v1/tags/${ofA.id}`, undefined],
        ['GET', `/api/v2/tags/${ofA.id}`, undefined],
        ['POST', `/community/v1/tags/${ofA.id}`, { name: 'Hijacked' }],
        ['DELETE', `/community/v1/tags/${ofA.id}`, undefined],
      ] as const) {
        expect((await send(method, url, payload, beta)).statusCode, `${method} ${url}`).toBe(404);
      }
      expect((await send('GET', `/community/v1/tags/${ofA.id}`)).json()).toStrictEqual(ofA);
      expect(await assignmentsOf(t.communityId, ofA.id)).toEqual([{ entityType: 'contact', entityId: contact }]);
    });

    it("deleting B's tag leaves A's assignments of the same ID alone", async () => {
      // Same numeric key cannot exist in both communities (one identity), so check by deleting B's tag and
      // counting every assignment of A.
      const ofB = await create({ name: 'B doomed', entityTypes: ['member'] }, beta);
      const contactB = (await t.newContact({ fullName: 'B tagged', communityId: betaId })).key;
      await assign(betaId, ofB.id, 'contact', contactB);
      const before = await db()
        .selectFrom('tag_assignments')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('community_id', '=', t.communityId)
        .executeTakeFirstOrThrow();
      expect((await send('DELETE', `/community/v1/tags/${ofB.id}`, undefined, beta)).statusCode).toBe(200);
      expect(await assignmentsOf(betaId, ofB.id)).toEqual([]);
      const after = await db()
        .selectFrom('tag_assignments')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('community_id', '=', t.communityId)
        .executeTakeFirstOrThrow();
      expect(after.n).toBe(before.n);
    });
  });
});
