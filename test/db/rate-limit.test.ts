import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createRateLimiter } from '../../src/http/rate-limit.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/test-database.ts';

/**
 * Rate-limit reservations (src/http/rate-limit.ts): each limiter stands for one Hearth process; several on
 * one database share one count, reserved in chunks.
 */
describe.each(ENGINES)('rate limit reservations (%s)', (engine) => {
  let database: TestDatabase;
  const clock = new ManualClock('2026-06-15T12:00:10.000Z');
  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(() => database?.drop());

  const limiter = (perToken: number) => createRateLimiter({ db: database.database.db, clock, config: { perToken, perAddress: 3, windowSeconds: 60 } });

  it('counts down by one per request in one process, and refuses exactly after the limit', async () => {
    const one = limiter(500); // reserves 10 at a time
    const states = [];
    for (let i = 0; i < 502; i++) states.push(await one.hit('token', 'a'));
    expect(states.slice(0, 500).map((state) => state.remaining)).toEqual(Array.from({ length: 500 }, (_, i) => 499 - i));
    expect(states.slice(0, 500).every((state) => !state.exceeded)).toBe(true);
    expect(states.slice(500).map((state) => [state.exceeded, state.remaining])).toEqual([
      [true, 0],
      [true, 0],
    ]);
    const counted = await database.database.db.selectFrom('rate_limit_counters').select('hits').where('bucket', '=', 'token:a').executeTakeFirstOrThrow();
    expect(counted.hits).toBeLessThan(600); // 50 reservations of 10, then the refused ones
  });

  it('never lets several processes together through more than the limit', async () => {
    const processes = [limiter(200), limiter(200), limiter(200)];
    let granted = 0;
    for (let i = 0; i < 300; i++) {
      const state = await processes[i % 3]!.hit('token', 'shared');
      if (!state.exceeded) granted += 1;
    }
    // Each process may hold a few reserved hits it has not used; none is granted twice.
    expect(granted).toBeLessThanOrEqual(200);
    expect(granted).toBeGreaterThan(200 - 3 * 4);
  });

  it('counts small limits one hit at a time, exactly, across processes', async () => {
    const [a, b] = [limiter(500), limiter(500)];
    const results = [await a.hit('address', 'x'), await b.hit('address', 'x'), await a.hit('address', 'x'), await b.hit('address', 'x')];
    expect(results.map((state) => [state.exceeded, state.remaining])).toEqual([
      [false, 2],
      [false, 1],
      [false, 0],
      [true, 0],
    ]);
  });

  it('starts again in the next window', async () => {
    const one = limiter(500);
    for (let i = 0; i < 3; i++) await one.hit('address', 'y');
    expect((await one.hit('address', 'y')).exceeded).toBe(true);
    clock.set('2026-06-15T12:01:10.000Z');
    expect(await one.hit('address', 'y')).toMatchObject({ exceeded: false, remaining: 2 });
  });

  it('grants exactly the limit to concurrent requests in one process', async () => {
    const one = limiter(1000); // reserves 20 at a time
    // 8 clients, each with requests in flight at once, as many as it takes to pass the limit.
    const clients = Array.from({ length: 8 }, async () => {
      let granted = 0;
      for (let round = 0; round < 25; round++) {
        const states = await Promise.all(Array.from({ length: 8 }, () => one.hit('token', 'concurrent')));
        granted += states.filter((state) => !state.exceeded).length;
      }
      return granted;
    });
    const granted = (await Promise.all(clients)).reduce((sum, n) => sum + n, 0);
    expect(granted).toBe(1000);
    expect(await one.hit('token', 'concurrent')).toMatchObject({ exceeded: true, remaining: 0 });
  });

  it('grants exactly the limit to concurrent requests spread over two processes, never more', async () => {
    const [a, b] = [limiter(1000), limiter(1000)];
    const results = await Promise.all(Array.from({ length: 1600 }, (_, i) => (i % 2 ? a : b).hit('token', 'two-processes')));
    const granted = results.filter((state) => !state.exceeded).length;
    // Every reservation is used: the requests kept coming after each process's last grant.
    expect(granted).toBe(1000);
  });
});
