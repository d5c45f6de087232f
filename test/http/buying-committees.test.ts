import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { accepted, pushUser } from '../helpers/ingest.ts';
import { withQuery } from '../helpers/paging.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

type Rank = { id: number; key: string; name: string };
type Committee = { seniorities: Rank[]; departments: Rank[] };
type Candidate = {
  id: string;
  source: 'contact' | 'prospector';
  name: string;
  title: string;
  email: string | null;
  linkedInHandle: string | null;
  activityCountAll: number;
  latestActivityTime: string | null;
  rankedBy: 'engagement' | 'recency';
};
type Cell = { id: string; seniority: Rank; department: Rank; contacts: Candidate[] };
type Cells = { success: true; data: Cell[]; meta: { nextCursor: null; recordCount?: number } };

const COMMITTEE: Committee = {
  seniorities: [
    { id: 10, key: 'vp', name: 'VP' },
    { id: 20, key: 'director', name: 'Director' },
    { id: 30, key: 'individual_contributor', name: 'Individual contributor' },
  ],
  departments: [
    { id: 1, key: 'engineering', name: 'Engineering' },
    { id: 2, key: 'sales', name: 'Sales' },
    { id: 3, key: 'marketing', name: 'Marketing' },
  ],
};

const minute = (n: number) => new Date(Date.UTC(2026, 9, 1, 12, n)).toISOString();

/**
 * Buying committees: the admin configuration (PUT/GET/DELETE /api/v2/admin/buying-committee) and
 * GET /api/v2/buying-committee-cells (docs/reading.md, Buying committee cells; docs/behaviour.md, IDs,
 * Errors, Scopes and Limits).
 */
