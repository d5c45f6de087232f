import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';

type Body = Record<string, unknown>;
interface Failure {
  success: false;
  error: { code: string; message: string; invalidIds?: string[] };
}

const key = (id: string) => Number(id.replace(/^[a-z]+_/, ''));

/**
 * POST /api/v2/{contacts,organizations,objects}/bulk-update (docs/writing.md, Bulk updates; docs/behaviour.md,
 * Errors and Limits): every fault named in one 400 with nothing written, otherwise every change in one transaction,
 * idempotent.
 */
describe.each(ENGINES)('bulk updates (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  const other = { communityId: 0, sourceId: 0, token: '' };
  /** Contacts of the community by name (c_N), and one of the other community. */
  const contact: Record<string, string> = {};
  let theirContact: string;
  const organization: Record<string, string> = {};
  let theirOrganization: string;
  const object: Record<string, string> = {};
  let theirObject: string;
  const segment: Record<string, string> = {};
  const tag: Record<string, string> = {};
  const field: Record<string, string> = {};

  const db = () => t.services.db;

  const post = (path: string, payload: unknown, token = t.token) =>
    t.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${token}` }, payload: payload as Body });

  const bulk = (entity: 'contacts' | 'organizations' | 'objects', body: Body, token = t.token) => post(`/api/v2/${entity}/bulk-update`, body, token);

  async function ok(entity: 'contacts' | 'organizations' | 'objects', body: Body, token = t.token): Promise<string[]> {
    const response = await bulk(entity, body, token);
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json() as { success: true; data: { ids: string[] } };
    expect(answer.success).toBe(true);
    expect(Object.keys(answer.data)).toEqual(['ids']);
    return answer.data.ids;
  }

  /** A 400 that changed nothing: the tables a bulk update writes, and their neighbours, are as before. */
  async function rejected(entity: 'contacts' | 'organizations' | 'objects', body: Body, token = t.token): Promise<Failure['error']> {
    const before = await dump();
    const response = await bulk(entity, body, token);
    expect(response.statusCode, response.body).toBe(400);
    const answer = response.json() as Failure;
    expect(answer.success).toBe(false);
    expect(await dump()).toEqual(before);
    return answer.error;
  }

  /** Every row of the tables a bulk update touches or must leave alone, as text, in a stable order. */
  async function dump() {
    const tables = [
      'contacts',
      'organizations',
      'objects',
      'segments',
      'segment_memberships',
      'tags',
      'tag_assignments',
      'custom_fields',
      'custom_field_values',
      'locations',
      'contact_merges',
    ];
    const out: Record<string, string[]> = {};
    for (const table of tables) {
      const rows = await sql<{ row: string }>`select to_jsonb(x)::text as row from ${sql.table(table)} x order by 1`.execute(db());
      out[table] = rows.rows.map((row) => row.row);
    }
    return out;
  }

  async function pushContact(id: string, extra: Body = {}, sourceId = t.sourceId, token = t.token): Promise<string> {
    const response = await post(`/community/v1/source/${sourceId}/user`, { id, fullName: `Person ${id}`, email: `${id}@example.org`, ...extra }, token);
    expect(response.statusCode, response.body).toBe(202);
    return (response.json() as { contactId: string }).contactId;
  }

  async function pushOrganization(domain: string, sourceId = t.sourceId, token = t.token): Promise<string> {
    const response = await post('/community/v1/organizations', { domain, destinationSourceId: sourceId }, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { organizationId: string }).organizationId;
  }

  async function makeTag(name: string, entityTypes: string[], token = t.token): Promise<string> {
    const response = await post('/community/v1/tags', { name, entityTypes }, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { id: string }).id;
  }

  async function insert<T extends 'object_types' | 'objects' | 'segments' | 'custom_fields'>(table: T, values: Body): Promise<number> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const row = await (db().insertInto(table) as any).values(values).returning('id').executeTakeFirstOrThrow();
    return (row as { id: number }).id;
  }

  const customField = async (communityId: number, name: string, entityTypes: string[], valueType: string, extra: Body = {}) =>
    `cf_${await insert('custom_fields', { community_id: communityId, name, entity_types: entityTypes, value_type: valueType, ...extra })}`;

  // What the database holds for records: tag IDs, segment IDs, custom field values.
  async function tagsOf(entity: 'contact' | 'organization', id: string): Promise<string[]> {
    const rows = await db()
      .selectFrom('tag_assignments')
      .select('tag_id')
      .where('entity_type', '=', entity)
      .where('entity_id', '=', key(id))
      .orderBy('tag_id')
      .execute();
    return rows.map((row) => `l_${row.tag_id}`);
  }
  async function segmentsOf(id: string): Promise<string[]> {
    const rows = await db().selectFrom('segment_memberships').select('segment_id').where('entity_id', '=', key(id)).orderBy('segment_id').execute();
    return rows.map((row) => `s_${row.segment_id}`);
  }
  async function valuesOf(entity: 'contact' | 'organization' | 'object', id: string): Promise<Record<string, unknown>> {
    const rows = await db()
      .selectFrom('custom_field_values')
      .select(['custom_field_id', 'value'])
      .where('entity_type', '=', entity)
      .where('entity_id', '=', key(id))
      .orderBy('custom_field_id')
      .execute();
    return Object.fromEntries(rows.map((row) => [`cf_${row.custom_field_id}`, row.value]));
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    other.communityId = (await t.services.communities.create('Other', cliActor())).communityId;
    other.sourceId = (await t.services.sources.create(cliWriter(other.communityId), { name: 'Other API' })).id;
    other.token = await t.issueToken(['read', 'write'], other.communityId);

    for (const name of ['ada', 'bob', 'cyd', 'dee', 'eve', 'fay', 'gus', 'hal']) contact[name] = await pushContact(name);
    theirContact = await pushContact('theirs', {}, other.sourceId, other.token);
    for (const name of ['acme', 'globex', 'initech']) organization[name] = await pushOrganization(`${name}-corp.com`);
    theirOrganization = await pushOrganization('umbrella-corp.com', other.sourceId, other.token);

    const deal = await insert('object_types', { community_id: t.communityId, name: 'Deal' });
    const ticket = await insert('object_types', { community_id: t.communityId, name: 'Ticket' });
    const theirType = await insert('object_types', { community_id: other.communityId, name: 'Deal' });
    for (const [name, type] of [
      ['deal1', deal],
      ['deal2', deal],
      ['ticket1', ticket],
    ] as const) {
      object[name] = `co_${await insert('objects', { community_id: t.communityId, object_type_id: type, name, record_key: name })}`;
    }
    theirObject = `co_${await insert('objects', { community_id: other.communityId, object_type_id: theirType, name: 'theirs', record_key: 'theirs' })}`;

    const seg = async (name: string, entityType: string, objectTypeId: number | null = null, communityId = t.communityId) =>
      `s_${await insert('segments', { community_id: communityId, name, entity_type: entityType, object_type_id: objectTypeId })}`;
    segment.vip = await seg('VIP', 'contact');
    segment.event = await seg('Event', 'contact');
    segment.accounts = await seg('Accounts', 'organization');
    segment.deals = await seg('Hot deals', 'object', deal);
    segment.tickets = await seg('Open tickets', 'object', ticket);
    segment.theirs = await seg('Their VIP', 'contact', null, other.communityId);

    tag.champion = await makeTag('Champion', ['member']);
    tag.speaker = await makeTag('Speaker', ['member']);
    tag.mentor = await makeTag('Mentor', ['member', 'company']);
    tag.customer = await makeTag('Customer', ['company']);
    tag.thread = await makeTag('Hot thread', ['activity']);
    tag.gone = await makeTag('Gone', ['member', 'company']);
    expect((await t.app.inject({ method: 'DELETE', url: `/community/v1/tags/${tag.gone}`, headers: { authorization: `Bearer ${t.token}` } })).statusCode).toBe(
      200,
    );
    tag.theirs = await makeTag('Their tag', ['member'], other.token);

    field.plan = await customField(t.communityId, 'Plan', ['contact'], 'string');
    field.seats = await customField(t.communityId, 'Seats', ['contact', 'organization'], 'int');
    field.regions = await customField(t.communityId, 'Regions', ['contact'], 'enum', { multivalue: true, enum_values: ['emea', 'apac', 'amer'] });
    field.tier = await customField(t.communityId, 'Tier', ['organization'], 'enum', { enum_values: ['gold', 'silver'] });
    field.stage = await customField(t.communityId, 'Stage', ['object'], 'string', { object_type_id: deal });
    field.priority = await customField(t.communityId, 'Priority', ['object'], 'int', { object_type_id: ticket });
    field.old = await customField(t.communityId, 'Old', ['contact'], 'string', { deleted_at: new Date() });
    field.theirs = await customField(other.communityId, 'Their plan', ['contact'], 'string');
  });
  afterAll(() => t?.close());

  beforeEach(async () => {
    // Each test starts from the same records, without what earlier tests assigned.
    for (const table of ['segment_memberships', 'tag_assignments', 'custom_field_values'] as const) {
      await db().deleteFrom(table).execute();
    }
  });

  describe('contacts', () => {
    it('adds to a segment, adds tags and sets custom fields on every contact, in one request', async () => {
      const ids = await ok('contacts', {
        contactIds: [contact.ada, contact.bob],
        segmentId: segment.vip,
        tagIdsToAdd: [tag.champion, tag.mentor],
        customFields: [
          { customFieldId: field.plan, customFieldValue: { type: 'string', value: 'pro' } },
          { customFieldId: field.seats, customFieldValue: { type: 'int', value: 12 } },
          { customFieldId: field.regions, customFieldValue: { type: 'enum', value: ['emea', 'apac'] } },
        ],
      });
      expect(ids).toEqual([contact.ada, contact.bob]);
      for (const id of [contact.ada!, contact.bob!]) {
        expect(await segmentsOf(id)).toEqual([segment.vip]);
        expect(await tagsOf('contact', id)).toEqual([tag.champion, tag.mentor]);
        expect(await valuesOf('contact', id)).toEqual({
          [field.plan!]: { type: 'string', value: 'pro' },
          [field.seats!]: { type: 'int', value: 12 },
          [field.regions!]: { type: 'enum', value: ['emea', 'apac'] },
        });
      }
      // Nobody else was touched.
      expect(await tagsOf('contact', contact.cyd!)).toEqual([]);
      expect(await segmentsOf(contact.cyd!)).toEqual([]);

      // The v2 read API shows what was written.
      const read = await t.get(`/api/v2/contacts/${contact.ada}?cols=tags,segments,cf_*`);
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json().data).toMatchObject({
        tags: [tag.champion, tag.mentor],
        segments: [{ id: segment.vip, name: 'VIP' }],
        customFields: { [field.plan!]: { type: 'string', value: 'pro' } },
      });
    });

    it('is idempotent: a retry of the whole request changes nothing more, not even a value’s updated_at', async () => {
      const body = {
        contactIds: [contact.ada, contact.bob, contact.cyd],
        segmentId: segment.vip,
        tagIdsToAdd: [tag.champion],
        tagIdsToRemove: [tag.speaker],
        customFields: [{ customFieldId: field.plan, customFieldValue: { type: 'string', value: 'pro' } }],
      };
      await ok('contacts', body);
      const after = await dump();
      clock.advance(60_000);
      expect(await ok('contacts', body)).toEqual([contact.ada, contact.bob, contact.cyd]);
      expect(await dump()).toEqual(after);
    });

    it('skips records that already have a change: a partly applied request completes when retried', async () => {
      // As if an earlier attempt had reached only ada: she is in the segment with a status, and tagged.
      const status = await db()
        .insertInto('segment_statuses')
        .values({ community_id: t.communityId, segment_id: key(segment.vip!), name: 'Invited' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db()
        .insertInto('segment_memberships')
        .values({ community_id: t.communityId, segment_id: key(segment.vip!), entity_id: key(contact.ada!), status_id: status.id })
        .execute();
      await db()
        .insertInto('tag_assignments')
        .values({ community_id: t.communityId, tag_id: key(tag.champion!), entity_type: 'contact', entity_id: key(contact.ada!) })
        .execute();
      const ids = await ok('contacts', { contactIds: [contact.ada, contact.bob], segmentId: segment.vip, tagIdsToAdd: [tag.champion] });
      expect(ids).toEqual([contact.ada, contact.bob]);
      const members = await db()
        .selectFrom('segment_memberships')
        .select(['entity_id', 'status_id'])
        .where('segment_id', '=', key(segment.vip!))
        .orderBy('entity_id')
        .execute();
      // ada keeps her status; bob joins without one.
      expect(members).toEqual([
        { entity_id: key(contact.ada!), status_id: status.id },
        { entity_id: key(contact.bob!), status_id: null },
      ]);
      expect(await tagsOf('contact', contact.bob!)).toEqual([tag.champion]);
      await db().deleteFrom('segment_statuses').execute();
    });

    it('removes only the named tags, and skips contacts without them', async () => {
      await ok('contacts', { contactIds: [contact.ada, contact.bob], tagIdsToAdd: [tag.champion, tag.speaker, tag.mentor] });
      await ok('contacts', { contactIds: [contact.ada, contact.cyd], tagIdsToRemove: [tag.champion, tag.mentor] });
      expect(await tagsOf('contact', contact.ada!)).toEqual([tag.speaker]);
      expect(await tagsOf('contact', contact.bob!)).toEqual([tag.champion, tag.speaker, tag.mentor]);
      expect(await tagsOf('contact', contact.cyd!)).toEqual([]);
    });

    it('adds some tags and removes others in one request', async () => {
      await ok('contacts', { contactIds: [contact.ada], tagIdsToAdd: [tag.champion] });
      await ok('contacts', { contactIds: [contact.ada], tagIdsToAdd: [tag.speaker], tagIdsToRemove: [tag.champion] });
      expect(await tagsOf('contact', contact.ada!)).toEqual([tag.speaker]);
    });

    it('overwrites a value, and a null value clears the field', async () => {
      await ok('contacts', {
        contactIds: [contact.ada, contact.bob],
        customFields: [
          { customFieldId: field.plan, customFieldValue: { type: 'string', value: 'free' } },
          { customFieldId: field.seats, customFieldValue: { type: 'int', value: 3 } },
        ],
      });
      await ok('contacts', {
        contactIds: [contact.ada],
        customFields: [
          { customFieldId: field.plan, customFieldValue: { type: 'string', value: 'pro' } },
          { customFieldId: field.seats, customFieldValue: { type: 'int', value: null } },
        ],
      });
      expect(await valuesOf('contact', contact.ada!)).toEqual({ [field.plan!]: { type: 'string', value: 'pro' } });
      expect(await valuesOf('contact', contact.bob!)).toEqual({
        [field.plan!]: { type: 'string', value: 'free' },
        [field.seats!]: { type: 'int', value: 3 },
      });
    });

    it('counts a repeated ID once and answers each ID of the request once', async () => {
      const ids = await ok('contacts', { contactIds: [contact.bob, contact.ada, contact.bob], tagIdsToAdd: [tag.champion, tag.champion] });
      expect(ids).toEqual([contact.bob, contact.ada]);
      expect(await tagsOf('contact', contact.bob!)).toEqual([tag.champion]);
    });

    it('updates the survivor for a merged contact’s ID, and answers the ID as given', async () => {
      const older = await pushContact('merge-old', { email: 'merge.me@example.org' });
      const newer = await pushContact('merge-new', { email: undefined, github: { type: 'handle', value: 'merge-me' } });
      const both = await pushContact('merge-both', { email: 'merge.me@example.org', github: { type: 'handle', value: 'merge-me' } });
      expect(both).toBe(older);
      const ids = await ok('contacts', {
        contactIds: [newer, older],
        segmentId: segment.vip,
        tagIdsToAdd: [tag.champion],
        customFields: [{ customFieldId: field.plan, customFieldValue: { type: 'string', value: 'merged' } }],
      });
      expect(ids).toEqual([newer, older]);
      expect(await tagsOf('contact', older)).toEqual([tag.champion]);
      expect(await segmentsOf(older)).toEqual([segment.vip]);
      expect(await valuesOf('contact', older)).toEqual({ [field.plan!]: { type: 'string', value: 'merged' } });
      // Nothing was written for the merged-away ID.
      expect(await tagsOf('contact', newer)).toEqual([]);
      expect(await valuesOf('contact', newer)).toEqual({});
    });

    it('runs concurrent updates of overlapping contacts to the end, each whole', async () => {
      const all = Object.values(contact);
      const bodies = [
        { contactIds: all, tagIdsToAdd: [tag.champion, tag.speaker], segmentId: segment.vip },
        { contactIds: [...all].reverse(), tagIdsToAdd: [tag.speaker, tag.mentor], segmentId: segment.vip },
        {
          contactIds: all.slice(2),
          tagIdsToRemove: [tag.champion],
          customFields: [{ customFieldId: field.plan, customFieldValue: { type: 'string', value: 'x' } }],
        },
        { contactIds: all.slice(0, 4), customFields: [{ customFieldId: field.plan, customFieldValue: { type: 'string', value: 'x' } }] },
      ];
      const responses = await Promise.all(bodies.map((body) => bulk('contacts', body)));
      expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200]);
      for (const id of all) {
        expect(await segmentsOf(id)).toEqual([segment.vip]);
        expect(await tagsOf('contact', id)).toEqual(expect.arrayContaining([tag.speaker, tag.mentor]));
        expect(await valuesOf('contact', id)).toEqual({ [field.plan!]: { type: 'string', value: 'x' } });
      }
    });

    it('leaves derived data alone: organizations’ member counts and locations', async () => {
      const before = await dump();
      await ok('contacts', { contactIds: [contact.ada], tagIdsToAdd: [tag.champion] });
      const after = await dump();
      for (const table of ['contacts', 'organizations', 'locations', 'segments', 'tags', 'custom_fields'] as const) {
        expect(after[table]).toEqual(before[table]);
      }
    });
  });

  describe('organizations', () => {
    it('adds to an organization segment, adds and removes company tags, sets custom fields', async () => {
      await ok('organizations', { organizationIds: [organization.acme], tagIdsToAdd: [tag.mentor] });
      const ids = await ok('organizations', {
        organizationIds: [organization.acme, organization.globex],
        segmentId: segment.accounts,
        tagIdsToAdd: [tag.customer],
        tagIdsToRemove: [tag.mentor],
        customFields: [
          { customFieldId: field.tier, customFieldValue: { type: 'enum', value: 'gold' } },
          { customFieldId: field.seats, customFieldValue: { type: 'int', value: 250 } },
        ],
      });
      expect(ids).toEqual([organization.acme, organization.globex]);
      for (const id of [organization.acme!, organization.globex!]) {
        expect(await segmentsOf(id)).toEqual([segment.accounts]);
        expect(await tagsOf('organization', id)).toEqual([tag.customer]);
        expect(await valuesOf('organization', id)).toEqual({
          [field.seats!]: { type: 'int', value: 250 },
          [field.tier!]: { type: 'enum', value: 'gold' },
        });
      }
      expect(await tagsOf('organization', organization.initech!)).toEqual([]);
      // Tags of organizations are not tags of contacts with the same key.
      expect(await tagsOf('contact', `c_${key(organization.acme!)}`)).not.toContain(tag.customer);
    });

    it('refuses member-only tags, contact segments, contact-only fields and contact IDs', async () => {
      const error = await rejected('organizations', {
        organizationIds: [organization.acme, contact.ada],
        segmentId: segment.vip,
        tagIdsToAdd: [tag.champion],
        customFields: [{ customFieldId: field.plan, customFieldValue: { type: 'string', value: 'x' } }],
      });
      expect(error.code).toBe('invalid_parameters');
      expect(error.invalidIds).toEqual([contact.ada, segment.vip, tag.champion, field.plan]);
      expect(error.message).toContain(`organizationIds[1] "${contact.ada}": not an organization ID (expected o_<number>)`);
      expect(error.message).toContain(`segmentId "${segment.vip}": a contact segment, not an organization segment`);
      expect(error.message).toContain('the tag does not apply to organizations (it allows member)');
      expect(error.message).toContain('the custom field does not apply to organizations (it applies to contact)');
    });

    it('names unknown and foreign organization IDs', async () => {
      const error = await rejected('organizations', { organizationIds: [theirOrganization, 'o_99999', organization.acme], tagIdsToAdd: [tag.customer] });
      expect(error).toMatchObject({ code: 'invalid_organization_id', invalidIds: [theirOrganization, 'o_99999'] });
    });
  });

  describe('custom objects', () => {
    it('adds objects to an object segment of their type and sets their fields', async () => {
      const ids = await ok('objects', {
        objectIds: [object.deal1, object.deal2],
        segmentId: segment.deals,
        customFields: [{ customFieldId: field.stage, customFieldValue: { type: 'string', value: 'won' } }],
      });
      expect(ids).toEqual([object.deal1, object.deal2]);
      for (const id of [object.deal1!, object.deal2!]) {
        expect(await segmentsOf(id)).toEqual([segment.deals]);
        expect(await valuesOf('object', id)).toEqual({ [field.stage!]: { type: 'string', value: 'won' } });
      }
      const read = await t.get(`/api/v2/objects/${object.deal1}`);
      expect(read.json().data.customFields).toEqual({ [field.stage!]: { type: 'string', value: 'won' } });
    });

    it('refuses a segment or a field of another object type, naming the objects of the other type', async () => {
      const error = await rejected('objects', {
        objectIds: [object.deal1, object.ticket1],
        segmentId: segment.deals,
        customFields: [{ customFieldId: field.priority, customFieldValue: { type: 'int', value: 1 } }],
      });
      expect(error.code).toBe('invalid_parameters');
      expect(error.invalidIds).toEqual([segment.deals, field.priority]);
      expect(error.message).toContain(`segmentId "${segment.deals}": a segment of object type cot_`);
      expect(error.message).toContain(`${object.ticket1} is of another type`);
      expect(error.message).toContain(`${object.deal1} is of another type`);
    });

    it('refuses contact segments, unknown and foreign objects', async () => {
      const error = await rejected('objects', { objectIds: [object.deal1, theirObject, 'co_x'], segmentId: segment.vip });
      expect(error.code).toBe('invalid_parameters');
      expect(error.invalidIds).toEqual([theirObject, 'co_x', segment.vip]);
    });

    it('takes no tag fields', async () => {
      const error = await rejected('objects', { objectIds: [object.deal1], tagIdsToAdd: [tag.champion] });
      expect(error).toMatchObject({ code: 'invalid_parameters', message: expect.stringContaining('unknown body field "tagIdsToAdd"') });
    });

    it('needs segmentId or customFields', async () => {
      const error = await rejected('objects', { objectIds: [object.deal1] });
      expect(error.message).toBe('a bulk update needs at least one change: segmentId or customFields');
    });
  });

  describe('validation: every fault in one 400, nothing written', () => {
    it('every kind of fault at once: foreign IDs, a deleted tag, a value of the wrong type and a segment of the wrong entity type', async () => {
      // Something to lose, had anything been written or removed.
      await ok('contacts', {
        contactIds: [contact.ada],
        tagIdsToAdd: [tag.speaker],
        customFields: [{ customFieldId: field.plan, customFieldValue: { type: 'string', value: 'keep' } }],
      });
      const error = await rejected('contacts', {
        contactIds: [contact.ada, theirContact, contact.bob],
        segmentId: segment.accounts,
        tagIdsToAdd: [tag.champion, tag.gone],
        tagIdsToRemove: [tag.speaker],
        customFields: [
          { customFieldId: field.plan, customFieldValue: { type: 'string', value: 'changed' } },
          { customFieldId: field.seats, customFieldValue: { type: 'string', value: 'twelve' } },
        ],
      });
      expect(error.code).toBe('invalid_parameters');
      expect(error.invalidIds).toEqual([theirContact, segment.accounts, tag.gone, field.seats]);
      expect(error.message).toBe(
        'nothing was updated: ' +
          [
            `contactIds[1] "${theirContact}": no contact with this ID`,
            `segmentId "${segment.accounts}": an organization segment, not a contact segment`,
            `tagIdsToAdd[1] "${tag.gone}": the tag is deleted`,
            `customFields[1].customFieldValue "${field.seats}": custom field ${key(field.seats!)} ("Seats") takes type "int", not "string"`,
          ].join('; '),
      );
      expect(await tagsOf('contact', contact.ada!)).toEqual([tag.speaker]);
      expect(await valuesOf('contact', contact.ada!)).toEqual({ [field.plan!]: { type: 'string', value: 'keep' } });
    });

    it('malformed, unknown and foreign contact IDs: invalid_contact_id', async () => {
      const error = await rejected('contacts', { contactIds: [contact.ada, '5', 'o_1', 'c_', 'c_99999999', theirContact], tagIdsToAdd: [tag.champion] });
      expect(error.code).toBe('invalid_contact_id');
      expect(error.invalidIds).toEqual(['5', 'o_1', 'c_', 'c_99999999', theirContact]);
      expect(error.message).toContain('contactIds[1] "5": not a contact ID (expected c_<number>)');
      expect(error.message).toContain('contactIds[4] "c_99999999": no contact with this ID');
    });

    it.each([
      ['malformed', 'segment-1', 'not a segment ID (expected s_<number>)'],
      ['unknown', 's_99999', 'no segment with this ID'],
      ['of another community', 'theirs', 'no segment with this ID'],
      ['of another entity type', 'deals', 'an object segment, not a contact segment'],
    ])('a segment ID that is %s: invalid_segment_id', async (_, given, reason) => {
      const id = segment[given] ?? given;
      const error = await rejected('contacts', { contactIds: [contact.ada], segmentId: id });
      expect(error).toEqual({ code: 'invalid_segment_id', message: `nothing was updated: segmentId "${id}": ${reason}`, invalidIds: [id] });
    });

    it.each([
      ['malformed', 'label-1', 'not a tag ID (expected l_<number>)'],
      ['unknown', 'l_99999', 'no tag with this ID'],
      ['of another community', 'theirs', 'no tag with this ID'],
      ['deleted', 'gone', 'the tag is deleted'],
      ['for other entities', 'thread', 'the tag does not apply to contacts (it allows activity)'],
    ])('a tag that is %s, to add or to remove: invalid_tag_id', async (_, given, reason) => {
      const id = tag[given] ?? given;
      for (const list of ['tagIdsToAdd', 'tagIdsToRemove']) {
        const error = await rejected('contacts', { contactIds: [contact.ada], [list]: [tag.speaker, id] });
        expect(error).toEqual({ code: 'invalid_tag_id', message: `nothing was updated: ${list}[1] "${id}": ${reason}`, invalidIds: [id] });
      }
    });

    it('a tag both to add and to remove', async () => {
      const error = await rejected('contacts', { contactIds: [contact.ada], tagIdsToAdd: [tag.champion], tagIdsToRemove: [tag.speaker, tag.champion] });
      expect(error).toMatchObject({ code: 'invalid_tag_id', invalidIds: [tag.champion] });
      expect(error.message).toContain('tagIdsToRemove[1]');
    });

    it.each([
      ['malformed', 'Plan', { type: 'string', value: 'x' }, 'not a custom field ID (expected cf_<number>)'],
      ['unknown', 'cf_99999', { type: 'string', value: 'x' }, 'no custom field with this ID'],
      ['of another community', 'theirs', { type: 'string', value: 'x' }, 'no custom field with this ID'],
      ['deleted', 'old', { type: 'string', value: 'x' }, 'the custom field is deleted'],
      ['for other entities', 'tier', { type: 'enum', value: 'gold' }, 'the custom field does not apply to contacts (it applies to organization)'],
    ])('a custom field that is %s: invalid_custom_field_id', async (_, given, value, reason) => {
      const id = field[given] ?? given;
      const error = await rejected('contacts', { contactIds: [contact.ada], customFields: [{ customFieldId: id, customFieldValue: value }] });
      expect(error).toEqual({
        code: 'invalid_custom_field_id',
        message: `nothing was updated: customFields[0].customFieldId "${id}": ${reason}`,
        invalidIds: [id],
      });
    });

    it('a custom field given twice', async () => {
      const error = await rejected('contacts', {
        contactIds: [contact.ada],
        customFields: [
          { customFieldId: field.plan, customFieldValue: { type: 'string', value: 'a' } },
          { customFieldId: field.plan, customFieldValue: { type: 'string', value: 'b' } },
        ],
      });
      expect(error).toEqual({
        code: 'invalid_custom_field_id',
        message: `nothing was updated: customFields[1].customFieldId "${field.plan}": the custom field is given more than once`,
        invalidIds: [field.plan],
      });
    });

    it.each([
      ['a type other than the field’s', 'seats', { type: 'number', value: 2 }, 'takes type "int", not "number"'],
      ['a value that does not fit the type', 'seats', { type: 'int', value: 2.5 }, 'needs an integer; got 2.5'],
      ['an option the enum does not have', 'regions', { type: 'enum', value: ['emea', 'mars'] }, 'needs values from one of "emea", "apac", "amer"'],
      ['a string where a number belongs', 'seats', { type: 'int', value: '12' }, 'needs an integer; got "12"'],
    ])('a custom field value with %s: invalid_custom_field_value', async (_, name, value, reason) => {
      const id = field[name]!;
      const error = await rejected('contacts', { contactIds: [contact.ada], customFields: [{ customFieldId: id, customFieldValue: value }] });
      expect(error.code).toBe('invalid_custom_field_value');
      expect(error.invalidIds).toEqual([id]);
      expect(error.message).toContain(`customFields[0].customFieldValue "${id}": custom field ${key(id)}`);
      expect(error.message).toContain(reason);
    });

    it('names every offending ID of a long request, in request order, once each', async () => {
      const bad = Array.from({ length: 50 }, (_, i) => `c_${900000 + i}`);
      const error = await rejected('contacts', { contactIds: [...bad, contact.ada, bad[0]], tagIdsToAdd: [tag.champion] });
      expect(error.invalidIds).toEqual(bad);
    });
  });

  describe('body', () => {
    const valid = () => ({ contactIds: [contact.ada], tagIdsToAdd: [tag.champion] });

    it.each([
      ['no record IDs', { contactIds: [] }, 'body field "contactIds" must NOT have fewer than 1 items'],
      ['101 record IDs', { contactIds: Array.from({ length: 101 }, (_, i) => `c_${i + 1}`) }, 'body field "contactIds" must NOT have more than 100 items'],
      ['26 tags to add', { tagIdsToAdd: Array.from({ length: 26 }, (_, i) => `l_${i + 1}`) }, 'body field "tagIdsToAdd" must NOT have more than 25 items'],
      [
        '26 tags to remove',
        { tagIdsToRemove: Array.from({ length: 26 }, (_, i) => `l_${i + 1}`) },
        'body field "tagIdsToRemove" must NOT have more than 25 items',
      ],
      ['an empty customFields', { customFields: [] }, 'body field "customFields" must NOT have fewer than 1 items'],
      ['an unknown field', { contactIDs: ['c_1'] }, 'unknown body field "contactIDs"'],
      [
        'an unknown field in a custom field',
        { customFields: [{ customFieldId: 'cf_1', customFieldValue: { type: 'string', value: 'x', extra: 1 } }] },
        'unknown body field "customFields.0.customFieldValue.extra"',
      ],
      [
        'a custom field value without its type',
        { customFields: [{ customFieldId: 'cf_1', customFieldValue: { value: 'x' } }] },
        'body field "customFields.0.customFieldValue.type" is required',
      ],
      ['a number for an ID (bodies are never coerced)', { contactIds: [1] }, 'body field "contactIds.0" must be string'],
      ['a null segmentId', { segmentId: null }, 'body field "segmentId" must be string'],
    ])('refuses %s', async (_, change, message) => {
      const error = await rejected('contacts', { ...valid(), ...change });
      expect(error.code).toBe('invalid_parameters');
      expect(error.message).toContain(message);
    });

    it('refuses a request without contactIds', async () => {
      const error = await rejected('contacts', { tagIdsToAdd: [tag.champion] });
      expect(error.message).toContain('body field "contactIds" is required');
    });

    it('needs at least one change; empty tag lists are none', async () => {
      for (const body of [{ contactIds: [contact.ada] }, { contactIds: [contact.ada], tagIdsToAdd: [], tagIdsToRemove: [] }]) {
        const error = await rejected('contacts', body);
        expect(error).toEqual({
          code: 'invalid_parameters',
          message: 'a bulk update needs at least one change: segmentId, tagIdsToAdd, tagIdsToRemove or customFields',
        });
      }
    });

    it('takes 100 IDs and 25 tags', async () => {
      const ids = [...Object.values(contact)];
      while (ids.length < 100) ids.push(await pushContact(`many-${ids.length}`));
      const tags = [];
      for (let i = 0; i < 25; i++) tags.push(await makeTag(`Bulk ${i}`, ['member']));
      expect(await ok('contacts', { contactIds: ids, tagIdsToAdd: tags })).toEqual(ids);
      const count = await db()
        .selectFrom('tag_assignments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(100 * 25);
      for (const id of tags) await t.app.inject({ method: 'DELETE', url: `/community/v1/tags/${id}`, headers: { authorization: `Bearer ${t.token}` } });
    });
  });

  describe('scopes and isolation', () => {
    it.each([
      ['contacts', 'contacts:write', ['contacts:read', 'organizations:write', 'objects:write', 'read']],
      ['organizations', 'organizations:write', ['organizations:read', 'contacts:write', 'read']],
      ['objects', 'objects:write', ['objects:read', 'contacts:write', 'read']],
    ] as const)('%s need %s (or write)', async (entity, scope, others) => {
      const bodies = {
        contacts: { contactIds: [contact.ada], tagIdsToAdd: [tag.champion] },
        organizations: { organizationIds: [organization.acme], tagIdsToAdd: [tag.customer] },
        objects: { objectIds: [object.deal1], segmentId: segment.deals },
      };
      for (const scopes of others) {
        const before = await dump();
        const response = await bulk(entity, bodies[entity], await t.issueToken([scopes]));
        expect(response.statusCode, `${entity} with ${scopes}`).toBe(403);
        expect(response.json()).toMatchObject({ status: 'forbidden' });
        expect(await dump()).toEqual(before);
      }
      await ok(entity, bodies[entity], await t.issueToken([scope]));
      await ok(entity, bodies[entity], await t.issueToken(['write']));
    });

    it('refuses a request without a token', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v2/contacts/bulk-update',
        payload: { contactIds: [contact.ada], tagIdsToAdd: [tag.champion] },
      });
      expect(response.statusCode).toBe(403);
    });

    it('another community cannot reach this one’s records, segments, tags or fields, and never changes them', async () => {
      const error = await rejected(
        'contacts',
        {
          contactIds: [theirContact, contact.ada],
          segmentId: segment.vip,
          tagIdsToAdd: [tag.champion],
          customFields: [{ customFieldId: field.plan, customFieldValue: { type: 'string', value: 'x' } }],
        },
        other.token,
      );
      expect(error.invalidIds).toEqual([contact.ada, segment.vip, tag.champion, field.plan]);

      // Its own update touches its own records only.
      const before = await dump();
      await ok(
        'contacts',
        {
          contactIds: [theirContact],
          segmentId: segment.theirs,
          tagIdsToAdd: [tag.theirs],
          customFields: [{ customFieldId: field.theirs, customFieldValue: { type: 'string', value: 'mine' } }],
        },
        other.token,
      );
      const after = await dump();
      const ours = (rows: string[]) => rows.filter((row) => (JSON.parse(row) as { community_id: number }).community_id === t.communityId);
      for (const table of Object.keys(before)) expect(ours(after[table]!), table).toEqual(ours(before[table]!));
      expect(await tagsOf('contact', theirContact)).toEqual([tag.theirs]);
    });
  });
});
