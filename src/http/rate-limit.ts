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

export type BucketKind = 'token' | 'address';

/** The fixed window a request falls in. */
export interface RateWindow {
  start: number;
  now: number;
}

/**
 * Fixed-window limits per token (or per client address without a valid token). The counters live in the
 * database, so every Hearth process on one PostgreSQL shares them. A token's hit is counted in the same
 * statement that reads the token's row (token.repository.ts, findTokenCountingHit); an address's on its own.
 */
export function createRateLimiter(deps: { db: Kysely<DB>; clock: Clock; config: RateLimitConfig }) {
  const windowMs = deps.config.windowSeconds * 1000;
  let lastSweep = 0;

  async function settle(kind: BucketKind, hits: number, window: RateWindow): Promise<RateLimitState> {
    if (window.start > lastSweep) {
      lastSweep = window.start;
      await deleteWindowsBefore(deps.db, window.start);
    }
    const limit = kind === 'token' ? deps.config.perToken : deps.config.perAddress;
    const resetMs = window.start + windowMs;
    return {
      limit,
      remaining: Math.max(0, limit - hits),
      resetAt: Math.ceil(resetMs / 1000),
      resetSeconds: Math.max(1, Math.ceil((resetMs - window.now) / 1000)),
      exceeded: hits > limit,
    };
  }

  return {
    window(): RateWindow {
      const now = deps.clock.now().getTime();
      return { start: Math.floor(now / windowMs) * windowMs, now };
    },

    bucket(kind: BucketKind, key: string): string {
      return `${kind}:${key}`;
    },

    /** Counts one hit of a bucket and returns its state. */
    async hit(kind: BucketKind, key: string): Promise<RateLimitState> {
      const window = this.window();
      return settle(kind, await countHit(deps.db, this.bucket(kind, key), window.start), window);
    },

    /** The state of a bucket whose hit was counted elsewhere, in the same window. */
    counted(kind: BucketKind, hits: number, window: RateWindow): Promise<RateLimitState> {
      return settle(kind, hits, window);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
