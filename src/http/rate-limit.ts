import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { RateLimitConfig } from '../config/config.ts';
import type { RateLimitState } from '../core/errors.ts';
import type { DB } from '../db/schema.ts';
import { deleteWindowsBefore, reserveHits } from './rate-limit.repository.ts';

/**
 * `token` and `address` are the API's limits; `tracker-key` and `tracker-address` the website tracker's own
 * (its public routes are called by every visitor of a site, so they are counted apart from the API's).
 */
export type BucketKind = 'token' | 'address' | 'tracker-key' | 'tracker-address';

/** The tracker's limits when the configuration names none (HEARTH_TRACKER_RATE_LIMIT, HEARTH_TRACKER_RATE_LIMIT_ADDRESS). */
export const TRACKER_LIMITS = { perKey: 6000, perAddress: 120 };

/** Hits a process has reserved from a bucket's shared count in the current window and not yet used. */
interface Lease {
  windowStart: number;
  /** Reserved and still unused. */
  left: number;
  /** The shared count after the last reservation: every process's reserved hits. */
  reserved: number;
  /** The shared count reached the limit: nothing more will be granted in this window. */
  exhausted: boolean;
  /** The reservation in flight; concurrent requests wait for it instead of reserving again. */
  pending: Promise<void> | null;
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
 * Within a process, one reservation per bucket is in flight at a time and concurrent requests wait for it,
 * and what it grants is added to what is left: concurrency never costs a client part of its allowance.
 */
export function createRateLimiter(deps: { db: Kysely<DB>; clock: Clock; config: RateLimitConfig }) {
  const windowMs = deps.config.windowSeconds * 1000;
  const leases = new Map<string, Lease>();
  let lastSweep = 0;
  const limitOf = (kind: BucketKind) =>
    kind === 'token'
      ? deps.config.perToken
      : kind === 'address'
        ? deps.config.perAddress
        : kind === 'tracker-key'
          ? (deps.config.trackerPerKey ?? TRACKER_LIMITS.perKey)
          : (deps.config.trackerPerAddress ?? TRACKER_LIMITS.perAddress);

  async function sweep(windowStart: number) {
    if (windowStart <= lastSweep) return;
    lastSweep = windowStart;
    for (const [bucket, lease] of leases) if (lease.windowStart < windowStart) leases.delete(bucket);
    await deleteWindowsBefore(deps.db, windowStart);
  }

  function leaseOf(bucket: string, windowStart: number): Lease {
    let lease = leases.get(bucket);
    if (!lease || lease.windowStart !== windowStart) {
      if (leases.size >= MAX_LEASES) leases.clear();
      lease = { windowStart, left: 0, reserved: 0, exhausted: false, pending: null };
      leases.set(bucket, lease);
    }
    return lease;
  }

  async function reserve(bucket: string, lease: Lease, limit: number) {
    const chunk = Math.max(1, Math.min(MAX_CHUNK, Math.floor(limit * CHUNK_SHARE)));
    const reserved = await reserveHits(deps.db, bucket, lease.windowStart, chunk);
    // Hits reserved beyond the limit are not granted.
    const granted = Math.max(0, Math.min(chunk, limit - (reserved - chunk)));
    lease.left += granted;
    lease.reserved = reserved;
    if (granted < chunk) lease.exhausted = true;
  }

  return {
    /** Counts one hit of a bucket and returns its state. */
    async hit(kind: BucketKind, key: string): Promise<RateLimitState> {
      const limit = limitOf(kind);
      const now = deps.clock.now().getTime();
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const bucket = `${kind}:${key}`;
      await sweep(windowStart);

      const lease = leaseOf(bucket, windowStart);
      while (lease.left === 0 && !lease.exhausted) {
        lease.pending ??= reserve(bucket, lease, limit).finally(() => {
          lease.pending = null;
        });
        await lease.pending;
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

/** Probes may call this many times as often as the per-address limit before their count says none remain. */
export const PROBE_ALLOWANCE_FACTOR = 10;

/**
 * Health probes carry the rate-limit headers like every response, counted per client address, but are
 * never refused: an orchestrator that probes too often must not see its service as down. Their counts live
 * in the process's memory, so `/healthz` answers while the database is unreachable.
 */
export function createProbeCounter(deps: { clock: Clock; config: RateLimitConfig }) {
  const windowMs = deps.config.windowSeconds * 1000;
  const limit = deps.config.perAddress * PROBE_ALLOWANCE_FACTOR;
  const counts = new Map<string, { windowStart: number; hits: number }>();
  return {
    hit(address: string): { limit: number; remaining: number } {
      const windowStart = Math.floor(deps.clock.now().getTime() / windowMs) * windowMs;
      let count = counts.get(address);
      if (!count || count.windowStart !== windowStart) {
        if (counts.size >= MAX_LEASES) counts.clear();
        count = { windowStart, hits: 0 };
        counts.set(address, count);
      }
      count.hits += 1;
      return { limit, remaining: Math.max(0, limit - count.hits) };
    },
  };
}

export type ProbeCounter = ReturnType<typeof createProbeCounter>;