describe.each(ENGINES)('buying committees (%s)', (engine) => {
  let t: TestApp;
  let acme: string;
  let pushed = 0;

  const admin = (method: 'PUT' | 'DELETE', body?: unknown, token = t.token) => t.send(method, '/api/v2/admin/buying-committee', body, token);
  const readCommittee = (token = t.token) => t.get('/api/v2/admin/buying-committee', token);
  const setCommittee = async (committee: Committee) => {
    const response = await admin('PUT', committee);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { success: true; data: Committee; warnings: string[] };
  };
  const cells = (params: Record<string, string | undefined>, token = t.token) => t.get(withQuery('/api/v2/buying-committee-cells', params), token);
  const cellsOf = async (organizationId: string) => {
    const response = await cells({ organizationId });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as Cells).data;
  };
  const cell = async (organizationId: string, id: string) => (await cellsOf(organizationId)).find((each) => each.id === id)!;
  const ids = (found: Cell) => found.contacts.map((candidate) => candidate.id);

  /** A contact at the domain with the title, and `activities` activities, the last at `latest` (minutes). */
  const person = async (domain: string, title: string, activities = 0, latest = 0) => {
    const id = `u-${++pushed}`;
    const contactId = await pushUser(t, { id, email: `person${pushed}@${domain}`, fullName: `Person ${pushed}`, titleAtCompany: title });
    for (let n = 0; n < activities; n++) {
      await accepted(t, 'activity', { id: `${id}-a${n}`, activityType: 'made_post_topic', user: { id }, timestamp: minute(latest - n) });
    }
    return contactId;
  };
  const organizationOf = async (domain: string) => {
    const response = await t.get(withQuery('/api/v2/organizations', { primaryDomain: domain }));
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: { id: string }[] }).data[0]!.id;
  };
  const prospectorCompany = async (website: string) =>
    (await t.services.db.insertInto('prospector_companies').values({ name: website, primary_website: website }).returning('id').executeTakeFirstOrThrow()).id;
  const prospect = async (companyId: number, name: string, title: string, more: { email?: string; linkedin_handle?: string } = {}) =>
    `pc_${
      (
        await t.services.db
          .insertInto('prospector_contacts')
          .values({ company_id: companyId, name, title, ...more })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id
    }`;

  beforeAll(async () => {
    t = await createTestApp(engine);
    await person('acme.com', 'Office Manager');
    acme = await organizationOf('acme.com');
  });
  afterAll(() => t?.close());

  describe('configuration', () => {
    it('PUT replaces the committee whole, GET reads it, DELETE removes it; each write audited', async () => {
      const none = await readCommittee();
      expect(none.statusCode).toBe(404);
      expect(none.json()).toEqual({ success: false, error: { code: 'buying_committee_not_found', message: expect.any(String) } });

      expect(await setCommittee(COMMITTEE)).toEqual({ success: true, data: COMMITTEE, warnings: [] });
      expect((await readCommittee()).json()).toEqual({ success: true, data: COMMITTEE });

      const other: Committee = {
        seniorities: [
          { id: 3, key: 'c_level', name: '  C-level ' },
          { id: 1, key: 'board', name: 'Board' },
        ],
        departments: [{ id: 7, key: 'developer_relations', name: 'DevRel' }],
      };
      const replaced = await setCommittee(other);
      const stored = { ...other, seniorities: [{ id: 3, key: 'c_level', name: 'C-level' }, other.seniorities[1]!] };
      expect(replaced.data).toEqual(stored);
      expect(replaced.warnings).toEqual([expect.stringContaining('seniorities[1].key "board" is not a key of the title classifier')]);
      expect((await readCommittee()).json()).toEqual({ success: true, data: stored });

      const removed = await admin('DELETE');
      expect(removed.statusCode, removed.body).toBe(200);
      expect(removed.json()).toEqual({ success: true, data: stored });
      expect((await readCommittee()).statusCode).toBe(404);
      const again = await admin('DELETE');
      expect(again.statusCode).toBe(404);
      expect((again.json() as { error: { code: string } }).error.code).toBe('buying_committee_not_found');

      const audit = await t.services.db
        .selectFrom('audit_log')
        .select(['operation', 'entity_ids', 'detail'])
        .where('community_id', '=', t.communityId)
        .where('operation', 'like', 'buying_committee.%')
        .orderBy('id')
        .execute();
      expect(audit).toEqual([
        { operation: 'buying_committee.set', entity_ids: [], detail: COMMITTEE },
        { operation: 'buying_committee.set', entity_ids: [], detail: stored },
        { operation: 'buying_committee.remove', entity_ids: [], detail: stored },
      ]);
    });

    it('names every fault of a committee in one 400 and changes nothing', async () => {
      await setCommittee(COMMITTEE);
      const refused = await admin('PUT', {
        seniorities: [
          { id: 1, key: 'vp', name: 'VP' },
          { id: 1, key: 'VP', name: ' ' },
          { id: 0, key: 'vp', name: 'x'.repeat(201) },
          { id: 2_147_483_648, key: '1st', name: 'First' },
        ],
        departments: [],
      });
      expect(refused.statusCode).toBe(400);
      const { error } = refused.json() as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_parameters');
      for (const fault of [
        'seniorities[1].id 1 is seniorities[0].id already',
        'seniorities[1].key "VP" must be lowercase letters, digits and _, starting with a letter (at most 64)',
        'seniorities[1].name must not be empty',
        'seniorities[2].id must be a positive integer up to 2147483647',
        'seniorities[2].key "vp" is seniorities[0].key already',
        'seniorities[2].name is longer than 200 characters',
        'seniorities[3].id must be a positive integer up to 2147483647',
        'seniorities[3].key "1st" must be lowercase letters',
        'departments must not be empty',
      ]) {
        expect(error.message).toContain(fault);
      }
      const tooMany = await admin('PUT', {
        seniorities: Array.from({ length: 51 }, (_, n) => ({ id: n + 1, key: `s${n}`, name: `S${n}` })),
        departments: COMMITTEE.departments,
      });
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.body).toContain('seniorities has 51 entries; a committee has at most 50');
      // The body's shape is checked first, every fault of it named too.
      const malformed = await admin('PUT', { seniorities: [{ id: '1', key: 'vp', name: 'VP', extra: true }], departments: [{ id: 1, key: 'sales' }] });
      expect(malformed.statusCode).toBe(400);
      for (const fault of ['"seniorities.0.id" must be integer', 'unknown body field "seniorities.0.extra"', '"departments.0.name" is required']) {
        expect((malformed.json() as { error: { message: string } }).error.message).toContain(fault);
      }
      expect((await admin('PUT', { seniorities: COMMITTEE.seniorities })).statusCode).toBe(400);
      expect((await readCommittee()).json()).toEqual({ success: true, data: COMMITTEE });
      expect(await t.services.db.selectFrom('audit_log').select('id').where('operation', '=', 'buying_committee.set').execute()).toHaveLength(3);
    });

    it('replaces whole under concurrent writes: each answer is one committee, and so is what is left', async () => {
      const versions = Array.from({ length: 6 }, (_, n): Committee => ({
        seniorities: Array.from({ length: 3 }, (_, s) => ({ id: s + 1, key: `s${n}_${s}`, name: `S${s}` })),
        departments: [{ id: n + 1, key: 'sales', name: `Sales ${n}` }],
      }));
      const answers = await Promise.all(versions.map((version) => admin('PUT', version)));
      expect(answers.map((answer) => answer.statusCode)).toEqual(versions.map(() => 200));
      const left = ((await readCommittee()).json() as { data: Committee }).data;
      expect(versions).toContainEqual(left);
      await setCommittee(COMMITTEE);
    });

    it('takes the admin scope only', async () => {
      const reader = await t.issueToken(['read', 'write']);
      expect((await readCommittee(reader)).statusCode).toBe(403);
      expect((await admin('PUT', COMMITTEE, reader)).statusCode).toBe(403);
      expect((await admin('DELETE', undefined, reader)).statusCode).toBe(403);
      expect((await readCommittee(await t.issueToken(['admin']))).statusCode).toBe(200);
    });

    it('is each community’s own', async () => {
      const { communityId } = await t.services.communities.create('Other committee', cliActor());
      const theirs = await t.issueToken(['admin'], communityId);
      expect((await readCommittee(theirs)).statusCode).toBe(404);
      expect(
        (await admin('PUT', { seniorities: [{ id: 1, key: 'vp', name: 'VP' }], departments: [{ id: 1, key: 'sales', name: 'Sales' }] }, theirs)).statusCode,
      ).toBe(200);
      expect((await readCommittee()).json()).toEqual({ success: true, data: COMMITTEE });
    });
  });

  describe('cells', () => {
    let acmeCompany: number;

    beforeAll(async () => {
      await setCommittee(COMMITTEE);
      acmeCompany = await prospectorCompany('https://www.acme.com/about');
    });

    it('answers every seniority by every department in order, each with its candidates; a cell without any has []', async () => {
      const vpNumber = pushed + 1;
      const vpEng = await person('acme.com', 'VP of Engineering', 3, 30);
      const director = await person('acme.com', 'Director of Sales', 1, 10);
      const seller = await prospect(acmeCompany, 'Pat Prospect', 'VP, Sales', {
        email: 'pat@acme.com',
        linkedin_handle: 'https://www.linkedin.com/in/pat-prospect/',
      });
      // Titles that classify outside the committee, or not at all, place nobody.
      await person('acme.com', 'Chief Executive Officer', 2, 5);
      await person('acme.com', 'Geschäftsführer');

      const response = await cells({ organizationId: acme });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as Cells;
      expect(body.meta).toEqual({ nextCursor: null });
      expect(body.data.map((each) => each.id)).toEqual([
        'bcc_10_1',
        'bcc_10_2',
        'bcc_10_3',
        'bcc_20_1',
        'bcc_20_2',
        'bcc_20_3',
        'bcc_30_1',
        'bcc_30_2',
        'bcc_30_3',
      ]);
      expect(body.data[0]).toEqual({
        id: 'bcc_10_1',
        seniority: COMMITTEE.seniorities[0],
        department: COMMITTEE.departments[0],
        contacts: [
          {
            id: vpEng,
            source: 'contact',
            name: `Person ${vpNumber}`,
            title: 'VP of Engineering',
            email: `person${vpNumber}@acme.com`,
            linkedInHandle: null,
            activityCountAll: 3,
            latestActivityTime: minute(30),
            rankedBy: 'engagement',
          },
        ],
      });
      expect(body.data[1]!.contacts).toEqual([
        {
          id: seller,
          source: 'prospector',
          name: 'Pat Prospect',
          title: 'VP, Sales',
          email: null,
          linkedInHandle: 'pat-prospect',
          activityCountAll: 0,
          latestActivityTime: null,
          rankedBy: 'engagement',
        },
      ]);
      expect(ids(body.data[4]!)).toEqual([director]);
      for (const empty of [2, 3, 5, 6, 7, 8]) expect(body.data[empty]!.contacts).toEqual([]);

      const counted = await cells({ organizationId: acme, cols: 'recordCount' });
      expect((counted.json() as Cells).meta).toEqual({ nextCursor: null, recordCount: 9 });
    });

    it('holds up to five engagement-ranked candidates, then up to five recently touched others', async () => {
      // Activity counts and latest minutes: the engaged are the five most active (ties by ID), the recent the
      // five latest of the others that have an activity; contacts without any, and prospector contacts, wait.
      const plan: [number, number][] = [
        [5, 100],
        [5, 101],
        [4, 102],
        [3, 103],
        [3, 104],
        [2, 200],
        [1, 150],
        [1, 300],
        [1, 250],
        [1, 120],
        [1, 260],
        [1, 110],
      ];
      const engineers: string[] = [];
      for (const [count, latest] of plan) engineers.push(await person('acme.com', 'Software Engineer', count, latest));
      const quiet = [await person('acme.com', 'Software Engineer'), await person('acme.com', 'Backend Developer')];
      await prospect(acmeCompany, 'Idle Prospect', 'Software Engineer');

      const found = await cell(acme, 'bcc_30_1');
      expect(found.contacts.map((candidate) => [candidate.id, candidate.rankedBy])).toEqual([
        [engineers[0], 'engagement'],
        [engineers[1], 'engagement'],
        [engineers[2], 'engagement'],
        [engineers[3], 'engagement'],
        [engineers[4], 'engagement'],
        [engineers[7], 'recency'],
        [engineers[10], 'recency'],
        [engineers[8], 'recency'],
        [engineers[5], 'recency'],
        [engineers[6], 'recency'],
      ]);
      expect(found.contacts.map((candidate) => candidate.activityCountAll)).toEqual([5, 5, 4, 3, 3, 1, 1, 1, 2, 1]);
      expect(found.contacts[5]!.latestActivityTime).toBe(minute(300));
      for (const idle of quiet) expect(ids(found)).not.toContain(idle);
    });

    it('fills the engagement places contacts leave with prospector contacts, contacts first, by ID', async () => {
      const company = await prospectorCompany('careers.acme.com');
      const marketers = [];
      for (let n = 0; n < 6; n++) marketers.push(await prospect(n % 2 ? company : acmeCompany, `Marketer ${n}`, 'Marketing Specialist'));
      const contact = await person('acme.com', 'Marketing Coordinator');
      const found = await cell(acme, 'bcc_30_3');
      expect(ids(found)).toEqual([contact, ...marketers.slice(0, 4)]);
      expect(found.contacts.every((candidate) => candidate.rankedBy === 'engagement')).toBe(true);
      expect(found.contacts.slice(1).every((candidate) => candidate.email === null && candidate.source === 'prospector')).toBe(true);
    });

    it('takes the prospector companies whose website’s registrable domain is the organization’s primary domain, no other', async () => {
      const others = ['https://acme.com.evil.io', 'https://notacme.com', 'https://acme.co.uk', 'https://acme-labs.com', null];
      for (const website of others) {
        const company = (
          await t.services.db
            .insertInto('prospector_companies')
            .values({ name: 'Elsewhere', primary_website: website })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
        await prospect(company, `Director elsewhere ${website}`, 'Director of Marketing');
      }
      const inside = await prospect(await prospectorCompany('HTTP://Shop.ACME.com.'), 'Director inside', 'Director of Marketing');
      expect(ids(await cell(acme, 'bcc_20_3'))).toEqual([inside]);
    });

    it('leaves out a prospector contact who is one of the organization’s contacts, and one who asked to be erased', async () => {
      const contact = await person('acme.com', 'Director, Engineering');
      const email = `person${pushed}@acme.com`;
      await prospect(acmeCompany, 'Same person', 'Director of Engineering', { email: email.toUpperCase() });
      const other = await prospect(acmeCompany, 'Someone else', 'Engineering Director', { email: 'someone@acme.com' });
      expect(ids(await cell(acme, 'bcc_20_1'))).toEqual([contact, other]);

      // Erased: the contact is gone, and so is the prospector record with the erased address.
      const response = await t.app.inject({ method: 'DELETE', url: `/community/v1/user/${email}`, headers: { authorization: `Bearer ${t.token}` } });
      expect(response.statusCode, response.body).toBe(200);
      await createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs }).runUntilIdle();
      expect(ids(await cell(acme, 'bcc_20_1'))).toEqual([other]);
    });

    it('needs organizations:read, contacts:read and prospector:read, or read', async () => {
      for (const scopes of [
        ['organizations:read', 'contacts:read'],
        ['organizations:read', 'prospector:read'],
        ['contacts:read', 'prospector:read'],
        ['admin'],
        ['write'],
      ]) {
        const response = await cells({ organizationId: acme }, await t.issueToken(scopes));
        expect(response.statusCode, scopes.join(' ')).toBe(403);
        expect(response.json()).toMatchObject({ status: 'forbidden' });
      }
      for (const scopes of [['organizations:read', 'contacts:read', 'prospector:read'], ['read']]) {
        expect((await cells({ organizationId: acme }, await t.issueToken(scopes))).statusCode, scopes.join(' ')).toBe(200);
      }
    });

    it('refuses a missing or malformed organizationId, another community’s organization, and a community without a committee', async () => {
      const expectError = async (response: Awaited<ReturnType<typeof cells>>, status: number, code: string) => {
        expect(response.statusCode, response.body).toBe(status);
        expect(response.json()).toEqual({ success: false, error: expect.objectContaining({ code, message: expect.any(String) }) });
      };
      await expectError(await cells({}), 400, 'invalid_organization_id');
      for (const bad of ['', '12', 'o_', 'o_x', 'O_1', 'c_1', 'o_1.5', 'o_99999999999999999999'])
        await expectError(await cells({ organizationId: bad }), 400, 'invalid_organization_id');
      await expectError(await cells({ organizationId: 'o_999999' }), 404, 'org_not_found');

      const { communityId } = await t.services.communities.create('No committee', cliActor());
      const source = await t.services.sources.create(cliWriter(communityId), { name: 'API' });
      const theirs = await t.issueToken(['read', 'write'], communityId);
      await pushUser(t, { id: 'them', email: 'them@globex.com', titleAtCompany: 'VP Sales' }, { sourceId: source.id, token: theirs });
      const response = await t.get(withQuery('/api/v2/organizations', { primaryDomain: 'globex.com' }), theirs);
      const globex = (response.json() as { data: { id: string }[] }).data[0]!.id;
      // Theirs is not ours: a 404 exactly as if it did not exist.
      await expectError(await cells({ organizationId: globex }), 404, 'org_not_found');
      // Their community has the organization but no committee.
      const missing = await cells({ organizationId: globex }, theirs);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ success: false, error: { code: 'buying_committee_not_found', message: expect.any(String) } });

      for (const params of [
        { organizationId: acme, cols: 'title' },
        { organizationId: acme, limit: '5' },
        { organizationId: acme, cursor: 'x' },
      ]) {
        const refused = await cells(params);
        expect(refused.statusCode, JSON.stringify(params)).toBe(400);
      }
    });
  });
});
