import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor } from '../../src/core/writer.ts';
import { walkPages } from '../helpers/paging.ts';
import { pushUser } from '../helpers/ingest.ts';

interface Visit {
  id: string;
  visitTime: string;
  url?: string;
  contactId?: string | null;
  organizationId?: string | null;
}
type Page = { success: true; data: Visit[]; meta: { nextCursor: string | null; recordCount?: number } };
type Params = Record<string, string | number | null | undefined>;

/** GET /api/v2/website-visits (docs/behaviour.md: IDs, cols, Paging, lightFilter, Scopes). */
describe.each(ENGINES)('website visits (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  let other: { communityId: number; token: string; contactId: number; organizationId: number };
  /** Contact keys by user id, organization key of acme.io. */
  const contact: Record<string, number> = {};
  let acme: number;
  /** Visits by label, in ID order, with what they should show. */
  const visits: { label: string; id: number; contact: string | null; organization: number | null; url: string; at: string }[] = [];

  const db = () => t.services.db;
  const c = (user: string) => `c_${contact[user]}`;
  const w = (label: string) => `w_${visits.find((visit) => visit.label === label)!.id}`;
  const filter = (clauses: unknown[], groupType = 'and') => JSON.stringify({ type: groupType, clauses });

  const push = async (body: Record<string, unknown>) => Number((await pushUser(t, body)).slice(2));

  async function visit(label: string, user: string | null, organizationId: number | null, url: string, at: string) {
    const row = await db()
      .insertInto('website_visits')
      .values({ community_id: t.communityId, contact_id: user ? contact[user]! : null, organization_id: organizationId, url, visit_time: new Date(at) })
      .returning('id')
      .executeTakeFirstOrThrow();
    visits.push({ label, id: row.id, contact: user, organization: organizationId, url, at });
  }

  async function list(params: Params, token: string | null = t.token) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(key, String(value));
    return t.get(`/api/v2/website-visits?${search}`, token);
  }

  function walk(limit: number, params: Params = {}, token = t.token): Promise<Visit[]> {
    return walkPages((cursor) => list({ ...params, limit, cursor }, token), limit);
  }
  const labelsOf = (found: Visit[]) => found.map((item) => visits.find((visit) => `w_${visit.id}` === item.id)?.label ?? item.id);

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    contact.ann = await push({ id: 'ann', email: 'ann@acme.io', companyDomain: 'acme.io' });
    contact.bob = await push({ id: 'bob', email: 'bob@acme.io', companyDomain: 'acme.io' });
    contact.cy = await push({ id: 'cy', email: 'cy@example.org' });
    contact.dan = await push({ id: 'dan', email: 'dan@example.org' });
    contact.dang = await push({ id: 'dang', github: { type: 'handle', value: 'dang' } });
    acme = (
      await db()
        .selectFrom('organizations')
        .select('id')
        .where('community_id', '=', t.communityId)
        .where('primary_domain', '=', 'acme.io')
        .executeTakeFirstOrThrow()
    ).id;

    await visit('ann-pricing', 'ann', acme, 'https://acme.io/pricing', '2026-02-27T10:00:00Z');
    await visit('bob-docs', 'bob', acme, 'https://acme.io/docs', '2026-02-10T10:00:00Z');
    await visit('cy-blog', 'cy', null, 'https://acme.io/blog/Launch', '2026-02-28T09:00:00Z');
    await visit('anon-careers', null, acme, 'https://acme.io/careers', '2026-03-01T11:00:00Z');
    await visit('nobody', null, null, 'https://acme.io/', '2026-01-01T00:00:00Z');
    await visit('dang-pricing', 'dang', null, 'https://acme.io/pricing?plan=pro', '2026-02-26T08:00:00Z');
    await visit('dan-docs', 'dan', null, 'https://acme.io/docs/api', '2026-02-20T08:00:00Z');
    // One push naming both identities merges dang into dan (the older); dang's visits move to dan.
    expect(await push({ id: 'dan-both', email: 'dan@example.org', github: { type: 'handle', value: 'dang' } })).toBe(contact.dan);
    for (const entry of visits) if (entry.contact === 'dang') entry.contact = 'dan';

    const { communityId } = await t.services.communities.create('Other', cliActor());
    const theirContact = await db().insertInto('contacts').values({ community_id: communityId, name: 'Them' }).returning('id').executeTakeFirstOrThrow();
    const theirOrganization = await db()
      .insertInto('organizations')
      .values({ community_id: communityId, name: 'Theirs', primary_domain: 'theirs.io' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('website_visits')
      .values({
        community_id: communityId,
        contact_id: theirContact.id,
        organization_id: theirOrganization.id,
        url: 'https://theirs.io/',
        visit_time: new Date('2026-02-28T00:00:00Z'),
      })
      .execute();
    other = { communityId, token: await t.issueToken(['read'], communityId), contactId: theirContact.id, organizationId: theirOrganization.id };
  });
  afterAll(() => t?.close());

  const allLabels = () => visits.map((visit) => visit.label);
  const full = (label: string): Visit => {
    const entry = visits.find((visit) => visit.label === label)!;
    return {
      id: `w_${entry.id}`,
      visitTime: new Date(entry.at).toISOString(),
      url: entry.url,
      contactId: entry.contact ? c(entry.contact) : null,
      organizationId: entry.organization ? `o_${entry.organization}` : null,
    };
  };

  it('lists visits in ID order: id and visitTime always', async () => {
    const response = await list({});
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Page;
    expect(Object.keys(body)).toEqual(['success', 'data', 'meta']);
    expect(body.meta).toEqual({ nextCursor: null });
    expect(body.data).toEqual(visits.map((visit) => ({ id: `w_${visit.id}`, visitTime: new Date(visit.at).toISOString() })));
    for (const item of body.data) expect(Object.keys(item)).toEqual(['id', 'visitTime']);
  });

  it('cols: url, contactId and organizationId (null when unknown); recordCount; anything else is a 400', async () => {
    const body = (await list({ cols: 'organizationId,url,contactId' })).json() as Page;
    expect(body.data).toEqual(allLabels().map(full));
    for (const item of body.data) expect(Object.keys(item)).toEqual(['id', 'visitTime', 'url', 'contactId', 'organizationId']);
    // The merged contact's visit shows its survivor.
    expect(body.data.find((item) => item.id === w('dang-pricing'))!.contactId).toBe(c('dan'));
    for (const name of ['url', 'contactId', 'organizationId'] as const) {
      const one = (await list({ cols: name, limit: 2 })).json() as Page;
      expect(one.data).toEqual(
        allLabels()
          .slice(0, 2)
          .map((label) => ({ id: full(label).id, visitTime: full(label).visitTime, [name]: full(label)[name] })),
      );
    }
    expect(((await list({ cols: 'recordCount', limit: 2 })).json() as Page).meta).toEqual({ nextCursor: expect.any(String), recordCount: 7 });
    for (const cols of ['visitTime', 'contact', 'cf_*', 'url,entityCount']) {
      const bad = await list({ cols });
      expect(bad.statusCode, cols).toBe(400);
      expect(bad.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
      expect(bad.json().error.message).toContain(JSON.stringify(cols.split(',').pop()));
    }
    for (const params of [{ sort: 'id' }, { direction: 'desc' }, { url: 'x' }, { limit: 0 }]) {
      expect((await list(params)).statusCode, JSON.stringify(params)).toBe(400);
    }
  });

  it('a cursor walk returns each visit exactly once, in ID order', async () => {
    const all = await walk(1000, { cols: 'url' });
    expect(labelsOf(all)).toEqual(allLabels());
    for (const limit of [1, 2, 3]) expect(await walk(limit, { cols: 'url' })).toEqual(all);
    // cols are no filter: a cursor carries over a change of columns, and of limit.
    const first = (await list({ limit: 3 })).json() as Page;
    const rest = (await list({ limit: 10, cursor: first.meta.nextCursor, cols: 'url' })).json() as Page;
    expect([...first.data, ...rest.data].map((item) => item.id)).toEqual(all.map((item) => item.id));
  });

  it("contactId keeps one contact's visits; a merged contact's ID stands for its survivor", async () => {
    expect(labelsOf(await walk(10, { contactId: c('ann') }))).toEqual(['ann-pricing']);
    expect(labelsOf(await walk(10, { contactId: c('dan') }))).toEqual(['dang-pricing', 'dan-docs']);
    expect(labelsOf(await walk(1, { contactId: c('dang') }))).toEqual(['dang-pricing', 'dan-docs']);
    const counted = (await list({ contactId: c('dang'), cols: 'recordCount' })).json() as Page;
    expect(counted.meta.recordCount).toBe(2);
    for (const [contactId, status, code] of [
      ['12', 400, 'invalid_contact_id'],
      ['c_', 400, 'invalid_contact_id'],
      ['o_1', 400, 'invalid_contact_id'],
      ['c_999999', 404, 'contact_not_found'],
      [`c_${other.contactId}`, 404, 'contact_not_found'],
    ] as const) {
      const response = await list({ contactId });
      expect(response.statusCode, contactId).toBe(status);
      expect(response.json()).toMatchObject({ success: false, error: { code } });
    }
  });

  it("organizationId keeps one organization's visits; with contactId both must hold", async () => {
    expect(labelsOf(await walk(10, { organizationId: `o_${acme}` }))).toEqual(['ann-pricing', 'bob-docs', 'anon-careers']);
    expect(labelsOf(await walk(1, { organizationId: `o_${acme}`, contactId: c('bob') }))).toEqual(['bob-docs']);
    expect(await walk(10, { organizationId: `o_${acme}`, contactId: c('cy') })).toEqual([]);
    for (const [organizationId, status, code] of [
      [String(acme), 400, 'invalid_organization_id'],
      ['o_x', 400, 'invalid_organization_id'],
      ['c_1', 400, 'invalid_organization_id'],
      ['o_999999', 404, 'org_not_found'],
      [`o_${other.organizationId}`, 404, 'org_not_found'],
    ] as const) {
      const response = await list({ organizationId });
      expect(response.statusCode, organizationId).toBe(status);
      expect(response.json()).toMatchObject({ success: false, error: { code } });
    }
  });

  it('lightFilter filters (url, visitTime, contactId, organizationId); recordCount counts with it', async () => {
    const cases: [string, string[]][] = [
      [filter([{ type: 'stringFilter', field: 'url', params: { op: 'like', value: 'PRICING' } }]), ['ann-pricing', 'dang-pricing']],
      [filter([{ type: 'stringFilter', field: 'url', params: { op: 'startsWith', value: 'https://acme.io/docs' } }]), ['bob-docs', 'dan-docs']],
      [filter([{ type: 'dateRangeFilter', field: 'visitTime', params: { op: 'in', value: 'P3D' } }]), ['ann-pricing', 'cy-blog', 'anon-careers']],
      [filter([{ type: 'dateRangeFilter', field: 'visitTime', params: { op: 'in', min: '2026-02-10', max: '2026-02-20' } }]), ['bob-docs', 'dan-docs']],
      [filter([{ type: 'stringListFilter', field: 'contactId', params: { op: 'any', value: [c('ann'), c('cy')] } }]), ['ann-pricing', 'cy-blog']],
      [
        filter([{ type: 'stringListFilter', field: 'organizationId', params: { op: 'none', value: [`o_${acme}`] } }]),
        ['cy-blog', 'nobody', 'dang-pricing', 'dan-docs'],
      ],
      [
        filter(
          [
            { type: 'stringFilter', field: 'contactId', params: { op: 'eq', value: c('bob') } },
            { type: 'stringFilter', field: 'url', params: { op: 'like', value: 'careers' } },
          ],
          'or',
        ),
        ['bob-docs', 'anon-careers'],
      ],
    ];
    for (const [lightFilter, expected] of cases) {
      expect(labelsOf(await walk(100, { lightFilter })), lightFilter).toEqual(expected);
      expect(labelsOf(await walk(1, { lightFilter })), lightFilter).toEqual(expected);
      expect(((await list({ lightFilter, cols: 'recordCount' })).json() as Page).meta.recordCount, lightFilter).toBe(expected.length);
    }
    // Together with the query filters.
    expect(labelsOf(await walk(10, { organizationId: `o_${acme}`, lightFilter: cases[0]![0] }))).toEqual(['ann-pricing']);
  });

  it('a bad lightFilter is a 400 naming the JSON path of the fault', async () => {
    const cases: [string, string][] = [
      [filter([{ type: 'stringListFilter', field: 'url', params: { op: 'any', value: ['x'] } }]), 'clauses[0]'],
      [filter([{ type: 'stringFilter', field: 'name', params: { op: 'eq', value: 'x' } }]), 'clauses[0]'],
      [
        filter([
          { type: 'stringFilter', field: 'url', params: { op: 'eq', value: 'x' } },
          { type: 'stringFilter', field: 'contactId', params: { op: 'eq', value: 'o_1' } },
        ]),
        'clauses[1]',
      ],
      [filter([{ type: 'dateRangeFilter', field: 'visitTime', params: { op: 'in', value: 'three days' } }]), 'clauses[0]'],
      [filter([{ type: 'stringFilter', field: 'cf_1', params: { op: 'eq', value: 'x' } }]), 'clauses[0]'],
      ['[]', ''],
    ];
    for (const [lightFilter, path] of cases) {
      const response = await list({ lightFilter });
      expect(response.statusCode, lightFilter).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_filter' } });
      expect(response.json().error.message, lightFilter).toContain(path);
    }
  });

  it('a cursor reused with another contact, organization or filter is a 400 invalid_cursor', async () => {
    const cursor = ((await list({ organizationId: `o_${acme}`, limit: 1 })).json() as Page).meta.nextCursor!;
    expect((await list({ organizationId: `o_${acme}`, limit: 1, cursor })).statusCode).toBe(200);
    const pricing = filter([{ type: 'stringFilter', field: 'url', params: { op: 'like', value: 'pricing' } }]);
    for (const params of [
      {},
      { contactId: c('ann') },
      { organizationId: `o_${acme}`, contactId: c('ann') },
      { organizationId: `o_${acme}`, lightFilter: pricing },
    ]) {
      const response = await list({ ...params, limit: 1, cursor });
      expect(response.statusCode, JSON.stringify(params)).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_cursor' } });
    }
    // A merged contact's ID and its survivor's name the same visits: one cursor serves both.
    const merged = ((await list({ contactId: c('dang'), limit: 1 })).json() as Page).meta.nextCursor!;
    expect(labelsOf(((await list({ contactId: c('dan'), limit: 1, cursor: merged })).json() as Page).data)).toEqual(['dan-docs']);
    expect((await list({ limit: 1, cursor }, other.token)).statusCode).toBe(400);
  });

  it('needs contacts:read (or read)', async () => {
    for (const scopes of [['organizations:read'], ['objects:read', 'activities:read'], ['contacts:write']]) {
      expect((await list({}, await t.issueToken(scopes))).statusCode, scopes.join()).toBe(403);
    }
    for (const scopes of [['contacts:read'], ['read']]) expect((await list({}, await t.issueToken(scopes))).statusCode).toBe(200);
    expect((await list({}, null)).statusCode).toBe(403);
  });

  it('communities see only their own visits', async () => {
    const theirs = (await list({ cols: 'contactId,organizationId,recordCount' }, other.token)).json() as Page;
    expect(theirs.data).toEqual([
      {
        id: expect.stringMatching(/^w_\d+$/),
        visitTime: '2026-02-28T00:00:00.000Z',
        contactId: `c_${other.contactId}`,
        organizationId: `o_${other.organizationId}`,
      },
    ]);
    expect(theirs.meta).toEqual({ nextCursor: null, recordCount: 1 });
    expect((await walk(100)).map((item) => item.id)).not.toContain(theirs.data[0]!.id);
    expect((await list({ contactId: c('ann') }, other.token)).statusCode).toBe(404);
    expect((await list({ organizationId: `o_${acme}` }, other.token)).statusCode).toBe(404);
    const everything = filter([{ type: 'stringFilter', field: 'url', params: { op: 'like', value: 'theirs' } }]);
    expect(await walk(100, { lightFilter: everything })).toEqual([]);
  });
});
