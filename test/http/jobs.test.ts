import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import type { JsonValue } from '../../src/db/schema.ts';
import { cliActor } from '../../src/core/writer.ts';
import type { JobPayloads, JobQueue } from '../../src/jobs/job-queue.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { walkPages } from '../helpers/paging.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Job {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  maxAttempts: number;
  payload: unknown;
  progress: unknown;
  result: unknown;
  error: string | null;
  createdAt: string;
  runAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  lockedBy: string | null;
  lockedUntil: string | null;
}

const ECHO = 'test.echo';

/** What an echo job says: the error to fail with, or the answer to return. */
type Echo = { fail?: string; answer?: JsonValue };

/** Operations: background jobs over HTTP, as `hearth jobs` shows them. */
describe.each(ENGINES)('jobs over HTTP (%s)', (engine) => {
  let t: TestApp;
  let worker: Worker;
  let echoJobs: JobQueue<JobPayloads & { [ECHO]: Echo }>;
  let otherCommunity: number;
  let otherToken: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    // A kind of job of the tests' own: it reports progress, then returns what its payload says or fails.
    echoJobs = t.services.jobs.extend<{ [ECHO]: Echo }>({
      [ECHO]: async (job, context) => {
        await context.progress({ done: 1, of: 2 });
        if (job.payload.fail) throw new Error(job.payload.fail);
        return { answer: job.payload.answer ?? null };
      },
    });
    worker = createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs, backoff: () => 60_000 });
    ({ communityId: otherCommunity } = await t.services.communities.create('Beta', cliActor()));
    otherToken = await t.issueToken(['admin'], otherCommunity);
  });
  afterAll(() => t?.close());

  const enqueue = (communityId: number, payload: Echo, maxAttempts = 1) => echoJobs.enqueue(t.services.db, { communityId, kind: ECHO, payload, maxAttempts });

  async function jobs(query = '', token = t.token): Promise<{ data: Job[]; meta: { nextCursor: string | null } }> {
    const response = await t.get(`/api/v2/admin/jobs${query ? `?${query}` : ''}`, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  async function job(id: number | string, token = t.token): Promise<Job> {
    const response = await t.get(`/api/v2/admin/jobs/${id}`, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: Job }).data;
  }

  it('shows a job queued, then its progress and result, or its error', async () => {
    const done = await enqueue(t.communityId, { answer: 42 });
    const queued = await job(done);
    expect(queued).toMatchObject({
      id: done,
      kind: ECHO,
      status: 'queued',
      attempts: 0,
      maxAttempts: 1,
      payload: { answer: 42 },
      progress: {},
      result: null,
      error: null,
      startedAt: null,
      finishedAt: null,
      lockedBy: null,
    });
    expect(Date.parse(queued.createdAt)).not.toBeNaN();

    while (await worker.runOnce());
    const completed = await job(done);
    expect(completed).toMatchObject({
      status: 'completed',
      attempts: 1,
      progress: { done: 1, of: 2 },
      result: { answer: 42 },
      error: null,
      lockedBy: null,
      lockedUntil: null,
    });
    expect(Date.parse(completed.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(completed.startedAt!));

    const broken = await enqueue(t.communityId, { fail: 'the source file is gone' });
    const retried = await enqueue(t.communityId, { fail: 'the endpoint answered 502' }, 3);
    while (await worker.runOnce());
    expect(await job(broken)).toMatchObject({ status: 'failed', attempts: 1, error: 'the source file is gone', result: null, progress: { done: 1, of: 2 } });
    // A failed attempt with attempts left waits for its retry, its error shown meanwhile.
    const waiting = await job(retried);
    expect(waiting).toMatchObject({ status: 'queued', attempts: 1, maxAttempts: 3, error: 'the endpoint answered 502', finishedAt: null });
    expect(Date.parse(waiting.runAt)).toBeGreaterThan(Date.now());

    // The list has them newest first, each as the single read shows it.
    const listed = (await jobs(`kind=${ECHO}`)).data;
    expect(listed.map((j) => j.id).slice(0, 3)).toEqual([retried, broken, done]);
    expect(listed[2]).toEqual(completed);
  });

  it('filters by status and kind, and pages with a cursor bound to the filters', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push(await enqueue(t.communityId, { answer: i }));
    const queued = await walkPages<Job>(
      (cursor) => t.get(`/api/v2/admin/jobs?status=queued&kind=${ECHO}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
      2,
    );
    expect(queued.every((j) => j.status === 'queued' && j.kind === ECHO)).toBe(true);
    expect(queued.map((j) => j.id).slice(0, 7)).toEqual([...ids].reverse());
    expect(new Set(queued.map((j) => j.id)).size).toBe(queued.length);
    const everything = (await jobs('limit=1000')).data;
    expect(queued).toEqual(everything.filter((j) => j.status === 'queued'));
    expect((await jobs('status=failed')).data.every((j) => j.status === 'failed')).toBe(true);
    expect((await jobs('status=failed')).data.length).toBeGreaterThan(0);

    // A cursor is for the list and filters it came from.
    const first = await jobs('status=queued&limit=2');
    const misused = await t.get(`/api/v2/admin/jobs?status=completed&limit=2&cursor=${encodeURIComponent(first.meta.nextCursor!)}`);
    expect(misused.statusCode, misused.body).toBe(400);
  });

  it('keeps each community to its own jobs', async () => {
    const theirs = await enqueue(otherCommunity, { answer: 'beta' });
    const ours = await enqueue(t.communityId, { answer: 'default' });
    expect((await jobs('limit=1000')).data.map((j) => j.id)).not.toContain(theirs);
    expect((await jobs('limit=1000', otherToken)).data.map((j) => j.id)).toEqual([theirs]);
    expect((await job(theirs, otherToken)).payload).toEqual({ answer: 'beta' });
    const across = await t.get(`/api/v2/admin/jobs/${theirs}`);
    expect(across.statusCode).toBe(404);
    expect(across.json()).toMatchObject({ success: false, error: { code: 'job_not_found', message: `no job ${theirs}` } });
    expect((await t.get(`/api/v2/admin/jobs/${ours}`, otherToken)).statusCode).toBe(404);
  });

  it('answers bad input with a 400 naming it, and needs the admin scope', async () => {
    const cases: [string, RegExp][] = [
      ['/api/v2/admin/jobs/abc', /"abc" is not a valid job ID/],
      ['/api/v2/admin/jobs/0', /"0" is not a valid job ID/],
      ['/api/v2/admin/jobs/99999999999999999999', /not a valid job ID/],
      ['/api/v2/admin/jobs?status=done', /status/],
      ['/api/v2/admin/jobs?kind=test.ech', /kind must be one of .*test\.echo.*; got "test\.ech"/],
      ['/api/v2/admin/jobs?limit=0', /limit/],
      ['/api/v2/admin/jobs?sort=id', /sort/],
      ['/api/v2/admin/jobs?cursor=nonsense', /cursor/],
    ];
    for (const [url, message] of cases) {
      const response = await t.get(url);
      expect(response.statusCode, url).toBe(400);
      expect((response.json() as { error: { message: string } }).error.message, url).toMatch(message);
    }
    expect((await t.get('/api/v2/admin/jobs/123456789')).statusCode).toBe(404);
    const reader = await t.issueToken(['read', 'write']);
    for (const url of ['/api/v2/admin/jobs', '/api/v2/admin/jobs/1']) {
      const response = await t.get(url, reader);
      expect(response.statusCode, url).toBe(403);
    }
    expect((await t.get('/api/v2/admin/jobs', null)).statusCode).toBe(403);
  });
});
