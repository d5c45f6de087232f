import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Suggestion {
  id: string;
  score: number;
  reasons: string[];
  status: 'open' | 'dismissed';
  contacts: {
    id: string;
    name: string;
    primaryEmail: string | null;
    organization: { name: string; domain: string } | null;
    identities: { type: string; value: string }[];
  }[];
  computedAt: string;
  dismissedAt: string | null;
  dismissedBy: string | null;
}

const LIST = '/api/v2/contacts/merge-suggestions';
const keyOf = (id: string) => Number(id.replace(/^[a-z]+_/, ''));

/**
 * Likely duplicates (docs/ingestion.md, "Likely duplicates: merge suggestions"): computed by the worker's
 * step from what pushes stored, listed best first with their reasons, dismissed for good, never for a pair
 * marked as two people, and gone with a contact that is merged away.
 */
describe.each(ENGINES)('merge suggestions (%s)', (engine) => {
  let t: TestContext;
  let worker: Worker;
  let other: { communityId: number; token: string };
  const contacts: Record<string, string> = {};

  async function push(key: string, body: Record<string, unknown>, token = t.token, sourceId = t.sourceId) {
    const response = await t.send('POST', `/community/v1/source/${sourceId}/user`, { id: key, ...body }, token);
    expect(response.statusCode, response.body).toBe(202);
    contacts[key] = response.json().contactId;
    return contacts[key]!;
  }

  async function list(query = '', token = t.token): Promise<{ data: Suggestion[]; meta: { nextCursor: string | null } }> {
    const response = await t.get(`${LIST}${query ? `?${query}` : ''}`, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  const pairOf = (suggestion: Suggestion) => suggestion.contacts.map((contact) => contact.id).join('+');
  const pair = (a: string, b: string) => [contacts[a]!, contacts[b]!].sort((x, y) => keyOf(x) - keyOf(y)).join('+');
  const find = (data: Suggestion[], a: string, b: string) => data.find((suggestion) => pairOf(suggestion) === pair(a, b));

  beforeAll(async () => {
    t = await createTestContext(engine);
    worker = createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs });
    other = await t.newCommunity('Other');
    // One person pushed twice with two addresses at work: the same name and organization.
    await push('ada-1', { fullName: 'Ada Lovelace', email: 'ada@analytical.com' });
    await push('ada-2', { fullName: '  ADA   lovelace ', email: 'a.lovelace@analytical.com' });
    // One mailbox, with and without a +tag (another provider than Gmail, whose tags the match key folds).
    await push('grace-1', { fullName: 'Grace Hopper', email: 'grace+meetups@cobol.io' });
    await push('grace-2', { email: 'grace@cobol.io' });
    // A shared team inbox: two people, each named.
    await push('inbox-1', { fullName: 'Ann Byron', email: 'support+ann@helpdesk.com' });
    await push('inbox-2', { fullName: 'Bob Smith', email: 'support+bob@helpdesk.com' });
    // Namesakes at two organizations.
    await push('carter-1', { fullName: 'John Carter', email: 'john@mars-mining.com' });
    await push('carter-2', { fullName: 'John Carter', email: 'jcarter@earth-bank.com' });
    // The same name and one handle on two platforms.
    await push('linus-1', { fullName: 'Linus Torvalds', github: 'torvalds-l' });
    await push('linus-2', { fullName: 'Linus Torvalds', discord: 'torvalds-l' });
    // A pair marked as two people (as an undone merge marks it), from both sides.
    await push('twin-1', { fullName: 'Mary Twin', email: 'mary@twins.com' });
    await push('twin-2', { fullName: 'Mary Twin', email: 'm.twin@twins.com' });
    for (const [a, b] of [
      ['twin-1', 'twin-2'],
      ['twin-2', 'twin-1'],
    ] as const) {
      await sql`insert into contact_never_merge (community_id, contact_id, other_id, reason)
        values (${t.communityId}, ${keyOf(contacts[a]!)}, ${keyOf(contacts[b]!)}, 'two people')`.execute(t.services.db);
    }
    // The other community has the same Ada twice: its suggestions are its own.
    const otherSource = (await sourceOf(other.communityId)) ?? 0;
    for (const [id, email] of [
      ['ada-1', 'ada@analytical.com'],
      ['ada-2', 'a.lovelace@analytical.com'],
    ]) {
      const response = await t.send('POST', `/community/v1/source/${otherSource}/user`, { id, fullName: 'Ada Lovelace', email }, other.token);
      expect(response.statusCode, response.body).toBe(202);
    }
    await worker.runSteps();
  });
  afterAll(() => t?.close());

  async function sourceOf(communityId: number): Promise<number | undefined> {
    const row = await t.services.db.selectFrom('sources').select('id').where('community_id', '=', communityId).executeTakeFirst();
    return row?.id;
  }

  it('suggests the likely pairs after pushes and a run of the step, with a score and reasons in words', async () => {
    const { data } = await list();
    const ada = find(data, 'ada-1', 'ada-2');
    expect(ada).toMatchObject({
      status: 'open',
      reasons: ['both are named "Ada Lovelace" and work at analytical.com', 'the address a.lovelace@analytical.com spells the name'],
    });
    expect(ada!.id).toMatch(/^ms_\d+$/);
    expect(ada!.score).toBeGreaterThanOrEqual(0.7);
    expect(ada!.contacts[0]).toMatchObject({
      id: contacts['ada-1'],
      name: 'Ada Lovelace',
      primaryEmail: 'ada@analytical.com',
      organization: { domain: 'analytical.com' },
    });
    expect(ada!.contacts[0]!.identities).toEqual([{ type: 'email', value: 'ada@analytical.com' }]);
    expect(Date.parse(ada!.computedAt)).toBeGreaterThan(Date.now() - 60_000);

    expect(find(data, 'grace-1', 'grace-2')?.reasons).toEqual(['grace+meetups@cobol.io and grace@cobol.io are one mailbox, one with a +tag']);
    expect(find(data, 'linus-1', 'linus-2')?.reasons).toEqual([
      'both are named "Linus Torvalds"',
      'both go by "torvalds-l" (GitHub login of one, Discord username of the other)',
    ]);
    // Two people sharing an inbox, namesakes at two organizations, a pair marked as two people: none.
    expect(find(data, 'inbox-1', 'inbox-2')).toBeUndefined();
    expect(find(data, 'carter-1', 'carter-2')).toBeUndefined();
    expect(find(data, 'twin-1', 'twin-2')).toBeUndefined();
    expect(data).toHaveLength(3);
    const scores = data.map((suggestion) => suggestion.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('pages with a cursor in the same order, filters by contact and by minimum score', async () => {
    const all = (await list()).data.map(pairOf);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Suggestion[]; meta: { nextCursor: string | null } } = await list(`limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(1);
      walked.push(...page.data.map(pairOf));
      cursor = page.meta.nextCursor;
    } while (cursor);
    expect(walked).toEqual(all);
    expect((await list(`contactId=${contacts['grace-2']}`)).data.map(pairOf)).toEqual([pair('grace-1', 'grace-2')]);
    const top = (await list()).data[0]!.score;
    expect((await list(`minScore=${top}`)).data.every((suggestion) => suggestion.score >= top)).toBe(true);
    expect((await list('minScore=1')).data).toEqual([]);
  });

  it('answers 400 naming what is wrong: the cursor, minScore, contactId, the ID', async () => {
    const cases: [string, string, RegExp][] = [
      [`${LIST}?cursor=nonsense`, 'invalid_cursor', /cursor/],
      [`${LIST}?minScore=1.5`, 'invalid_parameters', /minScore/],
      [`${LIST}?minScore=0.1`, 'invalid_parameters', /minScore/],
      [`${LIST}?minScore=high`, 'invalid_parameters', /minScore/],
      [`${LIST}?contactId=42`, 'invalid_contact_id', /"42"/],
      [`${LIST}?colour=red`, 'invalid_parameters', /colour/],
    ];
    for (const [url, code, message] of cases) {
      const response = await t.get(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code, url).toBe(code);
      expect(response.json().error.message, url).toMatch(message);
    }
    const bad = await t.send('POST', `${LIST}/c_1/dismiss`, undefined);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_merge_suggestion_id', message: expect.stringContaining('"c_1"') });
    const unknown = await t.send('POST', `${LIST}/ms_999999/dismiss`, undefined);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('merge_suggestion_not_found');
  });

  it("keeps communities apart: another community's token sees its own pairs only, and 404 on these IDs", async () => {
    const ours = (await list()).data;
    const theirs = (await list('', other.token)).data;
    expect(theirs).toHaveLength(1);
    expect(theirs[0]!.reasons[0]).toBe('both are named "Ada Lovelace" and work at analytical.com');
    expect(theirs.map((suggestion) => suggestion.id)).not.toContain(ours[0]!.id);
    const response = await t.send('POST', `${LIST}/${ours[0]!.id}/dismiss`, undefined, other.token);
    expect(response.statusCode).toBe(404);
    expect((await list()).data).toHaveLength(ours.length);
  });

  it('dismisses a pair, with who and an audit entry; it stays dismissed after new data', async () => {
    const ada = find((await list()).data, 'ada-1', 'ada-2')!;
    const response = await t.send('POST', `${LIST}/${ada.id}/dismiss`, undefined);
    expect(response.statusCode, response.body).toBe(200);
    const dismissed: Suggestion = response.json().data;
    expect(dismissed).toMatchObject({ id: ada.id, status: 'dismissed', dismissedBy: expect.stringMatching(/^(user|token):/) });
    expect(find((await list()).data, 'ada-1', 'ada-2')).toBeUndefined();
    const [entry] = (await t.get('/api/v2/admin/audit-log?limit=1').then((r) => r.json())).data;
    expect(entry).toMatchObject({ operation: 'merge_suggestion.dismiss', entityIds: [ada.id, contacts['ada-1'], contacts['ada-2']] });
    // New data about both, and another run: the pair is not suggested again.
    await push('ada-1', { fullName: 'Ada Lovelace', email: 'ada@analytical.com', city: 'London' });
    await push('ada-2', { fullName: 'Ada Lovelace', city: 'London' });
    await worker.runSteps();
    expect(find((await list()).data, 'ada-1', 'ada-2')).toBeUndefined();
    const row = await t.services.db
      .selectFrom('contact_merge_suggestions')
      .select(['status', 'reasons'])
      .where('community_id', '=', t.communityId)
      .where('id', '=', keyOf(ada.id))
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('dismissed');
    expect(row.reasons).toContain('both are in London');
    // Dismissing again changes nothing.
    const again = await t.send('POST', `${LIST}/${ada.id}/dismiss`, undefined);
    expect(again.json().data.dismissedAt).toBe(dismissed.dismissedAt);
  });

  it('removes a pair whose evidence is gone, and a third namesake weakens a name', async () => {
    await push('inbox-3', { fullName: 'Cleo Stone', email: 'cleo@stone.org' });
    await push('inbox-4', { fullName: 'Cleo Stone', email: 'cleo.s@stone.org' });
    await worker.runSteps();
    const before = find((await list()).data, 'inbox-3', 'inbox-4')!;
    expect(before.score).toBeCloseTo(0.8, 3);
    await push('inbox-5', { fullName: 'Cleo Stone', email: 'cleo@stone.org.example.com' });
    await push('inbox-6', { fullName: 'Cleo Stone' });
    await worker.runSteps();
    // A name four contacts share weighs half what a name of two does: 1 - 0.75 * 0.4.
    const after = find((await list()).data, 'inbox-3', 'inbox-4')!;
    expect(after.score).toBeCloseTo(0.7, 3);
    expect(after.reasons).toEqual(['both are named "Cleo Stone" and work at stone.org']);
    // The name changes: the pair's evidence is gone, and so is the pair.
    await push('inbox-4', { fullName: 'Cleo Marble' });
    await worker.runSteps();
    expect(find((await list()).data, 'inbox-3', 'inbox-4')).toBeUndefined();
  });

  it('loses a pair when one of its contacts is merged away', async () => {
    const linus = find((await list()).data, 'linus-1', 'linus-2')!;
    expect(linus).toBeDefined();
    // A push naming both handles: the two contacts are one person, and merge.
    await push('linus-3', { github: 'torvalds-l', discord: 'torvalds-l' });
    expect(find((await list()).data, 'linus-1', 'linus-2')).toBeUndefined();
    const rows = await t.services.db.selectFrom('contact_merge_suggestions').select('id').where('id', '=', keyOf(linus.id)).execute();
    expect(rows).toEqual([]);
    await worker.runSteps();
    expect(find((await list()).data, 'linus-1', 'linus-2')).toBeUndefined();
  });
});
