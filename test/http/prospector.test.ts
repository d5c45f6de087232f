import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { walkPages, withQuery } from '../helpers/paging.ts';

type Params = Record<string, string | number | null | undefined>;
type Page<R> = { success: true; data: R[]; meta: { nextCursor: string | null; recordCount?: number } };
type Json = Record<string, unknown>;
type Item = { id: string } & Json;
type Direction = 'asc' | 'desc';

interface CompanyInput {
  domain: string;
  name: string;
  description: string | null;
  industry: number | string | null;
  subIndustry: string | null;
  employees: number | null;
  raised: number | null;
  linkedInHandles: string[];
  technologies: string[];
  location: { city: string; state: string; country: string; countryCode: string } | null;
  revenueRange: { min: number; max: number } | null;
  score: number | null;
}

interface ContactInput {
  linkedInHandle: string;
  fullName: string;
  name?: string;
  avatarUrl: string;
  title: string | null;
  role: string | null;
  seniority: string | null;
  linkedInFollowerCount: number | null;
  skills: string[];
  location: { city: string; region: string; country: string } | null;
  companyDomain: string | null;
  lastOrgChange: string | null;
}

// ASCII only, so that the database's collation orders lowercased names as JavaScript compares them.
const COMPANY_NAMES = [
  'acme',
  'Acme',
  'Globex',
  'initech',
  'Umbrella',
  'hooli',
  'Hooli',
  'Stark',
  'wayne',
  'Wonka',
  'cyberdyne',
  'Tyrell',
  'soylent',
  'Aperture',
  'massive',
  'Dynamic',
  'Vandelay',
  'Pied Piper',
  'oscorp',
  'LexCorp',
  'gringotts',
  'Monarch',
  'Nakatomi',
  'Zorg',
];
const TECH = ['PostgreSQL', 'Kubernetes', 'Snowflake', 'Stripe', 'Segment', 'HubSpot CRM'];
const PLACES = [
  { city: 'Berlin', state: 'Berlin', country: 'Germany', countryCode: 'DE' },
  { city: 'Austin', state: 'Texas', country: 'United States', countryCode: 'US' },
  { city: 'Paris', state: 'Ile-de-France', country: 'France', countryCode: 'FR' },
];
const FIRST_NAMES = ['Ada', 'grace', 'Linus', 'margaret', 'Alan', 'barbara', 'Ken'];

function companyInput(i: number): CompanyInput {
  return {
    domain: `prospect-${i}.io`,
    name: COMPANY_NAMES[i]!,
    description: i % 6 === 0 ? null : `Company number ${i}`,
    industry: i % 7 === 0 ? null : i % 2 === 0 ? 541511 : 'naics_513210',
    subIndustry: i % 2 === 0 ? 'Software' : 'Publishing',
    employees: i % 5 === 0 ? null : ((i * 37) % 7) * 100,
    raised: i % 4 === 1 ? null : ((i * 13) % 6) * 1_500_000,
    linkedInHandles: [`prospect-${i}`],
    technologies: TECH.filter((_, t) => (i + t) % 3 === 0),
    location: i % 8 === 3 ? null : PLACES[i % 3]!,
    revenueRange: i % 5 === 2 ? null : { min: i * 1_000_000, max: i * 1_000_000 + 500_000 },
    score: i % 3 === 2 ? null : ((i * 7) % 5) + 0.5,
  };
}

function contactInput(i: number): ContactInput {
  return {
    // Half as profile URLs in another case: the key is the handle, lowercased.
    linkedInHandle: i % 2 ? `https://www.linkedin.com/in/Person-${i}/` : `person-${i}`,
    fullName: `${FIRST_NAMES[i % FIRST_NAMES.length]} Person${i}`,
    ...(i % 4 === 0 ? { name: `${i % 8 ? 'p' : 'P'}${i % 3}` } : {}),
    avatarUrl: `https://img.example.com/${i}.png`,
    title: i % 5 === 4 ? null : ['engineer', 'Engineer', 'CTO', 'Designer'][i % 5]!,
    role: i % 6 === 5 ? null : ['Engineering', 'sales', 'Marketing'][i % 3]!,
    seniority: i % 7 === 6 ? null : ['Director', 'vp', 'Senior', 'entry'][i % 4]!,
    linkedInFollowerCount: i % 4 === 3 ? null : ((i * 11) % 9) * 100,
    skills: ['Go', 'Kubernetes', 'SQL'].filter((_, s) => (i + s) % 2 === 0),
    location:
      i % 5 === 1
        ? null
        : { city: ['London', 'Lisbon'][i % 2]!, region: ['England', 'Lisbon District'][i % 2]!, country: ['United Kingdom', 'Portugal'][i % 2]! },
    companyDomain: i % 3 === 2 ? null : `prospect-${i % 24}.io`,
    lastOrgChange: i % 4 === 2 ? null : i % 3 === 0 ? '2025-06-01' : `2025-0${1 + (i % 9)}-15T10:00:00Z`,
  };
}

const COMPANIES = Array.from({ length: 24 }, (_, i) => companyInput(i));
const CONTACTS = Array.from({ length: 30 }, (_, i) => contactInput(i));

const codeOf = (industry: number | string | null) => (industry === null ? null : Number(String(industry).replace('naics_', '')));
const handleOf = (contact: ContactInput) =>
  contact.linkedInHandle
    .replace(/^https:\/\/www\.linkedin\.com\/in\//, '')
    .replace(/\/$/, '')
    .toLowerCase();
const instantOf = (value: string | null) => (value === null ? null : Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value));

/**
 * Records in a sort's order, as docs/behaviour.md says (Sorting): nulls last in both directions, ties by ID in
 * the direction.
 */
function ordered<T>(items: T[], key: (item: T) => string | number | null, id: (item: T) => number, direction: Direction): T[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    if (ka === null || kb === null) {
      if (ka !== kb) return ka === null ? 1 : -1;
    } else if (ka !== kb) {
      return (ka < kb ? -1 : 1) * sign;
    }
    return (id(a) - id(b)) * sign;
  });
}

