import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { RateLimitConfig } from '../config/config.ts';
import type { DB } from '../db/schema.ts';
import { countHit, deleteWindowsBefore } from './rate-limit.repository.ts';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Epoch seconds at which the current window ends. */
  resetAt: number;
  /** Seconds until then. */
  resetSeconds: number;
  exceeded: boolean;
}

/**
 * Fixed-window limits per token (or per client address without a valid token). The counters live in the
 * database, so every Hearth process on one PostgreSQL shares them.
 */
export function createRateLimiter(deps: { db: Kysely<DB>; clock: Clock; config: RateLimitConfig }) {
  const windowMs = deps.config.windowSeconds * 1000;
  let lastSweep = 0;

  return {
    async hit(bucket: { kind: 'token' | 'address'; key: string }): Promise<RateLimitState> {
      const now = deps.clock.now().getTime();
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const limit = bucket.kind === 'token' ? deps.config.perToken : deps.config.perAddress;
      const hits = await countHit(deps.db, `${bucket.kind}:${bucket.key}`, windowStart);
      if (windowStart > lastSweep) {
        // Once per window per process, drop counters of windows that have ended.
        lastSweep = windowStart;
        await deleteWindowsBefore(deps.db, windowStart);
      }
      const resetMs = windowStart + windowMs;
      return {
        limit,
        remaining: Math.max(0, limit - hits),
        resetAt: Math.ceil(resetMs / 1000),
        resetSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
        exceeded: hits > limit,
      };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
