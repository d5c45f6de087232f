import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createWorkGate } from '../../core/work-gate.ts';

/**
 * Passwords are hashed with scrypt (node:crypto: memory-hard, no native addon to build) with a salt of
 * their own. The parameters are stored with the hash, `scrypt$N$r$p$salt$hash`, so raising them later
 * leaves every stored hash verifiable with the parameters it was made with.
 */
const PARAMETERS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

/**
 * One scrypt costs a core a few hundred milliseconds, and sign-in is public: without a bound, a handful of
 * clients posting passwords would hold every core (and libuv's four threads, which file and DNS work share).
 * A process runs at most this many at once, half its cores (1 to 4); a few per place wait their turn, and
 * past them a sign-in is refused with 503 and Retry-After (core/work-gate.ts). Per process, as the cores are.
 */
export const SCRYPT_CONCURRENCY = Math.min(4, Math.max(1, Math.floor(availableParallelism() / 2)));
export const SCRYPT_MAX_WAITING = 8 * SCRYPT_CONCURRENCY;
const gate = createWorkGate({
  concurrency: SCRYPT_CONCURRENCY,
  maxWaiting: SCRYPT_MAX_WAITING,
  busyMessage: 'too many sign-ins and password changes are being checked at once: try again in a second',
});

/**
 * The scrypt runs of this process: how many in all, at once now, at most at once since the last reset, and
 * how many checks wait for their turn.
 */
const activity = { derivations: 0, running: 0, peak: 0 };
export function scryptActivity(): Readonly<typeof activity & { waiting: number }> {
  return { ...activity, waiting: gate.waiting };
}
export function resetScryptPeak(): void {
  activity.peak = activity.running;
}

async function derive(password: string, salt: Buffer, options: { N: number; r: number; p: number }): Promise<Buffer> {
  const scryptOptions: ScryptOptions = { ...options, maxmem: 128 * options.N * options.r * 2 };
  activity.derivations += 1;
  activity.running += 1;
  activity.peak = Math.max(activity.peak, activity.running);
  try {
    return await new Promise((resolve, reject) =>
      scrypt(password.normalize('NFKC'), salt, KEY_BYTES, scryptOptions, (error, key) => (error ? reject(error) : resolve(key))),
    );
  } finally {
    activity.running -= 1;
  }
}

async function matches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * What a sign-in checks when there is no hash to check (an unknown address, a user who signs in by links
 * only): the current parameters, so it costs what a real check costs, and a key no password derives to.
 * Fixed, so that the first such sign-in does not also pay for making it.
 */
const DECOY_HASH = [
  'scrypt',
  PARAMETERS.N,
  PARAMETERS.r,
  PARAMETERS.p,
  Buffer.alloc(SALT_BYTES, 0x5a).toString('base64url'),
  Buffer.alloc(KEY_BYTES).toString('base64url'),
].join('$');

export function hashPassword(password: string): Promise<string> {
  return gate.run(async () => {
    const salt = randomBytes(SALT_BYTES);
    const key = await derive(password, salt, PARAMETERS);
    return ['scrypt', PARAMETERS.N, PARAMETERS.r, PARAMETERS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
  });
}

export function verifyPassword(password: string, stored: string): Promise<boolean> {
  return gate.run(() => matches(password, stored));
}

/**
 * Whether `password` is that of each stored hash, in one turn of the gate. A null hash (a user without a
 * password), and an empty list (no such user), are checked against the decoy, so that every sign-in costs
 * one scrypt per candidate and at least one: its answer's time tells nothing of which case it was.
 * `admit` runs when the turn comes and may throw: a sign-in that waited is refused then if it should be.
 */
export function verifyCandidates(password: string, stored: readonly (string | null)[], admit?: () => Promise<void>): Promise<boolean[]> {
  return gate.run(async () => {
    await admit?.();
    if (stored.length === 0) {
      await matches(password, DECOY_HASH);
      return [];
    }
    const results: boolean[] = [];
    for (const hash of stored) {
      if (hash === null) {
        await matches(password, DECOY_HASH);
        results.push(false);
      } else {
        results.push(await matches(password, hash));
      }
    }
    return results;
  });
}
