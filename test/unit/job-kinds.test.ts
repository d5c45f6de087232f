import type { Kysely } from 'kysely';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { DB } from '../../src/db/schema.ts';
import { createJobQueue, type JobHandlers, type JobPayloads, type JobQueue } from '../../src/jobs/job-queue.ts';

/**
 * The job kinds are checked by `tsc` (the project includes test/): every `@ts-expect-error` below must be an
 * error, or the type check fails. Never called: only compiled.
 */
async function typeChecks(jobs: JobQueue, db: Kysely<DB>, handlers: JobHandlers<JobPayloads>) {
  await jobs.enqueue(db, { communityId: 1, kind: 'privacy.erase', payload: { removalRequestId: 1 } });
  // @ts-expect-error: a kind nobody declared
  await jobs.enqueue(db, { communityId: 1, kind: 'privacy.erasure', payload: { removalRequestId: 1 } });
  // @ts-expect-error: a payload of the wrong type
  await jobs.enqueue(db, { communityId: 1, kind: 'privacy.erase', payload: { removalRequestId: '1' } });
  // @ts-expect-error: another kind's payload
  await jobs.enqueue(db, { communityId: 1, kind: 'privacy.erase', payload: { sourceId: 1 } });
  // @ts-expect-error: no payload, where the kind's has a required field
  await jobs.enqueue(db, { communityId: 1, kind: 'source.import' });
  // No payload, where `{}` is one: allowed.
  await jobs.enqueue(db, { communityId: 1, kind: 'insights.generate' });
  // @ts-expect-error: a payload without a field of its kind's
  await jobs.enqueueOnce(db, { communityId: 1, kind: 'feeds.fetch', payload: { feedId: 1 } });
  // @ts-expect-error: a field the kind's payload does not have
  await jobs.findUnfinished(1, 'lead_scores.recompute', { scoreID: 1 });

  // A handler gets its kind's payload, typed.
  jobs.handle({
    ...handlers,
    'connector.sync': async (job) => {
      expectTypeOf(job.payload).toEqualTypeOf<{ sourceId: number }>();
    },
  });
  const { 'feeds.fetch': _fetch, ...withoutFetch } = handlers;
  // @ts-expect-error: every kind needs its handler
  jobs.handle(withoutFetch);
  // @ts-expect-error: a handler for another kind's payload
  jobs.handle({ ...handlers, 'privacy.erase': handlers['connector.sync'] });
}

describe('the job queue', () => {
  it('is typed by the declared kinds (checked by tsc)', () => {
    expect(typeChecks).toBeTypeOf('function');
  });

  it("takes each kind's handler once, and its workers claim the kinds it has handlers for", () => {
    // Neither call reaches the database.
    const queue = createJobQueue<{ 'test.a': { n: number }; 'test.b': { m: string } }>({ db: {} as Kysely<DB>, clock: new ManualClock() });
    queue.handle({ 'test.a': async () => {}, 'test.b': async () => {} });
    expect(queue.kinds().sort()).toEqual(['test.a', 'test.b']);
    expect(() => queue.extend({ 'test.a': async () => {} })).toThrow('a handler for jobs of kind "test.a" is already registered');
    const extended = queue.extend<{ 'test.c': { k: boolean } }>({ 'test.c': async () => {} });
    expect(queue.kinds().sort()).toEqual(['test.a', 'test.b', 'test.c']);
    expect(extended.kinds()).toEqual(queue.kinds());
  });
});
