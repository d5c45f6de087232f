import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { seedCustomField, seedLeadScore } from '../helpers/seed.ts';

/**
 * Definition lists: GET /api/v2/custom-fields[/{id}], /lead-scores[/{id}] and /object-types (docs/behaviour.md,
 * IDs, Envelopes: no meta, no paging; Scopes).
 */
describe.each(ENGINES)('definitions (%s)', (engine) => {
  let t: TestContext;
  let otherToken: string;
  const type: Record<'deal' | 'ticket' | 'theirs', number> = { deal: 0, ticket: 0, theirs: 0 };
  const field: Record<'plan' | 'band' | 'size' | 'tier' | 'old' | 'junk' | 'theirs', number> = {
    plan: 0,
    band: 0,
    size: 0,
    tier: 0,
    old: 0,
    junk: 0,
    theirs: 0,
  };
  const score: Record<'engagement' | 'fit' | 'theirs', number> = { engagement: 0, fit: 0, theirs: 0 };

  const db = () => t.services.db;

  async function objectType(communityId: number, name: string) {
    return (await t.newObjectType({ communityId, name })).key;
  }

  async function customField(communityId: number, values: { name: string; entity_types: string[]; value_type: string } & Record<string, unknown>) {
    return seedCustomField(t, values, communityId);
  }

  async function leadScore(communityId: number, values: { name: string; entity_type: string } & Record<string, unknown>) {
    return seedLeadScore(t, values, communityId);
  }

  beforeAll(async () => {
    t = await createTestContext(engine);
    const { communityId: otherId } = await t.newCommunity('Other');
    otherToken = await t.issueToken(['read'], otherId);

    type.deal = await objectType(t.communityId, 'Deal');
    type.ticket = await objectType(t.communityId, 'Ticket');
    type.theirs = await objectType(otherId, 'Their deal');
    await db()
      .insertInto('object_type_assocs')
      .values([
        { community_id: t.communityId, object_type_id: type.deal, assoc_type: 'owner', target_entity: 'contact' },
        { community_id: t.communityId, object_type_id: type.deal, assoc_type: 'account', target_entity: 'organization' },
        { community_id: t.communityId, object_type_id: type.deal, assoc_type: 'tickets', target_entity: 'object', target_object_type_id: type.ticket },
        { community_id: otherId, object_type_id: type.theirs, assoc_type: 'owner', target_entity: 'contact' },
      ])
      .execute();

    field.plan = await customField(t.communityId, {
      name: 'Plan',
      entity_types: ['contact'],
      value_type: 'enum',
      enum_values: ['free', 'pro'],
      sample_values: JSON.stringify([{ type: 'enum', value: 'pro' }]),
      description: 'Billing plan',
      target_sub_types: ['paid'],
      provided_by: 'billing',
    });
    field.band = await customField(t.communityId, { name: 'Employees band', entity_types: ['organization'], value_type: 'string' });
    field.size = await customField(t.communityId, {
      name: 'Deal size',
      entity_types: ['object'],
      value_type: 'number',
      key_field: true,
      object_type_id: type.deal,
    });
    field.tier = await customField(t.communityId, { name: 'Tier', entity_types: ['contact', 'organization'], value_type: 'boolean' });
    field.old = await customField(t.communityId, {
      name: 'Old',
      entity_types: ['contact'],
      value_type: 'string',
      deleted_at: new Date('2026-01-01T00:00:00Z'),
    });
    field.junk = await customField(t.communityId, {
      name: 'Junk samples',
      entity_types: ['contact'],
      value_type: 'string',
      sample_values: JSON.stringify([{ type: 'string', value: 'a' }, 5, null, { value: 1 }, { type: 7 }, { type: 'string' }]),
    });
    field.theirs = await customField(otherId, { name: 'Their plan', entity_types: ['contact'], value_type: 'string' });

    score.engagement = await leadScore(t.communityId, { name: 'Engagement', entity_type: 'contact', is_primary: true });
    score.fit = await leadScore(t.communityId, { name: 'Fit', entity_type: 'organization', enabled: false, output_type: 'score' });
    score.theirs = await leadScore(otherId, { name: 'Their score', entity_type: 'contact' });
  });
  afterAll(() => t?.close());

  const cf = (key: keyof typeof field) => `cf_${field[key]}`;

  function expectedField(key: 'plan' | 'band' | 'size' | 'tier' | 'junk') {
    const defaults = { keyField: false, sampleValues: [], description: null, targetSubTypes: [], providedBy: 'user', objectTypeId: null };
    const all = {
      plan: {
        id: cf('plan'),
        name: 'Plan',
        entityTypes: ['contact'],
        keyField: false,
        valueType: 'enum',
        sampleValues: [{ type: 'enum', value: 'pro' }],
        description: 'Billing plan',
        targetSubTypes: ['paid'],
        providedBy: 'billing',
        objectTypeId: null,
      },
      band: { ...defaults, id: cf('band'), name: 'Employees band', entityTypes: ['organization'], valueType: 'string' },
      size: { ...defaults, id: cf('size'), name: 'Deal size', entityTypes: ['object'], valueType: 'number', keyField: true, objectTypeId: `cot_${type.deal}` },
      tier: { ...defaults, id: cf('tier'), name: 'Tier', entityTypes: ['contact', 'organization'], valueType: 'boolean' },
      junk: {
        ...defaults,
        id: cf('junk'),
        name: 'Junk samples',
        entityTypes: ['contact'],
        valueType: 'string',
        sampleValues: [
          { type: 'string', value: 'a' },
          { type: 'string', value: null },
        ],
      },
    };
    return all[key];
  }

  describe('custom fields', () => {
    it('lists the live definitions in ID order, every field present, without meta; deleted ones are left out', async () => {
      const response = await t.get('/api/v2/custom-fields');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ success: true, data: (['plan', 'band', 'size', 'tier', 'junk'] as const).map(expectedField) });
      expect(Object.keys(response.json().data[0])).toEqual([
        'id',
        'name',
        'entityTypes',
        'keyField',
        'valueType',
        'sampleValues',
        'description',
        'targetSubTypes',
        'providedBy',
        'objectTypeId',
      ]);
    });

    it('entityType keeps the fields of one entity type', async () => {
      const cases = { contact: ['plan', 'tier', 'junk'], organization: ['band', 'tier'], object: ['size'] } as const;
      for (const [entityType, keys] of Object.entries(cases)) {
        const response = await t.get(`/api/v2/custom-fields?entityType=${entityType}`);
        expect(response.statusCode).toBe(200);
        expect(response.json().data, entityType).toEqual(keys.map(expectedField));
      }
    });

    it('any other entityType is a 400 naming the accepted values; other parameters are unknown', async () => {
      for (const entityType of ['member', 'Contact', 'contacts', '', 'activity']) {
        const response = await t.get(`/api/v2/custom-fields?entityType=${encodeURIComponent(entityType)}`);
        expect(response.statusCode, entityType).toBe(400);
        expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
        expect(response.json().error.message).toContain('contact, organization, object');
      }
      for (const query of ['limit=10', 'cursor=x', 'cols=recordCount', 'entityTypes=contact']) {
        const response = await t.get(`/api/v2/custom-fields?${query}`);
        expect(response.statusCode, query).toBe(400);
      }
    });

    it('GET /custom-fields/{id}: one definition; a deleted one is a 404 custom_field_not_found', async () => {
      for (const key of ['plan', 'size', 'junk'] as const) {
        const response = await t.get(`/api/v2/custom-fields/${cf(key)}`);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ success: true, data: expectedField(key) });
      }
      for (const missing of [cf('old'), cf('theirs'), 'cf_999999']) {
        const response = await t.get(`/api/v2/custom-fields/${missing}`);
        expect(response.statusCode, missing).toBe(404);
        expect(response.json()).toMatchObject({ success: false, error: { code: 'custom_field_not_found' } });
      }
      for (const bad of [String(field.plan), 'cf_', 'cf_x', 'ls_1', 'CF_1']) {
        const response = await t.get(`/api/v2/custom-fields/${bad}`);
        expect(response.statusCode, bad).toBe(400);
        expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_custom_field_id' } });
      }
      expect((await t.get(`/api/v2/custom-fields/${cf('plan')}?cols=url`)).statusCode).toBe(400);
    });

    it('needs contacts:read (or read)', async () => {
      for (const scopes of [['organizations:read'], ['objects:read', 'segments:read'], ['contacts:write']]) {
        const token = await t.issueToken(scopes);
        expect((await t.get('/api/v2/custom-fields', token)).statusCode, scopes.join()).toBe(403);
        expect((await t.get(`/api/v2/custom-fields/${cf('plan')}`, token)).statusCode).toBe(403);
      }
      for (const scopes of [['contacts:read'], ['read']]) {
        expect((await t.get('/api/v2/custom-fields', await t.issueToken(scopes))).statusCode).toBe(200);
      }
    });

    it('communities see only their own definitions', async () => {
      const theirs = await t.get('/api/v2/custom-fields', otherToken);
      expect(theirs.json().data.map((item: { id: string }) => item.id)).toEqual([cf('theirs')]);
      expect((await t.get(`/api/v2/custom-fields/${cf('plan')}`, otherToken)).statusCode).toBe(404);
    });
  });

  describe('lead scores', () => {
    const ls = (key: keyof typeof score) => `ls_${score[key]}`;
    const expected = () => ({
      engagement: { id: ls('engagement'), name: 'Engagement', enabled: true, entityType: 'contact', isPrimaryScore: true, outputType: 'percentile' },
      fit: { id: ls('fit'), name: 'Fit', enabled: false, entityType: 'organization', isPrimaryScore: false, outputType: 'score' },
    });

    it('lists every definition in ID order, disabled ones included, without meta', async () => {
      const response = await t.get('/api/v2/lead-scores');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ success: true, data: [expected().engagement, expected().fit] });
      expect(Object.keys(response.json().data[0])).toEqual(['id', 'name', 'enabled', 'entityType', 'isPrimaryScore', 'outputType']);
      for (const query of ['limit=1', 'entityType=contact', 'cols=recordCount']) {
        expect((await t.get(`/api/v2/lead-scores?${query}`)).statusCode, query).toBe(400);
      }
    });

    it("GET /lead-scores/{id}; malformed 400 invalid_lead_score_id, missing or another community's 404 lead_score_not_found", async () => {
      const response = await t.get(`/api/v2/lead-scores/${ls('fit')}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ success: true, data: expected().fit });
      for (const missing of [ls('theirs'), 'ls_999999']) {
        const failed = await t.get(`/api/v2/lead-scores/${missing}`);
        expect(failed.statusCode, missing).toBe(404);
        expect(failed.json()).toMatchObject({ success: false, error: { code: 'lead_score_not_found' } });
      }
      for (const bad of [String(score.fit), 'ls_', 'ls_1.5', 'cf_1']) {
        const failed = await t.get(`/api/v2/lead-scores/${bad}`);
        expect(failed.statusCode, bad).toBe(400);
        expect(failed.json()).toMatchObject({ success: false, error: { code: 'invalid_lead_score_id' } });
      }
    });

    it('needs contacts:read (or read); communities see only their own', async () => {
      const token = await t.issueToken(['organizations:read']);
      expect((await t.get('/api/v2/lead-scores', token)).statusCode).toBe(403);
      expect((await t.get(`/api/v2/lead-scores/${ls('fit')}`, token)).statusCode).toBe(403);
      expect((await t.get('/api/v2/lead-scores', await t.issueToken(['contacts:read']))).statusCode).toBe(200);
      const theirs = await t.get('/api/v2/lead-scores', otherToken);
      expect(theirs.json().data.map((item: { id: string }) => item.id)).toEqual([ls('theirs')]);
      expect((await t.get(`/api/v2/lead-scores/${ls('engagement')}`, otherToken)).statusCode).toBe(404);
    });
  });

  describe('object types', () => {
    it('lists every object type in ID order with its associations, without meta', async () => {
      const response = await t.get('/api/v2/object-types');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        success: true,
        data: [
          {
            id: `cot_${type.deal}`,
            name: 'Deal',
            assocs: [
              { objectAssocType: 'owner', targetEntity: 'contact', targetObjectTypeId: null },
              { objectAssocType: 'account', targetEntity: 'organization', targetObjectTypeId: null },
              { objectAssocType: 'tickets', targetEntity: 'object', targetObjectTypeId: `cot_${type.ticket}` },
            ],
          },
          { id: `cot_${type.ticket}`, name: 'Ticket', assocs: [] },
        ],
      });
      for (const query of ['limit=1', 'cols=recordCount']) expect((await t.get(`/api/v2/object-types?${query}`)).statusCode, query).toBe(400);
    });

    it('needs objects:read (or read); communities see only their own', async () => {
      for (const scopes of [['contacts:read'], ['objects:write']]) {
        expect((await t.get('/api/v2/object-types', await t.issueToken(scopes))).statusCode, scopes.join()).toBe(403);
      }
      expect((await t.get('/api/v2/object-types', await t.issueToken(['objects:read']))).statusCode).toBe(200);
      const theirs = await t.get('/api/v2/object-types', otherToken);
      expect(theirs.json().data).toEqual([
        { id: `cot_${type.theirs}`, name: 'Their deal', assocs: [{ objectAssocType: 'owner', targetEntity: 'contact', targetObjectTypeId: null }] },
      ]);
    });
  });
});
