import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/jobs/worker.ts';
import { cliWriter } from '../../src/core/writer.ts';
import { systemClock } from '../../src/clock.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import Type from 'typebox';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';

/** A platform that needs no server: connectors' writes are audited whatever the platform. */
const quietKind: ConnectorKind = {
  kind: 'discourse',
  platformName: 'Quiet forum',
  settingsSchema: Type.Object({}),
  secretsSchema: Type.Object({ webhookSecret: Type.String() }),
  streams: async () => [],
  page: async () => ({ translation: { users: [], activities: [], skipped: [] }, checkpoint: null, done: true }),
  test: async () => 'nothing to see',
};

interface Entry {
  id: string;
  at: string;
  actor: string;
  tokenId: string | null;
  operation: string;
  entityIds: string[];
  detail: Record<string, unknown>;
}

type Method = 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The admin token of `hearth init` belongs to the console user it made. */
const ADMIN_ACTOR = 'user:admin@hearth.local';

/**
 * The audit log (docs/writing.md, The audit log): every write through the API is recorded with who, what, which
 * records and when.
 */
describe.each(ENGINES)('audit log (%s)', (engine) => {
  let t: TestApp;
  let adminJti: string;

  async function send(method: Method, url: string, payload?: object, token = t.token) {
    return t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload }) });
  }

  async function audit(query = '', token = t.token): Promise<{ data: Entry[]; meta: { nextCursor: string | null } }> {
    const response = await t.get(`/api/v2/admin/audit-log${query ? `?${query}` : ''}`, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  const newest = async () => (await audit('limit=1')).data[0]!;

  async function jtiOf(token: string): Promise<string> {
    return ((await t.get('/api/v2/api-token-status', token)).json() as { jti: string }).jti;
  }

  // A model endpoint, for the insights refresh (which refuses to run without one).
  let fake: FakeLlm;

  beforeAll(async () => {
    fake = await startFakeLlm();
    t = await createTestApp(engine, { llm: fake.config(), connectorKinds: [quietKind] });
    adminJti = await jtiOf(t.token);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('records every write route of the API: actor, token, operation, the IDs touched, when', async () => {
    const written = new Set<string>();
    /** Sends one write, then checks the newest entry is its own and returns the response body. */
    async function write(
      route: string,
      url: string,
      payload: object | undefined,
      expected: { status: number; operation: string; ids: (body: Record<string, unknown>) => string[] },
    ) {
      const [method] = route.split(' ') as [Method];
      const before = Date.now();
      const response = await send(method, url, payload);
      expect(response.statusCode, `${route}: ${response.body}`).toBe(expected.status);
      const body = response.body ? ((response.json() as Record<string, unknown>) ?? {}) : {};
      const entry = await newest();
      expect(entry, route).toMatchObject({ actor: ADMIN_ACTOR, tokenId: adminJti, operation: expected.operation });
      expect(entry.entityIds, route).toEqual(expect.arrayContaining(expected.ids(body)));
      expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(before - 1000);
      written.add(route);
      return body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    }
    const data = (body: Record<string, unknown>) => body.data as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

    const source = data(
      await write(
        'POST /api/v2/admin/sources',
        '/api/v2/admin/sources',
        { name: 'Second' },
        { status: 201, operation: 'source.create', ids: (b) => [data(b).id] },
      ),
    );
    const issued = data(
      await write(
        'POST /api/v2/admin/tokens',
        '/api/v2/admin/tokens',
        { name: 'robot', scopes: ['read'] },
        { status: 201, operation: 'token.create', ids: (b) => [data(b).jti] },
      ),
    );
    const user = await write(
      'POST /community/v1/source/{destinationSourceId}/user',
      `/community/v1/source/${t.sourceId}/user`,
      { id: 'u-1', email: 'ada@example.org', fullName: 'Ada' },
      {
        status: 202,
        operation: 'contact.push',
        ids: (b) => [b.contactId as string],
      },
    );
    const contactId = user.contactId as string;
    await write(
      'POST /community/v1/source/{destinationSourceId}/activity',
      `/community/v1/source/${t.sourceId}/activity`,
      { id: 'a-1', activityType: 'made_post_topic', user: { id: 'u-1' } },
      { status: 202, operation: 'activity.push', ids: (b) => [b.activityId as string, contactId] },
    );
    // The batch pushes record one entry per item, like the single pushes; the newest is the last item's.
    await write('POST /community/v1/source/{destinationSourceId}/users', `/community/v1/source/${t.sourceId}/users`, [{ id: 'u-2' }, { id: 'u-1' }], {
      status: 202,
      operation: 'contact.push',
      ids: () => [contactId],
    });
    await write(
      'POST /community/v1/source/{destinationSourceId}/activities',
      `/community/v1/source/${t.sourceId}/activities`,
      [{ id: 'a-2', activityType: 'made_post_topic', user: { id: 'u-1' } }],
      { status: 202, operation: 'activity.push', ids: (b) => [(b.results as { activityId: string }[])[0]!.activityId, contactId] },
    );
    const org = await write(
      'POST /community/v1/organizations',
      '/community/v1/organizations',
      { domain: 'acme.com', destinationSourceId: t.sourceId },
      {
        status: 200,
        operation: 'organization.upsert',
        ids: (b) => [b.organizationId as string],
      },
    );
    await write(
      'POST /community/v1/source/{sourceId}/organization',
      `/community/v1/source/${t.sourceId}/organization`,
      { domain: 'globex.com' },
      {
        status: 200,
        operation: 'organization.upsert',
        ids: (b) => [b.organizationId as string],
      },
    );
    const tag = await write(
      'POST /community/v1/tags',
      '/community/v1/tags',
      { name: 'VIP', entityTypes: ['member', 'company'] },
      { status: 200, operation: 'tag.create', ids: (b) => [b.id as string] },
    );
    await write(
      'POST /community/v1/tags/{id}',
      `/community/v1/tags/${tag.id}`,
      { name: 'Very important' },
      { status: 200, operation: 'tag.update', ids: () => [tag.id] },
    );
    const segment = data(
      await write(
        'POST /api/v2/segments',
        '/api/v2/segments',
        { name: 'Fans', entityType: 'contact' },
        { status: 201, operation: 'segment.create', ids: (b) => [data(b).id] },
      ),
    );
    await write(
      'PATCH /api/v2/segments/{id}',
      `/api/v2/segments/${segment.id}`,
      { name: 'Big fans' },
      { status: 200, operation: 'segment.rename', ids: () => [segment.id] },
    );
    await write(
      'POST /community/v1/segments/{id}',
      `/community/v1/segments/${(segment.id as string).slice(2)}`,
      { socialType: 'email', value: 'ada@example.org' },
      {
        status: 200,
        operation: 'segment.add_contacts',
        ids: () => [segment.id, contactId],
      },
    );
    await write('DELETE /api/v2/segments/{id}/contacts/{contactId}', `/api/v2/segments/${segment.id}/contacts/${contactId}`, undefined, {
      status: 204,
      operation: 'segment.remove_contact',
      ids: () => [segment.id, contactId],
    });
    await write(
      'POST /api/v2/contacts/bulk-update',
      '/api/v2/contacts/bulk-update',
      { contactIds: [contactId], tagIdsToAdd: [tag.id] },
      {
        status: 200,
        operation: 'contacts.bulk_update',
        ids: () => [contactId, tag.id],
      },
    );
    await write(
      'POST /api/v2/organizations/bulk-update',
      '/api/v2/organizations/bulk-update',
      { organizationIds: [org.organizationId], tagIdsToAdd: [tag.id] },
      {
        status: 200,
        operation: 'organizations.bulk_update',
        ids: () => [org.organizationId, tag.id],
      },
    );
    const type = data(
      await write(
        'POST /api/v2/admin/object-types',
        '/api/v2/admin/object-types',
        { name: 'Deal' },
        { status: 201, operation: 'object_type.create', ids: (b) => [data(b).id] },
      ),
    );
    await write(
      'POST /api/v2/admin/object-types/{id}/assocs',
      `/api/v2/admin/object-types/${type.id}/assocs`,
      { objectAssocType: 'owner', targetEntity: 'contact' },
      {
        status: 201,
        operation: 'object_type.add_assoc',
        ids: () => [type.id],
      },
    );
    await write('DELETE /api/v2/admin/object-types/{id}/assocs/{objectAssocType}', `/api/v2/admin/object-types/${type.id}/assocs/owner`, undefined, {
      status: 200,
      operation: 'object_type.remove_assoc',
      ids: () => [type.id],
    });
    const upserted = data(
      await write(
        'POST /api/v2/admin/objects',
        '/api/v2/admin/objects',
        { objectTypeId: type.id, records: [{ recordKey: 'd-1', name: 'Deal one' }] },
        {
          status: 200,
          operation: 'objects.upsert',
          ids: (b) => data(b).ids,
        },
      ),
    );
    const objectId = upserted.ids[0] as string;
    const field = await t.services.db
      .insertInto('custom_fields')
      .values({ community_id: t.communityId, name: 'Stage', entity_types: ['object'], value_type: 'string', object_type_id: Number(type.id.slice(4)) })
      .returning('id')
      .executeTakeFirstOrThrow();
    const fieldValue = { customFieldId: `cf_${field.id}`, customFieldValue: { type: 'string', value: 'won' } };
    await write(
      'PATCH /api/v2/objects/{id}',
      `/api/v2/objects/${objectId}`,
      { customFields: [fieldValue] },
      { status: 200, operation: 'object.set_custom_fields', ids: () => [objectId] },
    );
    const deals = data(
      await write(
        'POST /api/v2/segments',
        '/api/v2/segments',
        { name: 'Deals', entityType: 'object', objectTypeId: type.id },
        { status: 201, operation: 'segment.create', ids: (b) => [data(b).id] },
      ),
    );
    await write(
      'POST /api/v2/objects/{id}/segments',
      `/api/v2/objects/${objectId}/segments`,
      { segmentId: deals.id },
      {
        status: 200,
        operation: 'object.add_to_segment',
        ids: () => [objectId, deals.id],
      },
    );
    await write(
      'POST /api/v2/objects/bulk-update',
      '/api/v2/objects/bulk-update',
      { objectIds: [objectId], segmentId: deals.id, customFields: [fieldValue] },
      {
        status: 200,
        operation: 'objects.bulk_update',
        ids: () => [objectId, deals.id],
      },
    );
    await write(
      'POST /api/v2/admin/tech-products',
      '/api/v2/admin/tech-products',
      { products: [{ product: 'Hearth', vendor: 'The Hearth Project' }] },
      {
        status: 200,
        operation: 'tech_products.import',
        ids: () => [],
      },
    );
    await write(
      'POST /api/v2/admin/prospector/companies',
      '/api/v2/admin/prospector/companies',
      [{ domain: 'acme.com', name: 'Acme', technologies: ['hearth'] }],
      {
        status: 200,
        operation: 'prospector_companies.import',
        ids: () => [],
      },
    );
    await write(
      'POST /api/v2/admin/prospector/contacts',
      '/api/v2/admin/prospector/contacts',
      [{ linkedInHandle: 'ada', fullName: 'Ada', companyDomain: 'acme.com' }],
      {
        status: 200,
        operation: 'prospector_contacts.import',
        ids: () => [],
      },
    );
    await write(
      'POST /api/v2/admin/job-openings',
      '/api/v2/admin/job-openings',
      { jobOpenings: [{ organizationId: org.organizationId, jobTitle: 'Engineer' }] },
      {
        status: 200,
        operation: 'job_openings.import',
        ids: () => [org.organizationId],
      },
    );
    await write(
      'POST /api/v2/admin/news',
      '/api/v2/admin/news',
      { news: [{ organizationId: org.organizationId, title: 'Launch', publishedAt: '2026-11-01T09:00:00Z' }] },
      {
        status: 200,
        operation: 'news.import',
        ids: () => [org.organizationId],
      },
    );
    const committee = { seniorities: [{ id: 1, key: 'vp', name: 'VP' }], departments: [{ id: 1, key: 'engineering', name: 'Engineering' }] };
    await write('PUT /api/v2/admin/buying-committee', '/api/v2/admin/buying-committee', committee, {
      status: 200,
      operation: 'buying_committee.set',
      ids: () => [],
    });
    await write('DELETE /api/v2/admin/buying-committee', '/api/v2/admin/buying-committee', undefined, {
      status: 200,
      operation: 'buying_committee.remove',
      ids: () => [],
    });
    await write(
      'POST /api/v2/data-available',
      '/api/v2/data-available',
      { sourceId: t.sourceId },
      { status: 200, operation: 'source.data_available', ids: () => [`sig_${t.sourceId}`] },
    );
    await write(
      'POST /api/v2/admin/tech-products',
      '/api/v2/admin/tech-products',
      { products: [{ product: 'Hearth', vendor: 'Hearth' }] },
      {
        status: 200,
        operation: 'tech_products.import',
        ids: () => [],
      },
    );
    await write(
      'POST /api/v2/admin/job-openings',
      '/api/v2/admin/job-openings',
      { jobOpenings: [{ organizationId: org.organizationId, jobTitle: 'Engineer' }] },
      {
        status: 200,
        operation: 'job_openings.import',
        ids: () => [org.organizationId],
      },
    );
    await write(
      'POST /api/v2/admin/news',
      '/api/v2/admin/news',
      { news: [{ objectId, title: 'Deal won', publishedAt: '2026-11-01T00:00:00Z' }] },
      {
        status: 200,
        operation: 'news.import',
        ids: () => [objectId],
      },
    );
    const feed = data(
      await write(
        'POST /api/v2/admin/feeds',
        '/api/v2/admin/feeds',
        { organizationId: org.organizationId, kind: 'rss', url: 'https://acme.com/blog/feed.xml' },
        {
          status: 201,
          operation: 'feed.create',
          ids: (b) => [data(b).id, org.organizationId],
        },
      ),
    );
    await write(
      'POST /api/v2/admin/feeds/{id}/fetch',
      `/api/v2/admin/feeds/${feed.id}/fetch`,
      {},
      { status: 202, operation: 'feed.fetch', ids: () => [feed.id] },
    );
    await write('DELETE /api/v2/admin/feeds/{id}', `/api/v2/admin/feeds/${feed.id}`, undefined, {
      status: 200,
      operation: 'feed.delete',
      ids: () => [feed.id],
    });

    const hook = data(
      await write(
        'POST /api/v2/admin/webhooks',
        '/api/v2/admin/webhooks',
        { url: 'https://hooks.example.org/hearth', events: ['contact.created'] },
        {
          status: 201,
          operation: 'webhook.create',
          ids: (b) => [data(b).id],
        },
      ),
    );
    const hookIds = () => [hook.id as string];
    await write(
      'PATCH /api/v2/admin/webhooks/{id}',
      `/api/v2/admin/webhooks/${hook.id}`,
      { description: 'CRM' },
      { status: 200, operation: 'webhook.update', ids: hookIds },
    );
    // Disabled, its deliveries wait: made by the fan-out, never sent anywhere.
    await write('POST /api/v2/admin/webhooks/{id}/disable', `/api/v2/admin/webhooks/${hook.id}/disable`, undefined, {
      status: 200,
      operation: 'webhook.disable',
      ids: hookIds,
    });
    expect((await send('POST', `/community/v1/source/${t.sourceId}/user`, { id: 'u-hook', fullName: 'Hooked' })).statusCode).toBe(202);
    await t.services.webhooks.deliverNow();
    const [delivery] = ((await t.get(`/api/v2/admin/webhooks/${hook.id}/deliveries`)).json() as { data: { id: string }[] }).data;
    await write(
      'POST /api/v2/admin/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      `/api/v2/admin/webhooks/${hook.id}/deliveries/${delivery!.id}/redeliver`,
      undefined,
      {
        status: 202,
        operation: 'webhook.redeliver',
        ids: () => [delivery!.id, hook.id as string],
      },
    );
    await write(
      'POST /api/v2/admin/webhooks/{id}/replay',
      `/api/v2/admin/webhooks/${hook.id}/replay`,
      { since: '2020-01-01T00:00:00Z' },
      { status: 202, operation: 'webhook.replay', ids: hookIds },
    );
    await write(
      'POST /api/v2/admin/webhooks/{id}/rotate-secret',
      `/api/v2/admin/webhooks/${hook.id}/rotate-secret`,
      {},
      { status: 200, operation: 'webhook.rotate_secret', ids: hookIds },
    );
    await write('POST /api/v2/admin/webhooks/{id}/enable', `/api/v2/admin/webhooks/${hook.id}/enable`, undefined, {
      status: 200,
      operation: 'webhook.enable',
      ids: hookIds,
    });
    await write('DELETE /api/v2/admin/webhooks/{id}', `/api/v2/admin/webhooks/${hook.id}`, undefined, {
      status: 200,
      operation: 'webhook.delete',
      ids: hookIds,
    });

    const connector = (
      await write(
        'POST /api/v2/admin/connectors',
        '/api/v2/admin/connectors',
        { kind: 'discourse', settings: {}, secrets: { webhookSecret: 'shh-secret-value' } },
        {
          status: 201,
          operation: 'connector.create',
          ids: (body) => [(body.data as { id: string }).id],
        },
      )
    ).data as { id: string };
    const connectorIds = () => [connector.id];
    await write(
      'POST /api/v2/admin/connectors/test',
      '/api/v2/admin/connectors/test',
      { kind: 'discourse', settings: {}, secrets: { webhookSecret: 'x' } },
      { status: 200, operation: 'connector.test', ids: () => [] },
    );
    await write(
      'PATCH /api/v2/admin/connectors/{id}',
      `/api/v2/admin/connectors/${connector.id}`,
      { secrets: { webhookSecret: 'shh-another-value' } },
      { status: 200, operation: 'connector.update', ids: connectorIds },
    );
    await write('POST /api/v2/admin/connectors/{id}/test', `/api/v2/admin/connectors/${connector.id}/test`, undefined, {
      status: 200,
      operation: 'connector.test',
      ids: connectorIds,
    });
    await write('POST /api/v2/admin/connectors/{id}/sync', `/api/v2/admin/connectors/${connector.id}/sync`, undefined, {
      status: 200,
      operation: 'connector.sync',
      ids: connectorIds,
    });
    await write('POST /api/v2/admin/connectors/{id}/pause', `/api/v2/admin/connectors/${connector.id}/pause`, undefined, {
      status: 200,
      operation: 'connector.pause',
      ids: connectorIds,
    });
    await write('POST /api/v2/admin/connectors/{id}/resume', `/api/v2/admin/connectors/${connector.id}/resume`, undefined, {
      status: 200,
      operation: 'connector.resume',
      ids: connectorIds,
    });
    await write('DELETE /api/v2/admin/connectors/{id}', `/api/v2/admin/connectors/${connector.id}`, undefined, {
      status: 200,
      operation: 'connector.remove',
      ids: connectorIds,
    });
    const connectorEntries = JSON.stringify(await audit('operation=connector.*&limit=100'));
    expect(connectorEntries).not.toContain('shh-secret-value');
    expect(connectorEntries).not.toContain('shh-another-value');
    await write(
      'POST /community/v1/source/{destinationSourceId}/website-visits',
      `/community/v1/source/${t.sourceId}/website-visits`,
      [{ url: 'https://hearth.dev/', contactId }],
      {
        status: 202,
        operation: 'website_visit.push',
        ids: (b) => [(b.results as { id: string }[])[0]!.id],
      },
    );
    const tracker = data(
      await write(
        'PUT /api/v2/admin/sources/{id}/tracker',
        `/api/v2/admin/sources/${t.sourceId}/tracker`,
        { allowedOrigins: ['https://hearth.dev'] },
        {
          status: 201,
          operation: 'tracker.enable',
          ids: () => [`sig_${t.sourceId}`],
        },
      ),
    );
    await write(
      'PUT /api/v2/admin/sources/{id}/tracker',
      `/api/v2/admin/sources/${t.sourceId}/tracker`,
      { allowedOrigins: ['https://hearth.dev', 'https://www.hearth.dev'] },
      {
        status: 200,
        operation: 'tracker.update',
        ids: () => [`sig_${t.sourceId}`],
      },
    );
    await write('POST /api/v2/admin/sources/{id}/tracker/rotate-secret', `/api/v2/admin/sources/${t.sourceId}/tracker/rotate-secret`, undefined, {
      status: 200,
      operation: 'tracker.rotate_secret',
      ids: () => [`sig_${t.sourceId}`],
    });
    const rotated = data(
      await write('POST /api/v2/admin/sources/{id}/tracker/rotate', `/api/v2/admin/sources/${t.sourceId}/tracker/rotate`, undefined, {
        status: 200,
        operation: 'tracker.rotate',
        ids: () => [`sig_${t.sourceId}`],
      }),
    );
    // The tracker's public routes are written by any visitor of a site: no entry (docs/ingestion.md).
    const beforeBeacons = (await newest()).id;
    for (const [event, body] of [
      ['pageview', { url: 'https://hearth.dev/', anonymousId: 'audit-browser' }],
      ['identify', { anonymousId: 'audit-browser', email: 'ada@example.org' }],
    ] as const) {
      const headers = { 'content-type': 'text/plain', origin: 'https://hearth.dev' };
      const response = await t.app.inject({ method: 'POST', url: `/community/v1/t/${rotated.key}/${event}`, headers, payload: JSON.stringify(body) });
      expect(response.statusCode, response.body).toBe(202);
    }
    expect((await newest()).id).toBe(beforeBeacons);
    await write('DELETE /api/v2/admin/sources/{id}/tracker', `/api/v2/admin/sources/${t.sourceId}/tracker`, undefined, {
      status: 200,
      operation: 'tracker.revoke',
      ids: () => [`sig_${t.sourceId}`],
    });
    expect(tracker.key).not.toBe(rotated.key);
    const definition = data(
      await write(
        'POST /api/v2/admin/custom-fields',
        '/api/v2/admin/custom-fields',
        { name: 'Plan', entityTypes: ['contact'], valueType: 'enum', allowedValues: ['free', 'pro'] },
        {
          status: 201,
          operation: 'custom_field.create',
          ids: (b) => [data(b).id],
        },
      ),
    );
    await write(
      'PATCH /api/v2/admin/custom-fields/{id}',
      `/api/v2/admin/custom-fields/${definition.id}`,
      { allowedValues: ['free', 'pro', 'team'] },
      {
        status: 200,
        operation: 'custom_field.update',
        ids: () => [definition.id],
      },
    );
    await write('DELETE /api/v2/admin/custom-fields/{id}', `/api/v2/admin/custom-fields/${definition.id}`, undefined, {
      status: 200,
      operation: 'custom_field.retire',
      ids: () => [definition.id],
    });
    await write(
      'POST /api/v2/admin/research-prompts',
      '/api/v2/admin/research-prompts',
      { promptId: 'fit', promptName: 'Good fit?', prompt: 'Is it a fit?', isPrimaryPrompt: true },
      {
        status: 201,
        operation: 'research_prompt.create',
        ids: () => ['fit'],
      },
    );
    await write(
      'PATCH /api/v2/admin/research-prompts/{promptId}',
      '/api/v2/admin/research-prompts/fit',
      { prompt: 'Is it a good fit?' },
      {
        status: 200,
        operation: 'research_prompt.update',
        ids: () => ['fit'],
      },
    );
    await write(
      'POST /api/v2/admin/research-answers',
      '/api/v2/admin/research-answers',
      { answers: [{ organizationId: org.organizationId, promptId: 'fit', answer: 'Yes.' }] },
      {
        status: 200,
        operation: 'research_answer.import',
        ids: () => [org.organizationId],
      },
    );
    await write('DELETE /api/v2/admin/research-prompts/{promptId}', '/api/v2/admin/research-prompts/fit', undefined, {
      status: 200,
      operation: 'research_prompt.retire',
      ids: () => ['fit'],
    });
    await write('POST /api/v2/admin/insights/refresh', '/api/v2/admin/insights/refresh', {}, { status: 202, operation: 'insights.refresh', ids: () => [] });
    const score = { name: 'Engaged', entityType: 'contact', weights: [{ activityType: 'starred_repo', weight: 1 }] };
    const leadScore = data(
      await write('POST /api/v2/admin/lead-scores', '/api/v2/admin/lead-scores', score, {
        status: 201,
        operation: 'lead_score.create',
        ids: (b) => [data(b).id],
      }),
    );
    await write(
      'PATCH /api/v2/admin/lead-scores/{id}',
      `/api/v2/admin/lead-scores/${leadScore.id}`,
      { halfLifeDays: 7 },
      {
        status: 200,
        operation: 'lead_score.update',
        ids: () => [leadScore.id],
      },
    );
    await write('POST /api/v2/admin/lead-scores/dry-run', '/api/v2/admin/lead-scores/dry-run', score, {
      status: 200,
      operation: 'lead_score.dry_run',
      ids: () => [],
    });
    await write('DELETE /api/v2/admin/lead-scores/{id}', `/api/v2/admin/lead-scores/${leadScore.id}`, undefined, {
      status: 200,
      operation: 'lead_score.retire',
      ids: () => [leadScore.id],
    });
    await write('DELETE /community/v1/tags/{id}', `/community/v1/tags/${tag.id}`, undefined, { status: 200, operation: 'tag.delete', ids: () => [tag.id] });
    await write('DELETE /community/v1/user/{email}', '/community/v1/user/ada@example.org', undefined, {
      status: 200,
      operation: 'privacy.request',
      ids: () => [],
    });
    await write('DELETE /community/v1/user', '/community/v1/user?email=grace@example.org', undefined, {
      status: 200,
      operation: 'privacy.request',
      ids: () => [],
    });
    // Console users: managed with the admin token; signing in and out, and a password, with the session.
    const consoleUser = (
      await write(
        'POST /api/v2/admin/users',
        '/api/v2/admin/users',
        { name: 'Mia', loginEmail: 'mia@example.org', password: 'mia password 1' },
        {
          status: 201,
          operation: 'user.create',
          ids: (body) => [data(body).user.id],
        },
      )
    ).data.user;
    await write(
      'PATCH /api/v2/admin/users/{id}',
      `/api/v2/admin/users/${consoleUser.id}`,
      { role: 'admin' },
      { status: 200, operation: 'user.update', ids: () => [consoleUser.id] },
    );
    const link = (
      await write('POST /api/v2/admin/users/{id}/sign-in-link', `/api/v2/admin/users/${consoleUser.id}/sign-in-link`, undefined, {
        status: 201,
        operation: 'user.sign_in_link',
        ids: () => [consoleUser.id],
      })
    ).data;
    const signedIn = await t.app.inject({ method: 'POST', url: '/api/v2/session', payload: { email: 'mia@example.org', password: 'mia password 1' } });
    expect(signedIn.statusCode, signedIn.body).toBe(201);
    expect(await newest()).toMatchObject({
      actor: 'user:mia@example.org',
      operation: 'session.create',
      entityIds: [consoleUser.id],
      tokenId: expect.stringMatching(/^session:/),
    });
    const byLink = await t.app.inject({ method: 'POST', url: '/api/v2/session/link', payload: { link: link.url } });
    expect(await newest()).toMatchObject({ actor: 'user:mia@example.org', operation: 'session.create', detail: { via: 'link' } });
    const sessionHeaders = (response: typeof signedIn) => ({
      cookie: String(response.headers['set-cookie']).split(';')[0]!,
      'x-csrf-token': response.json().data.csrfToken as string,
    });
    const changed = await t.app.inject({
      method: 'PUT',
      url: '/api/v2/session/password',
      headers: sessionHeaders(byLink),
      payload: { newPassword: 'mia password 2' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(await newest()).toMatchObject({ actor: 'user:mia@example.org', operation: 'user.password', entityIds: [consoleUser.id] });
    written.add('PUT /api/v2/session/password');
    const out = await t.app.inject({ method: 'DELETE', url: '/api/v2/session', headers: sessionHeaders(byLink) });
    expect(out.statusCode, out.body).toBe(200);
    expect(await newest()).toMatchObject({ actor: 'user:mia@example.org', operation: 'session.delete', entityIds: [consoleUser.id] });
    written.add('DELETE /api/v2/session');
    await write('DELETE /api/v2/admin/users/{id}', `/api/v2/admin/users/${consoleUser.id}`, undefined, {
      status: 200,
      operation: 'user.remove',
      ids: () => [consoleUser.id],
    });
    await write('DELETE /api/v2/admin/tokens/{jti}', `/api/v2/admin/tokens/${issued.jti}`, undefined, {
      status: 200,
      operation: 'token.revoke',
      ids: () => [issued.jti],
    });
    expect(source.id).toMatch(/^sig_/);

    // A likely duplicate, computed by the background step, then dismissed.
    for (const [id, email] of [
      ['dup-1', 'mira@duplicates.com'],
      ['dup-2', 'm.stone@duplicates.com'],
    ]) {
      expect((await send('POST', `/community/v1/source/${t.sourceId}/user`, { id, fullName: 'Mira Stone', email })).statusCode).toBe(202);
    }
    await t.services.mergeSuggestions.runStep();
    const suggestions = (await t.get('/api/v2/contacts/merge-suggestions')).json() as { data: { id: string; contacts: { id: string }[] }[] };
    const suggestion = suggestions.data[0]!;
    await write('POST /api/v2/contacts/merge-suggestions/{id}/dismiss', `/api/v2/contacts/merge-suggestions/${suggestion.id}/dismiss`, undefined, {
      status: 200,
      operation: 'merge_suggestion.dismiss',
      ids: () => [suggestion.id, ...suggestion.contacts.map((contact) => contact.id)],
    });

    // The pair merged by hand, then the merge undone.
    const [one, other] = suggestion.contacts.map((contact) => contact.id) as [string, string];
    const merged = await write(
      'POST /api/v2/contacts/{id}/merge',
      `/api/v2/contacts/${other}/merge`,
      { contactId: one },
      {
        status: 200,
        operation: 'contact.merge',
        ids: (body) => [data(body).survivorId, data(body).mergedId],
      },
    );
    const { survivorId: survivor, mergedId: mergedAway } = data(merged) as { survivorId: string; mergedId: string };
    await write(
      'POST /api/v2/contacts/{id}/unmerge',
      `/api/v2/contacts/${survivor}/unmerge`,
      { mergedId: mergedAway },
      {
        status: 200,
        operation: 'contact.unmerge',
        ids: () => [survivor, mergedAway],
      },
    );

    // Every write route the service publishes was exercised above: a new one must be audited (and added here).
    // The public writes (no token, so no one to name) are the website tracker's, checked above to leave no entry.
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const writes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method]) => ['post', 'patch', 'put', 'delete'].includes(method))
        .map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, public: operation.security?.length === 0 })),
    );
    expect([...written].sort()).toEqual(
      writes
        .filter((w) => !w.public)
        .map((w) => w.route)
        .sort(),
    );
    // And the console's sign-in, recorded as the user who signed in (above).
    expect(
      writes
        .filter((w) => w.public)
        .map((w) => w.route)
        .sort(),
    ).toEqual([
      'POST /api/v2/receivers/{kind}/{key}',
      'POST /api/v2/session',
      'POST /api/v2/session/link',
      'POST /community/v1/t/{key}/identify',
      'POST /community/v1/t/{key}/pageview',
    ]);
  });

  it('names a token without a console user by its name, and keeps the address of a removal request out of the log', async () => {
    const robot = await t.services.tokens.issue(cliWriter(t.communityId), { name: 'nightly sync', scopes: ['write', 'read'] });
    const pushed = await send('POST', `/community/v1/source/${t.sourceId}/user`, { id: 'rob-1', email: 'rob@example.org' }, robot.token);
    expect(pushed.statusCode).toBe(202);
    expect(await newest()).toMatchObject({ actor: 'token:nightly sync', tokenId: robot.jti, operation: 'contact.push' });

    expect((await send('DELETE', '/community/v1/user/rob@example.org', undefined, robot.token)).statusCode).toBe(200);
    const request = await newest();
    expect(request).toMatchObject({ operation: 'privacy.request', entityIds: [], detail: { removalRequestId: expect.any(Number), jobId: expect.any(Number) } });
    expect(JSON.stringify(await audit('limit=1000'))).not.toContain('rob@example.org');
  });

  it('records the background erasure as the job that did it, one entry per contact erased', async () => {
    const pushed = await send('POST', `/community/v1/source/${t.sourceId}/user`, { id: 'eve-1', email: 'eve@example.org' });
    const contactId = (pushed.json() as { contactId: string }).contactId;
    expect((await send('DELETE', '/community/v1/user/eve@example.org')).statusCode).toBe(200);
    const { jobId } = (await newest()).detail as { jobId: number };
    const worker = createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs });
    await worker.runUntilIdle();
    const erased = (await audit(`operation=privacy.erase&entityId=${contactId}`)).data;
    expect(erased).toEqual([
      expect.objectContaining({
        actor: `job:${jobId}`,
        tokenId: null,
        entityIds: [contactId],
        detail: expect.objectContaining({ erasedSoFar: expect.any(Object) }),
      }),
    ]);
  });

  it('records nothing for a write that was refused: the entry commits with the write or not at all', async () => {
    const before = (await newest()).id;
    const refused = await send('POST', '/api/v2/contacts/bulk-update', { contactIds: ['c_999999'], tagIdsToAdd: ['l_999999'] });
    expect(refused.statusCode).toBe(400);
    expect((await send('POST', '/api/v2/segments', { name: '', entityType: 'contact' })).statusCode).toBe(400);
    expect((await send('POST', `/community/v1/source/999999/user`, { id: 'x' })).statusCode).toBe(404);
    expect((await newest()).id).toBe(before);
  });

  describe('GET /api/v2/admin/audit-log', () => {
    it('filters by operation (exact or prefix*), actor, token, entity and time, newest first', async () => {
      const robot = await t.services.tokens.issue(cliWriter(t.communityId), { name: 'filters', scopes: ['write', 'read'] });
      const start = new Date();
      const made: string[] = [];
      for (const name of ['One', 'Two', 'Three']) {
        const response = await send('POST', '/api/v2/segments', { name: `Filters ${name}`, entityType: 'contact' }, robot.token);
        made.push((response.json() as { data: { id: string } }).data.id);
      }
      await send('PATCH', `/api/v2/segments/${made[0]}`, { name: 'Filters First' }, robot.token);

      const byToken = (await audit(`tokenId=${robot.jti}`)).data;
      expect(byToken.map((entry) => entry.operation)).toEqual(['segment.rename', 'segment.create', 'segment.create', 'segment.create']);
      expect(byToken.map((entry) => entry.entityIds[0])).toEqual([made[0], made[2], made[1], made[0]]);
      const ats = byToken.map((entry) => Date.parse(entry.at));
      expect([...ats].sort((a, b) => b - a)).toEqual(ats);

      expect((await audit(`tokenId=${robot.jti}&operation=segment.create`)).data).toHaveLength(3);
      expect((await audit(`tokenId=${robot.jti}&operation=segment.*`)).data).toHaveLength(4);
      expect((await audit(`tokenId=${robot.jti}&operation=segment`)).data).toHaveLength(0);
      expect((await audit(`actor=${encodeURIComponent('token:filters')}`)).data).toHaveLength(4);
      expect((await audit(`entityId=${made[0]}`)).data.map((entry) => entry.operation)).toEqual(['segment.rename', 'segment.create']);
      expect((await audit(`tokenId=${robot.jti}&since=${encodeURIComponent(new Date(start.getTime() - 1000).toISOString())}`)).data).toHaveLength(4);
      expect((await audit(`tokenId=${robot.jti}&until=${encodeURIComponent(new Date(start.getTime() - 1000).toISOString())}`)).data).toHaveLength(0);
      expect((await audit(`tokenId=${robot.jti}&since=PT1H`)).data).toHaveLength(4);
      expect((await audit(`tokenId=${robot.jti}&until=PT1H`)).data).toHaveLength(0);
    });

    it('pages with a cursor bound to its filters', async () => {
      const all = (await audit('limit=1000')).data;
      expect(all.length).toBeGreaterThan(5);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: Entry[]; meta: { nextCursor: string | null } } = await audit(`limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        seen.push(...page.data.map((entry) => entry.id));
        cursor = page.meta.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all.map((entry) => entry.id));

      const first = await audit('limit=2&operation=segment.*');
      const reused = await t.get(`/api/v2/admin/audit-log?limit=2&operation=tag.*&cursor=${encodeURIComponent(first.meta.nextCursor!)}`);
      expect(reused.statusCode).toBe(400);
      expect(reused.json()).toMatchObject({ success: false, error: { code: 'invalid_cursor' } });
    });

    it('answers 400 for a bad time or an unknown parameter, and 403 without the admin scope', async () => {
      const bad = await t.get('/api/v2/admin/audit-log?since=yesterday');
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining('since') } });
      expect((await t.get('/api/v2/admin/audit-log?until=2026-11-01T10:00:00')).statusCode).toBe(400);
      expect((await t.get('/api/v2/admin/audit-log?who=me')).statusCode).toBe(400);
      const reader = await t.issueToken(['read', 'write']);
      expect((await t.get('/api/v2/admin/audit-log', reader)).statusCode).toBe(403);
    });

    it("shows a community's admin only its own community's entries", async () => {
      const { communityId } = await t.services.communities.create('Audit elsewhere', 'cli:test@host');
      const otherAdmin = await t.issueToken(['read', 'write', 'admin'], communityId);
      const segment = await send('POST', '/api/v2/segments', { name: 'Elsewhere', entityType: 'contact' }, otherAdmin);
      const segmentId = (segment.json() as { data: { id: string } }).data.id;
      const theirs = (await audit('limit=1000', otherAdmin)).data;
      expect(theirs.map((entry) => entry.operation)).toEqual(['segment.create', 'token.create', 'community.create']);
      expect(theirs[2]).toMatchObject({ actor: 'cli:test@host', entityIds: [`com_${communityId}`] });
      expect((await audit(`entityId=${segmentId}`)).data).toEqual([]);
      expect((await audit('limit=1000')).data.map((entry) => entry.id)).not.toContain(theirs[0]!.id);
    });
  });
});
