import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { TEST_PUBLIC_URL } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

type IdentityType = 'email' | 'github' | 'twitter' | 'linkedin' | 'discord';

describe.each(ENGINES)('core segments (%s)', (engine) => {
  let t: TestContext;
  let a: number;
  let b: number;
  let bToken: string;
  let segmentReader: string;
  let segmentWriter: string;

  /** A's contacts and segments. */
  const contacts: Record<string, number> = {};
  let members: number;
  let leads: number;
  let empty: number;
  let orgSegment: number;
  let status: { new: number; won: number; lost: number };
  let leadsStatus: number;
  /** B's. */
  let bSegment: number;
  let bContact: number;

  const db = () => t.services.db;

  const send = (method: 'GET' | 'POST', url: string, payload?: unknown, token = t.token) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as string }),
    });

  const add = (segmentId: number | string, body: Record<string, unknown>, token = t.token) => send('POST', `/community/v1/segments/${segmentId}`, body, token);

  /** A person pushed with these identities (and no others): their contact's key. */
  async function seedContact(communityId: number, name: string, identities: Partial<Record<IdentityType, string>>): Promise<number> {
    return (await t.newContact({ fullName: name, email: undefined, ...identities, communityId })).key;
  }

  async function seedSegment(communityId: number, name: string, entityType: 'contact' | 'organization' = 'contact'): Promise<number> {
    return (await t.newSegment({ name, entityType, communityId })).key;
  }

  async function seedStatus(communityId: number, segmentId: number, name: string, position: number): Promise<number> {
    const row = await db()
      .insertInto('segment_statuses')
      .values({ community_id: communityId, segment_id: segmentId, name, position })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function membersOf(communityId: number, segmentId: number) {
    return db()
      .selectFrom('segment_memberships')
      .select(['entity_id as contactId', 'status_id as statusId'])
      .where('community_id', '=', communityId)
      .where('segment_id', '=', segmentId)
      .orderBy('entity_id')
      .execute();
  }

  const c = (name: string) => `c_${contacts[name]}`;

  beforeAll(async () => {
    t = await createTestContext(engine);
    a = t.communityId;
    b = (await t.newCommunity('Beta')).communityId;
    bToken = await t.issueToken(['read', 'write'], b);
    segmentReader = await t.issueToken(['segments:read']);
    segmentWriter = await t.issueToken(['segments:write']);

    // Pushed as a source pushes them: ingestion stores each identity's match key and its display value.
    contacts.ann = await seedContact(a, 'Ann', { email: 'Ann@Example.com', github: 'Ann-Codes' });
    contacts.bob = await seedContact(a, 'Bob', { email: 'Bob.Smith@gmail.com', twitter: 'BobTweets' });
    contacts.cat = await seedContact(a, 'Cat', { linkedin: 'cat-lee', twitter: 'cat_x', github: 'catgh' });
    contacts.dan = await seedContact(a, 'Dan', { linkedin: 'Dan-O' });

    empty = await seedSegment(a, 'Empty');
    members = await seedSegment(a, 'Members');
    orgSegment = await seedSegment(a, 'Accounts', 'organization');
    leads = await seedSegment(a, 'Leads');
    // Positions out of ID order: the list follows positions.
    status = {
      won: await seedStatus(a, members, 'Won', 2),
      new: await seedStatus(a, members, 'New', 1),
      lost: await seedStatus(a, members, 'Lost', 3),
    };
    leadsStatus = await seedStatus(a, leads, 'Hot', 1);

    bSegment = await seedSegment(b, 'B members');
    await seedStatus(b, bSegment, 'B status', 1);
    // The same email as a contact of B's only.
    bContact = await seedContact(b, 'Only in B', { email: 'onlyb@example.com' });
  });
  afterAll(() => t?.close());

  describe('GET /community/v1/segments', () => {
    it('lists the contact segments as [{id: number, name}] in ID order', async () => {
      const response = await send('GET', '/community/v1/segments', undefined, segmentReader);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual([
        { id: empty, name: 'Empty' },
        { id: members, name: 'Members' },
        { id: leads, name: 'Leads' },
      ]);
    });

    it("lists only the caller's community's segments", async () => {
      expect((await send('GET', '/community/v1/segments', undefined, bToken)).json()).toStrictEqual([{ id: bSegment, name: 'B members' }]);
    });

    it('needs segments:read and takes no query parameters', async () => {
      expect((await send('GET', '/community/v1/segments', undefined, segmentWriter)).statusCode).toBe(403);
      const response = await send('GET', '/community/v1/segments?limit=1');
      expect(response.statusCode).toBe(400);
      expect(response.json().detail).toBe('unknown query parameter "limit"');
    });
  });

  describe('GET /community/v1/segments/{id}', () => {
    it('answers one contact segment as a bare {id: number, name}, by the number or s_N', async () => {
      const response = await send('GET', `/community/v1/segments/${members}`, undefined, segmentReader);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ id: members, name: 'Members' });
      expect((await send('GET', `/community/v1/segments/s_${leads}`)).json()).toStrictEqual({ id: leads, name: 'Leads' });
    });

    it('answers 400 for a malformed ID (404s: with the statuses below)', async () => {
      const malformed = await send('GET', '/community/v1/segments/abc');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toStrictEqual({ reason: 'invalid-segment-id', docs: `${TEST_PUBLIC_URL}/docs`, detail: expect.stringContaining('abc') });
    });

    it('needs segments:read', async () => {
      expect((await send('GET', `/community/v1/segments/${members}`, undefined, segmentWriter)).statusCode).toBe(403);
    });
  });

  describe('GET /community/v1/segments/{id}/status', () => {
    it("lists the segment's statuses in their order", async () => {
      const response = await send('GET', `/community/v1/segments/${members}/status`, undefined, segmentReader);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual([
        { id: status.new, name: 'New' },
        { id: status.won, name: 'Won' },
        { id: status.lost, name: 'Lost' },
      ]);
      expect((await send('GET', `/community/v1/segments/${empty}/status`)).json()).toStrictEqual([]);
    });

    it('accepts s_N too', async () => {
      expect((await send('GET', `/community/v1/segments/s_${leads}/status`)).json()).toStrictEqual([{ id: leadsStatus, name: 'Hot' }]);
    });

    it('answers 404 for an unknown, a foreign or a non-contact segment', async () => {
      for (const [id, token] of [
        [987654321, t.token],
        [bSegment, t.token],
        [members, bToken],
        [orgSegment, t.token],
      ] as const) {
        // The segment itself and its statuses alike.
        for (const url of [`/community/v1/segments/${id}`, `/community/v1/segments/${id}/status`]) {
          const response = await send('GET', url, undefined, token);
          expect(response.statusCode, url).toBe(404);
          expect(response.json()).toStrictEqual({ status: 'not-found', reason: expect.stringContaining(`segment ${id}`) });
        }
      }
    });

    it('answers a core 400 for a malformed ID', async () => {
      for (const id of ['abc', 's_', 'o_5', '1.5', '99999999999999999']) {
        const response = await send('GET', `/community/v1/segments/${id}/status`);
        expect(response.statusCode, id).toBe(400);
        expect(response.json()).toStrictEqual({ reason: 'invalid-segment-id', docs: `${TEST_PUBLIC_URL}/docs`, detail: expect.stringContaining(id) });
      }
    });

    it('needs segments:read', async () => {
      expect((await send('GET', `/community/v1/segments/${members}/status`, undefined, segmentWriter)).statusCode).toBe(403);
    });
  });

  describe('POST /community/v1/segments/{id}', () => {
    it('adds contacts found by email, by match key; unknown and junk values are notFound', async () => {
      const segment = await seedSegment(a, 'By email');
      const response = await add(
        segment,
        {
          socialType: 'email',
          value: ' ANN@example.com ,nobody@example.com, n/a, not-an-email,B.O.B.Smith+news@googlemail.com,,noreply@example.com, onlyb@example.com',
        },
        segmentWriter,
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({
        added: [c('ann'), c('bob')],
        notFound: ['nobody@example.com', 'n/a', 'not-an-email', 'noreply@example.com', 'onlyb@example.com'],
      });
      expect(await membersOf(a, segment)).toEqual([
        { contactId: contacts.ann, statusId: null },
        { contactId: contacts.bob, statusId: null },
      ]);
    });

    it('adds contacts found by GitHub handle, URL or no-reply address', async () => {
      const segment = await seedSegment(a, 'By github');
      const response = await add(segment, {
        socialType: 'github',
        value: '@Ann-Codes, https://github.com/CatGH, -, ghost-user, not a handle!, https://gitlab.com/ann-codes',
      });
      expect(response.json()).toStrictEqual({
        added: [c('ann'), c('cat')],
        notFound: ['-', 'ghost-user', 'not a handle!', 'https://gitlab.com/ann-codes'],
      });
      // A GitHub no-reply email names the GitHub user.
      const viaEmail = await add(segment, { socialType: 'email', value: '12345+catgh@users.noreply.github.com' });
      expect(viaEmail.json()).toStrictEqual({ added: [c('cat')], notFound: [] });
      expect((await membersOf(a, segment)).map((row) => row.contactId)).toEqual([contacts.ann, contacts.cat]);
    });

    it('adds contacts found by Twitter/X handle or URL', async () => {
      const segment = await seedSegment(a, 'By twitter');
      const response = await add(segment, {
        socialType: 'twitter',
        value: '@BobTweets,x.com/cat_x,unknown,handle_much_too_long_for_x,https://twitter.com/nobody_here',
      });
      expect(response.json()).toStrictEqual({
        added: [c('bob'), c('cat')],
        notFound: ['unknown', 'handle_much_too_long_for_x', 'https://twitter.com/nobody_here'],
      });
    });

    it('adds contacts found by LinkedIn id or profile URL', async () => {
      const segment = await seedSegment(a, 'By linkedin');
      const response = await add(segment, {
        socialType: 'linkedin',
        value: 'https://www.linkedin.com/in/Cat-Lee/, dan-o, null, linkedin.com/company/acme, someone-else',
      });
      expect(response.json()).toStrictEqual({
        added: [c('cat'), c('dan')],
        notFound: ['null', 'linkedin.com/company/acme', 'someone-else'],
      });
    });

    it('lists a contact named twice once, and a value given twice once', async () => {
      const segment = await seedSegment(a, 'Twice');
      const response = await add(segment, { socialType: 'email', value: 'ann@example.com, Ann@Example.com, ann@example.com, x@y.org, x@y.org' });
      expect(response.json()).toStrictEqual({ added: [c('ann')], notFound: ['x@y.org'] });
    });

    it('refuses a value with a NUL character, as every route does', async () => {
      const segment = await seedSegment(a, 'Nul');
      for (const socialType of ['email', 'github', 'twitter', 'linkedin']) {
        const response = await add(segment, { socialType, value: 'ann@example.com\u0000, catgh\u0000' });
        expect(response.statusCode, socialType).toBe(400);
        expect(response.json()).toMatchObject({ reason: 'invalid-request-body', detail: expect.stringContaining('"value"') });
      }
    });

    it('is idempotent: a repeat answers the same and adds nothing more', async () => {
      const segment = await seedSegment(a, 'Idempotent');
      const body = { socialType: 'email', value: 'ann@example.com, bobsmith@gmail.com, ghost@example.com' };
      const first = await add(segment, body);
      const second = await add(segment, body);
      expect(second.statusCode).toBe(200);
      expect(second.json()).toStrictEqual(first.json());
      expect(first.json()).toStrictEqual({ added: [c('ann'), c('bob')], notFound: ['ghost@example.com'] });
      expect(await membersOf(a, segment)).toHaveLength(2);
    });

    it('sets the given status on new and existing members, and keeps it when none is given', async () => {
      const first = await add(members, { socialType: 'email', value: 'ann@example.com', statusId: status.new });
      expect(first.json()).toStrictEqual({ added: [c('ann')], notFound: [] });
      await add(members, { socialType: 'twitter', value: 'bobtweets, cat_x', statusId: status.won });
      await add(members, { socialType: 'email', value: 'ann@example.com', statusId: status.won });
      await add(members, { socialType: 'github', value: 'catgh', statusId: null });
      await add(members, { socialType: 'linkedin', value: 'cat-lee' });
      expect(await membersOf(a, members)).toEqual([
        { contactId: contacts.ann, statusId: status.won },
        { contactId: contacts.bob, statusId: status.won },
        { contactId: contacts.cat, statusId: status.won },
      ]);
    });

    it('refuses a status of another segment, an unknown one, or one of another community, writing nothing', async () => {
      const segment = await seedSegment(a, 'Status checks');
      const bStatus = (await send('GET', `/community/v1/segments/${bSegment}/status`, undefined, bToken)).json()[0].id as number;
      for (const statusId of [leadsStatus, 987654321, bStatus]) {
        const response = await add(segment, { socialType: 'email', value: 'ann@example.com', statusId });
        expect(response.statusCode, String(statusId)).toBe(400);
        expect(response.json()).toStrictEqual({
          reason: 'invalid-status-id',
          docs: `${TEST_PUBLIC_URL}/docs`,
          detail: `status ${statusId} is not a status of segment ${segment}`,
        });
      }
      expect(await membersOf(a, segment)).toEqual([]);
    });

    it.each([
      [{ socialType: 'email', value: 'a@b.co', extra: 1 }, 'invalid-request-body', 'unknown body field "extra"'],
      [{ value: 'a@b.co' }, 'invalid-request-body', 'body field "socialType" is required'],
      [{ socialType: 'email' }, 'invalid-request-body', 'body field "value" is required'],
      [{ socialType: 'discord', value: 'x' }, 'invalid-request-body', 'must be one of "email", "twitter", "github", "linkedin"'],
      [{ socialType: 'email', value: ['a@b.co'] }, 'invalid-request-body', 'value'],
      [{ socialType: 'email', value: 'a@b.co', statusId: '5' }, 'invalid-request-body', 'statusId'],
      [{ socialType: 'email', value: 'a@b.co', statusId: 1.5 }, 'invalid-request-body', 'statusId'],
      [{ socialType: 'email', value: 'a@b.co', statusId: -1 }, 'invalid-status-id', 'statusId -1'],
      [{ socialType: 'email', value: '' }, 'invalid-parameters', 'value names no email values'],
      [{ socialType: 'github', value: ' , ,' }, 'invalid-parameters', 'value names no github values'],
      [{ socialType: 'email', value: Array.from({ length: 1001 }, (_, i) => `p${i}@x.org`).join(',') }, 'invalid-parameters', 'at most 1000'],
    ])('answers a core 400 for %j', async (body, reason, detail) => {
      const response = await add(leads, body);
      expect(response.statusCode).toBe(400);
      const error = response.json();
      expect(error).toStrictEqual({ reason, docs: `${TEST_PUBLIC_URL}/docs`, detail: expect.any(String) });
      expect(error.detail).toContain(detail);
    });

    it('answers a core 400 for a malformed segment ID', async () => {
      const response = await add('nope', { socialType: 'email', value: 'ann@example.com' });
      expect(response.statusCode).toBe(400);
      expect(response.json().reason).toBe('invalid-segment-id');
    });

    it('answers 404 for an unknown, foreign or organization segment, writing nothing', async () => {
      for (const [id, token] of [
        [987654321, t.token],
        [bSegment, t.token],
        [orgSegment, t.token],
      ] as const) {
        const response = await add(id, { socialType: 'email', value: 'ann@example.com' }, token);
        expect(response.statusCode, String(id)).toBe(404);
        expect(response.json()).toStrictEqual({ status: 'not-found', reason: expect.stringContaining(`segment ${id}`) });
      }
      expect(await membersOf(b, bSegment)).toEqual([]);
      expect(await membersOf(a, orgSegment)).toEqual([]);
    });

    it("B finds B's contacts only, and adds them to B's segment", async () => {
      const response = await add(bSegment, { socialType: 'email', value: 'onlyb@example.com, ann@example.com' }, bToken);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ added: [`c_${bContact}`], notFound: ['ann@example.com'] });
      expect(await membersOf(b, bSegment)).toEqual([{ contactId: bContact, statusId: null }]);
      // A's token cannot add to it, and B's token cannot add to A's.
      expect((await add(leads, { socialType: 'email', value: 'onlyb@example.com' }, bToken)).statusCode).toBe(404);
    });

    it('needs segments:write', async () => {
      const response = await add(leads, { socialType: 'email', value: 'ann@example.com' }, segmentReader);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ status: 'forbidden', reason: expect.stringContaining('segments:write') });
    });
  });
});
