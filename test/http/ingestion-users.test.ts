import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { push as pushCore } from '../helpers/ingest.ts';
import { storedFieldValues, storedTagNames } from '../helpers/stored.ts';

describe.each(ENGINES)('core user pushes (%s)', (engine) => {
  let t: TestApp;
  let other: number; // a second source of the same community
  let counter = 0;
  const uid = (prefix = 'u') => `${prefix}-${++counter}`;

  beforeAll(async () => {
    t = await createTestApp(engine);
    other = (await t.services.sources.create(cliWriter(t.communityId), { name: 'Discourse' })).id;
  });
  afterAll(() => t.close());

  const push = (body: Record<string, unknown>, sourceId = t.sourceId, token = t.token) => pushCore(t, 'user', body, { sourceId, token });
  async function accepted(body: Record<string, unknown>, sourceId = t.sourceId) {
    const response = await push(body, sourceId);
    expect(response.statusCode, response.body).toBe(202);
    return response.json() as { status: string; contactId: string; warnings: string[] };
  }
  const key = (contactId: string) => Number(contactId.slice(2));
  async function contact(contactId: string) {
    return t.services.db
      .selectFrom('contacts')
      .selectAll()
      .where('community_id', '=', t.communityId)
      .where('id', '=', key(contactId))
      .executeTakeFirstOrThrow();
  }
  async function contactCount() {
    const row = await t.services.db
      .selectFrom('contacts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('community_id', '=', t.communityId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it('matches LinkedIn handles given as in/x, x or a profile URL to one identity', async () => {
    const first = await accepted({ id: 'li-1', fullName: 'Grace Hopper', linkedin: { type: 'handle', value: 'in/grace-hopper' } });
    expect(first.warnings ?? []).toEqual([]);
    const second = await accepted({ id: 'li-2', linkedin: { type: 'handle', value: 'Grace-Hopper' } }, other);
    const third = await accepted({ id: 'li-3', linkedin: 'https://www.linkedin.com/in/grace-hopper/?trk=public' });
    expect(second.contactId).toBe(first.contactId);
    expect(third.contactId).toBe(first.contactId);
    for (const form of ['in%2Fgrace-hopper', 'grace-hopper', 'https%3A%2F%2Fuk.linkedin.com%2Fin%2Fgrace-hopper']) {
      const found = await t.get(`/community/v1/members?linkedin=${form}`);
      expect(found.statusCode, form).toBe(200);
      expect(found.json()).toHaveLength(1);
      expect(found.json()[0].linkedin).toBe('grace-hopper');
    }
  });

  it('accepts a push with only an id, with a JSON body naming the contact', async () => {
    const body = await accepted({ id: uid() });
    expect(body).toEqual({ status: 'accepted', contactId: expect.stringMatching(/^c_\d+$/), warnings: [] });
    expect((await contact(body.contactId)).name).toBe('Unknown');
  });

  it("finds the same contact again by the sender's id in the same source", async () => {
    const id = uid();
    const first = await accepted({ id, fullName: 'Ada Lovelace' });
    const again = await accepted({ id, titleAtCompany: 'Analyst' });
    expect(again.contactId).toBe(first.contactId);
    const row = await contact(first.contactId);
    expect(row).toMatchObject({ name: 'Ada Lovelace', full_name: 'Ada Lovelace', title: 'Analyst' });
  });

  it('matches by email across sources, whatever its case or form', async () => {
    const a = await accepted({ id: uid(), email: 'Grace.Hopper@Navy.example.com' });
    // The email shown keeps its original spelling.
    expect((await contact(a.contactId)).primary_email).toBe('Grace.Hopper@Navy.example.com');
    const b = await accepted({ id: uid(), email: ' "Grace" <grace.hopper@navy.example.com> ' }, other);
    expect(b.contactId).toBe(a.contactId);
  });

  it('matches gmail addresses without dots and plus-tags, and googlemail as gmail', async () => {
    const a = await accepted({ id: uid(), email: 'alan.turing+community@gmail.com' });
    const b = await accepted({ id: uid(), email: 'AlanTuring@googlemail.com' }, other);
    expect(b.contactId).toBe(a.contactId);
  });

  it('matches handles given as @handles and as profile URLs', async () => {
    const a = await accepted({ id: uid(), github: { type: 'handle', value: '@linus-t' } });
    const b = await accepted({ id: uid(), github: { type: 'handle', value: 'https://github.com/Linus-T/' } }, other);
    expect(b.contactId).toBe(a.contactId);
    const c = await accepted({ id: uid(), twitter: { type: 'handle', value: 'https://x.com/jack_d' } });
    const d = await accepted({ id: uid(), twitter: { type: 'handle', value: '@Jack_D' } }, other);
    expect(d.contactId).toBe(c.contactId);
    const e = await accepted({ id: uid(), linkedin: { type: 'handle', value: 'https://www.linkedin.com/in/satya-n/' } });
    const f = await accepted({ id: uid(), linkedin: { type: 'handle', value: 'satya-n' } }, other);
    expect(f.contactId).toBe(e.contactId);
  });

  it('turns a GitHub noreply address into the GitHub handle', async () => {
    const a = await accepted({ id: uid(), email: '12345+mona-dev@users.noreply.github.com' });
    const b = await accepted({ id: uid(), github: { type: 'handle', value: 'mona-dev' } }, other);
    expect(b.contactId).toBe(a.contactId);
  });

  it.each(['', 'null', 'undefined', 'unknown', 'n/a', 'none', '-', 'noreply@example.com', 'no-reply@acme.example.com'])(
    'never matches on the junk email %j, and says it dropped it',
    async (junk) => {
      const a = await accepted({ id: uid(), email: junk, fullName: 'First Person' });
      const b = await accepted({ id: uid(), email: junk, fullName: 'Second Person' }, other);
      expect(b.contactId).not.toBe(a.contactId);
      if (junk !== '') expect(a.warnings.join(' ')).toMatch(/email/);
      expect((await contact(a.contactId)).primary_email).toBeNull();
    },
  );

  it.each(['-', 'n/a', 'unknown', 'none', 'null'])('never matches on the junk handle %j', async (junk) => {
    const a = await accepted({ id: uid(), github: { type: 'handle', value: junk } });
    const b = await accepted({ id: uid(), github: { type: 'handle', value: junk } }, other);
    expect(b.contactId).not.toBe(a.contactId);
    expect(a.warnings.join(' ')).toMatch(/github/);
  });

  it('merges two contacts that one push names, keeping the older and recording why', async () => {
    const older = await accepted({ id: uid(), email: 'merge.me@example.org', fullName: 'Merge Me' });
    const newer = await accepted({ id: uid(), github: { type: 'handle', value: 'merge-me' }, bio: 'Writes code' }, other);
    expect(newer.contactId).not.toBe(older.contactId);
    const before = await contactCount();

    const both = await accepted({ id: uid(), email: 'merge.me@example.org', github: { type: 'handle', value: 'merge-me' } });
    expect(both.contactId).toBe(older.contactId);
    expect(await contactCount()).toBe(before - 1);

    const merge = await t.services.db
      .selectFrom('contact_merges')
      .selectAll()
      .where('community_id', '=', t.communityId)
      .where('merged_id', '=', key(newer.contactId))
      .executeTakeFirstOrThrow();
    expect(merge.survivor_id).toBe(key(older.contactId));
    expect(merge.identity_type).toBe('github');
    expect(merge.reason).toMatch(/github "merge-me"/);
    // The survivor holds every identity and keeps the merged contact's values where it had none.
    const survivor = await contact(older.contactId);
    expect(survivor).toMatchObject({ name: 'Merge Me', bio: 'Writes code' });
    const identities = await t.services.db
      .selectFrom('contact_identities')
      .select(['type', 'value'])
      .where('community_id', '=', t.communityId)
      .where('contact_id', '=', key(older.contactId))
      .orderBy('type')
      .execute();
    expect(identities).toEqual([
      { type: 'email', value: 'merge.me@example.org' },
      { type: 'github', value: 'merge-me' },
    ]);
    // The merged ID keeps resolving, to the survivor.
    const resolved = await t.get(`/api/v2/contacts/${newer.contactId}`);
    expect(resolved.statusCode).toBe(200);
    expect(resolved.json()).toEqual({ success: true, data: { id: older.contactId, name: 'Merge Me' } });
    expect((await t.get('/api/v2/contacts/c_99999999')).statusCode).toBe(404);
    expect((await t.get('/api/v2/contacts/99')).json()).toMatchObject({ error: { code: 'invalid_contact_id' } });
    // The earlier sender's id in the other source now leads to the survivor.
    const again = await accepted({ id: uid(), github: { type: 'handle', value: 'merge-me' } });
    expect(again.contactId).toBe(older.contactId);
  });

  it('shows, per field, the latest non-empty value', async () => {
    const id = uid();
    const first = await accepted({ id, firstName: 'Barbara', lastName: 'Liskov', titleAtCompany: 'Professor', avatarUrl: 'https://img.example.com/b.png' });
    expect(await contact(first.contactId)).toMatchObject({ name: 'Barbara Liskov', full_name: 'Barbara Liskov', title: 'Professor' });
    await accepted({ id, fullName: 'Barbara H. Liskov', titleAtCompany: null, bio: '' });
    expect(await contact(first.contactId)).toMatchObject({
      name: 'Barbara H. Liskov',
      title: 'Professor',
      bio: null,
      avatar_url: 'https://img.example.com/b.png',
    });
  });

  it('keeps only http and https addresses: any other avatarUrl is dropped with a warning, and the rest of the push stored', async () => {
    const id = uid();
    const first = await accepted({ id, fullName: 'Grace Hopper', avatarUrl: 'https://img.example.com/grace.png' });
    const bad = [
      'javascript:alert(document.cookie)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=',
      'vbscript:msgbox(1)',
      '/relative/picture.png',
      'img.example.com/grace.png',
    ];
    for (const avatarUrl of bad) {
      const again = await accepted({ id, titleAtCompany: 'Rear Admiral', avatarUrl });
      expect(again.contactId, avatarUrl).toBe(first.contactId);
      expect(again.warnings, avatarUrl).toEqual(['avatarUrl: not an http or https URL; the value was dropped']);
    }
    // The earlier address stays (the latest non-empty value), on the contact and on the source's profile.
    expect(await contact(first.contactId)).toMatchObject({ title: 'Rear Admiral', avatar_url: 'https://img.example.com/grace.png' });
    const profile = await t.services.db
      .selectFrom('source_profiles')
      .select('fields')
      .where('community_id', '=', t.communityId)
      .where('source_id', '=', t.sourceId)
      .where('external_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(profile.fields).toMatchObject({ avatarUrl: 'https://img.example.com/grace.png', titleAtCompany: 'Rear Admiral' });
    // A new person, in a batch and as an activity's user: the same rule, with the item's path.
    const batch = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/users`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: [
        { id: uid(), fullName: 'Ada', avatarUrl: 'javascript:alert(1)' },
        { id: uid(), fullName: 'Alan', avatarUrl: 'HTTP://img.example.com/alan.png' },
      ],
    });
    expect(batch.statusCode, batch.body).toBe(202);
    const results = (batch.json() as { results: { contactId: string; warnings: string[] }[] }).results;
    expect(results.map((result) => result.warnings)).toEqual([['avatarUrl: not an http or https URL; the value was dropped'], []]);
    expect((await contact(results[0]!.contactId)).avatar_url).toBeNull();
    expect((await contact(results[1]!.contactId)).avatar_url).toBe('HTTP://img.example.com/alan.png');
    const activity = await pushCore(t, 'activity', {
      id: uid('act'),
      activityType: 'tweet',
      user: { id: uid(), avatarUrl: 'data:text/html,<script>alert(1)</script>' },
    });
    expect(activity.statusCode, activity.body).toBe(202);
    expect(activity.json()).toMatchObject({ warnings: ['user.avatarUrl: not an http or https URL; the value was dropped'] });
    expect((await contact((activity.json() as { contactId: string }).contactId)).avatar_url).toBeNull();
  });

  it("names a contact after the username, then the email's local part", async () => {
    expect((await contact((await accepted({ id: uid(), username: 'octavia' })).contactId)).name).toBe('octavia');
    expect((await contact((await accepted({ id: uid(), email: 'katherine.j@nasa.example.gov' })).contactId)).name).toBe('katherine.j');
  });

  it('takes the organization from companyDomain, reduced to the registrable domain', async () => {
    const body = await accepted({ id: uid(), companyDomain: 'https://www.engineering.Initech.co.uk/about', companyName: 'Initech' });
    const row = await contact(body.contactId);
    expect(row.company_website).toBe('https://initech.co.uk');
    const organization = await t.services.db
      .selectFrom('organizations')
      .selectAll()
      .where('community_id', '=', t.communityId)
      .where('id', '=', row.organization_id!)
      .executeTakeFirstOrThrow();
    expect(organization).toMatchObject({ name: 'Initech', primary_domain: 'initech.co.uk', member_count: 1 });
  });

  it('takes the organization from a work email, never from a free mail provider', async () => {
    const work = await contact((await accepted({ id: uid(), email: 'peter@globex.example.com' })).contactId);
    expect(work.company_website).toBe('https://example.com');
    const free = await contact((await accepted({ id: uid(), email: 'someone.free@gmail.com' })).contactId);
    expect(free.organization_id).toBeNull();
    const disposable = await contact((await accepted({ id: uid(), email: 'throwaway@mailinator.com' })).contactId);
    expect(disposable.organization_id).toBeNull();
  });

  it('links companyName alone only to the one organization of that name, and never makes one', async () => {
    const linked = await contact((await accepted({ id: uid(), companyName: 'initech' })).contactId);
    expect(linked.company_website).toBe('https://initech.co.uk');
    const unknown = await contact((await accepted({ id: uid(), companyName: 'Nobody Inc' })).contactId);
    expect(unknown).toMatchObject({ organization_id: null, company_name: 'Nobody Inc' });
    const organizations = await t.services.db
      .selectFrom('organizations')
      .select('name')
      .where('community_id', '=', t.communityId)
      .where(sql<string>`lower(name)`, '=', 'nobody inc')
      .execute();
    expect(organizations).toEqual([]);
  });

  it.each([
    ['Berlin, Germany', { city: 'Berlin', country: 'Germany' }],
    ['São Paulo', { city: 'São Paulo', country: 'Brazil' }],
    ['London, UK', { city: 'London', country: 'United Kingdom' }],
    ['Austin, TX', { city: 'Austin', region: 'Texas', country: 'United States' }],
    ['SF Bay Area', { city: 'San Francisco', country: 'United States' }],
    ['NYC', { city: expect.stringMatching(/^New York/), region: 'New York', country: 'United States' }],
    ['Bangalore', { country: 'India', region: 'Karnataka' }],
    ['Remote - EU', { city: null, country: null, world_region: 'Europe' }],
  ])('interprets the location %j', async (rawLocation, expected) => {
    const row = await contact((await accepted({ id: uid(), rawLocation })).contactId);
    expect(row).toMatchObject({ raw_location: rawLocation, ...expected });
  });

  it('reads structured location fields too', async () => {
    const row = await contact((await accepted({ id: uid(), city: 'Munich', country: 'DE' })).contactId);
    expect(row).toMatchObject({ city: expect.stringMatching(/Munich|München/), country: 'Germany', country_code: 'DE' });
  });

  it('normalizes phone numbers', async () => {
    const row = await contact((await accepted({ id: uid(), country: 'US', phoneNumber: '(415) 555-2671' })).contactId);
    expect(row.phone_numbers).toEqual([{ type: expect.any(String), value: '+14155552671' }]);
  });

  it('answers 404 for a source of another community, or none', async () => {
    const { communityId } = await t.services.communities.create('Elsewhere', cliActor());
    const foreign = (await t.services.sources.create(cliWriter(communityId), { name: 'Theirs' })).id;
    for (const source of [foreign, 999999]) {
      const response = await push({ id: uid() }, source);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ status: 'not-found' });
    }
  });

  it('accepts destinationSourceId repeated in the body, and refuses one that disagrees', async () => {
    expect((await push({ id: uid(), destinationSourceId: t.sourceId })).statusCode).toBe(202);
    expect((await push({ id: uid(), destinationSourceId: String(t.sourceId) })).statusCode).toBe(202);
    const wrong = await push({ id: uid(), destinationSourceId: other });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ reason: 'invalid-request-body', detail: expect.stringMatching(/destinationSourceId/) });
  });

  it('ignores unknown fields, naming them in warnings; null means empty', async () => {
    const body = await accepted({ id: uid(), favouriteColour: 'teal', tags: null, customFields: null, github: null, externalProfiles: null });
    expect(body.warnings).toEqual(['unknown field "favouriteColour" was ignored']);
  });

  it('refuses a body of the wrong shape with a 400 that says what is wrong', async () => {
    for (const [body, detail] of [
      [{}, /"id" is required/],
      [{ id: uid(), email: 42 }, /email/],
      [{ id: '' }, /id/],
      [{ id: uid(), tags: [{ type: 'colour', id: 'x' }] }, /tags/],
    ] as const) {
      const response = await push(body as Record<string, unknown>);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ reason: 'invalid-request-body', detail: expect.stringMatching(detail) });
    }
  });

  it('needs sources:write', async () => {
    const response = await push({ id: uid() }, t.sourceId, await t.issueToken(['read']));
    expect(response.statusCode).toBe(403);
  });

  describe('custom fields', () => {
    const fields: Record<string, number> = {};
    beforeAll(async () => {
      const make = async (name: string, valueType: string, extra: Record<string, unknown> = {}) => {
        const row = await t.services.db
          .insertInto('custom_fields')
          .values({ community_id: t.communityId, name, entity_types: ['contact'], value_type: valueType, ...extra })
          .returning('id')
          .executeTakeFirstOrThrow();
        fields[name] = row.id;
      };
      await make('Plan', 'string');
      await make('Homepage', 'url');
      await make('Seats', 'int');
      await make('Score', 'number');
      await make('Renewal', 'date');
      await make('Champion', 'boolean');
      await make('Tier', 'enum', { enum_values: ['free', 'pro', 'enterprise'] });
      await make('Languages', 'enum', { enum_values: ['go', 'rust', 'ts'], multivalue: true });
      await make('Secret', 'string');
      await t.services.db
        .insertInto('custom_field_writers')
        .values({ community_id: t.communityId, custom_field_id: fields.Secret!, source_id: other })
        .execute();
    });

    const values = (contactId: string) => storedFieldValues(t, 'contact', key(contactId));

    it('stores values that fit their definitions, and clears a field given without a value', async () => {
      const id = uid();
      const given = [
        { id: fields.Plan, value: { type: 'string', value: 'team' } },
        { id: fields.Homepage, value: { type: 'url', value: 'https://ada.example.com' } },
        { id: fields.Seats, value: { type: 'int', value: 12 } },
        { id: fields.Score, value: { type: 'number', value: 4.5 } },
        { id: fields.Renewal, value: { type: 'date', value: '2027-02-28' } },
        { id: fields.Champion, value: { type: 'boolean', value: true } },
        { id: fields.Tier, value: { type: 'enum', value: 'pro' } },
        { id: fields.Languages, value: { type: 'enum', value: ['go', 'ts'] } },
      ];
      const body = await accepted({ id, customFields: given });
      const stored = await values(body.contactId);
      expect(stored[fields.Seats!]).toEqual({ type: 'int', value: 12 });
      expect(stored[fields.Languages!]).toEqual({ type: 'enum', value: ['go', 'ts'] });
      expect(Object.keys(stored)).toHaveLength(8);

      await accepted({ id, customFields: [{ id: fields.Plan, value: null }, { id: fields.Seats }] });
      const after = await values(body.contactId);
      expect(after[fields.Plan!]).toBeUndefined();
      expect(after[fields.Seats!]).toBeUndefined();
      expect(after[fields.Tier!]).toEqual({ type: 'enum', value: 'pro' });
    });

    it('refuses values that do not fit, naming every one, and stores nothing', async () => {
      const id = uid();
      const response = await push({
        id,
        fullName: 'Not Stored',
        customFields: [
          { id: fields.Homepage, value: { type: 'url', value: 'not a url' } },
          { id: fields.Seats, value: { type: 'int', value: 1.5 } },
          { id: fields.Renewal, value: { type: 'date', value: '2027-02-30' } },
          { id: fields.Champion, value: { type: 'boolean', value: 'yes' } },
          { id: fields.Tier, value: { type: 'enum', value: 'gold' } },
          { id: 999999, value: { type: 'string', value: 'x' } },
          { id: fields.Secret, value: { type: 'string', value: 'x' } },
        ],
      });
      expect(response.statusCode).toBe(400);
      const detail = response.json().detail as string;
      for (const index of [0, 1, 2, 3, 4, 5, 6]) expect(detail).toContain(`customFields[${index}]`);
      const found = await t.services.db
        .selectFrom('source_profiles')
        .select('contact_id')
        .where('community_id', '=', t.communityId)
        .where('external_id', '=', id)
        .execute();
      expect(found).toEqual([]);
    });

    it('lets a restricted field be written only by its sources', async () => {
      const body = await accepted({ id: uid(), customFields: [{ id: fields.Secret, value: { type: 'string', value: 'ok' } }] }, other);
      expect((await values(body.contactId))[fields.Secret!]).toEqual({ type: 'string', value: 'ok' });
    });
  });

  it('assigns tags by id and by name', async () => {
    const existing = await t.services.db
      .insertInto('tags')
      .values({ community_id: t.communityId, name: 'Speaker', entity_types: ['member'] })
      .returning('id')
      .executeTakeFirstOrThrow();
    const body = await accepted({
      id: uid(),
      tags: [
        { type: 'id', id: `l_${existing.id}` },
        { type: 'name', name: 'Beta tester' },
      ],
    });
    expect(await storedTagNames(t, 'contact', key(body.contactId))).toEqual(['Beta tester', 'Speaker']);
  });
});
