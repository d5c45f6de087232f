import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { mergeContacts } from '../../src/modules/identity/contact-merge.repository.ts';
import { lockContacts } from '../../src/modules/identity/identity.repository.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { pushUser } from '../helpers/ingest.ts';
import { untilALockIsAwaited } from '../helpers/lock-waits.ts';

interface ObjectType {
  id: string;
  name: string;
  assocs: { objectAssocType: string; targetEntity: string; targetObjectTypeId: string | null }[];
}
interface Upserted {
  ids: string[];
  created: number;
  updated: number;
}
interface CustomObject {
  id: string;
  name: string;
  recordKey?: string;
  customFields: Record<string, { type: string; value: unknown }>;
}

/**
 * The object administration routes under /api/v2/admin (docs/writing.md, Custom objects; docs/behaviour.md,
 * IDs, Errors, Scopes).
 */
describe.each(ENGINES)('custom object administration (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T09:00:00.000Z');
  let other: { communityId: number; admin: string; sourceId: number };
  let notAdmin: string;
  let counter = 0;
  const unique = (prefix: string) => `${prefix} ${++counter}`;

  const db = () => t.services.db;
  const key = (id: string) => Number(id.replace(/^[a-z]+_/, ''));

  function send(method: 'POST' | 'DELETE', url: string, payload?: unknown, token: string = t.token) {
    return t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
  }
  const post = (url: string, payload: unknown, token?: string) => send('POST', url, payload, token);

  async function createType(body: Record<string, unknown>, token?: string): Promise<ObjectType> {
    const response = await post('/api/v2/admin/object-types', body, token);
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as { data: ObjectType }).data;
  }
  async function upsert(body: Record<string, unknown>, token?: string): Promise<Upserted> {
    const response = await post('/api/v2/admin/objects', body, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: Upserted }).data;
  }
  async function listObjects(objectTypeId: string, token = t.token): Promise<CustomObject[]> {
    const response = await t.get(`/api/v2/objects?objectTypeId=${objectTypeId}&cols=recordKey&limit=1000`, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: CustomObject[] }).data;
  }
  async function objectCount(communityId = t.communityId) {
    const row = await db()
      .selectFrom('objects')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('community_id', '=', communityId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  async function linksOf(objectId: string) {
    return db()
      .selectFrom('object_associations as a')
      .innerJoin('object_type_assocs as t', (join) => join.onRef('t.community_id', '=', 'a.community_id').onRef('t.id', '=', 'a.assoc_id'))
      .select(['t.assoc_type as assocType', 'a.target_id as targetId'])
      .where('a.community_id', '=', t.communityId)
      .where('a.object_id', '=', key(objectId))
      .orderBy('t.assoc_type')
      .orderBy('a.target_id')
      .execute();
  }
  async function objectField(
    name: string,
    valueType: string,
    options: { objectTypeId?: string | null; entityTypes?: string[]; deleted?: boolean; enumValues?: string[] } = {},
  ) {
    const row = await db()
      .insertInto('custom_fields')
      .values({
        community_id: t.communityId,
        name,
        entity_types: options.entityTypes ?? ['object'],
        value_type: valueType,
        enum_values: options.enumValues ?? [],
        object_type_id: options.objectTypeId ? key(options.objectTypeId) : null,
        deleted_at: options.deleted ? clock.now() : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return `cf_${row.id}`;
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    const { communityId } = await t.services.communities.create('Other', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Theirs' });
    other = { communityId, admin: await t.issueToken(['admin', 'read', 'write'], communityId), sourceId: source.id };
    notAdmin = await t.issueToken(['read', 'write', 'objects:write']);
  });
  afterAll(() => t.close());

  describe('object types', () => {
    it('creates a type with its associations (201), as GET /api/v2/object-types shows it', async () => {
      const company = await createType({ name: unique('Company') });
      const response = await post('/api/v2/admin/object-types', {
        name: '  Deal  ',
        assocs: [
          { objectAssocType: 'owner', targetEntity: 'contact' },
          { objectAssocType: 'account', targetEntity: 'organization', targetObjectTypeId: null },
          { objectAssocType: 'parent-company', targetEntity: 'object', targetObjectTypeId: company.id },
        ],
      });
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json() as { success: true; data: ObjectType };
      expect(body).toEqual({
        success: true,
        data: {
          id: expect.stringMatching(/^cot_\d+$/),
          name: 'Deal',
          assocs: [
            { objectAssocType: 'owner', targetEntity: 'contact', targetObjectTypeId: null },
            { objectAssocType: 'account', targetEntity: 'organization', targetObjectTypeId: null },
            { objectAssocType: 'parent-company', targetEntity: 'object', targetObjectTypeId: company.id },
          ],
        },
      });
      const listed = (await t.get('/api/v2/object-types')).json() as { data: ObjectType[] };
      expect(listed.data).toContainEqual(body.data);
      expect(listed.data).toContainEqual(company);
      expect(company.assocs).toEqual([]);
    });

    it('refuses a second type of the same name, whatever its case (409)', async () => {
      const name = unique('Ticket');
      await createType({ name });
      const again = await post('/api/v2/admin/object-types', { name: ` ${name.toUpperCase()} ` });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ success: false, error: { code: 'conflict', message: expect.stringContaining(name) } });
    });

    it('names every fault of the associations in one 400, and creates nothing', async () => {
      const before = (await t.get('/api/v2/object-types')).json().data.length;
      const { communityId } = other;
      const theirs = await db()
        .insertInto('object_types')
        .values({ community_id: communityId, name: unique('Theirs') })
        .returning('id')
        .executeTakeFirstOrThrow();
      const response = await post('/api/v2/admin/object-types', {
        name: unique('Broken'),
        assocs: [
          { objectAssocType: 'parent', targetEntity: 'object' },
          { objectAssocType: 'owner', targetEntity: 'contact', targetObjectTypeId: 'cot_1' },
          { objectAssocType: 'owner', targetEntity: 'contact' },
          { objectAssocType: 'sibling', targetEntity: 'object', targetObjectTypeId: 'type-1' },
          { objectAssocType: 'cousin', targetEntity: 'object', targetObjectTypeId: `cot_${theirs.id}` },
        ],
      });
      expect(response.statusCode).toBe(400);
      const error = response.json().error as { code: string; message: string; invalidIds: string[] };
      expect(error.code).toBe('invalid_parameters');
      expect(error.message).toContain('assocs[0].targetObjectTypeId is required when targetEntity is object');
      expect(error.message).toContain('assocs[1].targetObjectTypeId is only for targetEntity object, not contact');
      expect(error.message).toContain('assocs[2].objectAssocType "owner" is given more than once');
      expect(error.message).toContain('assocs[3].targetObjectTypeId "type-1" is not an object type ID');
      expect(error.message).toContain(`assocs[4].targetObjectTypeId cot_${theirs.id} is not an object type of this community`);
      expect(error.invalidIds).toEqual(['cot_1', 'type-1', `cot_${theirs.id}`]);
      expect((await t.get('/api/v2/object-types')).json().data.length).toBe(before);
    });

    it('answers invalid_object_type_id when only the target type is at fault', async () => {
      const response = await post('/api/v2/admin/object-types', {
        name: unique('Orphan'),
        assocs: [{ objectAssocType: 'parent', targetEntity: 'object', targetObjectTypeId: 'cot_999999' }],
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid_object_type_id', invalidIds: ['cot_999999'] });
    });

    it('takes a strict body: unknown fields, bad keys and bad target entities are 400s naming them', async () => {
      const unknownField = await post('/api/v2/admin/object-types', { name: unique('X'), colour: 'red' });
      expect(unknownField.statusCode).toBe(400);
      expect(unknownField.json().error.message).toBe('unknown body field "colour"');
      const badKey = await post('/api/v2/admin/object-types', { name: unique('X'), assocs: [{ objectAssocType: 'has space', targetEntity: 'contact' }] });
      expect(badKey.statusCode).toBe(400);
      expect(badKey.json().error.message).toContain('assocs.0.objectAssocType');
      const badEntity = await post('/api/v2/admin/object-types', { name: unique('X'), assocs: [{ objectAssocType: 'a', targetEntity: 'activity' }] });
      expect(badEntity.statusCode).toBe(400);
      expect(badEntity.json().error.message).toContain('assocs.0.targetEntity');
      const noName = await post('/api/v2/admin/object-types', { name: '   ' });
      expect(noName.statusCode).toBe(400);
      expect(noName.json().error.message).toBe('an object type needs a name');
    });

    it('adds an association (201), refuses a duplicate (409) and checks its target', async () => {
      const type = await createType({ name: unique('Project'), assocs: [{ objectAssocType: 'lead', targetEntity: 'contact' }] });
      const added = await post(`/api/v2/admin/object-types/${type.id}/assocs`, {
        objectAssocType: 'parent',
        targetEntity: 'object',
        targetObjectTypeId: type.id,
      });
      expect(added.statusCode, added.body).toBe(201);
      expect(added.json()).toEqual({
        success: true,
        data: {
          id: type.id,
          name: type.name,
          assocs: [
            { objectAssocType: 'lead', targetEntity: 'contact', targetObjectTypeId: null },
            { objectAssocType: 'parent', targetEntity: 'object', targetObjectTypeId: type.id },
          ],
        },
      });
      const twice = await post(`/api/v2/admin/object-types/${type.id}/assocs`, { objectAssocType: 'lead', targetEntity: 'organization' });
      expect(twice.statusCode).toBe(409);
      expect(twice.json().error).toMatchObject({ code: 'conflict', message: `object type ${type.id} already has an association "lead"` });
      const noTarget = await post(`/api/v2/admin/object-types/${type.id}/assocs`, { objectAssocType: 'child', targetEntity: 'object' });
      expect(noTarget.statusCode).toBe(400);
      expect(noTarget.json().error.message).toBe('body.targetObjectTypeId is required when targetEntity is object');
    });

    it('removes an association with the links through it; an unknown one is a 404', async () => {
      const type = await createType({
        name: unique('Asset'),
        assocs: [
          { objectAssocType: 'holder', targetEntity: 'contact' },
          { objectAssocType: 'keeper', targetEntity: 'contact' },
        ],
      });
      const contactId = await pushUser(t, { id: unique('holder'), fullName: 'Holder' });
      const { ids } = await upsert({
        objectTypeId: type.id,
        records: [
          {
            recordKey: 'a-1',
            name: 'Laptop',
            associations: [
              { objectAssocType: 'holder', targetId: contactId },
              { objectAssocType: 'keeper', targetId: contactId },
            ],
          },
        ],
      });
      expect(await linksOf(ids[0]!)).toHaveLength(2);

      const removed = await send('DELETE', `/api/v2/admin/object-types/${type.id}/assocs/holder`);
      expect(removed.statusCode, removed.body).toBe(200);
      expect(removed.json().data.assocs).toEqual([{ objectAssocType: 'keeper', targetEntity: 'contact', targetObjectTypeId: null }]);
      expect(await linksOf(ids[0]!)).toEqual([{ assocType: 'keeper', targetId: key(contactId) }]);

      const again = await send('DELETE', `/api/v2/admin/object-types/${type.id}/assocs/holder`);
      expect(again.statusCode).toBe(404);
      expect(again.json().error).toMatchObject({ code: 'object_type_assoc_not_found', message: `object type ${type.id} has no association "holder"` });
    });

    it('answers a malformed type ID with 400 and an unknown or foreign one with 404', async () => {
      const theirs = await createType({ name: 'Deal', assocs: [{ objectAssocType: 'owner', targetEntity: 'contact' }] }, other.admin);
      for (const [method, path] of [
        ['POST', 'assocs'],
        ['DELETE', 'assocs/owner'],
      ] as const) {
        const body = method === 'POST' ? { objectAssocType: 'x', targetEntity: 'contact' } : undefined;
        const malformed = await send(method, `/api/v2/admin/object-types/123/${path}`, body);
        expect(malformed.statusCode).toBe(400);
        expect(malformed.json().error).toMatchObject({ code: 'invalid_object_type_id', invalidIds: ['123'] });
        for (const id of [theirs.id, 'cot_999999']) {
          const missing = await send(method, `/api/v2/admin/object-types/${id}/${path}`, body);
          expect(missing.statusCode).toBe(404);
          expect(missing.json()).toEqual({ success: false, error: { code: 'object_type_not_found', message: `object type ${id} not found` } });
        }
      }
      // Theirs is untouched.
      const listed = (await t.get('/api/v2/object-types', other.admin)).json().data as ObjectType[];
      expect(listed.find((type) => type.id === theirs.id)?.assocs).toHaveLength(1);
    });
  });

  describe('object upserts', () => {
    let deal: ObjectType;
    let company: ObjectType;
    const field = { size: '', stage: '', tier: '', companyOnly: '', contactOnly: '', old: '' };

    beforeAll(async () => {
      company = await createType({ name: unique('Company') });
      deal = await createType({
        name: unique('Deal'),
        assocs: [
          { objectAssocType: 'owner', targetEntity: 'contact' },
          { objectAssocType: 'account', targetEntity: 'organization' },
          { objectAssocType: 'company', targetEntity: 'object', targetObjectTypeId: company.id },
        ],
      });
      field.size = await objectField('Size', 'number', { objectTypeId: deal.id });
      field.stage = await objectField('Stage', 'string');
      field.tier = await objectField('Tier', 'enum', { enumValues: ['gold', 'silver'] });
      field.companyOnly = await objectField('Employees', 'int', { objectTypeId: company.id });
      field.contactOnly = await objectField('Contact note', 'string', { entityTypes: ['contact'] });
      field.old = await objectField('Old', 'string', { deleted: true });
    });

    it('creates objects with their custom fields, answering their IDs in order', async () => {
      const response = await post('/api/v2/admin/objects', {
        objectTypeId: deal.id,
        records: [
          { recordKey: 'd-2', name: 'Beta deal', customFields: [{ customFieldId: field.size, customFieldValue: { type: 'number', value: 20 } }] },
          {
            recordKey: 'd-1',
            name: '  Alpha deal ',
            customFields: [
              { customFieldId: field.size, customFieldValue: { value: 100.5 } },
              { customFieldId: field.stage, customFieldValue: { type: 'string', value: 'open' } },
            ],
          },
        ],
      });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as { success: true; data: Upserted };
      expect(body).toEqual({ success: true, data: { ids: [expect.stringMatching(/^co_\d+$/), expect.stringMatching(/^co_\d+$/)], created: 2, updated: 0 } });
      const [beta, alpha] = body.data.ids;
      const listed = await listObjects(deal.id);
      expect(listed).toEqual(
        expect.arrayContaining([
          {
            id: alpha,
            name: 'Alpha deal',
            recordKey: 'd-1',
            customFields: { [field.size]: { type: 'number', value: 100.5 }, [field.stage]: { type: 'string', value: 'open' } },
          },
          { id: beta, name: 'Beta deal', recordKey: 'd-2', customFields: { [field.size]: { type: 'number', value: 20 } } },
        ]),
      );
    });

    it('updates by record key: same IDs, listed fields set or cleared, the others kept', async () => {
      const first = await upsert({
        objectTypeId: deal.id,
        records: [
          {
            recordKey: 'u-1',
            name: 'Gamma',
            customFields: [
              { customFieldId: field.size, customFieldValue: { type: 'number', value: 1 } },
              { customFieldId: field.stage, customFieldValue: { type: 'string', value: 'open' } },
              { customFieldId: field.tier, customFieldValue: { type: 'enum', value: 'gold' } },
            ],
          },
        ],
      });
      clock.advance(60_000);
      const second = await upsert({
        objectTypeId: deal.id,
        records: [
          { recordKey: 'u-2', name: 'Delta' },
          {
            recordKey: 'u-1',
            name: 'Gamma renamed',
            customFields: [
              { customFieldId: field.size, customFieldValue: { type: 'number', value: 2 } },
              { customFieldId: field.stage, customFieldValue: null },
            ],
          },
        ],
      });
      expect(second).toEqual({ ids: [expect.stringMatching(/^co_\d+$/), first.ids[0]], created: 1, updated: 1 });
      const gamma = (await t.get(`/api/v2/objects/${first.ids[0]}?cols=recordKey`)).json().data as CustomObject;
      expect(gamma).toEqual({
        id: first.ids[0],
        name: 'Gamma renamed',
        recordKey: 'u-1',
        customFields: { [field.size]: { type: 'number', value: 2 }, [field.tier]: { type: 'enum', value: 'gold' } },
      });
      const row = await db()
        .selectFrom('objects')
        .select(['created_at', 'updated_at'])
        .where('community_id', '=', t.communityId)
        .where('id', '=', key(first.ids[0]!))
        .executeTakeFirstOrThrow();
      expect(row.updated_at.getTime() - row.created_at.getTime()).toBe(60_000);
    });

    it('links contacts, organizations and objects; given associations replace, absent ones stay', async () => {
      const ada = await pushUser(t, { id: unique('ada'), fullName: 'Ada', email: `ada${counter}@example.com` });
      const bob = await pushUser(t, { id: unique('bob'), fullName: 'Bob' });
      const org = await db()
        .insertInto('organizations')
        .values({ community_id: t.communityId, name: 'Acme', primary_domain: `acme${counter}.example` })
        .returning('id')
        .executeTakeFirstOrThrow();
      const { ids: companies } = await upsert({ objectTypeId: company.id, records: [{ recordKey: 'acme', name: 'Acme Inc.' }] });
      const { ids } = await upsert({
        objectTypeId: deal.id,
        records: [
          {
            recordKey: 'link-1',
            name: 'Linked',
            associations: [
              { objectAssocType: 'owner', targetId: ada },
              { objectAssocType: 'owner', targetId: bob },
              { objectAssocType: 'account', targetId: `o_${org.id}` },
              { objectAssocType: 'company', targetId: companies[0]! },
            ],
          },
        ],
      });
      const deal1 = ids[0]!;
      expect(await linksOf(deal1)).toEqual([
        { assocType: 'account', targetId: org.id },
        { assocType: 'company', targetId: key(companies[0]!) },
        { assocType: 'owner', targetId: Math.min(key(ada), key(bob)) },
        { assocType: 'owner', targetId: Math.max(key(ada), key(bob)) },
      ]);
      const connected = (await t.get(`/api/v2/contacts/${ada}?cols=connectedCustomObjects`)).json().data.connectedCustomObjects;
      expect(connected).toEqual([{ id: deal1, name: 'Linked', objectType: deal.name }]);

      // Absent: kept.
      await upsert({ objectTypeId: deal.id, records: [{ recordKey: 'link-1', name: 'Linked again' }] });
      expect(await linksOf(deal1)).toHaveLength(4);
      // Given: exactly these.
      await upsert({ objectTypeId: deal.id, records: [{ recordKey: 'link-1', name: 'Linked', associations: [{ objectAssocType: 'owner', targetId: bob }] }] });
      expect(await linksOf(deal1)).toEqual([{ assocType: 'owner', targetId: key(bob) }]);
      // Empty: none.
      await upsert({ objectTypeId: deal.id, records: [{ recordKey: 'link-1', name: 'Linked', associations: [] }] });
      expect(await linksOf(deal1)).toEqual([]);
    });

    it("stores a merged contact's ID as its survivor", async () => {
      const n = ++counter;
      const older = await pushUser(t, { id: `m-a-${n}`, email: `merge${n}@example.com` });
      const younger = await pushUser(t, { id: `m-b-${n}`, github: { type: 'handle', value: `merger${n}` } });
      const merged = await pushUser(t, { id: `m-c-${n}`, email: `merge${n}@example.com`, github: { type: 'handle', value: `merger${n}` } });
      expect(merged).toBe(older);
      const { ids } = await upsert({
        objectTypeId: deal.id,
        records: [
          {
            recordKey: `merge-${n}`,
            name: 'Merged owner',
            associations: [
              { objectAssocType: 'owner', targetId: younger },
              { objectAssocType: 'owner', targetId: older },
            ],
          },
        ],
      });
      expect(await linksOf(ids[0]!)).toEqual([{ assocType: 'owner', targetId: key(older) }]);
    });

    it('lets two contacts linked to one object merge: the object keeps one link, to the survivor', async () => {
      const n = ++counter;
      const older = await pushUser(t, { id: `l-a-${n}`, email: `linked${n}@example.com` });
      const younger = await pushUser(t, { id: `l-b-${n}`, github: { type: 'handle', value: `linked${n}` } });
      const { ids } = await upsert({
        objectTypeId: deal.id,
        records: [
          {
            recordKey: `both-${n}`,
            name: 'Both owners',
            associations: [
              { objectAssocType: 'owner', targetId: older },
              { objectAssocType: 'owner', targetId: younger },
            ],
          },
        ],
      });
      expect(await linksOf(ids[0]!)).toHaveLength(2);
      expect(await pushUser(t, { id: `l-c-${n}`, email: `linked${n}@example.com`, github: { type: 'handle', value: `linked${n}` } })).toBe(older);
      expect(await linksOf(ids[0]!)).toEqual([{ assocType: 'owner', targetId: key(older) }]);
    });

    // Two connections at once: PostgreSQL only (the embedded database is one session).
    it.skipIf(engine !== 'postgres')('links to the survivor when the target contact is merged while the upsert waits for it', async () => {
      const n = ++counter;
      const older = await pushUser(t, { id: `w-a-${n}`, fullName: 'Older' });
      const younger = await pushUser(t, { id: `w-b-${n}`, fullName: 'Younger' });
      let pending: Promise<Upserted> | undefined;
      await db()
        .transaction()
        .execute(async (trx) => {
          await lockContacts(trx, t.communityId, [key(older), key(younger)]);
          pending = upsert({
            objectTypeId: deal.id,
            records: [{ recordKey: `wait-${n}`, name: 'Waiting', associations: [{ objectAssocType: 'owner', targetId: younger }] }],
          });
          // The upsert is waiting for the merge's row lock.
          await untilALockIsAwaited(db(), 'the upsert');
          await mergeContacts(trx, {
            communityId: t.communityId,
            survivorId: key(older),
            mergedId: key(younger),
            reason: 'test',
            identity: null,
            sourceId: t.sourceId,
            by: null,
            now: clock.now(),
          });
        });
      const { ids } = await pending!;
      expect(await linksOf(ids[0]!)).toEqual([{ assocType: 'owner', targetId: key(older) }]);
    });

    it('names every fault of every record in one 400 and writes nothing', async () => {
      const theirContact = await pushUser(t, { id: unique('theirs'), fullName: 'Theirs' }, { sourceId: other.sourceId, token: other.admin });
      const { ids: companies } = await upsert({ objectTypeId: company.id, records: [{ recordKey: 'fault-company', name: 'Company' }] });
      const { ids: deals } = await upsert({
        objectTypeId: deal.id,
        records: [{ recordKey: 'fault-deal', name: 'Existing', customFields: [{ customFieldId: field.stage, customFieldValue: { value: 'kept' } }] }],
      });
      const before = await objectCount();
      const response = await post('/api/v2/admin/objects', {
        objectTypeId: deal.id,
        records: [
          { recordKey: 'fault-deal', name: 'Would rename', customFields: [{ customFieldId: field.stage, customFieldValue: { value: 'changed' } }] },
          { recordKey: 'f-1', name: '   ' },
          { recordKey: 'f-2', name: 'Dup' },
          { recordKey: 'f-2', name: 'Dup again' },
          {
            recordKey: 'f-3',
            name: 'Fields',
            customFields: [
              { customFieldId: 'size', customFieldValue: { value: 1 } },
              { customFieldId: field.companyOnly, customFieldValue: { value: 1 } },
              { customFieldId: field.contactOnly, customFieldValue: { value: 'x' } },
              { customFieldId: field.old, customFieldValue: { value: 'x' } },
              { customFieldId: 'cf_999999', customFieldValue: { value: 'x' } },
              { customFieldId: field.size, customFieldValue: { type: 'number', value: 'big' } },
              { customFieldId: field.size, customFieldValue: { value: 3 } },
              { customFieldId: field.tier, customFieldValue: { type: 'string', value: 'gold' } },
            ],
          },
          {
            recordKey: 'f-4',
            name: 'Links',
            associations: [
              { objectAssocType: 'reviewer', targetId: 'c_1' },
              { objectAssocType: 'owner', targetId: 'o_1' },
              { objectAssocType: 'owner', targetId: 'c_999999' },
              { objectAssocType: 'owner', targetId: theirContact },
              { objectAssocType: 'account', targetId: 'o_999999' },
              { objectAssocType: 'company', targetId: deals[0]! },
              { objectAssocType: 'company', targetId: 'co_999999' },
            ],
          },
        ],
      });
      expect(response.statusCode).toBe(400);
      const error = response.json().error as { code: string; message: string; invalidIds: string[] };
      expect(error.code).toBe('invalid_parameters');
      // Faults are joined by "; ", which a fault's own text may hold too.
      const faults = error.message.split(/; (?=records\[)/);
      expect(faults).toEqual([
        'records[1].name: must be 1 to 500 characters, not blank',
        'records[3].recordKey: "f-2" is also the key of records[2]',
        'records[4].customFields[0].customFieldId: "size" is not a custom field ID (cf_<number>)',
        `records[4].customFields[1]: no custom field ${field.companyOnly} for objects of type ${deal.id}`,
        `records[4].customFields[2]: no custom field ${field.contactOnly} for objects of type ${deal.id}`,
        `records[4].customFields[3]: no custom field ${field.old} for objects of type ${deal.id}`,
        `records[4].customFields[4]: no custom field cf_999999 for objects of type ${deal.id}`,
        `records[4].customFields[5]: custom field ${key(field.size)} ("Size") needs a number; got "big"`,
        `records[4].customFields[6]: custom field ${field.size} is given more than once`,
        `records[4].customFields[7]: custom field ${key(field.tier)} ("Tier") takes type "enum", not "string"`,
        `records[5].associations[0].objectAssocType: object type ${deal.id} has no association "reviewer" (it has "owner", "account", "company")`,
        'records[5].associations[1].targetId: association "owner" links to a contact: "o_1" is not a c_<number> ID',
        'records[5].associations[2].targetId: c_999999 is not a contact of this community',
        `records[5].associations[3].targetId: ${theirContact} is not a contact of this community`,
        'records[5].associations[4].targetId: o_999999 is not an organization of this community',
        `records[5].associations[5].targetId: ${deals[0]} is an object of type ${deal.id}, but association "company" links to objects of type ${company.id}`,
        'records[5].associations[6].targetId: co_999999 is not an object of this community',
      ]);
      expect(error.invalidIds).toEqual([
        'size',
        field.companyOnly,
        field.contactOnly,
        field.old,
        'cf_999999',
        'o_1',
        'c_999999',
        theirContact,
        'o_999999',
        deals[0],
        'co_999999',
      ]);
      expect(await objectCount()).toBe(before);
      const existing = (await t.get(`/api/v2/objects/${deals[0]}`)).json().data as CustomObject;
      expect(existing).toMatchObject({ name: 'Existing', customFields: { [field.stage]: { type: 'string', value: 'kept' } } });
      expect(companies).toHaveLength(1);
    });

    it('answers invalid_object_type_id for a malformed, unknown or foreign objectTypeId', async () => {
      const theirs = await createType({ name: unique('Foreign') }, other.admin);
      for (const objectTypeId of ['deal', 'cot_999999', theirs.id]) {
        const response = await post('/api/v2/admin/objects', { objectTypeId, records: [{ recordKey: 'k', name: 'n' }] });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toMatchObject({ code: 'invalid_object_type_id', invalidIds: [objectTypeId] });
      }
    });

    it('takes 1 to 1000 records, in a strict body', async () => {
      const none = await post('/api/v2/admin/objects', { objectTypeId: deal.id, records: [] });
      expect(none.statusCode).toBe(400);
      expect(none.json().error.message).toContain('records');
      const records = Array.from({ length: 1001 }, (_, index) => ({ recordKey: `bulk-${index}`, name: `Bulk ${index}` }));
      const tooMany = await post('/api/v2/admin/objects', { objectTypeId: deal.id, records });
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json().error.message).toContain('records');

      const unknownField = await post('/api/v2/admin/objects', { objectTypeId: deal.id, records: [{ recordKey: 'k', name: 'n', colour: 'red' }] });
      expect(unknownField.statusCode).toBe(400);
      expect(unknownField.json().error.message).toBe('unknown body field "records.0.colour"');
      const coerced = await post('/api/v2/admin/objects', { objectTypeId: deal.id, records: [{ recordKey: 5, name: 'n' }] });
      expect(coerced.statusCode).toBe(400);
      expect(coerced.json().error.message).toContain('records.0.recordKey');

      const full = await upsert({ objectTypeId: company.id, records: records.slice(0, 1000) });
      expect(full).toMatchObject({ created: 1000, updated: 0 });
      expect(new Set(full.ids).size).toBe(1000);
      const again = await upsert({ objectTypeId: company.id, records: records.slice(0, 1000).reverse() });
      expect(again).toEqual({ ids: [...full.ids].reverse(), created: 0, updated: 1000 });
    });

    it('keeps record keys exactly as given, whatever characters they hold', async () => {
      const keys = ['a,b', 'quote"d', '{braced}', 'back\\slash', 'NULL', ' spaced ', 'ünïcödé'];
      const { ids } = await upsert({ objectTypeId: company.id, records: keys.map((recordKey) => ({ recordKey, name: recordKey })) });
      for (const [index, recordKey] of keys.entries()) {
        const object = (await t.get(`/api/v2/objects/${ids[index]}?cols=recordKey`)).json().data as CustomObject;
        expect(object.recordKey).toBe(recordKey);
      }
      expect((await upsert({ objectTypeId: company.id, records: keys.map((recordKey) => ({ recordKey, name: 'again' })) })).updated).toBe(keys.length);
    });

    it('keeps communities apart: same type names and keys, separate objects, no foreign references', async () => {
      const theirs = await createType({ name: deal.name, assocs: [{ objectAssocType: 'owner', targetEntity: 'contact' }] }, other.admin);
      const their = await upsert({ objectTypeId: theirs.id, records: [{ recordKey: 'd-1', name: 'Their deal' }] }, other.admin);
      expect(their).toMatchObject({ created: 1, updated: 0 });
      const ours = await listObjects(deal.id);
      expect(ours.map((object) => object.id)).not.toContain(their.ids[0]);
      expect(ours.find((object) => object.recordKey === 'd-1')?.name).toBe('Alpha deal');
      expect((await listObjects(theirs.id, other.admin)).map((object) => object.id)).toEqual(their.ids);
      const ourContact = await pushUser(t, { id: unique('ours'), fullName: 'Ours' });
      const crossing = await post(
        '/api/v2/admin/objects',
        { objectTypeId: theirs.id, records: [{ recordKey: 'x', name: 'x', associations: [{ objectAssocType: 'owner', targetId: ourContact }] }] },
        other.admin,
      );
      expect(crossing.statusCode).toBe(400);
      expect(crossing.json().error.invalidIds).toEqual([ourContact]);
      expect(await objectCount(other.communityId)).toBe(1);
    });
  });

  it.each([
    ['POST', '/api/v2/admin/object-types', { name: 'Nope' }],
    ['POST', '/api/v2/admin/object-types/cot_1/assocs', { objectAssocType: 'x', targetEntity: 'contact' }],
    ['DELETE', '/api/v2/admin/object-types/cot_1/assocs/x', undefined],
    ['POST', '/api/v2/admin/objects', { objectTypeId: 'cot_1', records: [{ recordKey: 'k', name: 'n' }] }],
  ] as const)('%s %s needs the admin scope (403 otherwise)', async (method, url, body) => {
    const response = await send(method, url, body, notAdmin);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ status: 'forbidden' });
  });
});
