import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { ENGINES } from '../../../test/helpers/test-database.ts';
import {
  createHearthClient,
  encodeLightFilter,
  HearthApiError,
  lightFilter,
  lightFilterFor,
  type HearthClient,
  type PageItem,
  type Schemas,
} from '../src/index.ts';
import { startTestServer, type TestServer } from './server.ts';

const PEOPLE = 25;
/** Every third person works at Acme; every fifth is an engineer. */
const person = (n: number) => ({
  id: `p-${n}`,
  fullName: `Person ${String(n).padStart(2, '0')}`,
  email: n % 3 === 0 ? `p${n}@acme.example` : `p${n}@other.example`,
  titleAtCompany: n % 5 === 0 ? 'Engineer' : 'Analyst',
});

describe.each(ENGINES)('@hearth/client against a real server (%s)', (engine) => {
  let server: TestServer;
  let hearth: HearthClient;
  let contacts: PageItem<'/api/v2/contacts'>[];
  /** The contacts the first run made (its admin), before the test's own. */
  let before: number;

  beforeAll(async () => {
    server = await startTestServer(engine);
    hearth = createHearthClient({ baseUrl: server.baseUrl, token: server.token });
    before = (await hearth.get('/api/v2/contacts', { params: { query: { limit: 1000 } } })).data.length;
    const pushed = await hearth.post('/community/v1/source/{destinationSourceId}/users', {
      params: { path: { destinationSourceId: String(server.sourceId) } },
      body: Array.from({ length: PEOPLE }, (_, n) => person(n + 1)),
    });
    expect(pushed).toMatchObject({ accepted: PEOPLE, rejected: 0 });
  });
  afterAll(() => server?.close());

  it('answers the data of a success, typed by the document', async () => {
    const me = await hearth.get('/api/v2/me');
    expectTypeOf(me.data).toEqualTypeOf<Schemas['Me']>();
    expect(me.success).toBe(true);
    expect(me.data).toHaveProperty('id');
  });

  it('walks a list of more than two pages by its cursors, each record once', async () => {
    const pages = [];
    for await (const page of hearth.pages('/api/v2/contacts', { params: { query: { limit: 10, cols: 'primaryEmail,title' } } })) pages.push(page);
    const total = before + PEOPLE;
    expect(pages.map((page) => page.data.length)).toEqual([10, 10, total - 20]);
    expect(pages.map((page) => page.meta.nextCursor === null)).toEqual([false, false, true]);

    contacts = [];
    for await (const contact of hearth.paginate('/api/v2/contacts', { params: { query: { limit: 10, cols: 'primaryEmail,title' } } })) contacts.push(contact);
    expect(contacts).toHaveLength(total);
    expect(new Set(contacts.map((contact) => contact.id)).size).toBe(total);
    expect(contacts.map((contact) => contact.primaryEmail)).toEqual(expect.arrayContaining(Array.from({ length: PEOPLE }, (_, n) => person(n + 1).email)));
    expect(contacts).toEqual(pages.flatMap((page) => page.data));

    // A walk resumes from the last cursor it saw: the third page, and nothing after it.
    const resumed = [];
    for await (const contact of hearth.paginate('/api/v2/contacts', {
      params: { query: { limit: 10, cols: 'primaryEmail,title', cursor: pages[1]!.meta.nextCursor! } },
    })) {
      resumed.push(contact);
    }
    expect(resumed).toEqual(pages[2]!.data);
  });

  it('walks every paged list it is given, and refuses a path that is not one', async () => {
    const tags = [];
    for await (const tag of hearth.paginate('/api/v2/tags', { params: { query: { limit: 1 } } })) tags.push(tag);
    expect(tags).toEqual([]);
    for (const name of ['Alpha', 'Beta', 'Gamma']) await hearth.post('/api/v2/segments', { body: { name } });
    const segments = [];
    for await (const segment of hearth.paginate('/api/v2/segments', { params: { query: { limit: 1 } } })) segments.push(segment.name);
    expect(segments.sort()).toEqual(['Alpha', 'Beta', 'Gamma']);
    // @ts-expect-error /api/v2/me is no list
    await expect(hearth.paginate('/api/v2/me').next()).rejects.toThrow('/api/v2/me is not a paged list');
  });

  it('filters a list with a typed lightFilter, as the server compiles it', async () => {
    const f = lightFilterFor('/api/v2/contacts');
    expect(f.entity).toBe('contact');
    const acmeEngineersOrPerson1 = f.or(
      f.and(f.string('primaryEmail', 'like', '@acme.example'), f.string('title', 'eq', 'Engineer')),
      f.stringList('fullName', 'any', ['Person 01']),
    );
    const found = [];
    for await (const contact of hearth.paginate('/api/v2/contacts', {
      params: { query: { limit: 2, cols: 'primaryEmail,title', lightFilter: encodeLightFilter(acmeEngineersOrPerson1) } },
    })) {
      found.push(contact);
    }
    const expected = contacts.filter(
      (contact) => (contact.primaryEmail?.endsWith('@acme.example') && contact.title === 'Engineer') || contact.primaryEmail === 'p1@other.example',
    );
    expect(expected.map((contact) => contact.primaryEmail).sort()).toEqual(['p15@acme.example', 'p1@other.example']);
    expect(found.map((contact) => contact.id).sort()).toEqual(expected.map((contact) => contact.id).sort());

    // Nobody has an activity, so only the second clause finds anyone.
    const c = lightFilter('contact');
    const recent = c.or(c.dateRange('latestActivityTime', { min: '2000-01-01' }), c.string('primaryEmail', 'startsWith', 'p2'));
    const page = await hearth.get('/api/v2/contacts', { params: { query: { cols: 'primaryEmail', lightFilter: encodeLightFilter(recent) } } });
    expect(page.data.map((contact) => contact.primaryEmail).sort()).toEqual(
      contacts
        .map((contact) => contact.primaryEmail ?? '')
        .filter((email) => email.startsWith('p2'))
        .sort(),
    );
  });

  it('throws a HearthApiError that says what went wrong', async () => {
    const missing = await hearth.get('/api/v2/contacts/{id}', { params: { path: { id: 'c_999999' } } }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(HearthApiError);
    expect(missing).toMatchObject({ status: 404, code: 'contact_not_found', method: 'GET', url: `${server.baseUrl}/api/v2/contacts/c_999999` });
    expect((missing as HearthApiError).message).toMatch(/^GET \/api\/v2\/contacts\/c_999999: 404 contact_not_found: ./);
    expect((missing as HearthApiError).requestId).toBeTruthy();

    // What the types refuse, a server refuses too: the error names the clause's path.
    const f = lightFilter('contact');
    // @ts-expect-error contacts have no field "shoeSize"
    const badField = f.and(f.number('shoeSize', 'gt', 40));
    const refused = await hearth.get('/api/v2/contacts', { params: { query: { lightFilter: encodeLightFilter(badField) } } }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: 'invalid_filter' });
    expect((refused as HearthApiError).message).toContain('clauses[0]');

    const reader = createHearthClient({ baseUrl: server.baseUrl, token: await server.issueToken(['contacts:read']) });
    const forbidden = await reader.post('/api/v2/segments', { body: { name: 'x', entityType: 'contact' } }).catch((error: unknown) => error);
    expect(forbidden).toMatchObject({ status: 403, code: 'forbidden', method: 'POST' });

    const core = await hearth.get('/community/v1/tags/{id}', { params: { path: { id: '999999' } } }).catch((error: unknown) => error);
    expect(core).toMatchObject({ status: 404, code: 'not_found' });

    // openapi-fetch's own methods stay: they answer {data, error, response} and never throw on a status.
    const raw = await hearth.GET('/api/v2/contacts/{id}', { params: { path: { id: 'c_999999' } } });
    expect(raw.response.status).toBe(404);
    expect(raw.error).toMatchObject({ success: false, error: { code: 'contact_not_found' } });
  });
});

