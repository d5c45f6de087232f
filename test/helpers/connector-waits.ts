import { expect } from 'vitest';
import type { ManualClock } from '../../src/clock.ts';

/** A connector as the admin API answers it, as far as these checks read it. */
interface Shown {
  waitingUntil: string;
  streams: { stream: string; done: boolean }[];
  [field: string]: unknown;
}

/**
 * A connector's first sync met the platform's rate limit: it is `waiting` for `waitMs` with `reason`, a sync
 * before then asks the platform nothing, and one after goes on to the end. Answers the connector as shown at
 * the end (active), for the caller's own checks of what was stored.
 */
export async function expectRateLimitWaitedOut(options: {
  clock: ManualClock;
  connectorId: string;
  waitMs: number;
  reason: string;
  /** A moment within the wait at which a due sync must ask nothing. */
  probeMs: number;
  sync: () => Promise<number>;
  show: (id: string) => Promise<Shown>;
  enqueueDueSyncs: () => Promise<number>;
  /** Requests the platform's stand-in has had. */
  requests: () => number;
}) {
  const { clock, connectorId, sync, show } = options;
  await sync();
  let shown = await show(connectorId);
  expect(shown, JSON.stringify(shown)).toMatchObject({
    state: 'waiting',
    waitingUntil: new Date(clock.now().getTime() + options.waitMs).toISOString(),
    reason: options.reason,
  });
  const asked = options.requests();
  clock.advance(options.probeMs);
  await options.enqueueDueSyncs();
  expect(await sync()).toBe(0);
  expect(options.requests()).toBe(asked);
  clock.set(new Date(Date.parse(shown.waitingUntil) + 1000));
  expect(await sync()).toBe(1);
  shown = await show(connectorId);
  expect(shown).toMatchObject({ state: 'active', waitingUntil: null, reason: null });
  return shown;
}
