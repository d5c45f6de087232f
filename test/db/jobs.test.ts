import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.ts';
import { openDatabase } from '../../src/db/database.ts';
import type { DB, JsonObject } from '../../src/db/schema.ts';
import { createJobQueue, type JobHandler } from '../../src/jobs/job-queue.ts';
import { claimNextJob, completeJob, insertJob } from '../../src/jobs/job.repository.ts';
import { CommunityTurns } from '../../src/core/community-turns.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

/** The tests' kinds, made as they go: any name, any payload. */
type AnyKinds = Record<string, JsonObject>;

/**
 * The job system straight against the database: enqueue (in a caller's transaction), claim with a lease,
 * progress, completion, retries with backoff, failure after the last attempt, reclaiming a job whose
 * worker died, shutdown, and several workers on one PostgreSQL database.
 */
describe.each(ENGINES)('jobs (%s)', (engine) => {
  let t: TestDatabase;
  let db: Kysely<DB>;
  let communityId: number;
  let kindCounter = 0;

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    db = t.database.db;
    communityId = (await db.insertInto('communities').values({ name: 'Jobs' }).returning('id').executeTakeFirstOrThrow()).id;
  });
  afterAll(() => t.drop());

  /** A queue with one handler, under a kind of its own so that tests do not see each other's jobs. */
  function setup(handler: JobHandler, clock = new ManualClock()) {
    const kind = `test.kind${++kindCounter}`;
    const queue = createJobQueue<AnyKinds>({ db, clock });
    queue.handle({ [kind]: handler });
    const worker = createWorker({ db, clock, queue, id: `worker-${kindCounter}`, leaseMs: 60_000 });
    return {
      kind,
      queue,
      worker,
      clock,
      enqueue: (extra: { maxAttempts?: number; runAt?: Date } = {}) => queue.enqueue(db, { communityId, kind, payload: { n: 1 }, ...extra }),
    };
  }

  const job = (id: number) => db.selectFrom('jobs').selectAll().where('community_id', '=', communityId).where('id', '=', id).executeTakeFirstOrThrow();

  it('runs a due job once: progress, result, completion', async () => {
    const seen: unknown[] = [];
    const { enqueue, worker, clock } = setup(async (row, context) => {
      seen.push(row.payload);
      await context.progress({ done: 1, of: 2 });
      return { answer: 42 };
    });
    const id = await enqueue();
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 0, run_at: clock.now() });

    expect(await worker.runUntilIdle()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    expect(await job(id)).toMatchObject({
      status: 'completed',
      attempts: 1,
      progress: { done: 1, of: 2 },
      result: { answer: 42 },
      error: null,
      locked_by: null,
      locked_until: null,
      started_at: clock.now(),
      finished_at: clock.now(),
    });
    expect(await worker.runOnce()).toBe(false);
  });

  it('does not run a job before its runAt', async () => {
    let runs = 0;
    const { enqueue, worker, clock } = setup(async () => {
      runs += 1;
    });
    await enqueue({ runAt: new Date(clock.now().getTime() + 60_000) });
    expect(await worker.runUntilIdle()).toBe(0);
    clock.advance(59_999);
    expect(await worker.runUntilIdle()).toBe(0);
    clock.advance(1);
    expect(await worker.runUntilIdle()).toBe(1);
    expect(runs).toBe(1);
  });

  it('retries a failed attempt after an exponential backoff, then succeeds', async () => {
    let calls = 0;
    const attempts: number[] = [];
    const { enqueue, worker, clock } = setup(async (_row, context) => {
      calls += 1;
      attempts.push(context.attempt);
      if (calls < 3) throw new Error(`boom ${calls}`);
      return 'ok';
    });
    const id = await enqueue();

    expect(await worker.runOnce()).toBe(true);
    const start = clock.now().getTime();
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 1, error: 'boom 1', run_at: new Date(start + 5_000), locked_by: null });

    clock.advance(4_999);
    expect(await worker.runOnce()).toBe(false);
    clock.advance(1);
    expect(await worker.runOnce()).toBe(true);
    // Second failure: twice the delay.
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 2, error: 'boom 2', run_at: new Date(start + 5_000 + 10_000) });

    clock.advance(9_999);
    expect(await worker.runOnce()).toBe(false);
    clock.advance(1);
    expect(await worker.runOnce()).toBe(true);
    expect(await job(id)).toMatchObject({ status: 'completed', attempts: 3, result: 'ok', error: null });
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('fails for good after maxAttempts, keeping the last error', async () => {
    let calls = 0;
    const { enqueue, worker, clock } = setup(async () => {
      calls += 1;
      throw new Error(`still broken (${calls})`);
    });
    const id = await enqueue({ maxAttempts: 3 });
    for (let i = 0; i < 3; i++) {
      expect(await worker.runOnce()).toBe(true);
      clock.advance(3_600_000);
    }
    expect(await job(id)).toMatchObject({ status: 'failed', attempts: 3, error: 'still broken (3)', locked_by: null });
    expect((await job(id)).finished_at).toBeInstanceOf(Date);
    expect(await worker.runUntilIdle()).toBe(0);
    expect(calls).toBe(3);
  });

  it('lets communities with due jobs take turns, the oldest job of each first', async () => {
    const ran: string[] = [];
    const { kind, queue, worker, clock } = setup(async (row) => {
      ran.push((row.payload as { name: string }).name);
    });
    const other = (await db.insertInto('communities').values({ name: 'Jobs, too' }).returning('id').executeTakeFirstOrThrow()).id;
    // The first community's backlog is older than anything of the other's.
    for (const name of ['a1', 'a2', 'a3']) await queue.enqueue(db, { communityId, kind, payload: { name } });
    clock.advance(1_000);
    for (const name of ['b1', 'b2']) await queue.enqueue(db, { communityId: other, kind, payload: { name } });
    while (await worker.runOnce());
    expect(ran).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('claims again a job whose worker died (its lease expired), and ignores the dead worker afterwards', async () => {
    let runs = 0;
    const { enqueue, worker, clock, kind } = setup(async () => {
      runs += 1;
      return 'done by the living';
    });
    const id = await enqueue();
    // A worker claims the job, then its process dies: it never reports back.
    const now = clock.now();
    const dead = await claimNextJob(db, {
      kinds: [kind],
      workerId: 'dead-worker',
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      turns: new CommunityTurns(),
    });
    expect(dead).toMatchObject({ exhausted: false, job: { id, status: 'running', lockedBy: 'dead-worker', attempts: 1 } });

    // While the lease holds, nobody else takes the job.
    clock.advance(59_999);
    expect(await worker.runOnce()).toBe(false);
    clock.advance(1);
    expect(await worker.runOnce()).toBe(true);
    expect(runs).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'completed', attempts: 2, result: 'done by the living' });

    // The dead worker, were it to come back, can no longer change the job.
    expect(await completeJob(db, { communityId, id, workerId: 'dead-worker' }, 'zombie', clock.now())).toBe(false);
    expect((await job(id)).result).toBe('done by the living');
  });

  it('fails a job whose worker died during its last attempt, without running it again', async () => {
    let runs = 0;
    const { enqueue, worker, clock, kind } = setup(async () => {
      runs += 1;
    });
    const id = await enqueue({ maxAttempts: 1 });
    const now = clock.now();
    await claimNextJob(db, { kinds: [kind], workerId: 'dead-worker', now, leaseUntil: new Date(now.getTime() + 60_000), turns: new CommunityTurns() });
    clock.advance(60_000);
    expect(await worker.runOnce()).toBe(true);
    expect(runs).toBe(0);
    expect(await job(id)).toMatchObject({ status: 'failed', attempts: 1, locked_by: null, error: expect.stringMatching(/lease expired/) });
  });

  it('a job enqueued in a transaction that rolls back never runs; one that commits does', async () => {
    let runs = 0;
    const { kind, queue, worker } = setup(async () => {
      runs += 1;
    });
    await expect(
      db.transaction().execute(async (trx) => {
        await queue.enqueue(trx, { communityId, kind });
        throw new Error('the request failed');
      }),
    ).rejects.toThrow('the request failed');
    expect(await db.selectFrom('jobs').select('id').where('community_id', '=', communityId).where('kind', '=', kind).execute()).toEqual([]);
    expect(await worker.runUntilIdle()).toBe(0);

    await db.transaction().execute((trx) => queue.enqueue(trx, { communityId, kind }));
    expect(await worker.runUntilIdle()).toBe(1);
    expect(runs).toBe(1);
  });

  it('leaves alone jobs of kinds it has no handler for, and refuses to enqueue an unknown kind', async () => {
    const { worker, queue, clock } = setup(async () => {});
    const id = await insertJob(db, { communityId, kind: 'nobody.handles.this', payload: {}, runAt: clock.now(), maxAttempts: 5, now: clock.now() });
    expect(await worker.runUntilIdle()).toBe(0);
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 0 });
    await expect(queue.enqueue(db, { communityId, kind: 'nobody.handles.this' })).rejects.toThrow(/no handler/);
    await db.deleteFrom('jobs').where('community_id', '=', communityId).where('id', '=', id).execute();
  });

  it('queued jobs, and one whose process died while running it, survive a restart', async () => {
    // Another "process" with its own database handle: a fresh data directory (embedded) or pool (PostgreSQL).
    const dir = engine === 'pglite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-jobs-')) : null;
    let opened = 0;
    const open = () =>
      engine === 'pglite'
        ? openDatabase({
            engine: 'pglite',
            dataDir: dir,
            ...(opened++ === 0 ? { template: new Blob([fs.readFileSync(inject('pgliteTemplate'))]) } : {}),
          })
        : openDatabase({ engine: 'postgres', url: t.url!, poolSize: 2 });
    const clock = new ManualClock(new Date());
    const kind = `test.restart${++kindCounter}`;
    const queueOn = (database: Kysely<DB>, handler: JobHandler) => {
      const queue = createJobQueue<AnyKinds>({ db: database, clock });
      queue.handle({ [kind]: handler });
      return queue;
    };
    try {
      let before = await open();
      const community =
        engine === 'pglite' ? (await before.db.insertInto('communities').values({ name: 'R' }).returning('id').executeTakeFirstOrThrow()).id : communityId;
      const queue = queueOn(before.db, async () => {});
      const ids = [await queue.enqueue(before.db, { communityId: community, kind }), await queue.enqueue(before.db, { communityId: community, kind })];
      const now = clock.now();
      await claimNextJob(before.db, {
        kinds: [kind],
        workerId: 'about-to-die',
        now,
        leaseUntil: new Date(now.getTime() + 60_000),
        turns: new CommunityTurns(),
      });
      await before.close();

      before = await open();
      const ran: number[] = [];
      const worker = createWorker({ db: before.db, clock, queue: queueOn(before.db, async (row) => void ran.push(row.id)) });
      expect(await worker.runUntilIdle()).toBe(1);
      clock.advance(60_000);
      expect(await worker.runUntilIdle()).toBe(1);
      expect(ran.sort((a, b) => a - b)).toEqual(ids);
      await before.close();
    } finally {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('the poll loop', () => {
    let stopWorker: (() => Promise<void>) | null = null;
    afterEach(async () => {
      await stopWorker?.();
      stopWorker = null;
    });

    it('runs jobs as they come due and stops cleanly while idle', async () => {
      const ran: number[] = [];
      const { kind, queue } = setup(async (row) => {
        ran.push(row.id);
      }, new ManualClock(new Date()));
      const worker = createWorker({ db, clock: systemClock, queue, pollIntervalMs: 20 });
      worker.start();
      stopWorker = () => worker.stop();
      const ids = [await queue.enqueue(db, { communityId, kind }), await queue.enqueue(db, { communityId, kind })];
      await waitFor(() => ran.length === 2);
      expect(ran.sort()).toEqual(ids.sort());
      const stopping = Date.now();
      await worker.stop();
      expect(Date.now() - stopping).toBeLessThan(1_000);
    });

    it('on stop, gives back a job whose handler stops early, without counting the attempt', async () => {
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const { kind, queue } = setup(
        (_row, context) =>
          new Promise((_resolve, reject) => {
            started();
            context.signal.addEventListener('abort', () => reject(new Error('interrupted')));
          }),
        new ManualClock(new Date()),
      );
      const worker = createWorker({ db, clock: systemClock, queue, pollIntervalMs: 20 });
      const id = await queue.enqueue(db, { communityId, kind });
      worker.start();
      await running;
      await worker.stop();
      expect(await job(id)).toMatchObject({ status: 'queued', attempts: 0, locked_by: null });
    });

    it('an exclusive worker (the embedded server) takes back at once a job left running by a process that died', async () => {
      const ran: number[] = [];
      const { kind, queue } = setup(async (row) => {
        ran.push(row.id);
      }, new ManualClock(new Date()));
      const id = await queue.enqueue(db, { communityId, kind });
      const now = new Date();
      await claimNextJob(db, { kinds: [kind], workerId: 'killed-process', now, leaseUntil: new Date(now.getTime() + 3_600_000), turns: new CommunityTurns() });

      // Another process sharing the database waits out the lease: the job may still be running there.
      const shared = createWorker({ db, clock: systemClock, queue, pollIntervalMs: 20 });
      expect(await shared.runOnce()).toBe(false);

      const exclusive = createWorker({ db, clock: systemClock, queue, pollIntervalMs: 20, exclusive: true });
      exclusive.start();
      stopWorker = () => exclusive.stop();
      await waitFor(async () => (await job(id)).status === 'completed');
      expect(ran).toEqual([id]);
      // The killed attempt counts.
      expect(await job(id)).toMatchObject({ attempts: 2 });
    });

    it('on stop, waits for a job whose handler does not stop early', async () => {
      const { kind, queue } = setup(async () => {
        await sleep(200);
        return 'finished';
      }, new ManualClock(new Date()));
      const worker = createWorker({ db, clock: systemClock, queue, pollIntervalMs: 20 });
      const id = await queue.enqueue(db, { communityId, kind });
      worker.start();
      await waitFor(async () => (await job(id)).status === 'running');
      await worker.stop();
      expect(await job(id)).toMatchObject({ status: 'completed', result: 'finished' });
    });
  });

  // Two workers with their own connection pools stand for two server processes sharing one database.
  it.runIf(engine === 'postgres')('several workers on PostgreSQL run each job exactly once, never one twice at once', async () => {
    const second = await openDatabase({ engine: 'postgres', url: t.url!, poolSize: 4 });
    try {
      const kind = `test.shared${++kindCounter}`;
      const runs = new Map<number, string[]>();
      const inFlight = new Set<number>();
      let overlaps = 0;
      const workers = [db, second.db].flatMap((database, process) => {
        const queue = createJobQueue<AnyKinds>({ db: database, clock: systemClock });
        const handler: JobHandler = async (row) => {
          if (inFlight.has(row.id)) overlaps += 1;
          inFlight.add(row.id);
          await sleep(2 + Math.random() * 5);
          inFlight.delete(row.id);
          runs.set(row.id, [...(runs.get(row.id) ?? []), `p${process}`]);
        };
        queue.handle({ [kind]: handler });
        // Two workers per process as well.
        return [0, 1].map((n) => createWorker({ db: database, clock: systemClock, queue, id: `p${process}-w${n}`, pollIntervalMs: 5 }));
      });
      const enqueuer = createJobQueue<AnyKinds>({ db, clock: systemClock });
      enqueuer.handle({ [kind]: async () => {} });
      const ids: number[] = [];
      for (let i = 0; i < 60; i++) ids.push(await enqueuer.enqueue(db, { communityId, kind, payload: { i } }));

      for (const worker of workers) worker.start();
      try {
        await waitFor(() => runs.size === ids.length, 30_000);
      } finally {
        await Promise.all(workers.map((worker) => worker.stop()));
      }
      expect(overlaps).toBe(0);
      expect([...runs.keys()].sort((a, b) => a - b)).toEqual(ids);
      expect([...runs.values()].every((by) => by.length === 1)).toBe(true);
      const lockedBy = await db.selectFrom('jobs').select(['status', 'attempts']).where('kind', '=', kind).execute();
      expect(lockedBy.every((row) => row.status === 'completed' && row.attempts === 1)).toBe(true);
      // Both processes took part.
      expect(new Set([...runs.values()].flat())).toEqual(new Set(['p0', 'p1']));
    } finally {
      await second.close();
    }
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}
