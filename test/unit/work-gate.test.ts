import { describe, expect, it } from 'vitest';
import { createWorkGate } from '../../src/core/work-gate.ts';
import { HearthError } from '../../src/core/errors.ts';

/** A piece of work that ends when the test says so. */
function held() {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { work: () => done, finish, fail };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('work gate', () => {
  it('runs at most its concurrency at once, then the waiting callers in the order they came', async () => {
    const gate = createWorkGate({ concurrency: 2, maxWaiting: 3, busyMessage: 'busy' });
    const started: number[] = [];
    const works = Array.from({ length: 5 }, () => held());
    const runs = works.map((w, i) =>
      gate.run(async () => {
        started.push(i);
        await w.work();
        return i;
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    expect([gate.running, gate.waiting]).toEqual([2, 3]);
    works[1]!.finish();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    expect([gate.running, gate.waiting]).toEqual([2, 2]);
    // A failed run frees its place as a finished one does.
    works[0]!.fail(new Error('boom'));
    await expect(runs[0]).rejects.toThrow('boom');
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const w of works) w.finish();
    expect(await Promise.all(runs.slice(1))).toEqual([1, 2, 3, 4]);
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  it('refuses a caller at once when every waiting place is taken, with a busy error that says when to retry', async () => {
    const gate = createWorkGate({ concurrency: 1, maxWaiting: 1, busyMessage: 'too much at once' });
    const first = held();
    const runs = [gate.run(first.work), gate.run(async () => 'second')];
    let ran = false;
    const refused = gate.run(async () => {
      ran = true;
    });
    await expect(refused).rejects.toMatchObject({
      kind: 'unavailable',
      status: 503,
      code: 'busy',
      message: 'too much at once',
      extra: { retryAfterSeconds: 1 },
    });
    await expect(refused).rejects.toBeInstanceOf(HearthError);
    expect(ran).toBe(false);
    first.finish();
    expect(await Promise.all(runs)).toEqual([undefined, 'second']);
    // Places free again: the next caller runs.
    expect(await gate.run(async () => 'later')).toBe('later');
  });
});
