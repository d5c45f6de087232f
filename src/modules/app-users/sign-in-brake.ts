import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import { HearthError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import * as failures from './sign-in-failures.repository.ts';

/** Failed sign-ins an address may have with no wait: a few typos cost nothing. */
export const FREE_FAILURES = 5;
/** The wait after the last free failure; each further failure doubles it, up to MAX_WAIT_MS. */
const FIRST_WAIT_MS = 1000;
export const MAX_WAIT_MS = 15 * 60 * 1000;
/** After a day without a failure, an address's count starts again. */
export const FORGET_AFTER_MS = 24 * 3600 * 1000;
/** How often a process deletes the counts it would forget anyway. */
const SWEEP_EVERY_MS = 3600 * 1000;

/** Until when (epoch ms) an address with this count must wait, or null when it may try now. */
export function brakedUntil(count: failures.FailureCount | undefined, now: number): number | null {
  if (!count || count.failures < FREE_FAILURES) return null;
  const last = count.lastFailureAt.getTime();
  if (last < now - FORGET_AFTER_MS) return null;
  const until = last + Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** (count.failures - FREE_FAILURES));
  return until > now ? until : null;
}

/**
 * The brake on password sign-ins, per email address as typed (whatever community it names, and whether
 * or not any user signs in with it): after FREE_FAILURES failures, an address must wait before its next
 * try, a wait that doubles with each further failure; while it waits, every try is refused with 429 and
 * Retry-After, the right password too, and costs no scrypt. A success ends the wait and the count. The
 * counts are rows of the database, so every process sharing it brakes alike.
 */
export function createSignInBrake(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db, clock } = deps;
  let lastSweep = 0;

  return {
    /** Throws the 429 of a braked address. */
    async check(email: string): Promise<void> {
      const now = clock.now().getTime();
      const until = brakedUntil(await failures.readFailures(db, email), now);
      if (until === null) return;
      const seconds = Math.max(1, Math.ceil((until - now) / 1000));
      throw new HearthError('sign_in_braked', `too many failed sign-ins with this email address: retry in ${seconds} s`, {
        rateLimit: { limit: FREE_FAILURES, remaining: 0, resetAt: Math.ceil(until / 1000), resetSeconds: seconds, exceeded: true },
      });
    },

    async failed(email: string): Promise<void> {
      const now = clock.now();
      const forgetBefore = new Date(now.getTime() - FORGET_AFTER_MS);
      await failures.addFailure(db, email, now, forgetBefore);
      if (now.getTime() - lastSweep >= SWEEP_EVERY_MS) {
        lastSweep = now.getTime();
        await failures.forgetFailuresBefore(db, forgetBefore);
      }
    },

    async succeeded(email: string): Promise<void> {
      await failures.clearFailures(db, email);
    },
  };
}

export type SignInBrake = ReturnType<typeof createSignInBrake>;
