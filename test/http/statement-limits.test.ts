import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWriter } from '../../src/core/writer.ts';
import { runInRequestScope, type RequestScope } from '../../src/db/request-scope.ts';
import { MAX_UNINDEXED_LIKES } from '../../src/filters/validate.ts';
import { createIngestionQueue } from '../../src/modules/ingestion/ingestion-queue.ts';
import { readUserPush, textRead } from '../../src/modules/ingestion/push-item.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

const filterOf = (clauses: unknown[]) => encodeURIComponent(JSON.stringify({ type: 'or', clauses }));
const like = (field: string, value: string) => ({ type: 'stringFilter', field, params: { op: 'like', value } });

/** Many activities at once, by SQL: what a slow filter needs to be slow. */
async function seedActivities(t: TestApp, count: number, title: (n: RawBuilder<unknown>) => RawBuilder<unknown>) {
  const contact = (await t.services.db.insertInto('contacts').values({ community_id: t.communityId, name: 'Bulk' }).returning('id').executeTakeFirstOrThrow())
    .id;
  await sql`
    insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, title, content)
    select ${t.communityId}, ${t.sourceId}, 'tweet', 'bulk-' || n, ${contact}, now() - n * interval '1 second', ${title(sql`n::text`)}, 'bulk content ' || n
    from generate_series(1, ${count}) as n`.execute(t.services.db);
  await sql`analyze activities`.execute(t.services.db);
}

