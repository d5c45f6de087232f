import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { seedCustomField } from '../helpers/seed.ts';
import { storedFieldValues, storedTagNames } from '../helpers/stored.ts';

describe.each(ENGINES)('core organization upserts (%s)', (engine) => {
  let t: TestApp;
  const fields: Record<string, number> = {};
  const tags: Record<string, number> = {};

  beforeAll(async () => {
    t = await createTestApp(engine);
    const db = t.services.db;
    const definitions: [string, string, { enum_values?: string[]; multivalue?: boolean }][] = [
      ['Plan', 'enum', { enum_values: ['free', 'pro'] }],
      ['Regions', 'enum', { enum_values: ['emea', 'amer', 'apac'], multivalue: true }],
      ['Seats', 'int', {}],
    ];
    for (const [name, valueType, extra] of definitions) {
      fields[name] = await seedCustomField(t, { name, entity_types: ['organization'], value_type: valueType, ...extra });
    }
    for (const [name, types] of [
      ['Customer', ['company']],
      ['Partner', ['company']],
      ['Speaker', ['member']],
    ] as const) {
      tags[name] = (
        await db
          .insertInto('tags')
          .values({ community_id: t.communityId, name, entity_types: [...types] })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    }
  });
  afterAll(() => t.close());

  const post = (url: string, payload: Record<string, unknown>, token = t.token) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload });
  const key = (id: string) => Number(id.slice(2));
  async function organization(id: string) {
    return t.services.db.selectFrom('organizations').selectAll().where('community_id', '=', t.communityId).where('id', '=', key(id)).executeTakeFirstOrThrow();
  }
  const values = (id: string) => storedFieldValues(t, 'organization', key(id));
  const tagNames = (id: string) => storedTagNames(t, 'organization', key(id));

  it('creates an organization by its registrable domain, then updates the same one', async () => {
    const created = await post('/community/v1/organizations', {
      domain: 'https://www.shop.Umbrella.co.uk/',
      destinationSourceId: t.sourceId,
      customFields: [
        { customFieldId: fields.Plan, customFieldValue: { type: 'enum', value: 'pro' } },
        { customFieldId: fields.Regions, customFieldValue: { type: 'enum', value: ['emea', 'apac'] } },
      ],
      tagIdsToAdd: [`l_${tags.Customer}`, tags.Partner],
    });
    expect(created.statusCode, created.body).toBe(200);
    const body = created.json();
    expect(body).toEqual({ status: 'success', organizationId: expect.stringMatching(/^o_\d+$/), created: true, warnings: [] });
    expect(await organization(body.organizationId)).toMatchObject({ primary_domain: 'umbrella.co.uk', name: 'Umbrella', source_id: t.sourceId });
    expect(await values(body.organizationId)).toEqual({
      [fields.Plan!]: { type: 'enum', value: 'pro' },
      [fields.Regions!]: { type: 'enum', value: ['emea', 'apac'] },
    });
    expect(await tagNames(body.organizationId)).toEqual(['Customer', 'Partner']);

    const again = await post('/community/v1/organizations', {
      domain: 'umbrella.co.uk',
      customFields: [{ customFieldId: fields.Plan }, { customFieldId: `cf_${fields.Seats}`, customFieldValue: { type: 'int', value: 40 } }],
      tagIdsToRemove: [`l_${tags.Partner}`],
    });
    expect(again.json()).toMatchObject({ organizationId: body.organizationId, created: false });
    const after = await values(body.organizationId);
    expect(after[fields.Plan!]).toBeUndefined();
    expect(after[fields.Seats!]).toEqual({ type: 'int', value: 40 });
    expect(await tagNames(body.organizationId)).toEqual(['Customer']);
  });

  it('updates the organization groupAttributesId names', async () => {
    const made = (await post('/community/v1/organizations', { domain: 'hooli.example.com', destinationSourceId: t.sourceId })).json();
    const updated = await post('/community/v1/organizations', {
      groupAttributesId: key(made.organizationId),
      customFields: [{ customFieldId: fields.Seats, customFieldValue: { type: 'int', value: 7 } }],
    });
    expect(updated.json()).toMatchObject({ organizationId: made.organizationId, created: false });
    expect((await values(made.organizationId))[fields.Seats!]).toEqual({ type: 'int', value: 7 });
    expect((await post('/community/v1/organizations', { groupAttributesId: 999999 })).statusCode).toBe(404);
  });

  it('fills an organization from a prospector company', async () => {
    const company = await t.services.db
      .insertInto('prospector_companies')
      .values({
        name: 'Pied Piper',
        primary_website: 'https://piedpiper.example.com',
        employees: 42,
        description: 'Compression',
        linkedin_handles: ['pied-piper'],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const response = await post('/community/v1/organizations', { prospectorCompanyId: company.id, destinationSourceId: t.sourceId });
    expect(response.statusCode, response.body).toBe(200);
    const row = await organization(response.json().organizationId);
    expect(row).toMatchObject({ name: 'Pied Piper', primary_domain: 'example.com', employees: 42, about: 'Compression', prospector_company_id: company.id });
    expect((await post('/community/v1/organizations', { prospectorCompanyId: 999999, destinationSourceId: t.sourceId })).statusCode).toBe(404);
  });

  it('takes the domain of an imported prospector company from its key, not its website', async () => {
    const admin = await t.issueToken(['admin']);
    const imported = await post(
      '/api/v2/admin/prospector/companies',
      [{ domain: 'https://www.hooli-xyz.co.uk/about', name: 'Hooli XYZ', primaryWebsite: 'https://hooli.example.net', employees: 900 }] as never,
      admin,
    );
    expect(imported.statusCode, imported.body).toBe(200);
    const company = await t.services.db
      .selectFrom('prospector_companies')
      .select('id')
      .where('primary_domain', '=', 'hooli-xyz.co.uk')
      .executeTakeFirstOrThrow();

    // No domain: the company's key is the organization's domain.
    const made = await post('/community/v1/organizations', { prospectorCompanyId: company.id, destinationSourceId: t.sourceId });
    expect(made.statusCode, made.body).toBe(200);
    expect(made.json()).toMatchObject({ status: 'success', created: true });
    expect(await organization(made.json().organizationId)).toMatchObject({
      name: 'Hooli XYZ',
      primary_domain: 'hooli-xyz.co.uk',
      employees: 900,
      prospector_company_id: company.id,
    });

    // Only the company, as a prefixed ID: the same organization, updated from the company as it is now.
    await t.services.db.updateTable('prospector_companies').set({ employees: 950 }).where('id', '=', company.id).execute();
    const again = await post('/community/v1/organizations', { prospectorCompanyId: `pco_${company.id}` });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ organizationId: made.json().organizationId, created: false });
    expect(await organization(made.json().organizationId)).toMatchObject({ primary_domain: 'hooli-xyz.co.uk', employees: 950 });

    const unknown = await post('/community/v1/organizations', { prospectorCompanyId: 987654, destinationSourceId: t.sourceId });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ status: 'not-found', reason: 'no prospector company 987654' });
    const none = await t.services.db
      .selectFrom('organizations')
      .select('id')
      .where('community_id', '=', t.communityId)
      .where('primary_domain', '=', 'example.net')
      .execute();
    expect(none).toEqual([]);
  });

  it('refuses what it cannot do, saying why, and writes nothing', async () => {
    for (const [payload, detail] of [
      [{}, /domain, a groupAttributesId or a prospectorCompanyId/],
      [{ domain: 'new-one.example.org' }, /destinationSourceId is needed/],
      [{ domain: 'not a domain', destinationSourceId: t.sourceId }, /not a domain/],
      [{ domain: 'umbrella.co.uk', customFields: [{ customFieldId: fields.Plan, customFieldValue: { type: 'enum', value: 'gold' } }] }, /customFields\[0\]/],
      [{ domain: 'umbrella.co.uk', customFields: [{ customFieldId: 424242, customFieldValue: { type: 'int', value: 1 } }] }, /no organization custom field/],
      [{ domain: 'umbrella.co.uk', tagIdsToAdd: [`l_${tags.Speaker}`] }, /tagIdsToAdd/],
      [{ domain: 'umbrella.co.uk', tagIdsToAdd: ['l_999999'] }, /tagIdsToAdd/],
    ] as const) {
      const response = await post('/community/v1/organizations', payload as Record<string, unknown>);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({ reason: expect.any(String), detail: expect.stringMatching(detail) });
    }
    const made = await t.services.db.selectFrom('organizations').select('id').where('primary_domain', '=', 'new-one.example.org').execute();
    expect(made).toEqual([]);
  });

  it('upserts in a source by domain', async () => {
    const url = `/community/v1/source/${t.sourceId}/organization`;
    const first = await post(url, { domain: 'initrode.example.net', tagIdsToAdd: [`l_${tags.Customer}`], mascot: 'owl' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ created: true, warnings: ['unknown field "mascot" was ignored'] });
    const second = await post(url, { sourceId: t.sourceId, domain: 'www.initrode.example.net' });
    expect(second.json()).toMatchObject({ organizationId: first.json().organizationId, created: false });
    expect((await post(url, {})).statusCode).toBe(400);
    expect((await post(url, { sourceId: t.sourceId + 1, domain: 'x.example.net' })).statusCode).toBe(400);
    const { communityId } = await t.services.communities.create('Other', cliActor());
    const foreign = (await t.services.sources.create(cliWriter(communityId), { name: 'Theirs' })).id;
    expect((await post(`/community/v1/source/${foreign}/organization`, { domain: 'x.example.net' })).statusCode).toBe(404);
  });

  it('needs organizations:write', async () => {
    const response = await post('/community/v1/organizations', { domain: 'x.example.net' }, await t.issueToken(['sources:write']));
    expect(response.statusCode).toBe(403);
  });
});
