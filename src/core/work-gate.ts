import { HearthError } from './errors.ts';

export interface WorkGate {
  /** Runs `work` once a place is free, in the order callers came; refuses at once when too many already wait. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Works running now. */
  readonly running: number;
  /** Callers waiting for a place. */
  readonly waiting: number;
}

/**
 * Bounds work that holds a CPU for a long time (password hashing) to `concurrency` runs at once in a process.
 * Callers beyond that wait their turn, first come first served, up to `maxWaiting` of them; one more is
 * refused at once with `busy` (503 with Retry-After), so that a burst neither takes every core nor piles up
 * requests that would wait without end. A place is handed from one run to the next waiting caller directly,
 * so a caller arriving meanwhile cannot overtake those that wait.
 */
export function createWorkGate(options: { concurrency: number; maxWaiting: number; busyMessage: string }): WorkGate {
  let running = 0;
  const waiting: (() => void)[] = [];

  function release() {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }

  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (running < options.concurrency) {
        running += 1;
      } else {
        if (waiting.length >= options.maxWaiting) {
          throw new HearthError('busy', options.busyMessage, { retryAfterSeconds: 1 });
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
      try {
        return await work();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