/**
 * The prospector data (docs/prospector.md; docs/behaviour.md: IDs, Errors, Scopes, cols, Sorting, Paging,
 * lightFilter).
 */
describe.each(ENGINES)('prospector data (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  /** Keys by domain and by handle, once imported. */
  const companyId = new Map<string, number>();
  const contactId = new Map<string, number>();

  const cid = (company: CompanyInput) => companyId.get(company.domain)!;
  const pid = (contact: ContactInput) => contactId.get(handleOf(contact))!;

  const list = (path: 'companies' | 'contacts', params: Params, token = t.token) => t.get(withQuery(`/api/v2/prospector-${path}`, params), token);
  const walk = <R>(path: 'companies' | 'contacts', limit: number, params: Params = {}) =>
    walkPages<R>((cursor) => list(path, { ...params, limit, cursor }), limit);
  const ids = (records: { id: string }[]) => records.map((record) => Number(record.id.replace(/^pco?_/, '')));
  const filter = (clauses: unknown[], type = 'and') => JSON.stringify({ type, clauses });
  const leaf = (type: string, field: string, params: Json) => ({ type, field, params });

  async function importJson(path: 'companies' | 'contacts', records: unknown, token = t.token) {
    return t.send('POST', `/api/v2/admin/prospector/${path}`, records, token);
  }
  async function importLines(path: 'companies' | 'contacts', text: string, token = t.token, type = 'application/x-ndjson') {
    return t.app.inject({
      method: 'POST',
      url: `/api/v2/admin/prospector/${path}`,
      headers: { 'content-type': type, authorization: `Bearer ${token}` },
      payload: text,
    });
  }
  const messageOf = (response: { json(): unknown }) => (response.json() as { error: { message: string } }).error.message;
  const counts = async () => {
    const [companies, contacts] = await Promise.all([
      t.services.db
        .selectFrom('prospector_companies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      t.services.db
        .selectFrom('prospector_contacts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { companies: Number(companies.n), contacts: Number(contacts.n) };
  };

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    const companies = await importJson('companies', COMPANIES);
    expect(companies.statusCode, companies.body).toBe(200);
    expect(companies.json()).toEqual({ success: true, data: { added: 24, changed: 0, unchanged: 0 } });
    // Contacts as JSON Lines, with blank lines and a CRLF.
    const lines = CONTACTS.map((contact) => JSON.stringify(contact));
    const contacts = await importLines('contacts', `\n${lines.slice(0, 10).join('\n')}\r\n\n${lines.slice(10).join('\n')}\n`);
    expect(contacts.statusCode, contacts.body).toBe(200);
    expect(contacts.json()).toEqual({ success: true, data: { added: 30, changed: 0, unchanged: 0 } });

    const rows = await t.services.db.selectFrom('prospector_companies').select(['id', 'primary_domain']).execute();
    for (const row of rows) companyId.set(row.primary_domain!, row.id);
    const people = await t.services.db.selectFrom('prospector_contacts').select(['id', 'linkedin_handle']).execute();
    for (const row of people) contactId.set(row.linkedin_handle!, row.id);
  });
  afterAll(() => t?.close());

  /** A company as the API shows it with every column. */
  function shownCompany(company: CompanyInput) {
    return {
      id: `pco_${cid(company)}`,
      name: company.name,
      description: company.description,
      primaryWebsite: `https://${company.domain}`,
      logoUrl: null,
      subIndustry: company.subIndustry,
      employees: company.employees,
      raised: company.raised,
      linkedInHandles: company.linkedInHandles,
      technologies: company.technologies,
      location: company.location && { address: null, ...company.location },
      revenueRange: company.revenueRange,
    };
  }

  /** A contact as the API shows it with every column. */
  function shownContact(contact: ContactInput) {
    const company = COMPANIES.find((one) => one.domain === contact.companyDomain);
    return {
      id: `pc_${pid(contact)}`,
      name: contact.name ?? contact.fullName,
      fullName: contact.fullName,
      avatarUrl: contact.avatarUrl,
      companyName: company?.name ?? null,
      companyWebsite: company ? `https://${company.domain}` : null,
      title: contact.title,
      role: contact.role,
      seniority: contact.seniority,
      linkedInHandle: handleOf(contact),
      linkedInFollowerCount: contact.linkedInFollowerCount,
      location: contact.location,
      skills: contact.skills,
    };
  }

  const COMPANY_COLS = 'description,primaryWebsite,logoUrl,subIndustry,employees,raised,linkedInHandles,technologies,location,revenueRange';
  const CONTACT_COLS = 'fullName,avatarUrl,companyName,companyWebsite,title,role,seniority,linkedInHandle,linkedInFollowerCount,location,skills';

  describe('reading', () => {
    it('lists companies and contacts in ID order with id and name only, and the rest by cols', async () => {
      const plain = (await list('companies', { limit: 1000 })).json() as Page<Item>;
      expect(Object.keys(plain)).toEqual(['success', 'data', 'meta']);
      expect(plain.meta).toEqual({ nextCursor: null });
      expect(plain.data).toEqual(ordered(COMPANIES, () => null, cid, 'asc').map((company) => ({ id: `pco_${cid(company)}`, name: company.name })));

      const full = (await list('companies', { limit: 1000, cols: COMPANY_COLS })).json() as Page<Item>;
      expect(full.data).toEqual(ordered(COMPANIES, () => null, cid, 'asc').map(shownCompany));
      for (const item of full.data) expect(Object.keys(item)).toEqual(['id', 'name', ...COMPANY_COLS.split(',')]);

      const people = (await list('contacts', { limit: 1000, cols: CONTACT_COLS })).json() as Page<Item>;
      expect(people.data).toEqual(ordered(CONTACTS, () => null, pid, 'asc').map(shownContact));
      for (const item of people.data) expect(Object.keys(item)).toEqual(['id', 'name', ...CONTACT_COLS.split(',')]);
      const bare = (await list('contacts', { limit: 2 })).json() as Page<Item>;
      expect(bare.data.map((item) => Object.keys(item))).toEqual([
        ['id', 'name'],
        ['id', 'name'],
      ]);
      expect(bare.meta).toEqual({ nextCursor: expect.any(String) });
    });

    it('adds one column at a time; recordCount adds meta.recordCount; an unknown col is a 400 naming it', async () => {
      for (const col of COMPANY_COLS.split(',')) {
        const body = (await list('companies', { cols: col, limit: 3 })).json() as Page<Item>;
        expect(body.data).toEqual(
          ordered(COMPANIES, () => null, cid, 'asc')
            .slice(0, 3)
            .map((company) => {
              const shown = shownCompany(company) as Json;
              return { id: shown.id, name: shown.name, [col]: shown[col] };
            }),
        );
      }
      for (const col of CONTACT_COLS.split(',')) {
        const body = (await list('contacts', { cols: col, limit: 3 })).json() as Page<Item>;
        expect(body.data).toEqual(
          ordered(CONTACTS, () => null, pid, 'asc')
            .slice(0, 3)
            .map((contact) => {
              const shown = shownContact(contact) as Json;
              return { id: shown.id, name: shown.name, [col]: shown[col] };
            }),
        );
      }
      expect(((await list('companies', { cols: 'recordCount', limit: 2 })).json() as Page<Item>).meta).toEqual({
        nextCursor: expect.any(String),
        recordCount: 24,
      });
      expect(((await list('contacts', { cols: 'recordCount,title', limit: 100 })).json() as Page<Item>).meta).toEqual({ nextCursor: null, recordCount: 30 });
      for (const [path, cols] of [
        ['companies', 'industry'],
        ['companies', 'name'],
        ['contacts', 'email'],
        ['contacts', 'skills,cf_*'],
        ['companies', 'primaryDomain'],
      ] as const) {
        const bad = await list(path, { cols });
        expect(bad.statusCode, cols).toBe(400);
        expect(bad.json()).toMatchObject({
          success: false,
          error: { code: 'invalid_parameters', message: expect.stringContaining(JSON.stringify(cols.split(',').pop())) },
        });
      }
    });

    it('gets one company or contact by ID, with cols; a malformed ID is a 400, an unknown one a 404', async () => {
      const company = COMPANIES[4]!;
      const got = await t.get(`/api/v2/prospector-companies/pco_${cid(company)}?cols=${COMPANY_COLS}`);
      expect(got.statusCode, got.body).toBe(200);
      expect(got.json()).toEqual({ success: true, data: shownCompany(company) });
      expect((await t.get(`/api/v2/prospector-companies/pco_${cid(company)}`)).json()).toEqual({
        success: true,
        data: { id: `pco_${cid(company)}`, name: company.name },
      });
      const contact = CONTACTS[3]!;
      const person = await t.get(`/api/v2/prospector-contacts/pc_${pid(contact)}?cols=${CONTACT_COLS}`);
      expect(person.json()).toEqual({ success: true, data: shownContact(contact) });

      for (const [path, id, code] of [
        ['prospector-companies', 'c_1', 'invalid_prospector_company_id'],
        ['prospector-companies', String(cid(company)), 'invalid_prospector_company_id'],
        ['prospector-companies', `pc_${cid(company)}`, 'invalid_prospector_company_id'],
        ['prospector-contacts', 'pco_1', 'invalid_prospector_contact_id'],
        ['prospector-contacts', 'pc_x', 'invalid_prospector_contact_id'],
      ]) {
        const bad = await t.get(`/api/v2/${path}/${id}`);
        expect(bad.statusCode, id).toBe(400);
        expect(bad.json()).toMatchObject({ success: false, error: { code } });
      }
      const missing = await t.get('/api/v2/prospector-companies/pco_999999');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ success: false, error: { code: 'prospector_company_not_found' } });
      const nobody = await t.get('/api/v2/prospector-contacts/pc_999999');
      expect(nobody.statusCode).toBe(404);
      expect(nobody.json()).toMatchObject({ success: false, error: { code: 'prospector_contact_not_found' } });
      expect((await t.get(`/api/v2/prospector-contacts/pc_${pid(contact)}?cols=recordCount`)).statusCode).toBe(400);
      expect((await t.get(`/api/v2/prospector-contacts/pc_${pid(contact)}?limit=1`)).statusCode).toBe(400);
    });

    const COMPANY_SORTS: Record<string, (company: CompanyInput) => string | number | null> = {
      id: () => null,
      name: (company) => company.name.toLowerCase(),
      employeeCount: (company) => company.employees,
      capitalRaised: (company) => company.raised,
      score: (company) => company.score,
    };
    it.each(Object.keys(COMPANY_SORTS))('walks companies by %s in both directions, page by page, in the computed order', async (sort) => {
      for (const direction of ['asc', 'desc'] as const) {
        const expected = ordered(COMPANIES, COMPANY_SORTS[sort]!, cid, direction).map(cid);
        // `id` has no key: the tie-breaker alone orders it.
        if (sort === 'id') expect(expected).toEqual([...COMPANIES.map(cid)].sort((a, b) => (direction === 'asc' ? a - b : b - a)));
        for (const limit of [1, 3, 50]) {
          expect(ids(await walk('companies', limit, { sort, direction })), `${sort} ${direction} ${limit}`).toEqual(expected);
        }
      }
    });

    const CONTACT_SORTS: Record<string, (contact: ContactInput) => string | number | null> = {
      id: () => null,
      name: (contact) => (contact.name ?? contact.fullName).toLowerCase(),
      title: (contact) => contact.title?.toLowerCase() ?? null,
      linkedInFollowers: (contact) => contact.linkedInFollowerCount,
      lastOrgChange: (contact) => instantOf(contact.lastOrgChange),
      seniority: (contact) => contact.seniority?.toLowerCase() ?? null,
      role: (contact) => contact.role?.toLowerCase() ?? null,
    };
    it.each(Object.keys(CONTACT_SORTS))('walks contacts by %s in both directions, page by page, in the computed order', async (sort) => {
      for (const direction of ['asc', 'desc'] as const) {
        const expected = ordered(CONTACTS, CONTACT_SORTS[sort]!, pid, direction).map(pid);
        for (const limit of [1, 4, 50]) {
          expect(ids(await walk('contacts', limit, { sort, direction })), `${sort} ${direction} ${limit}`).toEqual(expected);
        }
      }
    });

    it('binds a cursor to its sort, direction and filter; limit and cols may change between pages', async () => {
      const byName = { sort: 'name', direction: 'desc', lightFilter: filter([leaf('numberFilter', 'score', { op: 'gte', value: 1 })]) };
      const first = (await list('companies', { ...byName, limit: 2 })).json() as Page<Item>;
      const cursor = first.meta.nextCursor!;
      for (const other of [
        { ...byName, sort: 'id' },
        { ...byName, direction: 'asc' },
        { ...byName, lightFilter: filter([leaf('numberFilter', 'score', { op: 'gte', value: 2 })]) },
        { sort: 'name', direction: 'desc' },
      ]) {
        const reused = await list('companies', { ...other, cursor });
        expect(reused.statusCode, JSON.stringify(other)).toBe(400);
        expect(reused.json()).toMatchObject({ success: false, error: { code: 'invalid_cursor' } });
      }
      // A company cursor is no contact cursor.
      expect((await list('contacts', { sort: 'name', direction: 'desc', cursor })).statusCode).toBe(400);
      const next = await list('companies', { ...byName, cursor, limit: 100, cols: 'employees' });
      expect(next.statusCode, next.body).toBe(200);
      const rest = next.json() as Page<Item>;
      const expected = ordered(
        COMPANIES.filter((company) => (company.score ?? -1) >= 1),
        COMPANY_SORTS.name!,
        cid,
        'desc',
      ).map(cid);
      expect([...ids(first.data), ...ids(rest.data)]).toEqual(expected);
      expect((await list('companies', { cursor: 'not-a-cursor' })).statusCode).toBe(400);
    });

    it('refuses unknown parameters, sorts and limits with a 400 naming them', async () => {
      for (const [path, params, named] of [
        ['companies', { query: 'acme' }, 'query'],
        ['contacts', { organizationId: 'o_1' }, 'organizationId'],
        ['companies', { sort: 'employees' }, 'employees'],
        ['contacts', { sort: 'linkedInFollowerCount' }, 'linkedInFollowerCount'],
        ['companies', { direction: 'up' }, 'direction'],
        ['contacts', { limit: 0 }, 'limit'],
        ['companies', { limit: 1001 }, 'limit'],
      ] as const) {
        const response = await list(path, params as Params);
        expect(response.statusCode, JSON.stringify(params)).toBe(400);
        expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining(named) } });
      }
    });

    it('needs prospector:read (or read) to read, and admin to import', async () => {
      for (const scopes of [['prospector:read'], ['read']]) {
        const token = await t.issueToken(scopes);
        expect((await list('companies', {}, token)).statusCode).toBe(200);
        expect((await list('contacts', {}, token)).statusCode).toBe(200);
        expect((await t.get(`/api/v2/prospector-companies/pco_${cid(COMPANIES[0]!)}`, token)).statusCode).toBe(200);
        expect((await t.get(`/api/v2/prospector-contacts/pc_${pid(CONTACTS[0]!)}`, token)).statusCode).toBe(200);
        expect((await t.get('/api/v2/filter-fields?entity=prospector_contact', token)).statusCode).toBe(200);
      }
      const others = await t.issueToken(['contacts:read', 'organizations:read', 'write']);
      for (const path of ['/api/v2/prospector-companies', '/api/v2/prospector-contacts', `/api/v2/prospector-contacts/pc_${pid(CONTACTS[0]!)}`]) {
        const denied = await t.get(path, others);
        expect(denied.statusCode, path).toBe(403);
        expect(denied.json()).toMatchObject({ status: 'forbidden' });
      }
      const reader = await t.issueToken(['read', 'write']);
      expect((await importJson('companies', [COMPANIES[0]], reader)).statusCode).toBe(403);
      expect((await importLines('contacts', JSON.stringify(CONTACTS[0]), reader)).statusCode).toBe(403);
      expect((await importJson('contacts', [CONTACTS[0]], null as unknown as string)).statusCode).toBe(403);
    });
  });

  describe('lightFilter', () => {
    async function matching(path: 'companies' | 'contacts', clauses: unknown[], type = 'and') {
      const lightFilter = filter(clauses, type);
      const found = ids(await walk(path, 7, { lightFilter }));
      const counted = (await list(path, { lightFilter, cols: 'recordCount', limit: 1 })).json() as Page<Item>;
      expect(counted.meta.recordCount, lightFilter).toBe(found.length);
      return found;
    }
    const companiesWhere = (test: (company: CompanyInput) => boolean) =>
      COMPANIES.filter(test)
        .map(cid)
        .sort((a, b) => a - b);
    const contactsWhere = (test: (contact: ContactInput) => boolean) =>
      CONTACTS.filter(test)
        .map(pid)
        .sort((a, b) => a - b);
    const lower = (values: string[]) => values.map((value) => value.toLowerCase());

    it('publishes the fields of both lists at GET /api/v2/filter-fields and in the OpenAPI document', async () => {
      const fields = async (entity: string) => {
        const response = await t.get(`/api/v2/filter-fields?entity=${entity}`);
        expect(response.statusCode, response.body).toBe(200);
        return (response.json() as { data: { field: string; kinds: string[]; ops: string[] }[] }).data;
      };
      const companies = await fields('prospector_company');
      expect(companies.map((field) => field.field)).toEqual(
        expect.arrayContaining([
          'name',
          'employees',
          'raised',
          'industry',
          'subIndustry',
          'technologies',
          'location.country',
          'location.countryCode',
          'location.city',
          'location.state',
          'revenueRange.min',
          'revenueRange.max',
          'score',
        ]),
      );
      expect(companies.find((field) => field.field === 'technologies')).toEqual({
        field: 'technologies',
        kinds: expect.arrayContaining(['stringListFilter', 'stringFilter']),
        ops: expect.arrayContaining(['any', 'all', 'none', 'eq', 'like', 'startsWith']),
      });
      expect(companies.find((field) => field.field === 'employees')).toEqual({
        field: 'employees',
        kinds: ['numberFilter'],
        ops: ['eq', 'gt', 'gte', 'lt', 'lte'],
      });
      expect(companies.find((field) => field.field === 'industry')?.ops.sort()).toEqual(['any', 'eq', 'none']);
      const contacts = await fields('prospector_contact');
      expect(contacts.map((field) => field.field)).toEqual(
        expect.arrayContaining([
          'seniority',
          'role',
          'title',
          'location.city',
          'location.region',
          'location.country',
          'linkedInFollowerCount',
          'skills',
          'companyName',
          'companyId',
          'lastOrgChange',
        ]),
      );
      expect(contacts.find((field) => field.field === 'lastOrgChange')).toEqual({ field: 'lastOrgChange', kinds: ['dateRangeFilter'], ops: ['in'] });
      const spec = (await t.get('/openapi.json', null)).json() as {
        paths: Record<string, { get?: { parameters?: { name: string; description?: string }[] } }>;
      };
      const described = (path: string) => spec.paths[path]!.get!.parameters!.find((parameter) => parameter.name === 'lightFilter')!.description!;
      expect(described('/api/v2/prospector-companies')).toContain('`technologies` (');
      expect(described('/api/v2/prospector-contacts')).toContain('`lastOrgChange` (dateRangeFilter)');
    });

    it('filters companies by text: eq, like (any case), startsWith, any and none', async () => {
      expect(await matching('companies', [leaf('stringFilter', 'name', { op: 'eq', value: 'Acme' })])).toEqual(companiesWhere((c) => c.name === 'Acme'));
      expect(await matching('companies', [leaf('stringFilter', 'name', { op: 'like', value: 'OOL' })])).toEqual(
        companiesWhere((c) => c.name.toLowerCase().includes('ool')),
      );
      expect(await matching('companies', [leaf('stringFilter', 'name', { op: 'startsWith', value: 'Hoo' })])).toEqual(
        companiesWhere((c) => c.name.startsWith('Hoo')),
      );
      expect(await matching('companies', [leaf('stringListFilter', 'location.countryCode', { op: 'any', value: ['DE', 'FR'] })])).toEqual(
        companiesWhere((c) => ['DE', 'FR'].includes(c.location?.countryCode ?? '')),
      );
      expect(await matching('companies', [leaf('stringListFilter', 'location.city', { op: 'none', value: ['Austin'] })])).toEqual(
        companiesWhere((c) => c.location?.city !== 'Austin'),
      );
      expect(await matching('companies', [leaf('stringFilter', 'location.state', { op: 'eq', value: 'Texas' })])).toEqual(
        companiesWhere((c) => c.location?.state === 'Texas'),
      );
      expect(await matching('companies', [leaf('stringFilter', 'location.country', { op: 'eq', value: 'Germany' })])).toEqual(
        companiesWhere((c) => c.location?.country === 'Germany'),
      );
      expect(await matching('companies', [leaf('stringFilter', 'subIndustry', { op: 'eq', value: 'Publishing' })])).toEqual(
        companiesWhere((c) => c.subIndustry === 'Publishing'),
      );
    });

    it('filters companies by numbers, by industry code and by technologies in any case', async () => {
      expect(await matching('companies', [leaf('numberFilter', 'employees', { op: 'gt', value: 300 })])).toEqual(
        companiesWhere((c) => (c.employees ?? -1) > 300),
      );
      expect(await matching('companies', [leaf('numberFilter', 'raised', { op: 'lte', value: 3_000_000 })])).toEqual(
        companiesWhere((c) => c.raised !== null && c.raised <= 3_000_000),
      );
      expect(await matching('companies', [leaf('numberFilter', 'score', { op: 'eq', value: 2.5 })])).toEqual(companiesWhere((c) => c.score === 2.5));
      expect(await matching('companies', [leaf('numberFilter', 'revenueRange.min', { op: 'gte', value: 10_000_000 })])).toEqual(
        companiesWhere((c) => (c.revenueRange?.min ?? -1) >= 10_000_000),
      );
      expect(await matching('companies', [leaf('numberFilter', 'revenueRange.max', { op: 'lt', value: 5_000_000 })])).toEqual(
        companiesWhere((c) => c.revenueRange !== null && c.revenueRange.max < 5_000_000),
      );
      expect(await matching('companies', [leaf('stringListFilter', 'industry', { op: 'any', value: ['naics_541511'] })])).toEqual(
        companiesWhere((c) => codeOf(c.industry) === 541511),
      );
      expect(await matching('companies', [leaf('stringFilter', 'industry', { op: 'eq', value: 'naics_513210' })])).toEqual(
        companiesWhere((c) => codeOf(c.industry) === 513210),
      );
      expect(await matching('companies', [leaf('stringListFilter', 'industry', { op: 'none', value: ['naics_513210'] })])).toEqual(
        companiesWhere((c) => codeOf(c.industry) !== 513210),
      );
      const has = (c: CompanyInput, names: string[]) => lower(c.technologies).filter((name) => lower(names).includes(name)).length;
      expect(await matching('companies', [leaf('stringListFilter', 'technologies', { op: 'any', value: ['postgresql', 'SNOWFLAKE'] })])).toEqual(
        companiesWhere((c) => has(c, ['postgresql', 'snowflake']) > 0),
      );
      expect(await matching('companies', [leaf('stringListFilter', 'technologies', { op: 'all', value: ['PostgreSQL', 'stripe'] })])).toEqual(
        companiesWhere((c) => has(c, ['postgresql', 'stripe']) === 2),
      );
      expect(await matching('companies', [leaf('stringListFilter', 'technologies', { op: 'none', value: ['Kubernetes'] })])).toEqual(
        companiesWhere((c) => has(c, ['kubernetes']) === 0),
      );
      expect(await matching('companies', [leaf('stringFilter', 'technologies', { op: 'like', value: 'SPOT' })])).toEqual(
        companiesWhere((c) => c.technologies.includes('HubSpot CRM')),
      );
      expect(await matching('companies', [leaf('stringFilter', 'technologies', { op: 'startsWith', value: 'seg' })])).toEqual(
        companiesWhere((c) => c.technologies.includes('Segment')),
      );
      expect(await matching('companies', [leaf('stringFilter', 'technologies', { op: 'eq', value: 'stripe' })])).toEqual(
        companiesWhere((c) => c.technologies.includes('Stripe')),
      );
      // Groups combine them, and a sort keeps the filter.
      const clauses = [
        leaf('numberFilter', 'employees', { op: 'gte', value: 400 }),
        leaf('stringListFilter', 'technologies', { op: 'any', value: ['stripe'] }),
      ];
      expect(await matching('companies', clauses, 'or')).toEqual(companiesWhere((c) => (c.employees ?? -1) >= 400 || c.technologies.includes('Stripe')));
      const sorted = ids(await walk('companies', 2, { lightFilter: filter(clauses), sort: 'employeeCount', direction: 'desc' }));
      expect(sorted).toEqual(
        ordered(
          COMPANIES.filter((c) => (c.employees ?? -1) >= 400 && c.technologies.includes('Stripe')),
          (company) => company.employees,
          cid,
          'desc',
        ).map(cid),
      );
    });

    it('filters contacts by text, numbers, skills in any case, their company and the time of their last change', async () => {
      expect(await matching('contacts', [leaf('stringListFilter', 'seniority', { op: 'any', value: ['Director', 'vp'] })])).toEqual(
        contactsWhere((c) => ['Director', 'vp'].includes(c.seniority ?? '')),
      );
      expect(await matching('contacts', [leaf('stringFilter', 'role', { op: 'eq', value: 'sales' })])).toEqual(contactsWhere((c) => c.role === 'sales'));
      expect(await matching('contacts', [leaf('stringFilter', 'title', { op: 'like', value: 'ENG' })])).toEqual(
        contactsWhere((c) => (c.title ?? '').toLowerCase().includes('eng')),
      );
      expect(await matching('contacts', [leaf('stringFilter', 'fullName', { op: 'startsWith', value: 'Ada' })])).toEqual(
        contactsWhere((c) => c.fullName.startsWith('Ada')),
      );
      expect(await matching('contacts', [leaf('stringFilter', 'location.city', { op: 'eq', value: 'Lisbon' })])).toEqual(
        contactsWhere((c) => c.location?.city === 'Lisbon'),
      );
      expect(await matching('contacts', [leaf('stringFilter', 'location.region', { op: 'eq', value: 'England' })])).toEqual(
        contactsWhere((c) => c.location?.region === 'England'),
      );
      expect(await matching('contacts', [leaf('stringListFilter', 'location.country', { op: 'none', value: ['Portugal'] })])).toEqual(
        contactsWhere((c) => c.location?.country !== 'Portugal'),
      );
      expect(await matching('contacts', [leaf('numberFilter', 'linkedInFollowerCount', { op: 'gte', value: 500 })])).toEqual(
        contactsWhere((c) => (c.linkedInFollowerCount ?? -1) >= 500),
      );
      expect(await matching('contacts', [leaf('stringListFilter', 'skills', { op: 'all', value: ['go', 'SQL'] })])).toEqual(
        contactsWhere((c) => c.skills.includes('Go') && c.skills.includes('SQL')),
      );
      expect(await matching('contacts', [leaf('stringListFilter', 'skills', { op: 'none', value: ['kubernetes'] })])).toEqual(
        contactsWhere((c) => !c.skills.includes('Kubernetes')),
      );
      expect(await matching('contacts', [leaf('stringFilter', 'linkedInHandle', { op: 'eq', value: 'person-3' })])).toEqual(
        contactsWhere((c) => handleOf(c) === 'person-3'),
      );

      const acme = COMPANIES.find((company) => company.name === 'Acme')!;
      expect(await matching('contacts', [leaf('stringFilter', 'companyName', { op: 'eq', value: 'Acme' })])).toEqual(
        contactsWhere((c) => c.companyDomain === acme.domain),
      );
      expect(await matching('contacts', [leaf('stringFilter', 'companyName', { op: 'like', value: 'acme' })])).toEqual(
        contactsWhere((c) => c.companyDomain !== null && COMPANIES.find((company) => company.domain === c.companyDomain)!.name.toLowerCase() === 'acme'),
      );
      expect(await matching('contacts', [leaf('stringListFilter', 'companyId', { op: 'any', value: [`pco_${cid(acme)}`, 'pco_999999'] })])).toEqual(
        contactsWhere((c) => c.companyDomain === acme.domain),
      );

      const changed = (test: (instant: number) => boolean) => contactsWhere((c) => c.lastOrgChange !== null && test(instantOf(c.lastOrgChange)!));
      expect(await matching('contacts', [leaf('dateRangeFilter', 'lastOrgChange', { op: 'in', min: '2025-03-01', max: '2025-06-01' })])).toEqual(
        changed((at) => at >= Date.parse('2025-03-01T00:00:00Z') && at < Date.parse('2025-06-02T00:00:00Z')),
      );
      // Back from the service's clock (2026-03-01T12:00Z).
      expect(await matching('contacts', [leaf('dateRangeFilter', 'lastOrgChange', { op: 'in', value: 'P9M' })])).toEqual(
        changed((at) => at > Date.parse('2025-06-01T12:00:00Z')),
      );
    });

    it('refuses a bad filter with a 400 invalid_filter naming its path', async () => {
      for (const [path, clauses, where] of [
        ['companies', [leaf('stringFilter', 'domain', { op: 'eq', value: 'x' })], 'clauses[0].field'],
        ['companies', [leaf('numberFilter', 'name', { op: 'eq', value: 1 })], 'clauses[0]'],
        ['companies', [leaf('stringFilter', 'industry', { op: 'eq', value: '541511' })], 'clauses[0].params.value'],
        [
          'contacts',
          [leaf('stringFilter', 'name', { op: 'eq', value: 'x' }), leaf('stringFilter', 'companyId', { op: 'like', value: 'pco_1' })],
          'clauses[1].params.op',
        ],
        ['contacts', [leaf('dateRangeFilter', 'lastOrgChange', { op: 'in', value: 'yesterday' })], 'clauses[0].params'],
      ] as const) {
        const response = await list(path, { lightFilter: filter([...clauses]) });
        expect(response.statusCode, JSON.stringify(clauses)).toBe(400);
        expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_filter', message: expect.stringContaining(where) } });
      }
      expect((await list('contacts', { lightFilter: '{"type":"and"' })).statusCode).toBe(400);
    });
  });

  describe('importing', () => {
    it('stores technologies as the catalog spells them, industries by NAICS code, and keys by normalized domain and handle', async () => {
      const row = await t.services.db.selectFrom('prospector_companies').selectAll().where('primary_domain', '=', 'prospect-3.io').executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        industry_code: 513210,
        technologies: COMPANIES[3]!.technologies,
        primary_website: 'https://prospect-3.io',
        linkedin_handles: ['prospect-3'],
      });
      const audit = await t.services.db
        .selectFrom('audit_log')
        .select(['operation', 'detail', 'actor'])
        .where('operation', 'like', 'prospector_%')
        .orderBy('id')
        .execute();
      expect(audit).toEqual([
        { operation: 'prospector_companies.import', detail: { records: 24, added: 24, changed: 0, unchanged: 0 }, actor: 'user:admin@hearth.local' },
        { operation: 'prospector_contacts.import', detail: { records: 30, added: 30, changed: 0, unchanged: 0 }, actor: 'user:admin@hearth.local' },
      ]);
    });

    it('names every fault of every record by its index, and writes nothing', async () => {
      const before = await counts();
      const good = (i: number) => ({ ...companyInput(i), domain: `fresh-${i}.io` });
      const response = await importJson('companies', [
        good(0),
        { ...good(1), name: undefined },
        { ...good(2), color: 'red' },
        { ...good(3), domain: 'not a domain' },
        { ...good(4), technologies: ['postgresql', 'Hearth Imaginary DB', 'Kubernetes', 'Nope'] },
        { ...good(5), industry: 999999 },
        { ...good(6), industry: 'nace_62' },
        { ...good(7), location: { city: 'Berlin', countryCode: 'XX' } },
        { ...good(8), revenueRange: { min: 10, max: 5 } },
        'a string',
        { ...good(10), domain: 'https://www.FRESH-0.io/about' },
        { ...good(11), employees: -1, raised: '5' },
        { ...good(12), linkedInHandles: ['https://www.linkedin.com/in/someone'] },
        { ...good(13), domain: undefined, primaryWebsite: 'https://fresh-13.io' },
        { ...good(14), description: 'nul \u0000 inside' },
      ]);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
      const message = messageOf(response);
      for (const fault of [
        '[1]: field "name" is required',
        '[2]: unknown field "color"',
        '[3]: domain "not a domain" is not a domain',
        '[4]: technologies[1] "Hearth Imaginary DB" is not in the technographic catalog',
        '[4]: technologies[3] "Nope" is not in the technographic catalog',
        '[5]: industry naics_999999 is not a NAICS 2022 code',
        '[6]: industry "nace_62" is not a NAICS code',
        '[7]: location.countryCode "XX" is not an ISO 3166-1 alpha-2 country code',
        '[8]: revenueRange.min 10 is more than revenueRange.max 5',
        '[9]: a record must be a JSON object',
        '[10]: domain "fresh-0.io" is also that of [0]',
        '[11]: field "employees" must be >= 0',
        '[11]: field "raised" must be number',
        '[12]: linkedInHandles[0] "https://www.linkedin.com/in/someone" is not a LinkedIn company handle or page',
        '[14]: field "description" contains the NUL character',
      ]) {
        expect(message).toContain(fault);
      }
      // A nullable field of the wrong type is one fault, not one per branch of its union with null.
      expect(message).not.toMatch(/anyOf|must be null/);
      // Faults follow the records' order; the good records are not named.
      expect(message.indexOf('[1]:')).toBeLessThan(message.indexOf('[14]:'));
      for (const fine of ['[0]:', '[13]:']) expect(message).not.toContain(fine);
      expect(await counts()).toEqual(before);
    });

    it('names faults of JSON Lines by line number, blank lines counted', async () => {
      const before = await counts();
      const lines = [
        JSON.stringify({ linkedInHandle: 'fresh-one', fullName: 'Fresh One' }),
        '',
        '{"linkedInHandle": "fresh-two", ',
        JSON.stringify({ linkedInHandle: '-', fullName: 'Nobody' }),
        JSON.stringify({ linkedInHandle: 'https://www.linkedin.com/in/Fresh-One', fullName: 'Again' }),
        JSON.stringify({ linkedInHandle: 'fresh-three', fullName: 'Three', companyDomain: 'no-such-company.io' }),
        JSON.stringify({ linkedInHandle: 'fresh-four', fullName: '  ', lastOrgChange: '2025-02-30' }),
        '[]',
        JSON.stringify({ linkedInHandle: 'fresh-five', fullName: 'Five', companyDomain: 'prospect-1.io', lastOrgChange: '2025-01-31T10:00:00+02:00' }),
      ];
      const response = await importLines('contacts', lines.join('\n'), t.token, 'application/x-ndjson; charset=utf-8');
      expect(response.statusCode).toBe(400);
      const message = messageOf(response);
      for (const fault of [
        'line 3: not JSON',
        'line 4: linkedInHandle: "-" is not',
        'line 5: linkedInHandle "fresh-one" is also that of line 1',
        'line 6: companyDomain "no-such-company.io" is not the domain of a prospector company',
        'line 7: fullName is blank',
        'line 7: lastOrgChange "2025-02-30" is not an ISO 8601 date-time',
        'line 8: a record must be a JSON object',
      ]) {
        expect(message).toContain(fault);
      }
      for (const fine of ['line 1:', 'line 2:', 'line 9:']) expect(message).not.toContain(fine);
      expect(await counts()).toEqual(before);
    });

    it('refuses a body that is no list of records, empty, or over 10,000 records', async () => {
      for (const [body, text] of [
        [{ records: [] }, 'JSON array'],
        [[], 'no records'],
        [Array.from({ length: 10_001 }, () => ({})), 'at most 10,000'],
      ] as const) {
        const response = await importJson('companies', body);
        expect(response.statusCode).toBe(400);
        expect(messageOf(response)).toContain(text);
      }
      const blank = await importLines('contacts', '\n\n');
      expect(blank.statusCode).toBe(400);
      expect(messageOf(blank)).toContain('no records');
      const many = await importLines(
        'contacts',
        Array.from({ length: 10_001 }, (_, i) => JSON.stringify({ linkedInHandle: `many-${i}`, fullName: 'Many' })).join('\n'),
      );
      expect(many.statusCode).toBe(400);
      expect(messageOf(many)).toContain('at most 10,000');
      const xml = await t.app.inject({
        method: 'POST',
        url: '/api/v2/admin/prospector/companies',
        headers: { 'content-type': 'application/xml', authorization: `Bearer ${t.token}` },
        payload: '<a/>',
      });
      expect(xml.statusCode).toBe(415);
      expect((await importJson('companies', [COMPANIES[0]], t.token)).statusCode).toBe(200);
    });

    it('upserts by key: unchanged, changed and added counted; a record replaces what was stored; contacts follow their company', async () => {
      const before = await counts();
      const acme = COMPANIES[1]!;
      const renamed = {
        ...acme,
        domain: 'https://www.Prospect-1.io/about',
        name: 'Acme Corp',
        technologies: ['kubernetes', 'KUBERNETES', 'stripe'],
        description: undefined,
      };
      const response = await importJson('companies', [COMPANIES[0], renamed, { name: 'Brand New', domain: 'brand-new.io' }, COMPANIES[2]]);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ success: true, data: { added: 1, changed: 1, unchanged: 2 } });
      expect(await counts()).toEqual({ ...before, companies: before.companies + 1 });
      const shown = (await t.get(`/api/v2/prospector-companies/pco_${cid(acme)}?cols=technologies,description,location`)).json() as { data: Json };
      expect(shown.data).toEqual({
        id: `pco_${cid(acme)}`,
        name: 'Acme Corp',
        technologies: ['Kubernetes', 'Stripe'],
        description: null,
        location: { address: null, ...acme.location },
      });
      const fresh = (
        await list('companies', { lightFilter: filter([leaf('stringFilter', 'name', { op: 'eq', value: 'Brand New' })]), cols: COMPANY_COLS })
      ).json() as Page<Item>;
      expect(fresh.data).toEqual([
        {
          id: expect.stringMatching(/^pco_\d+$/),
          name: 'Brand New',
          description: null,
          primaryWebsite: 'https://brand-new.io',
          logoUrl: null,
          subIndustry: null,
          employees: null,
          raised: null,
          linkedInHandles: [],
          technologies: [],
          location: null,
          revenueRange: null,
        },
      ]);
      // Contacts of the company show its new name.
      const member = CONTACTS.find((contact) => contact.companyDomain === acme.domain)!;
      expect((await t.get(`/api/v2/prospector-contacts/pc_${pid(member)}?cols=companyName,companyWebsite`)).json()).toMatchObject({
        data: { companyName: 'Acme Corp', companyWebsite: 'https://prospect-1.io' },
      });

      // The same contact by another spelling of its handle; one unchanged, one new without a company.
      const moved = { ...member, linkedInHandle: `https://linkedin.com/in/${handleOf(member).toUpperCase()}`, companyDomain: 'brand-new.io', skills: [] };
      const again = await importLines(
        'contacts',
        [JSON.stringify(moved), JSON.stringify(CONTACTS[0]), JSON.stringify({ linkedInHandle: 'in/new-person', fullName: 'New Person' })].join('\n'),
      );
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual({ success: true, data: { added: 1, changed: 1, unchanged: 1 } });
      expect((await t.get(`/api/v2/prospector-contacts/pc_${pid(member)}?cols=companyName,skills,linkedInHandle`)).json()).toMatchObject({
        data: { companyName: 'Brand New', skills: [], linkedInHandle: handleOf(member) },
      });
      const added = (
        await list('contacts', { lightFilter: filter([leaf('stringFilter', 'linkedInHandle', { op: 'eq', value: 'new-person' })]), cols: CONTACT_COLS })
      ).json() as Page<Item>;
      expect(added.data).toEqual([
        {
          id: expect.stringMatching(/^pc_\d+$/),
          name: 'New Person',
          fullName: 'New Person',
          avatarUrl: null,
          companyName: null,
          companyWebsite: null,
          title: null,
          role: null,
          seniority: null,
          linkedInHandle: 'new-person',
          linkedInFollowerCount: null,
          location: null,
          skills: [],
        },
      ]);
      const audit = await t.services.db.selectFrom('audit_log').select(['operation', 'detail']).orderBy('id', 'desc').limit(2).execute();
      expect(audit).toEqual([
        { operation: 'prospector_contacts.import', detail: { records: 3, added: 1, changed: 1, unchanged: 1 } },
        { operation: 'prospector_companies.import', detail: { records: 4, added: 1, changed: 1, unchanged: 2 } },
      ]);
    });

    it('never skips nor repeats a record of a walk when companies are imported meanwhile', async () => {
      for (const sort of ['name', 'employeeCount']) {
        const before = ids(await walk('companies', 1000, { sort }));
        const seen: number[] = [];
        let cursor: string | null = null;
        let page = 0;
        do {
          const body = (await list('companies', { sort, limit: 3, cursor })).json() as Page<Item>;
          seen.push(...ids(body.data));
          cursor = body.meta.nextCursor;
          page += 1;
          // Before and after the walk's position, with and without a value for the sort.
          const added = await importJson('companies', [
            { domain: `midwalk-${sort}-${page}.io`, name: page % 2 ? 'aaa' : 'zzz', employees: page % 3 ? page * 100 : null },
          ]);
          expect(added.statusCode, added.body).toBe(200);
        } while (cursor);
        expect(new Set(seen).size, sort).toBe(seen.length);
        expect(
          before.filter((id) => !seen.includes(id)),
          sort,
        ).toEqual([]);
      }
    });
  });
});
