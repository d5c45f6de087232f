import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

const NOW = '2026-01-15T12:00:00.000Z';
const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.parse(NOW) - days * DAY).toISOString();

interface Factor {
  label: string;
  value: string;
  strength: number;
}
interface Scored {
  id: string;
  leadScores: { scoreId: number; score: number; percentile: number }[];
  leadScoreKeyFactors: { scoreId: number; factors: Factor[] }[];
}

/**
 * Lead scores (docs/lead-scores.md) defined by admins and computed by Hearth. The expected values are worked out by
 * hand in the comments: score = min(scoreCap, min(activityCap, Σ weight × 0.5^(age/halfLife)) + Σ fit),
 * rounded to 2 decimals; percentile = 100 × (records with a strictly lower score) / (records − 1).
 */
describe.each(ENGINES)('lead scores (%s)', (engine) => {
  let t: TestApp;
  let worker: Worker;
  const clock = new ManualClock(NOW);
  let n = 0;
  const ids: Record<'eve' | 'ada' | 'bob' | 'cy' | 'dee', string> = { eve: '', ada: '', bob: '', cy: '', dee: '' };
  let vip = '';
  let plan = '';
  let scoreId = '';
  let definition: Record<string, unknown>;
  let organization = { id: '', scoreId: '' };

  async function activity(user: Record<string, unknown>, days: number, activityType: string, subSource?: string) {
    return accepted(t, 'activity', { id: `ls-${++n}`, activityType, timestamp: daysAgo(days), user, content: 'x', ...(subSource ? { subSource } : {}) });
  }
  const ok = async (response: { statusCode: number; body: string; json(): unknown }, status = 200) => {
    expect(response.statusCode, response.body).toBe(status);
    return (response.json() as { data: any }).data; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  async function scored(contactId: string): Promise<Scored> {
    return ok(await t.get(`/api/v2/contacts/${contactId}?cols=leadScores,leadScoreKeyFactors`));
  }
  /** The score, percentile and key factors of a contact for the definition under test. */
  async function scoreOf(contactId: string) {
    const record = await scored(contactId);
    const id = Number(scoreId.slice(3));
    const value = record.leadScores.find((score) => score.scoreId === id);
    return value ? { score: value.score, percentile: value.percentile, factors: record.leadScoreKeyFactors.find((f) => f.scoreId === id)!.factors } : null;
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    plan = (
      await ok(
        await t.send('POST', '/api/v2/admin/custom-fields', { name: 'Plan', entityTypes: ['contact'], valueType: 'enum', allowedValues: ['free', 'pro'] }),
        201,
      )
    ).id;
    const ada = { id: 'u-ada', email: 'ada@acme.io', fullName: 'Ada', titleAtCompany: 'CTO', companyDomain: 'acme.io', country: 'Germany' };
    const bob = { id: 'u-bob', email: 'bob@gmail.com', fullName: 'Bob', tags: [{ type: 'name', name: 'VIP' }] };
    const cy = { id: 'u-cy', email: 'cy@gmail.com', fullName: 'Cy', customFields: [{ id: Number(plan.slice(3)), value: { type: 'enum', value: 'pro' } }] };
    ids.ada = (await activity(ada, 0, 'starred_repo')).contactId;
    await activity(ada, 10, 'starred_repo');
    await activity(ada, 20, 'commented_replied');
    ids.bob = (await activity(bob, 0, 'starred_repo', 'hearth/core')).contactId;
    for (let i = 0; i < 5; i += 1) await activity(bob, 0, 'starred_repo', 'hearth/core');
    ids.cy = (await activity(cy, 400, 'starred_repo')).contactId;
    await activity(cy, 10, 'commented_replied');
    ids.dee = (await accepted(t, 'user', { id: 'u-dee', email: 'dee@gmail.com', fullName: 'Dee' })).contactId;
    // A member with nothing to score (the console user's own contact is not a member, so not scored).
    ids.eve = (await accepted(t, 'user', { id: 'u-eve', email: 'eve@gmail.com', fullName: 'Eve' })).contactId;
    await sql`update organizations set employees = 250 where community_id = ${t.communityId} and primary_domain = 'acme.io'`.execute(t.services.db);
    const tag = await sql<{ id: number }>`select id from tags where community_id = ${t.communityId} and name = 'VIP'`.execute(t.services.db);
    vip = `l_${tag.rows[0]!.id}`;
    definition = {
      name: 'Engaged builders',
      entityType: 'contact',
      halfLifeDays: 10,
      activityCap: 20,
      weights: [
        { activityType: 'starred_repo', weight: 4 },
        { activityType: 'starred_repo', sourceId: t.sourceId, subSource: 'hearth/core', weight: 10 },
        { activityType: 'commented_replied', weight: 2 },
      ],
      fit: [
        { field: 'titleSeniority', values: ['c_level', 'vp'], points: 15 },
        { field: 'organizationSize', min: 100, points: 5 },
        { field: 'country', values: ['DE'], points: 3 },
        { field: 'tag', tagId: vip, points: 7 },
        { field: 'customField', customFieldId: plan, values: ['pro'], points: 6 },
      ],
    };
  });
  afterAll(() => t?.close());

  it('computes scores, percentiles and key factors in a full recompute job after a definition is created', async () => {
    const created = await ok(await t.send('POST', '/api/v2/admin/lead-scores', definition), 201);
    scoreId = created.id;
    expect(created).toMatchObject({
      id: expect.stringMatching(/^ls_\d+$/),
      enabled: true,
      computed: true,
      version: 1,
      computedVersion: null,
      recomputeJobId: expect.any(Number),
      lookbackDays: 365,
    });
    // Nothing is computed before the job runs.
    expect(await scoreOf(ids.ada)).toBeNull();
    expect(await worker.runUntilIdle()).toBe(1);
    const job = await t.services.jobs.findById(created.recomputeJobId);
    expect(job).toMatchObject({
      kind: 'lead_scores.recompute',
      status: 'completed',
      progress: { done: 5, total: 5 },
      result: { scored: 5, changed: 5, removed: 0 },
    });

    // Ada: stars today and 10 days ago (one half-life): 4 × 1 + 4 × 0.5 = 6; a comment 20 days ago: 2 × 0.25 = 0.5.
    // Activity 6.5 (under the cap of 20). Fit: CTO is c_level 15, acme.io has 250 employees 5, Germany 3: 23.
    // Score 29.5, the highest of five (with Eve's, who has nothing): percentile 100.
    expect(await scoreOf(ids.ada)).toEqual({
      score: 29.5,
      percentile: 100,
      factors: [
        { label: 'Title seniority', value: 'c_level', strength: 15 },
        { label: 'Activity: starred_repo', value: '×2, latest 2026-01-15', strength: 6 },
        { label: 'Organization size', value: '250 employees', strength: 5 },
        { label: 'Country', value: 'Germany', strength: 3 },
        { label: 'Activity: commented_replied', value: '×1, latest 2025-12-26', strength: 0.5 },
      ],
    });
    // Bob: six stars today in hearth/core, which takes the most specific weight, 10: 60, capped at 20 (−40).
    // Tagged VIP: 7. Score 27, second: 3 of the 4 others score lower, 75.
    expect(await scoreOf(ids.bob)).toEqual({
      score: 27,
      percentile: 75,
      factors: [
        { label: 'Activity: starred_repo on API / hearth/core', value: '×6, latest 2026-01-15', strength: 60 },
        { label: 'Activity cap', value: '20', strength: -40 },
        { label: 'Tag', value: 'VIP', strength: 7 },
      ],
    });
    // Cy: the star 400 days ago is past the 365-day lookback; a comment 10 days ago: 2 × 0.5 = 1. Plan pro: 6.
    // Score 7: two of the four others lower, 50.
    expect(await scoreOf(ids.cy)).toEqual({
      score: 7,
      percentile: 50,
      factors: [
        { label: 'Custom field: Plan', value: 'pro', strength: 6 },
        { label: 'Activity: commented_replied', value: '×1, latest 2026-01-05', strength: 1 },
      ],
    });
    // Dee and Eve: nothing. Score 0, the lowest, a tie: percentile 0 both, no factors.
    expect(await scoreOf(ids.dee)).toEqual({ score: 0, percentile: 0, factors: [] });
    expect(await scoreOf(ids.eve)).toEqual({ score: 0, percentile: 0, factors: [] });
    expect(await ok(await t.get(`/api/v2/admin/lead-scores/${scoreId}`))).toMatchObject({
      computedVersion: 1,
      computedAt: NOW,
      recomputeJobId: null,
      scoredCount: 5,
    });
  });

  it('sorts and filters contacts by the computed score', async () => {
    const sorted = await ok(await t.get(`/api/v2/contacts?sort=${scoreId}&direction=desc&limit=10`));
    // Equal scores in ID order, descending too.
    expect(sorted.map((contact: { id: string }) => contact.id)).toEqual([ids.ada, ids.bob, ids.cy, ids.eve, ids.dee]);
    const filter = (field: string, op: string, value: number) =>
      encodeURIComponent(JSON.stringify({ type: 'and', clauses: [{ type: 'numberFilter', field, params: { op, value } }] }));
    const high = await ok(await t.get(`/api/v2/contacts?lightFilter=${filter(scoreId, 'gte', 27)}`));
    expect(high.map((contact: { id: string }) => contact.id).sort()).toEqual([ids.ada, ids.bob].sort());
    const low = await ok(await t.get(`/api/v2/contacts?lightFilter=${filter(`${scoreId}.percentile`, 'lte', 50)}`));
    expect(low.map((contact: { id: string }) => contact.id).sort()).toEqual([ids.eve, ids.cy, ids.dee].sort());
  });

  it('recomputes a contact in the background step after a push, and refreshes percentiles', async () => {
    clock.advance(60_000);
    // Dee stars hearth/core now: 10 × 0.5^(1 minute / 10 days) = 9.9952..., rounded 10.
    await activity({ id: 'u-dee', email: 'dee@gmail.com' }, -1 / 1440, 'starred_repo', 'hearth/core');
    // Ingestion only marks Dee: her score is what it was until the background step runs.
    expect((await scoreOf(ids.dee))!.score).toBe(0);
    const marks = await sql<{ entityId: number }>`select entity_id as "entityId" from lead_score_dirty where community_id = ${t.communityId}`.execute(
      t.services.db,
    );
    expect(marks.rows.map((row) => `c_${row.entityId}`)).toEqual([ids.dee]);
    await worker.runSteps();
    // Two of the four others score lower: 50.
    expect(await scoreOf(ids.dee)).toEqual({
      score: 10,
      percentile: 50,
      factors: [{ label: 'Activity: starred_repo on API / hearth/core', value: '×1, latest 2026-01-15', strength: 10 }],
    });
    // Cy, now below Dee, is above only Eve: 25.
    expect(await scoreOf(ids.cy)).toMatchObject({ score: 7, percentile: 25 });
    expect((await sql`select 1 from lead_score_dirty`.execute(t.services.db)).rows).toEqual([]);
  });

  it('a bulk update of a fit field marks its contacts too', async () => {
    const response = await t.send('POST', '/api/v2/contacts/bulk-update', { contactIds: [ids.dee], tagIdsToAdd: [vip] });
    expect(response.statusCode, response.body).toBe(200);
    await worker.runSteps();
    // Dee: 10 + 7 for VIP = 17.
    expect((await scoreOf(ids.dee))!.score).toBe(17);
  });

  it('recomputes in full after the definition changes, as a new version', async () => {
    const changed = await ok(await t.send('PATCH', `/api/v2/admin/lead-scores/${scoreId}`, { weights: [{ activityType: 'starred_repo', weight: 6 }] }));
    expect(changed).toMatchObject({
      version: 2,
      computedVersion: 1,
      recomputeJobId: expect.any(Number),
      weights: [{ activityType: 'starred_repo', weight: 6 }],
    });
    // A name change is not a new version: nothing to recompute.
    expect(await ok(await t.send('PATCH', `/api/v2/admin/lead-scores/${scoreId}`, { name: 'Builders' }))).toMatchObject({ name: 'Builders', version: 2 });
    expect(await worker.runUntilIdle()).toBe(1);
    // Ada, a minute later: stars 6 × 0.5^(1/14400) + 6 × 0.5^(1 + 1/14400) = 8.9996; no weight for comments now. 8.9996 + 23 = 32.00.
    expect(await scoreOf(ids.ada)).toMatchObject({ score: 32, percentile: 100 });
    // Bob: 6 stars of weight 6 (one rule for every star now) = 35.99 → cap 20, + 7 = 27.
    expect(await scoreOf(ids.bob)).toMatchObject({ score: 27, percentile: 75 });
    // Dee: one star 6 → 6.00, + VIP 7 = 13; Cy: only Plan pro, 6.
    expect(await scoreOf(ids.dee)).toMatchObject({ score: 13, percentile: 50 });
    expect(await scoreOf(ids.cy)).toMatchObject({ score: 6, percentile: 25 });
  });

  it('dry-runs a definition without storing anything', async () => {
    const before = await sql`select entity_id, score, percentile from lead_scores order by entity_id`.execute(t.services.db);
    const dry = await ok(
      await t.send('POST', '/api/v2/admin/lead-scores/dry-run?limit=2', {
        name: 'Try',
        entityType: 'contact',
        weights: [{ activityType: 'commented_replied', weight: 10 }],
      }),
    );
    // The default half-life is 30 days. Ada's comment is 20 days and a minute old: 10 × 0.5^(20.0007/30) = 6.30;
    // Cy's, 10 days and a minute: 10 × 0.5^(10.0007/30) = 7.94. Five contacts would be scored, two above 0:
    // Cy is above the four others (100), Ada above three (75).
    expect(dry).toEqual({
      entityType: 'contact',
      scored: 5,
      nonZero: 2,
      top: [
        {
          id: ids.cy,
          name: 'Cy',
          score: 7.94,
          percentile: 100,
          keyFactors: [{ label: 'Activity: commented_replied', value: '×1, latest 2026-01-05', strength: 7.94 }],
        },
        {
          id: ids.ada,
          name: 'Ada',
          score: 6.3,
          percentile: 75,
          keyFactors: [{ label: 'Activity: commented_replied', value: '×1, latest 2025-12-26', strength: 6.3 }],
        },
      ],
    });
    expect((await sql`select entity_id, score, percentile from lead_scores order by entity_id`.execute(t.services.db)).rows).toEqual(before.rows);
    expect((await ok(await t.get('/api/v2/admin/lead-scores'))).map((d: { name: string }) => d.name)).not.toContain('Try');
  });

  it('refuses an invalid definition with a 400 naming each bad path', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...definition, weights: [{ activityType: 'starred_repo', weight: '4' }] }, /"weights\.0\.weight" must be number/],
      [{ ...definition, halfLifeDays: 0 }, /"halfLifeDays" must be > 0/],
      [{ ...definition, fit: [{ field: 'titleSeniority', values: ['ceo'], points: 1 }] }, /"fit\.0\.values\.0" must be one of c_level, vp/],
      [{ ...definition, fit: [{ field: 'tag', tagId: 'l_999999', points: 1 }] }, /"fit\.0\.tagId": no live tag l_999999/],
      [
        {
          ...definition,
          fit: [
            { field: 'country', points: 1 },
            { field: 'organizationSize', min: 5, max: 1, points: 1 },
          ],
        },
        /"fit\.0\.values" is required.*"fit\.1\.min" must not be greater than "fit\.1\.max"/,
      ],
      [{ ...definition, fit: [{ field: 'tag', tagId: vip, values: ['x'], points: 1 }] }, /"fit\.0\.values" does not apply to a tag rule/],
      [{ ...definition, weights: [{ activityType: 'starred_repo', subSource: 'x', weight: 1 }] }, /"weights\.0\.subSource" needs "weights\.0\.sourceId"/],
      [{ ...definition, weights: [{ activityType: 'starred_repo', sourceId: 999999, weight: 1 }] }, /"weights\.0\.sourceId": no source 999999/],
      [
        { ...definition, entityType: 'organization', fit: [{ field: 'titleSeniority', values: ['vp'], points: 1 }] },
        /"fit\.0\.field": titleSeniority applies to contact scores only/,
      ],
      [{ name: 'Empty', entityType: 'contact' }, /a score needs at least one weight or fit rule/],
      [{ ...definition, colour: 'red' }, /unknown body field "colour"/],
    ];
    for (const [body, message] of cases) {
      const response = await t.send('POST', '/api/v2/admin/lead-scores', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.message).toMatch(message);
    }
    expect(
      (await t.send('POST', '/api/v2/admin/lead-scores/dry-run', { entityType: 'contact', name: 'x', fit: [{ field: 'tag', points: 1 }] })).json().error
        .message,
    ).toMatch(/"fit\.0\.tagId" is required/);
    expect((await t.send('PATCH', `/api/v2/admin/lead-scores/${scoreId}`, { halfLifeDays: -1 })).statusCode).toBe(400);
  });

  it('keeps one primary score per entity type: a new primary replaces the old', async () => {
    const first = await ok(await t.send('POST', '/api/v2/admin/lead-scores', { ...definition, name: 'First', isPrimaryScore: true, enabled: false }), 201);
    expect(first).toMatchObject({ isPrimaryScore: true, recomputeJobId: null });
    const second = await ok(await t.send('POST', '/api/v2/admin/lead-scores', { ...definition, name: 'Second', isPrimaryScore: true, enabled: false }), 201);
    expect(second.isPrimaryScore).toBe(true);
    expect(await ok(await t.get(`/api/v2/admin/lead-scores/${first.id}`))).toMatchObject({ isPrimaryScore: false });
    const audit = await ok(await t.get('/api/v2/admin/audit-log?operation=lead_score.create&limit=1'));
    expect(audit[0]).toMatchObject({ entityIds: [second.id, first.id], detail: { demotedPrimary: [first.id] } });
    const v2 = await ok(await t.get('/api/v2/lead-scores'));
    expect(v2.filter((d: { isPrimaryScore: boolean }) => d.isPrimaryScore).map((d: { id: string }) => d.id)).toEqual([second.id]);
    // A disabled definition is not computed and its scores are not shown.
    expect((await scored(ids.ada)).leadScores.map((s) => `ls_${s.scoreId}`)).toEqual([scoreId]);
  });

  it("scores organizations from their contacts' activities and their own fit", async () => {
    const org = await ok(
      await t.send('POST', '/api/v2/admin/lead-scores', {
        name: 'Accounts',
        entityType: 'organization',
        halfLifeDays: 10,
        weights: [{ activityType: 'starred_repo', weight: 2 }],
        fit: [{ field: 'organizationSize', min: 100, max: 1000, points: 5 }],
      }),
      201,
    );
    await worker.runUntilIdle();
    const acme = await sql<{ id: number }>`select id from organizations where community_id = ${t.communityId} and primary_domain = 'acme.io'`.execute(
      t.services.db,
    );
    const record = await ok(await t.get(`/api/v2/organizations/o_${acme.rows[0]!.id}?cols=leadScores,leadScoreKeyFactors`));
    // Ada's two stars, a minute ago and 10 days and a minute ago: 2 × 0.99995 + 2 × 0.49998 = 3.00; 250 employees: 5. Score 8, the only one: percentile 0.
    expect(record.leadScores).toEqual([{ scoreId: Number(org.id.slice(3)), score: 8, percentile: 0 }]);
    expect(record.leadScoreKeyFactors).toEqual([
      {
        scoreId: Number(org.id.slice(3)),
        factors: [
          { label: 'Organization size', value: '250 employees', strength: 5 },
          { label: 'Activity: starred_repo', value: '×2, latest 2026-01-15', strength: 3 },
        ],
      },
    ]);
    organization = { id: `o_${acme.rows[0]!.id}`, scoreId: org.id };
  });

  it('keeps communities apart', async () => {
    const { communityId } = await t.services.communities.create('Beta', cliActor());
    const beta = await t.issueToken(['read', 'write', 'admin'], communityId);
    expect((await t.get(`/api/v2/admin/lead-scores/${scoreId}`, beta)).statusCode).toBe(404);
    expect((await t.send('PATCH', `/api/v2/admin/lead-scores/${scoreId}`, { name: 'Mine' }, beta)).statusCode).toBe(404);
    expect(await ok(await t.get('/api/v2/admin/lead-scores', beta))).toEqual([]);
    // Beta's definition scores Beta's contacts only.
    const source = await t.services.sources.create(cliWriter(communityId), { name: 'Beta API' });
    const zed = (
      await accepted(
        t,
        'activity',
        { id: 'z-1', activityType: 'starred_repo', timestamp: daysAgo(0), user: { id: 'u-zed', email: 'zed@gmail.com' } },
        { sourceId: source.id, token: beta },
      )
    ).contactId;
    const contacts = await ok(await t.get('/api/v2/contacts?limit=100', beta));
    const dry = await ok(
      await t.send(
        'POST',
        '/api/v2/admin/lead-scores/dry-run',
        { name: 'B', entityType: 'contact', weights: [{ activityType: 'starred_repo', weight: 1 }] },
        beta,
      ),
    );
    expect(dry).toMatchObject({
      scored: contacts.length,
      nonZero: 1,
      top: [expect.objectContaining({ id: zed, score: 1 }), ...contacts.slice(1).map(() => expect.anything())],
    });
    expect(dry.top.map((record: { id: string }) => record.id).sort()).toEqual(contacts.map((contact: { id: string }) => contact.id).sort());
    // A tag of the other community is no tag here.
    const foreign = await t.send(
      'POST',
      '/api/v2/admin/lead-scores',
      { name: 'B', entityType: 'contact', fit: [{ field: 'tag', tagId: vip, points: 1 }] },
      beta,
    );
    expect(foreign.statusCode).toBe(400);
  });

  it('recomputes every score in full once a day, as scores decay, asking once', async () => {
    await worker.runSteps();
    expect(await worker.runUntilIdle()).toBe(0);
    clock.advance(10 * DAY);
    await worker.runSteps();
    await worker.runSteps();
    // One job per computed, enabled definition (the contact score and the organization score), asked once.
    expect(await worker.runUntilIdle()).toBe(2);
    const record = await ok(await t.get(`/api/v2/organizations/${organization.id}?cols=leadScores`));
    // Ten days later Ada's stars are one half-life older: 2 × 0.5^(1 + 1/14400) + 2 × 0.5^(2 + 1/14400) = 1.50; + 5.
    expect(record.leadScores).toEqual([{ scoreId: Number(organization.scoreId.slice(3)), score: 6.5, percentile: 0 }]);
    expect(await ok(await t.get(`/api/v2/admin/lead-scores/${organization.scoreId}`))).toMatchObject({ computedAt: clock.now().toISOString() });
  });

  it('retires a definition: gone from reads, filters and sorts, its scores removed', async () => {
    const retired = await ok(await t.send('DELETE', `/api/v2/admin/lead-scores/${scoreId}`, undefined));
    expect(retired).toMatchObject({ id: scoreId, enabled: false, retiredAt: expect.any(String), scoredCount: 0 });
    expect((await ok(await t.get('/api/v2/lead-scores'))).map((d: { id: string }) => d.id)).not.toContain(scoreId);
    expect((await t.get(`/api/v2/lead-scores/${scoreId}`)).statusCode).toBe(404);
    expect((await scored(ids.ada)).leadScores).toEqual([]);
    expect((await t.get(`/api/v2/contacts?sort=${scoreId}`)).statusCode).toBe(400);
    expect((await t.send('PATCH', `/api/v2/admin/lead-scores/${scoreId}`, { name: 'Back' })).statusCode).toBe(404);
    expect((await t.send('DELETE', `/api/v2/admin/lead-scores/${scoreId}`, undefined)).statusCode).toBe(404);
    const all = await ok(await t.get('/api/v2/admin/lead-scores?includeRetired=true'));
    expect(all.map((d: { id: string }) => d.id)).toContain(scoreId);
  });
});
