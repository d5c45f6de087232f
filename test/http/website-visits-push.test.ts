import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWriter } from '../../src/core/writer.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

const DAY = 86_400_000;

type Result =
  | { index: number; status: 'accepted'; id: string; contactId: string | null; organizationId: string | null; warnings: string[] }
  | { index: number; status: 'rejected'; errors: string[] };

/** Website visits have a way in, and fill recentWebPages and recentWebVisitsNumber. */
describe.each(ENGINES)('website visits pushed by a source (%s)', (engine) => {
  let t: TestApp;
  let ada: string;
  let acme: string;
  const url = () => `/community/v1/source/${t.sourceId}/website-visits`;
  const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

  beforeAll(async () => {
    t = await createTestApp(engine);
    ada = (await accepted(t, 'user', { id: 'u-ada', email: 'ada@acme.io', fullName: 'Ada' })).contactId;
    acme = ((await t.get('/api/v2/organizations?primaryDomain=acme.io')).json() as { data: { id: string }[] }).data[0]!.id;
  });
  afterAll(() => t.close());

  async function push(items: unknown[], token?: string) {
    const response = await t.send('POST', url(), items, token);
    expect(response.statusCode, response.body).toBe(202);
    return response.json() as { status: string; accepted: number; rejected: number; results: Result[] };
  }
  async function webOf(contactId: string) {
    const response = await t.get(`/api/v2/contacts/${contactId}?cols=recentWebPages,recentWebVisitsNumber`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: { recentWebPages: { url: string; numVisits: number }[]; recentWebVisitsNumber: number } }).data;
  }

  it('links visits to contacts by email or ID and to organizations, and fills the contact fields', async () => {
    const answer = await push([
      { url: 'https://hearth.dev/pricing', visitTime: ago(1), email: 'ADA@acme.io' },
      { url: 'https://hearth.dev/pricing', visitTime: ago(2), contactId: ada },
      { url: 'https://hearth.dev/docs', visitTime: ago(3), contactId: Number(ada.slice(2)) },
      { url: 'https://hearth.dev/blog', visitTime: ago(40), email: 'ada@acme.io' },
      { url: 'https://hearth.dev/', anonymousId: 'visitor-7f3a', organizationDomain: 'www.acme.io' },
      { url: 'https://hearth.dev/', email: 'nobody@example.com', organizationDomain: 'unknown-co.io' },
    ]);
    expect(answer).toMatchObject({ status: 'accepted', accepted: 6, rejected: 0 });
    expect(answer.results[0]).toMatchObject({
      index: 0,
      status: 'accepted',
      id: expect.stringMatching(/^w_\d+$/),
      contactId: ada,
      organizationId: acme,
      warnings: [],
    });
    expect(answer.results[4]).toMatchObject({ status: 'accepted', contactId: null, organizationId: acme });
    expect(answer.results[5]).toMatchObject({
      status: 'accepted',
      contactId: null,
      organizationId: null,
      warnings: ['email: no contact has this address; the visit is kept without a contact', 'organizationDomain: no organization has the domain unknown-co.io'],
    });

    // The last 30 days: pricing twice, docs once; the blog visit is older.
    expect(await webOf(ada)).toMatchObject({
      recentWebPages: [
        { url: 'https://hearth.dev/pricing', numVisits: 2 },
        { url: 'https://hearth.dev/docs', numVisits: 1 },
      ],
      recentWebVisitsNumber: 3,
    });
    const listed = (await t.get(`/api/v2/website-visits?contactId=${ada}&cols=url,organizationId`)).json() as {
      data: { url: string; organizationId: string }[];
    };
    expect(listed.data).toHaveLength(4);
    expect(listed.data.every((visit) => visit.organizationId === acme)).toBe(true);
  });

  it('stores a visit pushed again once, with the same ID', async () => {
    // One time for both items: two calls of ago() can fall on different milliseconds, which are two visits.
    const at = ago(5);
    const items = [
      { url: 'https://hearth.dev/careers', visitTime: at, contactId: ada },
      { url: 'https://hearth.dev/careers', visitTime: at, contactId: ada },
    ];
    const first = await push(items);
    const again = await push(items);
    const ids = [...first.results, ...again.results].map((result) => (result.status === 'accepted' ? result.id : null));
    expect(new Set(ids).size, JSON.stringify([first, again])).toBe(1);
    expect((await webOf(ada)).recentWebPages).toContainEqual({ url: 'https://hearth.dev/careers', numVisits: 1 });
    // A request of one visit (as the tracker's page views are) is stored by a statement of its own: the same rule.
    const alone = [{ url: 'https://hearth.dev/jobs', visitTime: ago(5), anonymousId: 'visitor-once' }];
    const [once, twice] = [await push(alone), await push(alone)];
    expect(once.results[0]).toMatchObject({ status: 'accepted', id: expect.stringMatching(/^w_\d+$/) });
    expect(twice.results[0]).toEqual(once.results[0]);
    const lightFilter = JSON.stringify({
      type: 'and',
      clauses: [{ type: 'stringFilter', field: 'url', params: { op: 'eq', value: 'https://hearth.dev/jobs' } }],
    });
    const listed = await t.get(`/api/v2/website-visits?lightFilter=${encodeURIComponent(lightFilter)}`);
    expect(listed.json(), listed.body).toMatchObject({ data: [{ id: (once.results[0] as { id: string }).id }] });
    expect((listed.json() as { data: unknown[] }).data).toHaveLength(1);
  });

  it('gives pushes of the same visits at the same moment one ID per visit', async () => {
    const at = ago(6);
    const items = [
      { url: 'https://hearth.dev/together', visitTime: at, contactId: ada },
      { url: 'https://hearth.dev/together', visitTime: at, anonymousId: 'visitor-together' },
    ];
    const answers = await Promise.all(Array.from({ length: 6 }, () => push(items)));
    for (const position of [0, 1]) {
      const ids = new Set(answers.map((answer) => (answer.results[position] as { id: string }).id));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toMatch(/^w_[1-9]\d*$/);
    }
  });

  it('answers each bad item with its errors and stores the others', async () => {
    const answer = await push([
      { visitTime: ago(1), email: 'ada@acme.io' },
      { url: 'ftp://hearth.dev/file', email: 'ada@acme.io' },
      { url: 'https://hearth.dev/a', visitTime: 'yesterday', email: 'ada@acme.io' },
      { url: 'https://hearth.dev/a', visitTime: new Date(Date.now() + 3 * DAY).toISOString(), email: 'ada@acme.io' },
      { url: 'https://hearth.dev/a', email: 'ada@acme.io', anonymousId: 'v-1' },
      { url: 'https://hearth.dev/a' },
      { url: 'https://hearth.dev/a', contactId: 'c_999999' },
      { url: 'https://hearth.dev/a', email: 'not an address' },
      'https://hearth.dev/a',
      { url: 'https://hearth.dev/a\u0000b', anonymousId: 'v-1' },
      { url: 'https://hearth.dev/ok', anonymousId: 'v-2', referrer: 'x' },
    ]);
    expect(answer).toMatchObject({ accepted: 1, rejected: 10 });
    const errors = answer.results.map((result) => (result.status === 'rejected' ? result.errors.join(' | ') : ''));
    expect(errors[0]).toContain('url: required');
    expect(errors[1]).toContain('is not an http or https URL');
    expect(errors[2]).toContain('visitTime: "yesterday" is not a date-time');
    expect(errors[3]).toContain('more than a day ahead');
    expect(errors[4]).toContain('exactly one of email, contactId and anonymousId says who visited; got email, anonymousId');
    expect(errors[5]).toContain('exactly one of email, contactId and anonymousId');
    expect(errors[6]).toBe('contactId: no contact c_999999');
    expect(errors[7]).toContain('email:');
    expect(errors[8]).toContain('an item is an object');
    expect(errors[9]).toContain('NUL');
    expect(answer.results[10]).toMatchObject({ status: 'accepted', warnings: ['referrer: not a field of a website visit; ignored'] });
  });

  it('finds the survivor of a merged contact, and never a contact of another community', async () => {
    const github = Number((await t.services.sources.create(cliWriter(t.communityId), { name: 'GitHub' })).id);
    const crm = Number((await t.services.sources.create(cliWriter(t.communityId), { name: 'CRM' })).id);
    const older = (await accepted(t, 'user', { id: 'u-bo', email: 'bo@gmail.com' })).contactId;
    const newer = (await accepted(t, 'user', { id: 'gh-bo', github: 'bo-gh' }, { sourceId: github })).contactId;
    expect((await accepted(t, 'user', { id: 'crm-bo', email: 'bo@gmail.com', github: 'bo-gh' }, { sourceId: crm })).contactId).toBe(older);
    const answer = await push([{ url: 'https://hearth.dev/merge', contactId: newer }]);
    expect(answer.results[0]).toMatchObject({ status: 'accepted', contactId: older });

    const other = await t.services.communities.create('Other', 'test');
    const otherToken = await t.issueToken(['write'], other.communityId);
    const otherSource = (await t.services.sources.list(other.communityId)).length
      ? (await t.services.sources.list(other.communityId))[0]!.id
      : Number((await t.services.sources.create(cliWriter(other.communityId), { name: 'API' })).id);
    const response = await t.send(
      'POST',
      `/community/v1/source/${otherSource}/website-visits`,
      [
        { url: 'https://hearth.dev/', contactId: ada },
        { url: 'https://hearth.dev/', email: 'ada@acme.io' },
      ],
      otherToken,
    );
    expect(response.statusCode, response.body).toBe(202);
    const results = (response.json() as { results: Result[] }).results;
    expect(results[0]).toMatchObject({ status: 'rejected', errors: [`contactId: no contact ${ada}`] });
    expect(results[1]).toMatchObject({ status: 'accepted', contactId: null });
  });

  it('needs a source of the community and sources:write', async () => {
    const missing = await t.send('POST', '/community/v1/source/999999/website-visits', [{ url: 'https://hearth.dev/', anonymousId: 'v' }]);
    expect(missing.statusCode).toBe(404);
    const readOnly = await t.issueToken(['read']);
    expect((await t.send('POST', url(), [{ url: 'https://hearth.dev/', anonymousId: 'v' }], readOnly)).statusCode).toBe(403);
    expect((await t.send('POST', url(), [])).statusCode).toBe(400);
    expect((await t.send('POST', url(), { url: 'https://hearth.dev/' })).statusCode).toBe(400);
  });
});
