import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliWriter } from '../../src/core/writer.ts';

const ADMIN = '/api/v2/admin/custom-fields';

interface AdminField {
  id: string;
  name: string;
  entityTypes: string[];
  valueType: string;
  multivalue: boolean;
  allowedValues: string[];
  keyField: boolean;
  description: string | null;
  objectTypeId: string | null;
  writableBySourceIds: number[];
  valueCount: number;
  createdAt: string;
  retiredAt: string | null;
}

/** Custom field definitions administered over HTTP, with the rules that keep values true. */
describe.each(ENGINES)('custom field administration (%s)', (engine) => {
  let t: TestApp;
  let readOnly: string;
  let crm: number;

  beforeAll(async () => {
    t = await createTestApp(engine);
    readOnly = await t.issueToken(['read']);
    crm = Number((await t.services.sources.create(cliWriter(t.communityId), { name: 'CRM' })).id);
  });
  afterAll(() => t.close());

  async function create(body: Record<string, unknown>): Promise<AdminField> {
    const response = await t.send('POST', ADMIN, body);
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as { data: AdminField }).data;
  }
  async function change(id: string, body: Record<string, unknown>, status = 200) {
    const response = await t.send('PATCH', `${ADMIN}/${id}`, body);
    expect(response.statusCode, response.body).toBe(status);
    return response.json() as { data: AdminField };
  }
  async function refused(method: 'POST' | 'PATCH' | 'DELETE', url: string, body: unknown, status: number) {
    const response = await t.send(method, url, body);
    expect(response.statusCode, response.body).toBe(status);
    return explained(response.json());
  }
  /** An answer as text: an error's code and message (quotes as written), or the whole body. */
  function explained(body: unknown): string {
    const error = (body as { error?: { code: string; message: string } }).error;
    return error ? `${error.code}: ${error.message}` : JSON.stringify(body);
  }
  /** Sets a contact's value through the v2 bulk update. */
  async function setValue(contactId: string, fieldId: string, value: { type: string; value: unknown }) {
    const response = await t.send('POST', '/api/v2/contacts/bulk-update', {
      contactIds: [contactId],
      customFields: [{ customFieldId: fieldId, customFieldValue: value }],
    });
    expect(response.statusCode, response.body).toBe(200);
  }
  async function valuesOf(contactId: string) {
    const response = await t.get(`/api/v2/contacts/${contactId}?cols=cf_*`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: { customFields: Record<string, unknown> } }).data.customFields;
  }

  it('defines fields of every value type; the v2 reads show them', async () => {
    const types = ['string', 'url', 'int', 'number', 'date', 'boolean'];
    for (const valueType of types) {
      const field = await create({ name: `A ${valueType}`, entityTypes: ['contact', 'organization'], valueType, description: `the ${valueType}` });
      expect(field).toMatchObject({
        name: `A ${valueType}`,
        valueType,
        multivalue: false,
        allowedValues: [],
        keyField: false,
        writableBySourceIds: [],
        valueCount: 0,
        retiredAt: null,
      });
      expect(field.id).toMatch(/^cf_\d+$/);
    }
    const plan = await create({ name: 'Plan', entityTypes: ['contact'], valueType: 'enum', allowedValues: ['free', 'pro'], keyField: true });
    const stack = await create({ name: 'Stack', entityTypes: ['organization'], valueType: 'enum', multivalue: true, allowedValues: ['go', 'rust', 'ts'] });
    expect(stack).toMatchObject({ multivalue: true, allowedValues: ['go', 'rust', 'ts'] });

    const v2 = await t.get(`/api/v2/custom-fields/${plan.id}`);
    expect(v2.statusCode).toBe(200);
    expect((v2.json() as { data: unknown }).data).toMatchObject({
      id: plan.id,
      name: 'Plan',
      entityTypes: ['contact'],
      keyField: true,
      valueType: 'enum',
      sampleValues: [
        { type: 'enum', value: 'free' },
        { type: 'enum', value: 'pro' },
      ],
      providedBy: 'user',
    });
    const organizationFields = (await t.get('/api/v2/custom-fields?entityType=organization')).json() as { data: { id: string }[] };
    expect(organizationFields.data.map((field) => field.id)).toContain(stack.id);
    expect(organizationFields.data.map((field) => field.id)).not.toContain(plan.id);

    // The new fields take values at once, as their definitions say.
    const contactId = (await accepted(t, 'user', { id: 'u-def', email: 'def@example.com' })).contactId;
    await setValue(contactId, plan.id, { type: 'enum', value: 'pro' });
    expect(await valuesOf(contactId)).toEqual({ [plan.id]: { type: 'enum', value: 'pro' } });
    const wrong = await t.send('POST', '/api/v2/contacts/bulk-update', {
      contactIds: [contactId],
      customFields: [{ customFieldId: plan.id, customFieldValue: { type: 'enum', value: 'gold' } }],
    });
    expect(wrong.statusCode).toBe(400);
    expect(explained(wrong.json())).toContain('"free", "pro"');
  });

  it('refuses definitions that could not hold true values, and says why', async () => {
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['contact'], valueType: 'enum' }, 400)).toContain('an enum field needs allowedValues');
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['contact'], valueType: 'string', allowedValues: ['a'] }, 400)).toContain(
      'allowedValues are only for enum fields',
    );
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['contact'], valueType: 'int', multivalue: true }, 400)).toContain(
      'only an enum field can be multivalue',
    );
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['contact'], valueType: 'color' }, 400)).toContain('valueType');
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['member'], valueType: 'string' }, 400)).toContain('entityTypes');
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: [], valueType: 'string' }, 400)).toContain('entityTypes');
    expect(await refused('POST', ADMIN, { name: '  ', entityTypes: ['contact'], valueType: 'string' }, 400)).toContain('name must not be blank');
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['contact'], valueType: 'string', objectTypeId: 'cot_1' }, 400)).toContain(
      'objectTypeId is only for fields that apply to objects',
    );
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['object'], valueType: 'string', objectTypeId: 'cot_999999' }, 404)).toContain(
      'object type cot_999999 not found',
    );
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['object'], valueType: 'string', objectTypeId: 'type-1' }, 400)).toContain(
      'invalid_object_type_id',
    );
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['contact'], valueType: 'string', writableBySourceIds: [999999] }, 404)).toContain(
      'no source 999999',
    );
    expect(await refused('POST', ADMIN, { name: 'Tier', entityTypes: ['contact'], valueType: 'string', color: 'red' }, 400)).toContain('color');
    expect(await refused('POST', `${ADMIN}`, { name: 'Tier', entityTypes: ['contact'], valueType: 'string' }, 201)).toContain('Tier');

    // Names are unique, in any case, among the live fields of an entity type; another entity type may reuse one.
    expect(await refused('POST', ADMIN, { name: 'TIER', entityTypes: ['organization', 'contact'], valueType: 'int' }, 409)).toContain('already named "TIER"');
    await create({ name: 'Tier', entityTypes: ['organization'], valueType: 'int' });
  });

  it('changes names, descriptions and allowed values, and keeps what records hold', async () => {
    const field = await create({ name: 'Region', entityTypes: ['contact'], valueType: 'enum', allowedValues: ['emea', 'amer', 'apac'] });
    const ada = (await accepted(t, 'user', { id: 'u-ada', email: 'ada@example.com' })).contactId;
    const bob = (await accepted(t, 'user', { id: 'u-bob', email: 'bob@example.com' })).contactId;
    await setValue(ada, field.id, { type: 'enum', value: 'emea' });
    await setValue(bob, field.id, { type: 'enum', value: 'emea' });

    const renamed = await change(field.id, { name: 'Sales region', description: 'Where the account is run from' });
    expect(renamed.data).toMatchObject({ name: 'Sales region', description: 'Where the account is run from', valueCount: 2 });
    const grown = await change(field.id, { allowedValues: ['emea', 'amer', 'apac', 'latam'] });
    expect(grown.data.allowedValues).toEqual(['emea', 'amer', 'apac', 'latam']);
    // Dropping a value nobody holds is fine; dropping one that records hold is refused with their count.
    expect((await change(field.id, { allowedValues: ['emea', 'amer', 'latam'] })).data.allowedValues).toEqual(['emea', 'amer', 'latam']);
    const dropHeld = explained(await change(field.id, { allowedValues: ['amer', 'latam'] }, 409));
    expect(dropHeld).toContain('"emea" (2 record(s))');
    // A type cannot change under values, nor become a multi-select; the error says how many records.
    expect(explained(await change(field.id, { valueType: 'string' }, 409))).toContain('has values on 2 record(s)');
    expect(explained(await change(field.id, { multivalue: true }, 409))).toContain('has values on 2 record(s)');
    expect(explained(await change(field.id, { allowedValues: [] }, 400))).toContain('an enum field needs allowedValues');
    expect(explained(await change(field.id, {}, 400))).toContain('must NOT have fewer than 1 properties');
    expect(explained(await change(field.id, { entityTypes: ['organization'] }, 400))).toContain('entityTypes');
    expect(await valuesOf(ada)).toEqual({ [field.id]: { type: 'enum', value: 'emea' } });

    // Without values, the type may change; an enum's allowed values go with it.
    const empty = await create({ name: 'Score band', entityTypes: ['contact'], valueType: 'enum', allowedValues: ['low', 'high'] });
    expect((await change(empty.id, { valueType: 'int' })).data).toMatchObject({ valueType: 'int', allowedValues: [], multivalue: false });
    expect((await change(empty.id, { valueType: 'enum', allowedValues: ['a', 'b'], multivalue: true })).data).toMatchObject({
      valueType: 'enum',
      multivalue: true,
    });

    expect(await refused('PATCH', `${ADMIN}/cf_999999`, { name: 'X' }, 404)).toContain('custom_field_not_found');
    expect(await refused('PATCH', `${ADMIN}/region`, { name: 'X' }, 400)).toContain('invalid_custom_field_id');
  });

  it('says which sources may write a field, as the core listing and pushes follow', async () => {
    const field = await create({ name: 'Account owner', entityTypes: ['contact'], valueType: 'string', writableBySourceIds: [crm] });
    expect(field.writableBySourceIds).toEqual([crm]);
    const listed = async (sourceId: number) =>
      ((await t.get(`/community/v1/members/customFields?destinationSourceId=${sourceId}`)).json() as { id: number }[]).map((item) => item.id);
    const key = Number(field.id.slice(3));
    expect(await listed(crm)).toContain(key);
    expect(await listed(t.sourceId)).not.toContain(key);
    expect((await change(field.id, { writableBySourceIds: [] })).data.writableBySourceIds).toEqual([]);
    expect(await listed(t.sourceId)).toContain(key);
  });

  it('retires a field: gone from reads and writes, values kept, the name free again', async () => {
    const field = await create({ name: 'Old score', entityTypes: ['contact'], valueType: 'int' });
    const eve = (await accepted(t, 'user', { id: 'u-eve', email: 'eve@example.com' })).contactId;
    await setValue(eve, field.id, { type: 'int', value: 7 });

    const retired = await t.send('DELETE', `${ADMIN}/${field.id}`, undefined);
    expect(retired.statusCode, retired.body).toBe(200);
    expect((retired.json() as { data: AdminField }).data).toMatchObject({ id: field.id, valueCount: 1, retiredAt: expect.any(String) });
    expect((await t.get(`/api/v2/custom-fields/${field.id}`)).statusCode).toBe(404);
    expect(((await t.get('/api/v2/custom-fields')).json() as { data: { id: string }[] }).data.map((f) => f.id)).not.toContain(field.id);
    expect(await valuesOf(eve)).toEqual({});
    const write = await t.send('POST', '/api/v2/contacts/bulk-update', {
      contactIds: [eve],
      customFields: [{ customFieldId: field.id, customFieldValue: { type: 'int', value: 8 } }],
    });
    expect(write.statusCode).toBe(400);

    // Admins still see it, with its values counted; it cannot be changed or retired again.
    const listed = (await t.get(`${ADMIN}?includeRetired=true`)).json() as { data: AdminField[] };
    expect(listed.data.find((f) => f.id === field.id)).toMatchObject({ retiredAt: expect.any(String), valueCount: 1 });
    expect(((await t.get(ADMIN)).json() as { data: AdminField[] }).data.map((f) => f.id)).not.toContain(field.id);
    expect((await t.get(`${ADMIN}/${field.id}`)).statusCode).toBe(200);
    expect(await refused('PATCH', `${ADMIN}/${field.id}`, { name: 'New' }, 404)).toContain('was retired');
    expect(await refused('DELETE', `${ADMIN}/${field.id}`, undefined, 404)).toContain('was retired');
    await create({ name: 'Old score', entityTypes: ['contact'], valueType: 'number' });
  });

  it('is for admins only, and each community sees its own fields', async () => {
    expect((await t.send('POST', ADMIN, { name: 'X', entityTypes: ['contact'], valueType: 'string' }, readOnly)).statusCode).toBe(403);
    expect((await t.get(ADMIN, readOnly)).statusCode).toBe(403);
    const other = await t.services.communities.create('Other', 'test');
    const otherToken = await t.issueToken(['admin'], other.communityId);
    const mine = await create({ name: 'Only mine', entityTypes: ['contact'], valueType: 'string' });
    expect((await t.get(`${ADMIN}/${mine.id}`, otherToken)).statusCode).toBe(404);
    expect(((await t.get(ADMIN, otherToken)).json() as { data: AdminField[] }).data).toEqual([]);
    expect((await t.send('DELETE', `${ADMIN}/${mine.id}`, undefined, otherToken)).statusCode).toBe(404);
    // The same name is free in another community.
    const theirs = await t.send('POST', ADMIN, { name: 'Only mine', entityTypes: ['contact'], valueType: 'string' }, otherToken);
    expect(theirs.statusCode, theirs.body).toBe(201);
  });
});
