import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor } from '../../src/core/writer.ts';
import { seedCustomField, seedLeadScore } from '../helpers/seed.ts';

interface Field {
  field: string;
  kinds: string[];
  ops: string[];
}

/**
 * GET /api/v2/filter-fields (docs/behaviour.md, lightFilter): each list's filterable fields, the community's
 * own included.
 */
describe.each(ENGINES)('filter fields (%s)', (engine) => {
  let t: TestApp;
  let otherCommunity: number;
  let fieldId: number;
  let scoreId: number;

  beforeAll(async () => {
    t = await createTestApp(engine);
    const db = t.services.db;
    fieldId = await seedCustomField(t, { name: 'Plan', entity_types: ['contact'], value_type: 'enum', enum_values: ['free', 'pro'] });
    scoreId = await seedLeadScore(t, { name: 'Fit', entity_type: 'contact' });
    otherCommunity = (await t.services.communities.create('Other', cliActor())).communityId;
    await db
      .insertInto('custom_fields')
      .values({ community_id: otherCommunity, name: 'Secret', entity_types: ['contact'], value_type: 'string' })
      .execute();
  });
  afterAll(() => t?.close());

  const fields = async (entity: string, token?: string) => {
    const response = await t.get(`/api/v2/filter-fields?entity=${entity}`, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { success: true; data: Field[] }).data;
  };

  it('lists the contact fields docs/behaviour.md names (lightFilter) with their kinds and operators, and the community custom fields and scores', async () => {
    const data = await fields('contact');
    const names = data.map((field) => field.field);
    for (const name of [
      'fullName',
      'primaryEmail',
      'title',
      'companyName',
      'tags',
      'segments',
      'profiles',
      'location.country',
      'location.city',
      'activityCount7d',
      'activityCountAll',
      'latestActivityTime',
      'firstActivityTime',
      'providers',
      'organizationId',
    ]) {
      expect(names).toContain(name);
    }
    expect(data.find((field) => field.field === 'tags')).toEqual({ field: 'tags', kinds: ['stringListFilter'], ops: ['any', 'all', 'none'] });
    expect(data.find((field) => field.field === 'latestActivityTime')).toEqual({ field: 'latestActivityTime', kinds: ['dateRangeFilter'], ops: ['in'] });
    expect(data.find((field) => field.field === `cf_${fieldId}`)?.kinds).toEqual(['stringListFilter', 'stringFilter']);
    expect(data.find((field) => field.field === `ls_${scoreId}`)?.kinds).toEqual(['numberFilter']);
    // Another community's custom field is not listed.
    expect(data.filter((field) => field.field.startsWith('cf_'))).toHaveLength(1);
  });

  it('lists the activity fields docs/behaviour.md names (lightFilter)', async () => {
    const data = await fields('activity');
    expect(data.find((field) => field.field === 'isUserInitiated')).toEqual({ field: 'isUserInitiated', kinds: ['booleanFilter'], ops: ['eq'] });
    expect(data.find((field) => field.field === 'content')?.kinds).toEqual(['stringFilter']);
    for (const name of ['type', 'contactId', 'providerId', 'subSourceNames', 'sentiment', 'activityTime']) {
      expect(data.map((field) => field.field)).toContain(name);
    }
    // Custom fields of contacts are not fields of activities.
    expect(data.some((field) => field.field.startsWith('cf_'))).toBe(false);
  });

  it('answers for every list entity', async () => {
    for (const entity of ['organization', 'object', 'website_visit']) expect((await fields(entity)).length).toBeGreaterThan(0);
  });

  it('refuses an unknown or missing entity, and unknown parameters, with 400', async () => {
    const unknown = await t.get('/api/v2/filter-fields?entity=person');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining('contact') } });
    expect((await t.get('/api/v2/filter-fields')).statusCode).toBe(400);
    expect((await t.get('/api/v2/filter-fields?entity=contact&limit=5')).statusCode).toBe(400);
  });

  it('needs a read scope', async () => {
    expect((await fields('contact', await t.issueToken(['activities:read']))).length).toBeGreaterThan(0);
    const denied = await t.get('/api/v2/filter-fields?entity=contact', await t.issueToken(['sources:write']));
    expect(denied.statusCode).toBe(403);
  });
});
