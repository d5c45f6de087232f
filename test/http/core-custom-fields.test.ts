import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';

const URL = '/community/v1/members/customFields';

describe.each(ENGINES)('core contact custom-field listing (%s)', (engine) => {
  let t: TestApp;
  let a: number;
  let b: number;
  let bToken: string;
  /** A's sources: the bootstrapped API source, and two more. */
  let api: number;
  let crm: number;
  let forms: number;
  let bSource: number;
  const field: Record<string, number> = {};

  const db = () => t.services.db;

  async function seedField(
    communityId: number,
    name: string,
    options: { entityTypes?: string[]; type?: string; multivalue?: boolean; values?: string[]; deleted?: boolean; writers?: number[] } = {},
  ): Promise<number> {
    const { id } = await db()
      .insertInto('custom_fields')
      .values({
        community_id: communityId,
        name,
        entity_types: options.entityTypes ?? ['contact'],
        value_type: options.type ?? 'string',
        multivalue: options.multivalue ?? false,
        enum_values: options.values ?? [],
        deleted_at: options.deleted ? new Date() : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const sourceId of options.writers ?? []) {
      await db().insertInto('custom_field_writers').values({ community_id: communityId, custom_field_id: id, source_id: sourceId }).execute();
    }
    return id;
  }

  const list = (query = '', token = t.token) => t.get(`${URL}${query}`, token);
  const ids = async (query = '', token = t.token) => {
    const response = await list(query, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { id: number }[]).map((item) => item.id);
  };

  beforeAll(async () => {
    t = await createTestApp(engine);
    a = t.communityId;
    api = t.sourceId;
    crm = (await t.services.sources.create(cliWriter(a), { name: 'CRM' })).id;
    forms = (await t.services.sources.create(cliWriter(a), { name: 'Forms' })).id;
    b = (await t.services.communities.create('Beta', cliActor())).communityId;
    bToken = await t.issueToken(['read', 'write'], b);
    bSource = (await t.services.sources.create(cliWriter(b), { name: 'B source' })).id;

    field.open = await seedField(a, 'Open to all');
    field.plan = await seedField(a, 'Plan', { type: 'enum', multivalue: true, values: ['free', 'team', 'enterprise'], writers: [crm] });
    field.orgOnly = await seedField(a, 'Org only', { entityTypes: ['organization'] });
    field.deleted = await seedField(a, 'Deleted', { deleted: true });
    field.seats = await seedField(a, 'Seats', { entityTypes: ['organization', 'contact'], type: 'int', writers: [forms, crm] });
    field.formsOnly = await seedField(a, 'Forms only', { type: 'date', writers: [forms] });
    field.objectField = await seedField(a, 'Object field', { entityTypes: ['object'] });
    field.ofB = await seedField(b, 'B field', { type: 'boolean' });
  });
  afterAll(() => t?.close());

  it('lists the contact custom fields as a bare array of {id, name, type, multivalue, values}', async () => {
    const response = await list('', await t.issueToken(['contacts:read']));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toStrictEqual([
      { id: field.open, name: 'Open to all', type: 'string', multivalue: false, values: [] },
      { id: field.plan, name: 'Plan', type: 'enum', multivalue: true, values: ['free', 'team', 'enterprise'] },
      { id: field.seats, name: 'Seats', type: 'int', multivalue: false, values: [] },
      { id: field.formsOnly, name: 'Forms only', type: 'date', multivalue: false, values: [] },
    ]);
  });

  it('with destinationSourceId, lists only what that source may write', async () => {
    expect(await ids(`?destinationSourceId=${crm}`)).toEqual([field.open, field.plan, field.seats]);
    expect(await ids(`?destinationSourceId=${forms}`)).toEqual([field.open, field.seats, field.formsOnly]);
    // A source no field names as a writer writes only the fields without writers.
    expect(await ids(`?destinationSourceId=${api}`)).toEqual([field.open]);
  });

  it('takes sig_N for destinationSourceId too', async () => {
    expect(await ids(`?destinationSourceId=sig_${crm}`)).toEqual([field.open, field.plan, field.seats]);
  });

  it('answers 404 for an unknown source or one of another community', async () => {
    for (const id of [987654321, bSource]) {
      const response = await list(`?destinationSourceId=${id}`);
      expect(response.statusCode, String(id)).toBe(404);
      expect(response.json()).toStrictEqual({ status: 'not-found', reason: `source ${id} not found` });
    }
  });

  it('answers a core 400 for a malformed destinationSourceId', async () => {
    for (const value of ['abc', '', 'sig_', 'o_5', '-3', '1.5', '99999999999999999']) {
      const response = await list(`?destinationSourceId=${encodeURIComponent(value)}`);
      expect(response.statusCode, value).toBe(400);
      expect(response.json()).toStrictEqual({
        reason: 'invalid-source-id',
        docs: `${TEST_PUBLIC_URL}/docs`,
        detail: expect.stringContaining('is not a valid source ID'),
      });
    }
  });

  it('answers a core 400 for an unknown query parameter', async () => {
    const response = await list(`?sourceId=${crm}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ reason: 'invalid-request-parameters', detail: 'unknown query parameter "sourceId"' });
  });

  it("keeps each community's fields to itself", async () => {
    expect(await ids('', bToken)).toEqual([field.ofB]);
    expect(await ids(`?destinationSourceId=${bSource}`, bToken)).toEqual([field.ofB]);
    expect((await list(`?destinationSourceId=${crm}`, bToken)).statusCode).toBe(404);
    expect(await ids()).not.toContain(field.ofB);
  });

  it('needs contacts:read', async () => {
    const response = await list('', await t.issueToken(['segments:read', 'tags:write']));
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ status: 'forbidden', reason: expect.stringContaining('contacts:read') });
  });
});
