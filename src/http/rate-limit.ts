import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { RateLimitConfig } from '../config/config.ts';
import type { DB } from '../db/schema.ts';
import { deleteWindowsBefore, reserveHits } from './rate-limit.repository.ts';

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

/** Hits a process has reserved from a bucket's shared count in the current window and not yet used. */
interface Lease {
  windowStart: number;
  /** Reserved and still unused. */
  left: number;
  /** The shared count after the last reservation: every process's reserved hits. */
  reserved: number;
}

/** Reservations take this share of a limit at a time (at least one hit, at most MAX_CHUNK). */
const CHUNK_SHARE = 1 / 50;
const MAX_CHUNK = 100;
const MAX_LEASES = 10_000;

/**
 * Fixed-window limits per token (or per client address without a valid token). The count of a bucket lives
 * in the database, so every Hearth process on one PostgreSQL shares it; but a process does not write it on
 * every request. It reserves hits in chunks (a fiftieth of the limit, so one hit at a time for small limits)
 * and spends them from memory. The shared count is the sum of what every process reserved, and a
 * reservation is cut to what the limit has left, so all processes together never let more than the limit
 * through; a process may refuse while another still holds a few unused hits, never the other way round.
 */
export function createRateLimiter(deps: { db: Kysely<DB>; clock: Clock; config: RateLimitConfig }) {
  const windowMs = deps.config.windowSeconds * 1000;
  const leases = new Map<string, Lease>();
  let lastSweep = 0;

  async function sweep(windowStart: number) {
    if (windowStart <= lastSweep) return;
    lastSweep = windowStart;
    for (const [bucket, lease] of leases) if (lease.windowStart < windowStart) leases.delete(bucket);
    await deleteWindowsBefore(deps.db, windowStart);
  }

  return {
    /** Counts one hit of a bucket and returns its state. */
    async hit(kind: BucketKind, key: string): Promise<RateLimitState> {
      const now = deps.clock.now().getTime();
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const limit = kind === 'token' ? deps.config.perToken : deps.config.perAddress;
      const bucket = `${kind}:${key}`;
      await sweep(windowStart);

      let lease = leases.get(bucket);
      if (!lease || lease.windowStart !== windowStart || lease.left === 0) {
        const chunk = Math.max(1, Math.min(MAX_CHUNK, Math.floor(limit * CHUNK_SHARE)));
        const reserved = await reserveHits(deps.db, bucket, windowStart, chunk);
        // Hits reserved beyond the limit are not granted; a refused request still counts (it was made).
        const granted = Math.max(0, Math.min(chunk, limit - (reserved - chunk)));
        if (leases.size >= MAX_LEASES) leases.clear();
        lease = { windowStart, left: granted, reserved };
        leases.set(bucket, lease);
      }
      const exceeded = lease.left === 0;
      if (!exceeded) lease.left -= 1;
      const resetMs = windowStart + windowMs;
      return {
        limit,
        remaining: Math.max(0, Math.min(limit, limit - lease.reserved) + lease.left),
        resetAt: Math.ceil(resetMs / 1000),
        resetSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
        exceeded,
      };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