describe.each(ENGINES)('like filters (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
    for (const [id, content] of [
      ['p1', 'Save 50% today'],
      ['p2', 'save 50 percent'],
      ['p3', 'snake_case and CamelCase'],
      ['p4', 'snakeXcase'],
      ['p5', 'a back\\slash'],
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/community/v1/source/${t.sourceId}/activity`,
        headers: { authorization: `Bearer ${t.token}` },
        payload: { id, activityType: 'tweet', user: { id: 'u-like' }, content: { type: 'text', value: content } },
      });
      expect(response.statusCode).toBe(202);
    }
  });
  afterAll(() => t.close());

  const contents = async (clauses: unknown[]) => {
    const response = await t.get(`/api/v2/activities?cols=content&limit=100&lightFilter=${filterOf(clauses)}`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data as { content: string }[]).map((activity) => activity.content).sort();
  };

  it('is a case-insensitive substring in which %, _ and \\ are literal', async () => {
    expect(await contents([like('content', '50%')])).toEqual(['Save 50% today']);
    expect(await contents([like('content', 'SAVE 50')])).toEqual(['Save 50% today', 'save 50 percent']);
    expect(await contents([like('content', 'snake_case')])).toEqual(['snake_case and CamelCase']);
    expect(await contents([like('content', 'k\\s')])).toEqual(['a back\\slash']);
  });

  it('takes 100 like clauses on indexed text (activity content)', async () => {
    const clauses = Array.from({ length: 100 }, (_, index) => like('content', `word${index}`));
    expect(await contents([...clauses.slice(1), like('content', 'camelcase')])).toEqual(['snake_case and CamelCase']);
  });

  it(`refuses more than ${MAX_UNINDEXED_LIKES} like clauses on text without a trigram index, naming the clause`, async () => {
    const clauses = Array.from({ length: MAX_UNINDEXED_LIKES + 1 }, (_, index) => like('title', `word${index}`));
    const response = await t.get(`/api/v2/activities?lightFilter=${filterOf(clauses)}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'invalid_filter',
      message: expect.stringContaining(`clauses[${MAX_UNINDEXED_LIKES}].params.op`),
    });
    expect(response.json().error.message).toMatch(new RegExp(`at most ${MAX_UNINDEXED_LIKES} like clauses`));
    expect((await t.get(`/api/v2/activities?lightFilter=${filterOf(clauses.slice(1))}`)).statusCode).toBe(200);
  });

  it('counts like clauses of fewer than 3 characters as unindexed: trigrams cannot find them', async () => {
    const clauses = Array.from({ length: MAX_UNINDEXED_LIKES + 1 }, (_, index) => like('content', String.fromCharCode(97 + index).repeat(2)));
    const response = await t.get(`/api/v2/activities?lightFilter=${filterOf(clauses)}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/fewer than 3 characters/);
    expect(await contents([like('content', 'Ca')])).toEqual(['snakeXcase', 'snake_case and CamelCase']);
  });

  it('has the trigram index on both engines', async () => {
    const present = await sql<{ present: boolean }>`select to_regclass('activities_content_trgm') is not null as present`.execute(t.services.db);
    expect(present.rows[0]!.present).toBe(true);
  });
});

// PGlite runs a statement to its end on the calling thread: it has no statement timeout and nothing to
// cancel (docs/architecture.md); the like limits above are its protection. These run on PostgreSQL.
describe.each(ENGINES.filter((engine) => engine === 'postgres'))('statement timeout and cancel (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { statementTimeoutMs: 50 });
    await seedActivities(t, 300_000, (n) => sql`repeat('lorem ipsum dolor sit amet ', 8) || ${n}`);
  });
  afterAll(() => t.close());

  const heavy = filterOf(Array.from({ length: MAX_UNINDEXED_LIKES }, (_, index) => like('title', `absent${index}`)));

  it('answers a statement over the timeout with a 503 in the family shape, and the next request works', async () => {
    const response = await t.get(`/api/v2/activities?lightFilter=${heavy}`);
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ success: false, error: { code: 'query_timeout', message: expect.stringMatching(/statement timeout/) } });
    expect((await t.get('/api/v2/activities?limit=1')).statusCode).toBe(200);
  });

  it('stores pushes outside the request that submitted them: its hang-up or timeout cancels no batch of others', async () => {
    const queue = createIngestionQueue({ db: t.services.db, citus: t.db.database.citus });
    const origin = { communityId: t.communityId, sourceId: t.sourceId, now: new Date() };
    const items = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => textRead(await readUserPush(t.services.db, cliWriter(t.communityId), origin, { id: `scope-${index}` }))),
    );
    // The first push starts the queue's lanes from inside a request; the rest join the batches they run.
    let first!: ReturnType<typeof queue.submit>;
    const scope: RequestScope = runInRequestScope(50, () => (first = queue.submit(t.communityId, items.slice(0, 1))));
    let done = false;
    const all = Promise.all([first, ...items.slice(1).map((item) => queue.submit(t.communityId, [item]))]).finally(() => (done = true));
    let held = 0;
    while (!done) {
      held = Math.max(held, scope.backends.size);
      await turn();
    }
    expect((await all).flat().every((outcome) => outcome.contactId !== null)).toBe(true);
    expect(held).toBe(0);
  });

  it('cancels the statement when the client hangs up', async () => {
    // Without the timeout, so only the hang-up can stop it.
    const app = await (
      await import('../../src/app.ts')
    ).buildApp({
      services: t.services,
      publicUrl: 'http://hearth.test',
      logger: false,
      cancelStatements: t.db.database.cancel,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const request = http.get({ host: '127.0.0.1', port, path: `/api/v2/activities?lightFilter=${heavy}`, headers: { authorization: `Bearer ${t.token}` } });
      request.on('error', () => undefined);
      const running = async () =>
        Number(
          (
            await sql<{
              n: string;
            }>`select count(*) as n from pg_stat_activity where datname = current_database() and state = 'active' and query ilike '%ilike%' and pid <> pg_backend_pid()`.execute(
              t.services.db,
            )
          ).rows[0]!.n,
        );
      let seen = 0;
      for (let i = 0; i < 50 && seen === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = await running();
      }
      expect(seen).toBe(1);
      request.destroy();
      const hungUp = Date.now();
      let left = seen;
      while (left > 0 && Date.now() - hungUp < 30_000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        left = await running();
      }
      const goneAfter = Date.now() - hungUp;
      expect(left).toBe(0);
      // Cancelled, not finished: left alone, the same statement runs far longer than it took to go away. Both
      // are measured on this machine as it is, so a busy machine slows both.
      const started = Date.now();
      await t.services.filters
        .compile(t.communityId, 'activity', decodeURIComponent(heavy))
        .then((filter) => sql`select count(*) from activities a where a.community_id = ${t.communityId} and ${filter!.where}`.execute(t.services.db));
      const alone = Date.now() - started;
      expect(alone).toBeGreaterThan(1500);
      expect(goneAfter).toBeLessThan(alone / 2);
    } finally {
      await app.close();
    }
  });
});