describe.each(ENGINES)('@hearth/client on a rate-limited token (%s)', (engine) => {
  let server: TestServer;
  // Two requests per one-second window: the third of a burst is a 429 with Retry-After: 1.
  beforeAll(async () => {
    server = await startTestServer(engine, { rateLimit: { perToken: 2, windowSeconds: 1 } });
  });
  afterAll(() => server?.close());

  it('waits what a 429 asks and sends the request again', async () => {
    const retries: { attempt: number; delayMs: number }[] = [];
    const hearth = createHearthClient({
      baseUrl: server.baseUrl,
      token: server.token,
      retry: { onRetry: ({ attempt, delayMs }) => retries.push({ attempt, delayMs }) },
    });
    const started = Date.now();
    const answers = [];
    for (let n = 0; n < 5; n++) answers.push((await hearth.get('/api/v2/me')).success);
    expect(answers).toEqual([true, true, true, true, true]);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    for (const retry of retries) expect(retry.delayMs).toBeGreaterThan(0);
    for (const retry of retries) expect(retry.delayMs).toBeLessThanOrEqual(1000);
    // Five requests at two a window need at least two windows after the first: the client did wait.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('gives the 429 to the caller without retries, or when the wait is longer than it accepts', async () => {
    for (const retry of [false, { maxDelayMs: 0 }] as const) {
      const hearth = createHearthClient({ baseUrl: server.baseUrl, token: await server.issueToken(['read']), retry });
      // Two requests a window: one of the first few is refused, whichever window the burst starts in.
      let limited: unknown = null;
      for (let n = 0; n < 20 && !limited; n++)
        limited = await hearth.get('/api/v2/api-token-status').then(
          () => null,
          (error: unknown) => error,
        );
      expect(limited).toBeInstanceOf(HearthApiError);
      expect(limited).toMatchObject({ status: 429, code: 'rate_limited' });
      expect((limited as HearthApiError).retryAfterMs).toBeGreaterThan(0);
      expect((limited as HearthApiError).retryAfterMs).toBeLessThanOrEqual(1000);
      expect((limited as HearthApiError).body).toMatchObject({ rateLimit: { intervalLimit: 2, intervalRemaining: 0 } });
    }
  });
});
