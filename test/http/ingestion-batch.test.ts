import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { systemClock } from '../../src/clock.ts';
import { identityHash } from '../../src/modules/identity/identity-values.ts';
import { createIngestionService } from '../../src/modules/ingestion/index.ts';
import { accepted } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { untilALockIsAwaited } from '../helpers/lock-waits.ts';

interface ItemAnswer {
  index: number;
  status: 'accepted' | 'rejected';
  contactId?: string | null;
  activityId?: string | null;
  warnings?: string[];
  errors?: string[];
}

interface BatchAnswer {
  status: 'accepted';
  accepted: number;
  rejected: number;
  results: ItemAnswer[];
}

/**
 * The batch pushes (ours): POST /community/v1/source/{id}/users and /activities, up to 1,000 items stored
 * in order as if pushed one after another, one answer per item, a bad item refused by itself.
 */
describe.each(ENGINES)('batch pushes (%s)', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t?.close());

  const pushBatch = (kind: 'users' | 'activities', items: unknown, token?: string, sourceId = t.sourceId) =>
    t.send('POST', `/community/v1/source/${sourceId}/${kind}`, items, token);
  async function batch(kind: 'users' | 'activities', items: unknown[]): Promise<BatchAnswer> {
    const response = await pushBatch(kind, items);
    expect(response.statusCode, response.body).toBe(202);
    return response.json() as BatchAnswer;
  }
  const contactIdsOf = async (email: string) => ((await t.get(`/community/v1/user/${encodeURIComponent(email)}`)).json() as { ids: number[] }).ids;

  it('stores every good item and refuses each bad one by itself, with what is wrong, in order', async () => {
    const answer = await batch('activities', [
      { id: 'b-1', activityType: 'made_post_topic', user: { id: 'ann', email: 'ann@example.org', fullName: 'Ann' } },
      { id: 'b-2', activityType: 'no_such_type', user: { id: 'ann' } },
      { id: 'b-3', activityType: 'made_post_topic', user: { id: 'ann' }, timestamp: 'yesterday-ish' },
      { id: 'b-4', activityType: 'made_post_topic' },
      'not an object',
      { id: 'b-6', activityType: 'made_post_topic', user: { id: 'ann' }, content: 'bad \u0000 text' },
      { id: 'b-7', activityType: 'commented_replied', user: { id: 'bob', github: 'bob-dev' }, extra: 1 },
    ]);
    expect(answer.accepted).toBe(2);
    expect(answer.rejected).toBe(5);
    expect(answer.results.map((result) => [result.index, result.status])).toEqual([
      [0, 'accepted'],
      [1, 'rejected'],
      [2, 'rejected'],
      [3, 'rejected'],
      [4, 'rejected'],
      [5, 'rejected'],
      [6, 'accepted'],
    ]);
    expect(answer.results[1]!.errors!.join()).toContain('unknown activityType "no_such_type"');
    expect(answer.results[2]!.errors!.join()).toContain('timestamp');
    expect(answer.results[3]!.errors!.join()).toContain('"user" is required');
    expect(answer.results[4]!.errors!.join()).toContain('JSON object');
    expect(answer.results[5]!.errors!.join()).toContain('NUL');
    expect(answer.results[6]!.warnings).toEqual(['unknown field "extra" was ignored']);
    expect(answer.results[0]).toMatchObject({ contactId: expect.stringMatching(/^c_/), activityId: expect.stringMatching(/^a_/), warnings: [] });
    // Nothing of a refused item was stored.
    const stored = await t.services.db.selectFrom('activities').select('external_id').where('community_id', '=', t.communityId).execute();
    expect(stored.map((row) => row.external_id).sort()).toEqual(['b-1', 'b-7']);
  });

  it('finds a person named by an earlier item of the same batch, and makes the contact once', async () => {
    const answer = await batch('users', [
      { id: 'cy-1', email: 'cy@example.org', fullName: 'Cy' },
      { id: 'cy-gh', github: 'cy-dev', email: 'CY@example.org' },
      { id: 'cy-1', titleAtCompany: 'Maintainer' },
    ]);
    const ids = answer.results.map((result) => result.contactId);
    expect(new Set(ids).size).toBe(1);
    expect(await contactIdsOf('cy@example.org')).toEqual([Number(ids[0]!.slice(2))]);
    const audit = await t.services.db
      .selectFrom('audit_log')
      .select('detail')
      .where('community_id', '=', t.communityId)
      .where('operation', '=', 'contact.push')
      .orderBy('id', 'desc')
      .limit(3)
      .execute();
    // Only the first item made the contact.
    expect(audit.map((row) => (row.detail as { created: boolean }).created).reverse()).toEqual([true, false, false]);
    const row = await t.services.db
      .selectFrom('contacts')
      .select(['title', 'full_name'])
      .where('id', '=', Number(ids[0]!.slice(2)))
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ title: 'Maintainer', full_name: 'Cy' });
  });

  it('merges in the middle of a batch, and the items after it find the survivor', async () => {
    const byEmail = (await accepted(t, 'user', { id: 'dee-mail', email: 'dee@example.org' })).contactId;
    const byGithub = (await accepted(t, 'user', { id: 'dee-gh', github: 'dee-dev' })).contactId;
    const answer = await batch('activities', [
      { id: 'm-1', activityType: 'made_post_topic', user: { id: 'dee-mail' } },
      { id: 'm-2', activityType: 'made_post_topic', user: { id: 'dee-both', email: 'dee@example.org', github: 'dee-dev' } },
      { id: 'm-3', activityType: 'made_post_topic', user: { id: 'dee-gh' } },
    ]);
    expect(answer.results.map((result) => result.contactId)).toEqual([byEmail, byEmail, byEmail]);
    const merged = await t.services.db.selectFrom('contact_merges').select(['survivor_id', 'merged_id']).where('community_id', '=', t.communityId).execute();
    expect(merged).toContainEqual({ survivor_id: Number(byEmail.slice(2)), merged_id: Number(byGithub.slice(2)) });
    const count = await t.services.db
      .selectFrom('contacts')
      .select('activity_count_all')
      .where('id', '=', Number(byEmail.slice(2)))
      .executeTakeFirstOrThrow();
    expect(count.activity_count_all).toBe(3);
  });

  it('threads a reply that comes before its parent in the same batch, and refuses a loop with the warning', async () => {
    const answer = await batch('activities', [
      { id: 't-reply', activityType: 'commented_replied', user: { id: 'eve' }, parentActivity: { id: 't-root', activityType: 'made_post_topic' } },
      { id: 't-root', activityType: 'made_post_topic', user: { id: 'eve' } },
      { id: 'loop-a', activityType: 'commented_replied', user: { id: 'eve' }, parentActivity: { id: 'loop-b' } },
      { id: 'loop-b', activityType: 'commented_replied', user: { id: 'eve' }, parentActivity: { id: 'loop-a' } },
    ]);
    const rows = await t.services.db
      .selectFrom('activities')
      .select(['id', 'external_id', 'parent_id'])
      .where('community_id', '=', t.communityId)
      .where('external_id', 'in', ['t-reply', 't-root', 'loop-a', 'loop-b'])
      .execute();
    const byKey = new Map(rows.map((row) => [row.external_id, row]));
    expect(byKey.get('t-reply')!.parent_id).toBe(byKey.get('t-root')!.id);
    expect(byKey.get('loop-b')!.parent_id).toBe(byKey.get('loop-a')!.id);
    expect(byKey.get('loop-a')!.parent_id).toBeNull();
    expect(answer.results[3]!.warnings!.join()).toContain('threads cannot loop');
  });

  it("answers a suppressed person's item without storing it, and stores the others", async () => {
    await t.services.db
      .insertInto('suppressions')
      .values({ community_id: t.communityId, identity_type: 'email', value_hash: identityHash({ type: 'email', value: 'gone@example.org' }) })
      .execute();
    const answer = await batch('users', [
      { id: 'gone-1', email: 'gone@example.org', fullName: 'Gone' },
      { id: 'stays-1', email: 'stays@example.org' },
    ]);
    expect(answer.results[0]).toMatchObject({ status: 'accepted', contactId: null });
    expect(answer.results[0]!.warnings!.join()).toContain('asked for their personal information to be removed');
    expect(answer.results[1]!.contactId).toMatch(/^c_/);
    expect(await contactIdsOf('gone@example.org')).toEqual([]);
  });

  it("refuses a request that is not a list of 1 to 1,000 items, needs sources:write, and knows only its community's sources", async () => {
    expect((await pushBatch('users', [])).statusCode).toBe(400);
    expect((await pushBatch('users', { id: 'x' })).statusCode).toBe(400);
    const tooMany = Array.from({ length: 1001 }, (_, index) => ({ id: `x-${index}` }));
    const refused = await pushBatch('users', tooMany);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('1000');
    expect((await pushBatch('users', [{ id: 'x' }], await t.issueToken(['read']))).statusCode).toBe(403);
    expect((await pushBatch('users', [{ id: 'x' }], undefined, 999_999)).statusCode).toBe(404);
    const other = await t.services.communities.create('Other', cliActor());
    const foreign = (await t.services.sources.create(cliWriter(other.communityId), { name: 'Theirs' })).id;
    expect((await pushBatch('users', [{ id: 'x' }], undefined, foreign)).statusCode).toBe(404);
    const mismatch = await batch('users', [{ id: 'y', destinationSourceId: foreign }]);
    expect(mismatch.results[0]!.errors!.join()).toContain('does not match');
  });

  interface BacklogAnswer {
    queuedPushes: number;
    oldestQueuedMs: number | null;
    storedLastMinute: number;
    batchesLastMinute: number;
    processes: number;
  }
  const backlog = async () => {
    const response = await t.get('/api/v2/admin/ingestion');
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: BacklogAnswer }).data;
  };

  it('reports the backlog of this process to admins', async () => {
    const data = await backlog();
    expect(data.queuedPushes).toBe(0);
    expect(data.oldestQueuedMs).toBeNull();
    expect(data.storedLastMinute).toBeGreaterThanOrEqual(10);
    expect(data.batchesLastMinute).toBeGreaterThanOrEqual(1);
    expect(data.processes).toBe(1);
    expect((await t.get('/api/v2/admin/ingestion', await t.issueToken(['read', 'write']))).statusCode).toBe(403);
  });

  it('counts the backlog of every process on the database, the others as they last reported it', async () => {
    const before = await backlog();
    // Another serving process on the same database: its own ingestion service, its own queue.
    const other = createIngestionService({
      db: t.db.database.db,
      clock: systemClock,
      activityTypes: t.services.activityTypes,
      citus: t.db.database.citus,
    });
    const writer = cliWriter(t.communityId);
    const pushed = await other.pushActivities(writer, t.sourceId, [
      { id: 'other-process-1', activityType: 'commented_replied', user: { id: 'op-1', email: 'op1@example.org' } },
      { id: 'other-process-2', activityType: 'commented_replied', user: { id: 'op-2', email: 'op2@example.org' } },
    ]);
    expect(pushed.map((answer) => answer.status)).toEqual(['accepted', 'accepted']);
    // Not reported yet: this process cannot see it.
    expect((await backlog()).storedLastMinute).toBe(before.storedLastMinute);
    await other.report();
    const after = await backlog();
    expect(after.storedLastMinute).toBe(before.storedLastMinute + 2);
    expect(after.batchesLastMinute).toBe(before.batchesLastMinute + 1);
    expect(after.processes).toBe(before.processes + 1);
    expect(after.queuedPushes).toBe(0);
    // Only the caller's community: another community's admin sees none of it.
    const elsewhere = await t.services.communities.create('Elsewhere backlog', cliActor());
    const theirs = await t.issueToken(['admin'], elsewhere.communityId);
    const foreign = (await t.get('/api/v2/admin/ingestion', theirs)).json() as { data: BacklogAnswer };
    expect(foreign.data).toEqual({ queuedPushes: 0, oldestQueuedMs: null, storedLastMinute: 0, batchesLastMinute: 0, processes: 0 });
    // A report older than 15 s is of a process that stopped reporting: left out.
    await t.db.database.db
      .updateTable('ingestion_backlog')
      .set({ reported_at: new Date(Date.now() - 20_000) })
      .execute();
    expect((await backlog()).storedLastMinute).toBe(before.storedLastMinute);
    await other.report();
    expect((await backlog()).processes).toBe(before.processes + 1);
    // A process that stops withdraws its report.
    await other.withdraw();
    expect(await backlog()).toMatchObject({ storedLastMinute: before.storedLastMinute, processes: before.processes });
  });

  // Two connections at once: PostgreSQL only (the embedded database is one session).
  it.skipIf(engine !== 'postgres')('reports again as soon as a queue it reported waiting empties', async () => {
    const db = t.db.database.db;
    const other = createIngestionService({ db, clock: systemClock, activityTypes: t.services.activityTypes, citus: t.db.database.citus });
    other.startReporting((error) => {
      throw error;
    });
    const stored = async () => (await db.selectFrom('ingestion_backlog').select(['community_id', 'queued_pushes']).execute()).map((row) => row.queued_pushes);
    try {
      let pending: Promise<unknown> | undefined;
      await db.transaction().execute(async (trx) => {
        // Activities cannot be written while this lock is held: the push waits in the other process's queue.
        await sql`lock table activities in share mode`.execute(trx);
        pending = other.pushActivities(cliWriter(t.communityId), t.sourceId, [
          { id: 'reported-waiting', activityType: 'commented_replied', user: { id: 'rw-1', email: 'rw1@example.org' } },
        ]);
        await untilALockIsAwaited(db, 'the push');
        await other.report();
        expect(await stored()).toEqual([1]);
      });
      await pending;
      // Well before the next timed report (5 s): the report follows the queue emptying.
      for (const deadline = Date.now() + 2_000; (await stored())[0] !== 0 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await stored()).toEqual([0]);
    } finally {
      await other.stopReporting();
    }
    expect(await stored()).toEqual([]);
  });

  // 2,000 of the pushes merge two contacts, each stored by itself: about 20 s on the embedded database.
  it('makes exactly one contact per person for 2,000 people pushed from 3 sources in shuffled order', { timeout: 300_000 }, async () => {
    const community = { id: (await t.services.communities.create('Shuffled', cliActor())).communityId };
    const writer = cliWriter(community.id);
    const sources = await Promise.all(['Mail', 'Code', 'Forum'].map(async (name) => (await t.services.sources.create(writer, { name })).id));
    const token = await t.issueToken(['read', 'write'], community.id);
    const persons = 2000;
    // Mail knows the email, Code the GitHub handle, Forum both: only the Forum push shows they are one person.
    const pushes: { source: number; user: Record<string, unknown> }[] = [];
    for (let p = 0; p < persons; p++) {
      pushes.push({ source: 0, user: { id: `m${p}`, email: `person${p}@corp${p % 40}.com`, fullName: `Person ${p}` } });
      pushes.push({ source: 1, user: { id: `c${p}`, github: `person-${p}` } });
      pushes.push({ source: 2, user: { id: `f${p}`, email: `PERSON${p}@corp${p % 40}.com`, github: `https://github.com/person-${p}` } });
    }
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = pushes.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [pushes[i], pushes[j]] = [pushes[j]!, pushes[i]!];
    }
    for (let at = 0; at < pushes.length; at += 1000) {
      const chunk = pushes.slice(at, at + 1000);
      // One request per source's part of the chunk, in the chunk's order.
      for (const [source, sourceId] of sources.entries()) {
        const items = chunk.filter((push) => push.source === source).map((push) => push.user);
        const response = await pushBatch('users', items, token, sourceId);
        expect(response.statusCode, response.body).toBe(202);
        expect((response.json() as BatchAnswer).rejected).toBe(0);
      }
    }
    const identities = await t.services.db
      .selectFrom('contact_identities')
      .select(['type', 'value', 'contact_id'])
      .where('community_id', '=', community.id)
      .where('value', 'like', '%person%')
      .execute();
    const personOf = (identity: { type: string; value: string }) => Number(/(\d+)/.exec(identity.value)![1]);
    const contactsOfPerson = new Map<number, Set<number>>();
    const personsOfContact = new Map<number, Set<number>>();
    for (const identity of identities) {
      const person = personOf(identity);
      contactsOfPerson.set(person, (contactsOfPerson.get(person) ?? new Set()).add(identity.contact_id));
      personsOfContact.set(identity.contact_id, (personsOfContact.get(identity.contact_id) ?? new Set()).add(person));
    }
    const missedMerges = [...contactsOfPerson.values()].filter((contacts) => contacts.size > 1).length;
    const falseMerges = [...personsOfContact.values()].filter((people) => people.size > 1).length;
    expect({ persons: contactsOfPerson.size, contacts: personsOfContact.size, missedMerges, falseMerges }).toEqual({
      persons,
      contacts: persons,
      missedMerges: 0,
      falseMerges: 0,
    });
  });
});
