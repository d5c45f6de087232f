import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { ORGANIZATION_COLS } from '../../src/modules/organizations/organization.schemas.ts';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { seedCustomField, seedLeadScore } from '../helpers/seed.ts';
import { pushUser } from '../helpers/ingest.ts';

type Organization = Record<string, unknown> & { id: string; name: string; primaryDomain: string };
type Page = { success: true; data: Organization[]; meta: { nextCursor: string | null; recordCount?: number } };
type Params = Record<string, string | number | null | undefined>;

/** What the sorts order by, per organization, as stored. */
interface Model {
  key: number;
  id: string;
  memberCount: number;
  fit: number | null;
  seats: number | null;
}

const DAY = 24 * 60 * 60 * 1000;
const day = (n: number) => new Date(Date.UTC(2026, 0, n, 9, 0, 0));

/**
 * GET /api/v2/organizations and /organizations/{id} (docs/behaviour.md: IDs, Envelopes, cols, Sorting, Paging,
 * lightFilter): always
 * `id, name, primaryDomain`; every other field by `cols`; sorts by ID, member count, lead score and
 * custom field; keyset cursors bound to sort, direction and filters; communities isolated.
 */
describe.each(ENGINES)('organizations read (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');
  let other: { communityId: number; sourceId: number; token: string };
  const fields: Record<'plan' | 'seats' | 'shoe' | 'gone', number> = { plan: 0, seats: 0, shoe: 0, gone: 0 };
  const scores: Record<'fit' | 'old' | 'engagement', number> = { fit: 0, old: 0, engagement: 0 };
  const tags: Record<'customer' | 'partner' | 'former', string> = { customer: '', partner: '', former: '' };
  /** Organization IDs (o_N) by primary domain. */
  const org: Record<string, string> = {};
  /** Contact IDs (c_N) by user ID. */
  const contact: Record<string, string> = {};
  let foreignOrg = '';

  const key = (id: string) => Number(id.replace(/^[a-z]+_/, ''));
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  const pushContact = (body: Record<string, unknown>, sourceId = t.sourceId, token = t.token) => pushUser(t, body, { sourceId, token });

  async function pushActivity(user: string, n: number) {
    const response = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/activity`,
      headers: auth(t.token),
      payload: {
        id: `${user}-${n}`,
        activityType: 'made_post_topic',
        user: { id: user },
        content: { type: 'text', value: 'hello' },
        timestamp: '2026-03-01T09:30:00Z',
      },
    });
    expect(response.statusCode, response.body).toBe(202);
  }

  async function upsert(payload: Record<string, unknown>) {
    const response = await t.app.inject({ method: 'POST', url: '/community/v1/organizations', headers: auth(t.token), payload });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { organizationId: string }).organizationId;
  }

  async function domainId(domain: string, communityId = t.communityId) {
    const row = await t.services.db
      .selectFrom('organizations')
      .select('id')
      .where('community_id', '=', communityId)
      .where('primary_domain', '=', domain)
      .executeTakeFirstOrThrow();
    return `o_${row.id}`;
  }

  function list(params: Params, token = t.token) {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(name, String(value));
    return t.get(`/api/v2/organizations?${search}`, token);
  }

  async function listed(params: Params, token = t.token): Promise<Page> {
    const response = await list(params, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Page;
  }

  /** Every organization of a query, walking pages of `limit`; nextCursor is null exactly on the last page. */
  async function walk(params: Params, limit: number, token = t.token): Promise<Organization[]> {
    const seen: Organization[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const body = await listed({ ...params, limit, cursor }, token);
      seen.push(...body.data);
      cursor = body.meta.nextCursor;
      if (cursor === null) return seen;
      expect(body.data.length).toBe(limit);
    }
    throw new Error('walk did not end');
  }

  async function getOne(id: string, cols?: string, token = t.token) {
    return t.get(`/api/v2/organizations/${id}${cols === undefined ? '' : `?cols=${encodeURIComponent(cols)}`}`, token);
  }

  async function expectError(response: { statusCode: number; json(): unknown; body: string }, status: number, code: string, message?: RegExp) {
    expect(response.statusCode, response.body).toBe(status);
    const body = response.json() as { success: boolean; error: { code: string; message: string } };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe(code);
    if (message) expect(body.error.message).toMatch(message);
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    const db = t.services.db;
    const { communityId } = await t.services.communities.create('Other', cliActor());
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Other API' });
    other = { communityId, sourceId: source.id, token: await t.issueToken(['read', 'write', 'admin'], communityId) };

    // Definitions with no write path.
    const field = async (name: string, valueType: string, entityTypes: string[], extra: { enum_values?: string[]; deleted_at?: Date } = {}) =>
      await seedCustomField(t, { name, entity_types: entityTypes, value_type: valueType, ...extra });
    fields.plan = await field('Plan', 'enum', ['organization'], { enum_values: ['free', 'pro'] });
    fields.seats = await field('Seats', 'int', ['organization']);
    fields.shoe = await field('Shoe size', 'string', ['contact']);
    fields.gone = await field('Gone', 'string', ['organization']);
    const score = async (name: string, entityType: string, enabled = true) => await seedLeadScore(t, { name, entity_type: entityType, enabled });
    scores.fit = await score('Fit', 'organization');
    scores.old = await score('Old fit', 'organization', false);
    scores.engagement = await score('Engagement', 'contact');
    for (const name of ['customer', 'partner', 'former'] as const) {
      const response = await t.app.inject({ method: 'POST', url: '/community/v1/tags', headers: auth(t.token), payload: { name, entityTypes: ['company'] } });
      expect(response.statusCode, response.body).toBe(200);
      tags[name] = (response.json() as { id: string }).id;
    }

    // Organizations made by ingestion: work emails, a companyDomain, a companyName, and the core upserts.
    for (const [user, name] of [
      ['ann', 'Ann'],
      ['ben', 'Ben'],
      ['cy', 'Cy'],
      ['dee', 'Dee'],
      ['eve', 'Eve'],
      ['flo', 'Flo'],
    ]) {
      contact[user!] = await pushContact({ id: user, fullName: name, email: `${user}@acme.com` });
    }
    contact.gus = await pushContact({ id: 'gus', fullName: 'Gus', email: 'gus@globex.com' });
    contact.hal = await pushContact({ id: 'hal', fullName: 'Hal', email: 'hal@globex.com' });
    contact.ian = await pushContact({ id: 'ian', fullName: 'Ian', email: 'ian@gmail.com', companyDomain: 'https://www.initech.com/' });
    contact.jo = await pushContact({ id: 'jo', fullName: 'Jo', email: 'jo@acme.org', companyName: 'ACME' });
    await upsert({ domain: 'umbrella.com', destinationSourceId: t.sourceId });
    await upsert({ domain: 'hooli.com', destinationSourceId: t.sourceId });
    for (const domain of ['acme.com', 'globex.com', 'initech.com', 'acme.org', 'umbrella.com', 'hooli.com']) org[domain] = await domainId(domain);
    await pushContact({ id: 'zed', fullName: 'Zed', email: 'zed@acme.com' }, other.sourceId, other.token);
    foreignOrg = await domainId('acme.com', other.communityId);

    // Activities rank Acme's contacts: Ann 3, Cy 2, Dee 2, Ben 1, Flo 1, Eve 0.
    for (const [user, count] of [
      ['ann', 3],
      ['ben', 1],
      ['cy', 2],
      ['dee', 2],
      ['flo', 1],
      ['gus', 1],
    ] as const) {
      for (let n = 1; n <= count; n++) await pushActivity(user, n);
    }

    // Custom field values and tags through the core upsert.
    const value = (id: number, type: string, v: unknown) => ({ customFieldId: id, customFieldValue: { type, value: v } });
    await upsert({
      domain: 'acme.com',
      customFields: [value(fields.plan, 'enum', 'free'), value(fields.seats, 'int', 7)],
      tagIdsToAdd: [tags.customer, tags.partner, tags.former],
    });
    await upsert({ domain: 'globex.com', customFields: [value(fields.seats, 'int', 120)] });
    await upsert({ domain: 'umbrella.com', customFields: [value(fields.plan, 'enum', 'pro'), value(fields.seats, 'int', 40)], tagIdsToAdd: [tags.customer] });
    const deleted = await t.app.inject({ method: 'DELETE', url: `/community/v1/tags/${tags.former}`, headers: auth(t.token) });
    expect(deleted.statusCode, deleted.body).toBe(200);
    // A value of a field deleted since: never shown.
    await db
      .insertInto('custom_field_values')
      .values({
        community_id: t.communityId,
        entity_type: 'organization',
        entity_id: key(org['acme.com']!),
        custom_field_id: fields.gone,
        value: JSON.stringify({ type: 'string', value: 'x' }),
      })
      .execute();
    await db.updateTable('custom_fields').set({ deleted_at: new Date() }).where('community_id', '=', t.communityId).where('id', '=', fields.gone).execute();

    // Fields with no write path yet.
    await db
      .updateTable('organizations')
      .set({
        about: 'Anvils and more',
        employees: 250,
        linkedin_url: 'https://www.linkedin.com/company/acme-corp/',
        revenue_range_min: 1000000,
        revenue_range_max: '5000000.5',
        sub_industry: 'Manufacturing',
        city: 'Austin',
        region: 'Texas',
        country: 'United States',
      })
      .where('community_id', '=', t.communityId)
      .where('id', '=', key(org['acme.com']!))
      .execute();
    // Research answers of live prompts show, the primary first; a retired prompt's and a failed attempt's do not.
    const prompt = async (promptKey: string, name: string, primary: boolean, retired = false) =>
      (
        await db
          .insertInto('research_prompts')
          .values({
            community_id: t.communityId,
            key: promptKey,
            name,
            prompt: `${name} Answer briefly.`,
            is_primary: primary,
            retired_at: retired ? new Date() : null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const prompts = {
      stack: await prompt('stack', 'Stack?', false),
      fit: await prompt('p1', 'Good fit?', true),
      old: await prompt('old', 'Old', false, true),
      fails: await prompt('fails', 'Fails', false),
    };
    const answer = (promptId: number, text: string | null) => ({
      community_id: t.communityId,
      organization_id: key(org['acme.com']!),
      prompt_id: promptId,
      answer: text,
      origin: text === null ? 'model' : 'import',
      generated_at: new Date(),
    });
    await db
      .insertInto('research_answers')
      .values([answer(prompts.stack, 'No'), answer(prompts.fit, 'Yes'), answer(prompts.old, 'Gone'), answer(prompts.fails, null)])
      .execute();
    await db
      .updateTable('organizations')
      .set({ country: 'Germany' })
      .where('community_id', '=', t.communityId)
      .where('id', '=', key(org['globex.com']!))
      .execute();
    const leadScore = (scoreId: number, organizationId: string, value: number, percentile: number, keyFactors: unknown[] = []) => ({
      community_id: t.communityId,
      score_id: scoreId,
      entity_type: 'organization',
      entity_id: key(organizationId),
      score: value,
      percentile,
      key_factors: JSON.stringify(keyFactors),
    });
    await db
      .insertInto('lead_scores')
      .values([
        leadScore(scores.fit, org['acme.com']!, 80, 90, [{ label: 'Employees', value: '250', strength: 0.7 }, { label: 1 }]),
        leadScore(scores.fit, org['globex.com']!, 55.5, 40),
        leadScore(scores.fit, org['hooli.com']!, 80, 90),
        leadScore(scores.old, org['acme.com']!, 10, 5),
      ])
      .execute();
    const acme = key(org['acme.com']!);
    // Seven openings and six news items, inserted out of order: the newest five of each are shown.
    await db
      .insertInto('job_openings')
      .values([
        ...[3, 7, 1, 5, 2, 6, 4].map((n) => ({
          community_id: t.communityId,
          organization_id: acme,
          job_title: `Job ${n}`,
          job_description: n === 7 ? null : `Description ${n}`,
          location: n === 6 ? null : 'Remote',
          url: n === 5 ? null : `https://acme.com/jobs/${n}`,
          first_seen_at: day(n),
          last_seen_at: day(n),
          item_key: `job-${n}`,
          is_closed: n === 6,
        })),
        {
          community_id: t.communityId,
          organization_id: key(org['globex.com']!),
          job_title: 'Globex job',
          first_seen_at: day(9),
          last_seen_at: day(9),
          item_key: 'globex',
        },
      ])
      .execute();
    await db
      .insertInto('news_items')
      .values(
        [2, 6, 1, 4, 3, 5].map((n) => ({
          community_id: t.communityId,
          organization_id: acme,
          title: `News ${n}`,
          category: n === 1 ? null : 'funding',
          article_sentence: `Sentence ${n}`,
          url: n === 4 ? null : `https://news.example.org/${n}`,
          published_at: day(n),
          item_key: `news-${n}`,
        })),
      )
      .execute();
  });
  afterAll(() => t?.close());

  /** The organizations as the sorts see them, from the database. */
  async function model(): Promise<Model[]> {
    const rows = await t.services.db.selectFrom('organizations').select(['id', 'member_count']).where('community_id', '=', t.communityId).execute();
    const fit: Record<string, number> = { [org['acme.com']!]: 80, [org['globex.com']!]: 55.5, [org['hooli.com']!]: 80 };
    const seats: Record<string, number> = { [org['acme.com']!]: 7, [org['globex.com']!]: 120, [org['umbrella.com']!]: 40 };
    return rows.map((row) => ({
      key: row.id,
      id: `o_${row.id}`,
      memberCount: row.member_count,
      fit: fit[`o_${row.id}`] ?? null,
      seats: seats[`o_${row.id}`] ?? null,
    }));
  }

  /** The expected order: the sort value in the direction, missing values last in both, ties by ID in the direction. */
  function ordered(models: Model[], sort: string, direction: 'asc' | 'desc'): string[] {
    const value = (m: Model) => (sort === 'member_count' ? m.memberCount : sort.startsWith('ls_') ? m.fit : sort.startsWith('cf_') ? m.seats : null);
    const sign = direction === 'asc' ? 1 : -1;
    return [...models]
      .sort((a, b) => {
        const [x, y] = [value(a), value(b)];
        if (x !== y) {
          if (x === null) return 1;
          if (y === null) return -1;
          return sign * (x - y);
        }
        return sign * (a.key - b.key);
      })
      .map((m) => m.id);
  }

  it('lists organizations with id, name and primaryDomain only, in ID order, in the v2 envelope', async () => {
    const response = await list({});
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Page;
    expect(Object.keys(body)).toEqual(['success', 'data', 'meta']);
    expect(body.success).toBe(true);
    expect(body.meta).toEqual({ nextCursor: null });
    const expected = Object.entries(org)
      .map(([domain, id]) => ({ id, domain }))
      .sort((a, b) => key(a.id) - key(b.id));
    expect(body.data.map((item) => item.id)).toEqual(expected.map((item) => item.id));
    for (const item of body.data) expect(Object.keys(item)).toEqual(['id', 'name', 'primaryDomain']);
    const byDomain = Object.fromEntries(body.data.map((item) => [item.primaryDomain, item]));
    expect(byDomain['acme.com']).toEqual({ id: org['acme.com'], name: 'Acme', primaryDomain: 'acme.com' });
    expect(byDomain['acme.org']).toEqual({ id: org['acme.org'], name: 'ACME', primaryDomain: 'acme.org' });
    expect(byDomain['initech.com']).toEqual({ id: org['initech.com'], name: 'Initech', primaryDomain: 'initech.com' });
    expect(byDomain['umbrella.com']).toEqual({ id: org['umbrella.com'], name: 'Umbrella', primaryDomain: 'umbrella.com' });
  });

  it('gets one organization, with the same three fields without cols', async () => {
    const response = await getOne(org['globex.com']!);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ success: true, data: { id: org['globex.com'], name: 'Globex', primaryDomain: 'globex.com' } });
  });

  it('every opt-in column, in the interface order with url last', async () => {
    const cols = [...ORGANIZATION_COLS, 'cf_*'].join(',');
    const response = await getOne(org['acme.com']!, cols);
    expect(response.statusCode, response.body).toBe(200);
    const data = (response.json() as { data: Organization }).data;
    expect(Object.keys(data)).toEqual([
      'id',
      'name',
      'primaryDomain',
      'about',
      'contactsCount',
      'employees',
      'linkedInUrl',
      'profiles',
      'revenueRangeMin',
      'revenueRangeMax',
      'subIndustry',
      'location',
      'customFields',
      'leadScores',
      'leadScoreKeyFactors',
      'researchResults',
      'recentJobOpenings',
      'recentNews',
      'surgingTopics',
      'topContacts',
      'tags',
      'url',
    ]);
    expect(data).toEqual({
      id: org['acme.com'],
      name: 'Acme',
      primaryDomain: 'acme.com',
      about: 'Anvils and more',
      contactsCount: 6,
      employees: 250,
      linkedInUrl: 'https://www.linkedin.com/company/acme-corp/',
      profiles: [
        { name: 'acme.com', type: 'website', url: 'https://acme.com' },
        { name: 'acme-corp', type: 'linkedin', url: 'https://www.linkedin.com/company/acme-corp/' },
      ],
      revenueRangeMin: 1000000,
      revenueRangeMax: 5000000.5,
      subIndustry: 'Manufacturing',
      location: { city: 'Austin', region: 'Texas', country: 'United States' },
      customFields: { [`cf_${fields.plan}`]: { type: 'enum', value: 'free' }, [`cf_${fields.seats}`]: { type: 'int', value: 7 } },
      leadScores: [{ scoreId: scores.fit, score: 80, percentile: 90 }],
      leadScoreKeyFactors: [{ scoreId: scores.fit, factors: [{ label: 'Employees', value: '250', strength: 0.7 }] }],
      researchResults: [
        { promptId: 'p1', answer: 'Yes', isPrimaryPrompt: true, promptName: 'Good fit?' },
        { promptId: 'stack', answer: 'No', isPrimaryPrompt: false, promptName: 'Stack?' },
      ],
      recentJobOpenings: [7, 6, 5, 4, 3].map((n) => ({
        jobTitle: `Job ${n}`,
        jobDescription: n === 7 ? null : `Description ${n}`,
        firstSeenAt: day(n).toISOString(),
        isClosed: n === 6,
        location: n === 6 ? null : 'Remote',
        url: n === 5 ? null : `https://acme.com/jobs/${n}`,
      })),
      recentNews: [6, 5, 4, 3, 2].map((n) => ({
        title: `News ${n}`,
        publishedAt: day(n).toISOString(),
        category: 'funding',
        articleSentence: `Sentence ${n}`,
        url: n === 4 ? null : `https://news.example.org/${n}`,
      })),
      // Computed from activities over time (test/http/surging-topics.test.ts); these are all of today.
      surgingTopics: [],
      topContacts: [
        { id: contact.ann, name: 'Ann' },
        { id: contact.cy, name: 'Cy' },
        { id: contact.dee, name: 'Dee' },
        { id: contact.ben, name: 'Ben' },
        { id: contact.flo, name: 'Flo' },
      ],
      tags: [tags.customer, tags.partner],
      url: `${TEST_PUBLIC_URL}/organizations/${org['acme.com']}`,
    });
    // The list shows the same object.
    const page = await listed({ primaryDomain: 'acme.com', cols });
    expect(page.data).toEqual([data]);
  });

  it('a field without a value is null, an empty list [] and an empty map {}; never left out', async () => {
    const cols = [...ORGANIZATION_COLS, 'cf_*'].join(',');
    const data = ((await getOne(org['hooli.com']!, cols)).json() as { data: Organization }).data;
    expect(data).toEqual({
      id: org['hooli.com'],
      name: 'Hooli',
      primaryDomain: 'hooli.com',
      about: null,
      contactsCount: 0,
      employees: null,
      linkedInUrl: null,
      profiles: [{ name: 'hooli.com', type: 'website', url: 'https://hooli.com' }],
      revenueRangeMin: null,
      revenueRangeMax: null,
      subIndustry: null,
      location: null,
      customFields: {},
      leadScores: [{ scoreId: scores.fit, score: 80, percentile: 90 }],
      leadScoreKeyFactors: [{ scoreId: scores.fit, factors: [] }],
      researchResults: [],
      recentJobOpenings: [],
      recentNews: [],
      surgingTopics: [],
      topContacts: [],
      tags: [],
      url: `${TEST_PUBLIC_URL}/organizations/${org['hooli.com']}`,
    });
    const globex = ((await getOne(org['globex.com']!, 'location,leadScores,recentJobOpenings,topContacts')).json() as { data: Organization }).data;
    expect(globex.location).toEqual({ city: null, region: null, country: 'Germany' });
    expect(globex.leadScores).toEqual([{ scoreId: scores.fit, score: 55.5, percentile: 40 }]);
    expect(globex.recentJobOpenings).toEqual([
      { jobTitle: 'Globex job', jobDescription: null, firstSeenAt: day(9).toISOString(), isClosed: false, location: null, url: null },
    ]);
    expect(globex.topContacts).toEqual([
      { id: contact.gus, name: 'Gus' },
      { id: contact.hal, name: 'Hal' },
    ]);
  });

  it('each cols name adds exactly its field, on lists and gets', async () => {
    for (const col of ORGANIZATION_COLS) {
      const page = await listed({ cols: col });
      expect(page.data).toHaveLength(6);
      for (const item of page.data) expect(Object.keys(item), col).toEqual(['id', 'name', 'primaryDomain', col]);
      const one = ((await getOne(org['acme.com']!, col)).json() as { data: Organization }).data;
      expect(Object.keys(one), col).toEqual(['id', 'name', 'primaryDomain', col]);
    }
    // Names are trimmed, repeats and empty entries harmless.
    const data = ((await getOne(org['acme.com']!, ' tags , ,tags,url')).json() as { data: Organization }).data;
    expect(Object.keys(data)).toEqual(['id', 'name', 'primaryDomain', 'tags', 'url']);
  });

  it('cf_* adds every live custom field, cf_<id> one; a cf_<id> that is no live organization field is a 400 naming it', async () => {
    const page = await listed({ cols: 'cf_*' });
    const byId = Object.fromEntries(page.data.map((item) => [item.id, item.customFields]));
    expect(byId[org['umbrella.com']!]).toEqual({ [`cf_${fields.plan}`]: { type: 'enum', value: 'pro' }, [`cf_${fields.seats}`]: { type: 'int', value: 40 } });
    expect(byId[org['globex.com']!]).toEqual({ [`cf_${fields.seats}`]: { type: 'int', value: 120 } });
    expect(byId[org['initech.com']!]).toEqual({});
    for (const item of page.data) expect(Object.keys(item)).toEqual(['id', 'name', 'primaryDomain', 'customFields']);

    const one = ((await getOne(org['acme.com']!, `cf_${fields.seats}`)).json() as { data: Organization }).data;
    expect(one).toEqual({ id: org['acme.com'], name: 'Acme', primaryDomain: 'acme.com', customFields: { [`cf_${fields.seats}`]: { type: 'int', value: 7 } } });
    const onlyPlan = await listed({ cols: `cf_${fields.plan}`, primaryDomain: 'globex.com' });
    expect(onlyPlan.data[0]!.customFields).toEqual({});

    for (const id of [fields.shoe, fields.gone, 999999]) {
      await expectError(await list({ cols: `cf_${fields.seats},cf_${id}` }), 400, 'invalid_parameters', new RegExp(`"cf_${id}"`));
      await expectError(await getOne(org['acme.com']!, `cf_${id}`), 400, 'invalid_parameters', new RegExp(`"cf_${id}"`));
    }
    // A field of another community is no field of this one.
    const theirs = await seedCustomField(t, { name: 'Theirs', entity_types: ['organization'], value_type: 'string' }, other.communityId);
    await expectError(await getOne(org['acme.com']!, `cf_${theirs}`), 400, 'invalid_parameters', new RegExp(`"cf_${theirs}"`));
  });

  it('an unknown cols name, recordCount on a get, and unknown query parameters are 400s naming them', async () => {
    await expectError(await list({ cols: 'tags,activityCount7d' }), 400, 'invalid_parameters', /"activityCount7d"/);
    await expectError(await list({ cols: 'customFields' }), 400, 'invalid_parameters', /"customFields"/);
    await expectError(await getOne(org['acme.com']!, 'recordCount'), 400, 'invalid_parameters', /"recordCount"/);
    await expectError(await list({ organizationId: org['acme.com'] }), 400, 'invalid_parameters', /organizationId/);
    await expectError(await t.get(`/api/v2/organizations/${org['acme.com']}?name=Acme`), 400, 'invalid_parameters', /name/);
    for (const limit of [0, 1001, 'x']) await expectError(await list({ limit }), 400, 'invalid_parameters');
    await expectError(await list({ direction: 'up' }), 400, 'invalid_parameters');
  });

  it('recordCount adds meta.recordCount, counted with the same filters', async () => {
    expect((await listed({ cols: 'recordCount', limit: 2 })).meta).toEqual({ nextCursor: expect.any(String), recordCount: 6 });
    expect((await listed({ cols: 'recordCount', name: 'Acme' })).meta).toEqual({ nextCursor: null, recordCount: 1 });
    const filter = JSON.stringify({ type: 'and', clauses: [{ type: 'numberFilter', field: 'contactsCount', params: { op: 'gte', value: 2 } }] });
    const page = await listed({ cols: 'recordCount,tags', lightFilter: filter, limit: 1 });
    expect(page.meta).toEqual({ nextCursor: expect.any(String), recordCount: 2 });
    expect(Object.keys(page.data[0]!)).toEqual(['id', 'name', 'primaryDomain', 'tags']);
  });

  it('sorts by id, member_count, a lead score and a custom field, both directions, missing values last', async () => {
    const models = await model();
    for (const sort of [undefined, 'id', 'member_count', `ls_${scores.fit}`, `cf_${fields.seats}`]) {
      for (const direction of [undefined, 'asc', 'desc'] as const) {
        const expected = ordered(models, sort ?? 'id', direction ?? 'asc');
        const page = await listed({ sort, direction });
        expect(
          page.data.map((item) => item.id),
          `${sort} ${direction}`,
        ).toEqual(expected);
      }
    }
    // The contactsCount the member_count sort orders by.
    const counted = await listed({ sort: 'member_count', direction: 'desc', cols: 'contactsCount' });
    expect(counted.data.map((item) => item.contactsCount)).toEqual([6, 2, 1, 1, 0, 0]);
    // A disabled score is still a definition of organizations: it sorts, though it is not shown.
    const old = await listed({ sort: `ls_${scores.old}` });
    expect(old.data[0]!.id).toBe(org['acme.com']);
  });

  it('a sort that is no lead score or custom field of organizations here is a 400 naming it', async () => {
    const theirs = await seedLeadScore(t, { name: 'Theirs', entity_type: 'organization' }, other.communityId);
    for (const sort of [`ls_${scores.engagement}`, `ls_${theirs}`, 'ls_999999', `cf_${fields.shoe}`, `cf_${fields.gone}`, 'cf_999999']) {
      await expectError(await list({ sort }), 400, 'invalid_parameters', new RegExp(`"${sort}"`));
    }
    for (const sort of ['name', 'contactsCount', 'ls_', 'cf_x', 'member_count ']) {
      await expectError(await list({ sort }), 400, 'invalid_parameters', /sort/);
    }
  });

  it('a cursor walk returns every organization exactly once and in order, for each sort and direction', async () => {
    const models = await model();
    for (const sort of ['id', 'member_count', `ls_${scores.fit}`, `cf_${fields.seats}`]) {
      for (const direction of ['asc', 'desc'] as const) {
        const expected = ordered(models, sort, direction);
        for (const limit of [1, 2, 4]) {
          const ids = (await walk({ sort, direction }, limit)).map((item) => item.id);
          expect(ids, `${sort} ${direction} ${limit}`).toEqual(expected);
        }
      }
    }
    // The page size may change between pages of one cursor.
    const first = await listed({ limit: 2 });
    const rest = await listed({ limit: 10, cursor: first.meta.nextCursor });
    expect([...first.data, ...rest.data].map((item) => item.id)).toEqual(ordered(models, 'id', 'asc'));
    expect(rest.meta.nextCursor).toBeNull();
  });

  it('a cursor is refused with another sort, direction or filter, or when altered', async () => {
    const filter = JSON.stringify({ type: 'and', clauses: [{ type: 'numberFilter', field: 'contactsCount', params: { op: 'gte', value: 0 } }] });
    const start = { sort: 'member_count', direction: 'asc', name: null, primaryDomain: null, lightFilter: filter } as Params;
    const cursor = (await listed({ ...start, limit: 1 })).meta.nextCursor!;
    expect((await list({ ...start, limit: 1, cursor })).statusCode).toBe(200);
    for (const change of [
      { sort: 'id' },
      { sort: `ls_${scores.fit}` },
      { direction: 'desc' },
      { name: 'Acme' },
      { primaryDomain: 'acme.com' },
      { lightFilter: null },
      { lightFilter: JSON.stringify({ type: 'and', clauses: [{ type: 'numberFilter', field: 'contactsCount', params: { op: 'gte', value: 1 } }] }) },
    ]) {
      await expectError(await list({ ...start, ...change, limit: 1, cursor }), 400, 'invalid_cursor');
    }
    await expectError(await list({ ...start, cursor: `${cursor}x` }), 400, 'invalid_cursor');
    await expectError(await list({ ...start, cursor: 'nonsense' }), 400, 'invalid_cursor');
    // Another community's list is another list.
    await expectError(await list({ ...start, limit: 1, cursor }, other.token), 400, 'invalid_cursor');
  });

  it('name is an exact match; primaryDomain an exact match compared lowercased', async () => {
    expect((await listed({ name: 'Acme' })).data.map((item) => item.id)).toEqual([org['acme.com']]);
    expect((await listed({ name: 'ACME' })).data.map((item) => item.id)).toEqual([org['acme.org']]);
    for (const name of ['acme', 'Acm', 'Acme ', '%', '']) expect((await listed({ name })).data, name).toEqual([]);
    expect((await listed({ primaryDomain: 'acme.com' })).data.map((item) => item.id)).toEqual([org['acme.com']]);
    expect((await listed({ primaryDomain: 'ACME.Com' })).data.map((item) => item.id)).toEqual([org['acme.com']]);
    for (const primaryDomain of ['www.acme.com', 'acme', 'https://acme.com']) expect((await listed({ primaryDomain })).data, primaryDomain).toEqual([]);
    expect((await listed({ name: 'Acme', primaryDomain: 'acme.org' })).data).toEqual([]);
    // Both filters hold across pages.
    expect((await walk({ name: 'Globex' }, 1)).map((item) => item.id)).toEqual([org['globex.com']]);
  });

  it('lightFilter narrows the list; a bad one is a 400 naming the JSON path', async () => {
    const ids = async (expression: unknown, params: Params = {}) =>
      (await walk({ ...params, lightFilter: JSON.stringify(expression) }, 1)).map((item) => item.id).sort((a, b) => key(a) - key(b));
    expect(await ids({ type: 'and', clauses: [{ type: 'numberFilter', field: 'contactsCount', params: { op: 'gte', value: 2 } }] })).toEqual([
      org['acme.com'],
      org['globex.com'],
    ]);
    expect(await ids({ type: 'and', clauses: [{ type: 'stringListFilter', field: 'tags', params: { op: 'any', value: [tags.customer] } }] })).toEqual([
      org['acme.com'],
      org['umbrella.com'],
    ]);
    const either = {
      type: 'or',
      clauses: [
        { type: 'stringFilter', field: 'name', params: { op: 'eq', value: 'Hooli' } },
        { type: 'numberFilter', field: `cf_${fields.seats}`, params: { op: 'gt', value: 100 } },
      ],
    };
    expect(await ids(either)).toEqual([org['globex.com'], org['hooli.com']]);
    expect(await ids(either, { sort: 'member_count', direction: 'desc' })).toEqual([org['globex.com'], org['hooli.com']]);
    expect(await ids({ type: 'and', clauses: [{ type: 'numberFilter', field: `ls_${scores.fit}`, params: { op: 'gte', value: 80 } }] })).toEqual([
      org['acme.com'],
      org['hooli.com'],
    ]);
    expect(await ids({ type: 'and', clauses: [{ type: 'stringFilter', field: 'name', params: { op: 'like', value: 'acme' } }] }, { name: 'ACME' })).toEqual([
      org['acme.org'],
    ]);

    const bad = {
      type: 'and',
      clauses: [
        { type: 'numberFilter', field: 'contactsCount', params: { op: 'gte', value: 1 } },
        { type: 'stringFilter', field: 'fullName', params: { op: 'eq', value: 'x' } },
      ],
    };
    await expectError(await list({ lightFilter: JSON.stringify(bad) }), 400, 'invalid_filter', /clauses\[1\]/);
    const badOp = { type: 'and', clauses: [{ type: 'numberFilter', field: 'contactsCount', params: { op: 'like', value: 1 } }] };
    await expectError(await list({ lightFilter: JSON.stringify(badOp) }), 400, 'invalid_filter', /clauses\[0\]\.params\.op/);
    await expectError(await list({ lightFilter: '{"type":' }), 400, 'invalid_filter');
    // A custom field of contacts is no field of organizations.
    const contactField = { type: 'and', clauses: [{ type: 'stringFilter', field: `cf_${fields.shoe}`, params: { op: 'eq', value: '42' } }] };
    await expectError(await list({ lightFilter: JSON.stringify(contactField) }), 400, 'invalid_filter', /clauses\[0\]/);
  });

  it('topContacts: at most five, by activity count then ID, anonymized contacts left out', async () => {
    const db = t.services.db;
    const erase = (at: Date | null) =>
      db.updateTable('contacts').set({ anonymized_at: at }).where('community_id', '=', t.communityId).where('id', '=', key(contact.ann!)).execute();
    await erase(new Date());
    try {
      const data = ((await getOne(org['acme.com']!, 'topContacts')).json() as { data: Organization }).data;
      expect(data.topContacts).toEqual(
        ['cy', 'dee', 'ben', 'flo', 'eve'].map((user) => ({ id: contact[user], name: user.charAt(0).toUpperCase() + user.slice(1) })),
      );
    } finally {
      await erase(null);
    }
  });

  it('IDs: a malformed one is a 400, a missing or foreign one a 404', async () => {
    for (const bad of ['12', 'o_', 'o_x', 'c_1', 'o_1.5', 'o_99999999999999999']) {
      await expectError(await getOne(encodeURIComponent(bad)), 400, 'invalid_organization_id');
    }
    await expectError(await getOne('o_999999'), 404, 'org_not_found');
    await expectError(await getOne(foreignOrg), 404, 'org_not_found');
    await expectError(await getOne(org['acme.com']!, undefined, other.token), 404, 'org_not_found');
    // An error from the ID comes before one from cols.
    await expectError(await getOne('o_x', 'nope'), 400, 'invalid_organization_id');
  });

  it('communities see only their own organizations', async () => {
    const theirs = await listed({ cols: 'contactsCount,topContacts,recordCount' }, other.token);
    expect(theirs.data).toEqual([
      { id: foreignOrg, name: 'Acme', primaryDomain: 'acme.com', contactsCount: 1, topContacts: [{ id: expect.stringMatching(/^c_/), name: 'Zed' }] },
    ]);
    expect(theirs.meta.recordCount).toBe(1);
    expect((await listed({ primaryDomain: 'acme.com' })).data.map((item) => item.id)).toEqual([org['acme.com']]);
    expect((await listed({})).data.map((item) => item.id)).not.toContain(foreignOrg);
    const ours = ((await getOne(org['acme.com']!, 'contactsCount')).json() as { data: Organization }).data;
    expect(ours.contactsCount).toBe(6);
  });

  it('needs organizations:read (or read)', async () => {
    for (const scopes of [['contacts:read'], ['organizations:write'], ['activities:read']]) {
      const token = await t.issueToken(scopes);
      expect((await list({}, token)).statusCode, scopes.join()).toBe(403);
      expect((await getOne(org['acme.com']!, undefined, token)).statusCode, scopes.join()).toBe(403);
    }
    for (const scopes of [['organizations:read'], ['read']]) {
      const token = await t.issueToken(scopes);
      expect((await list({}, token)).statusCode, scopes.join()).toBe(200);
      expect((await getOne(org['acme.com']!, undefined, token)).statusCode, scopes.join()).toBe(200);
    }
    expect((await t.get('/api/v2/organizations', null)).statusCode).toBe(403);
  });

  it('follows ingestion: a new member moves contactsCount and the member_count order', async () => {
    clock.advance(DAY);
    const ian2 = await pushContact({ id: 'ivy', fullName: 'Ivy', email: 'ivy@initech.com' });
    const data = ((await getOne(org['initech.com']!, 'contactsCount,topContacts')).json() as { data: Organization }).data;
    expect(data.contactsCount).toBe(2);
    expect(data.topContacts).toEqual([
      { id: contact.ian, name: 'Ian' },
      { id: ian2, name: 'Ivy' },
    ]);
    expect((await listed({ sort: 'member_count', direction: 'desc' })).data.map((item) => item.id)).toEqual(ordered(await model(), 'member_count', 'desc'));
  });
});
