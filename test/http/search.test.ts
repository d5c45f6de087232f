import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Results {
  contacts: { id: string; name: string; avatarUrl: string | null; matched: { field: string; value: string; platform?: string } }[];
  organizations: { id: string; name: string; domain: string; matched: { field: string; value: string } }[];
  segments: { id: string; name: string; entityType: string }[];
}

/**
 * GET /api/v2/search (docs/reading.md, "Search"): contacts by name, email and handle, organizations by name
 * and domain, segments by name; exact, then prefix, then word-prefix, then substring, ties by activity or
 * members; one community's records only, each kind for the scopes that read it, and clear 400s.
 */
describe.each(ENGINES)('search (%s)', (engine) => {
  let t: TestContext;
  const contact: Record<string, string> = {};
  const organization: Record<string, string> = {};
  const segment: Record<string, string> = {};
  let other: { communityId: number; token: string };

  const keyOf = (id: string) => Number(id.replace(/^[a-z]+_/, ''));
  const search = (query: string, extra = '', token: string | null = t.token) => t.get(`/api/v2/search?query=${encodeURIComponent(query)}${extra}`, token);
  async function found(query: string, extra = '', token = t.token): Promise<Results> {
    const response = await search(query, extra, token);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { success: true; data: Results };
    expect(body.success).toBe(true);
    return body.data;
  }
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
  const setActivity = (id: string, count: number) =>
    sql`update contacts set activity_count_all = ${count} where community_id = ${t.communityId} and id = ${keyOf(id)}`.execute(t.services.db);

  beforeAll(async () => {
    t = await createTestContext(engine);
    const push = async (key: string, fields: Record<string, unknown>) => (contact[key] = (await t.newContact({ id: key, ...fields })).id);
    await push('jane', { fullName: 'Jane Smith', email: 'jane.smith@acme.com', github: 'JSmith-Dev' });
    await push('smithers', { fullName: 'Waylon Smithers', email: 'waylon@springfield.org' });
    await push('smith', { fullName: 'Smith', email: 'agent@matrix.net' });
    await push('goldsmith', { fullName: 'Oliver Goldsmith', email: 'oliver@poets.org' });
    await push('jose', { fullName: 'José Núñez', email: 'jose@ejemplo.es', discord: 'Pepe#1234' });
    await push('slacker', { fullName: 'Sam Slack', email: 'sam@slack-users.io', username: 'samthebuilder' });
    await push('staff', { fullName: 'Smith Staffer', email: 'staffer@hearth.test' });
    await push('busy', { fullName: 'Alex Busy', email: 'alex.busy@a.com' });
    await push('quiet', { fullName: 'Alex Quiet', email: 'alex.quiet@a.com' });
    await setActivity(contact.busy!, 40);
    await setActivity(contact.quiet!, 2);
    await setActivity(contact.smithers!, 10);
    await sql`update contacts set staff = true where community_id = ${t.communityId} and id = ${keyOf(contact.staff!)}`.execute(t.services.db);

    organization.acme = (await t.newOrganization({ domain: 'acme.com' })).id;
    organization.globex = (await t.newOrganization({ domain: 'globex.io' })).id;
    organization.big = (await t.newOrganization({ domain: 'bigcorp.com' })).id;
    organization.small = (await t.newOrganization({ domain: 'smallcorp.com' })).id;
    await sql`update organizations set member_count = 50 where community_id = ${t.communityId} and id = ${keyOf(organization.big!)}`.execute(t.services.db);
    // The upsert names an organization after its domain ("Acme"); these names are what a person would see.
    for (const [key, name] of [
      ['acme', 'Acme Corporation'],
      ['globex', 'Globex'],
      ['big', 'Corp Big'],
      ['small', 'Corp Small'],
    ] as const) {
      await sql`update organizations set name = ${name} where community_id = ${t.communityId} and id = ${keyOf(organization[key]!)}`.execute(t.services.db);
    }
    await sql`insert into organization_domains (community_id, domain, organization_id) values (${t.communityId}, 'globex-mail.net', ${keyOf(organization.globex!)})`.execute(
      t.services.db,
    );

    segment.champions = (await t.newSegment({ name: 'Champions' })).id;
    segment.atRisk = (await t.newSegment({ name: 'At-risk accounts', entityType: 'organization' })).id;

    other = await t.newCommunity('Other');
    await t.newContact({ communityId: other.communityId, id: 'their-jane', fullName: 'Jane Smith', email: 'jane.smith@acme.com' });
    await t.newOrganization({ communityId: other.communityId, domain: 'acme.com' });
    await t.newSegment({ communityId: other.communityId, name: 'Champions' });
  });
  afterAll(() => t?.close());

  describe('contacts', () => {
    it('finds by name as typed: exact, then prefix, then word-prefix, then substring', async () => {
      const data = await found('smith');
      expect(ids(data.contacts)).toEqual([contact.smith, contact.smithers, contact.jane, contact.goldsmith]);
      expect(data.contacts.map((row) => row.matched)).toEqual([
        { field: 'name', value: 'Smith' },
        { field: 'name', value: 'Waylon Smithers' },
        { field: 'name', value: 'Jane Smith' },
        { field: 'name', value: 'Oliver Goldsmith' },
      ]);
      expect(data.contacts[0]).toEqual({ id: contact.smith, name: 'Smith', avatarUrl: null, matched: { field: 'name', value: 'Smith' } });
    });

    it('takes case, accents and punctuation off names', async () => {
      expect(ids((await found('JOSE NUN')).contacts)).toEqual([contact.jose]);
      expect(ids((await found('josé núñez')).contacts)).toEqual([contact.jose]);
      expect(ids((await found('jane-smith')).contacts)).toEqual([contact.jane]);
    });

    it('finds by email as written, by a handle of an identity (with its platform) and by a source profile username', async () => {
      expect((await found('JANE.SMITH@')).contacts).toEqual([
        { id: contact.jane, name: 'Jane Smith', avatarUrl: null, matched: { field: 'email', value: 'jane.smith@acme.com' } },
      ]);
      expect((await found('jsmith')).contacts.map((row) => [row.id, row.matched])).toEqual([
        [contact.jane, { field: 'handle', value: 'JSmith-Dev', platform: 'github' }],
      ]);
      expect((await found('@jsmith-dev')).contacts.map((row) => row.matched)).toEqual([{ field: 'handle', value: 'JSmith-Dev', platform: 'github' }]);
      expect((await found('pepe')).contacts.map((row) => row.matched)).toEqual([{ field: 'handle', value: 'Pepe#1234', platform: 'discord' }]);
      expect((await found('samthe')).contacts.map((row) => [row.id, row.matched])).toEqual([
        [contact.slacker, { field: 'handle', value: 'samthebuilder', platform: 'api' }],
      ]);
    });

    it('takes a username longer than an index entry may be, and finds it by its start', async () => {
      const long = `longname${'x'.repeat(4000)}`;
      const id = (await t.newContact({ id: 'long-username', fullName: 'Lon Gusername', username: long })).id;
      expect((await found('longnamex')).contacts.map((row) => row.id)).toEqual([id]);
      expect((await found(long.slice(0, 200))).contacts.map((row) => row.id)).toEqual([id]);
    });

    it('names a contact once, by its best match; ties go to the most active', async () => {
      const data = await found('alex');
      expect(ids(data.contacts)).toEqual([contact.busy, contact.quiet]);
      expect(data.contacts.map((row) => row.matched.field)).toEqual(['name', 'name']);
      await setActivity(contact.quiet!, 400);
      expect(ids((await found('alex')).contacts)).toEqual([contact.quiet, contact.busy]);
      await setActivity(contact.quiet!, 2);
    });

    it('answers at most `limit` of each kind (5 by default)', async () => {
      expect((await found('smith', '&limit=2')).contacts).toHaveLength(2);
      expect(ids((await found('smith', '&limit=2')).contacts)).toEqual([contact.smith, contact.smithers]);
      expect(ids((await found('s', '&limit=20')).contacts)).toContain(contact.slacker);
      expect((await found('a')).contacts.length).toBeLessThanOrEqual(5);
    });

    it('ranks a prefix that starts hundreds of contacts by activity, however they are found', async () => {
      // 600 "Zed N" (more than the indexes hand over to be ranked: the walk of the most active finds them), the
      // busiest four of them and one "Zedd" handle; and 600 quiet "Quill N", none active (the walk finds none).
      await sql`
        insert into contacts (community_id, name, full_name, activity_count_all)
        select ${t.communityId}, 'Zed ' || i, 'Zed ' || i, case when i in (7, 77, 177, 377) then 1000 + i else i % 3 end
        from generate_series(1, 600) i`.execute(t.services.db);
      await sql`
        insert into contacts (community_id, name, full_name)
        select ${t.communityId}, 'Quill ' || i, 'Quill ' || i from generate_series(1, 600) i`.execute(t.services.db);
      const zedd = (await t.newContact({ id: 'zedd', fullName: 'Anton Zaslavsky', github: 'zedd' })).id;
      await setActivity(zedd, 1200);
      const zed = await found('ze');
      expect(zed.contacts.map((row) => row.name)).toEqual(['Zed 377', 'Anton Zaslavsky', 'Zed 177', 'Zed 77', 'Zed 7']);
      expect(zed.contacts[1]!.matched).toEqual({ field: 'handle', value: 'zedd', platform: 'github' });
      // Eleven start "zed 37": the exact one first, then the others by activity (i % 3 but for 377), then ID.
      expect((await found('zed 37')).contacts.map((row) => row.name)).toEqual(['Zed 37', 'Zed 377', 'Zed 371', 'Zed 374', 'Zed 370']);
      expect((await found('qui')).contacts.map((row) => row.name)).toEqual(['Quill 1', 'Quill 2', 'Quill 3', 'Quill 4', 'Quill 5']);
    });

    it('leaves staff out (console users made contacts are not members)', async () => {
      expect(ids((await found('smith st')).contacts)).toEqual([]);
      expect(ids((await found('staffer@')).contacts)).toEqual([]);
      expect(ids((await found('smith', '&limit=20')).contacts)).not.toContain(contact.staff);
    });

    it('reads nothing of a query that is only punctuation, and matches a `%` or `_` literally', async () => {
      expect(await found('%')).toEqual({ contacts: [], organizations: [], segments: [] });
      expect(await found('zzzz-nobody')).toEqual({ contacts: [], organizations: [], segments: [] });
      // As wildcards these would find jane.smith@acme.com.
      expect((await found('j_ne')).contacts).toEqual([]);
      expect((await found('jane.smith%acme')).contacts).toEqual([]);
      expect((await found('__')).contacts).toEqual([]);
    });
  });

  describe('organizations', () => {
    it('finds by name and by any of their domains, ties by members', async () => {
      expect((await found('acme')).organizations).toEqual([
        { id: organization.acme, name: 'Acme Corporation', domain: 'acme.com', matched: { field: 'name', value: 'Acme Corporation' } },
      ]);
      expect((await found('globex-m')).organizations).toEqual([
        { id: organization.globex, name: 'Globex', domain: 'globex.io', matched: { field: 'domain', value: 'globex-mail.net' } },
      ]);
      expect((await found('https://www.smallcorp.com/about')).organizations.map((row) => [row.id, row.matched])).toEqual([
        [organization.small, { field: 'domain', value: 'smallcorp.com' }],
      ]);
      expect(ids((await found('corp')).organizations)).toEqual([organization.big, organization.small, organization.acme]);
    });
  });

  describe('segments', () => {
    it('finds by name, with the kind of records they hold', async () => {
      expect((await found('champ')).segments).toEqual([{ id: segment.champions, name: 'Champions', entityType: 'contact' }]);
      expect((await found('risk')).segments).toEqual([{ id: segment.atRisk, name: 'At-risk accounts', entityType: 'organization' }]);
      expect((await found('accounts')).segments.map((row) => row.id)).toEqual([segment.atRisk]);
    });
  });

  it("answers one community's records only", async () => {
    const mine = await found('jane smith');
    expect(ids(mine.contacts)).toEqual([contact.jane]);
    const theirs = await found('jane smith', '', other.token);
    expect(theirs.contacts).toHaveLength(1);
    expect(theirs.contacts[0]!.id).not.toBe(contact.jane);
    expect(ids((await found('acme', '', other.token)).organizations)).not.toContain(organization.acme);
    expect(ids((await found('champ', '', other.token)).segments)).not.toContain(segment.champions);
  });

  it('searches each kind only for a token that may read it; a token that reads none of them is refused', async () => {
    const contactsOnly = await t.issueToken(['contacts:read']);
    expect(await found('acme', '', contactsOnly)).toMatchObject({ organizations: [], segments: [] });
    expect(ids((await found('jane.smith@acme', '', contactsOnly)).contacts)).toEqual([contact.jane]);
    const organizationsOnly = await t.issueToken(['organizations:read']);
    expect(await found('acme', '', organizationsOnly)).toEqual({
      contacts: [],
      organizations: [expect.objectContaining({ id: organization.acme })],
      segments: [],
    });
    const segmentsOnly = await t.issueToken(['segments:read']);
    expect(ids((await found('champ', '', segmentsOnly)).segments)).toEqual([segment.champions]);
    const activities = await t.issueToken(['activities:read']);
    expect((await search('acme', '', activities)).statusCode).toBe(403);
    expect((await search('acme', '', await t.issueToken(['read']))).statusCode).toBe(200);
    expect((await search('acme', '', null)).statusCode).toBe(403);
  });

  it('answers 400 with a clear message for a missing, empty, blank or too long query and a bad limit', async () => {
    const message = async (url: string) => {
      const response = await t.get(url);
      expect(response.statusCode, response.body).toBe(400);
      return (response.json() as { error: { code: string; message: string } }).error;
    };
    expect((await message('/api/v2/search')).message).toMatch(/query/);
    expect((await message('/api/v2/search?query=')).message).toMatch(/query.*(1 character|fewer than 1)/);
    expect(await message('/api/v2/search?query=%20%20')).toEqual({
      code: 'invalid_parameters',
      message: 'query must hold at least 1 character other than spaces',
    });
    expect((await message(`/api/v2/search?query=${'a'.repeat(201)}`)).message).toMatch(/query.*200/);
    expect((await found('a'.repeat(200))).contacts).toEqual([]);
    expect((await message('/api/v2/search?query=a&limit=0')).message).toMatch(/limit/);
    expect((await message('/api/v2/search?query=a&limit=21')).message).toMatch(/limit/);
    expect((await message('/api/v2/search?query=a&other=1')).message).toMatch(/other/);
  });
});
