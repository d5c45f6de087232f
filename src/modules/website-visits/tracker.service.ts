import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import { createListenedCache } from '../../core/listened-cache.ts';
import type { Listen } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { conflict, forbidden, HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { Writer } from '../../core/writer.ts';
import { auditTx } from '../audit/index.ts';
import { sourceTx } from '../sources/index.ts';
import type { WebsiteVisitPushService } from './website-visit-push.service.ts';
import { newIdentifySecret, verifyIdentify } from './tracker-signature.ts';
import * as trackers from './tracker.repository.ts';

/** `pk_<communityId>_<24 characters>`: the community is part of the key, so finding it is scoped like every query. */
const KEY = /^pk_([1-9][0-9]{0,14})_([A-Za-z0-9_-]{24})$/;
const MAX_ORIGINS = 50;

function newKey(communityId: number): string {
  return `pk_${communityId}_${randomBytes(18).toString('base64url')}`;
}

/** The origins as given, checked: each an http(s) origin and nothing more (no path), once. */
export function readOrigins(given: string[]): string[] {
  if (given.length > MAX_ORIGINS) throw invalidParameters(`allowedOrigins: at most ${MAX_ORIGINS} origins`);
  const origins = given.map((value) => {
    const text = value.trim().replace(/\/$/, '').toLowerCase();
    let origin: string | null = null;
    try {
      const url = new URL(text);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text) origin = url.origin;
    } catch {
      origin = null;
    }
    if (!origin) throw invalidParameters(`allowedOrigins: "${value}" is not an origin (a scheme and host, as https://www.example.com)`);
    return origin;
  });
  return [...new Set(origins)];
}

/** What the caller of a public tracker route says of itself. */
export interface TrackerCaller {
  /** The `Origin` header: a browser sends it with every cross-origin POST and preflight. */
  origin: string | null;
  /** `DNT: 1` or `Sec-GPC: 1`: the browser asks not to be tracked. */
  optedOut: boolean;
}

/**
 * Website trackers (docs/ingestion.md, The website tracker): a source's public key, which a site writes into
 * its pages with the script Hearth serves (/t.js), and the public routes the script calls with it. A key can
 * only record page views and identify calls into its one source; an admin enables it, may limit the origins
 * whose pages send, rotates it (the old key stops at once) and revokes it. docs/ingestion.md says why it is not
 * a token.
 */
export function createTrackerService(deps: { db: Kysely<DB>; clock: Clock; publicUrl: string; visits: WebsiteVisitPushService }) {
  const { db, clock } = deps;
  // The keys read, while every change is heard: most page views then read no key from the database.
  const keys = createListenedCache<trackers.TrackerRow>({ ttlMs: 60_000, maxEntries: 10_000, now: () => Date.now() });

  async function readKey(communityId: number, key: string) {
    const cacheKey = `${communityId}:${key}`;
    const cached = keys.get(cacheKey);
    if (cached) return cached;
    const generation = keys.generation();
    const row = await trackers.trackerByKey(db, communityId, key);
    if (row) keys.put(cacheKey, row, generation);
    return row;
  }

  /** The tracker as an admin sees it; its identify secret only in the answer that made it (`withSecret`). */
  function view(row: trackers.TrackerRow, withSecret = false) {
    return {
      sourceId: formatId('provider', row.sourceId),
      key: row.publicKey,
      allowedOrigins: row.allowedOrigins,
      allowUnverifiedIdentify: row.allowUnverifiedIdentify,
      ...(withSecret && row.identifySecret ? { identifySecret: row.identifySecret } : {}),
      identifySecretCreatedAt: row.identifySecretCreatedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      snippet: `<script src="${deps.publicUrl}/t.js" data-key="${row.publicKey}" async></script>`,
    };
  }

  async function sourceOf(communityId: number, sourceId: number) {
    if (!(await sourceTx.findSource(db, communityId, sourceId))) throw notFound('source_not_found', `no source ${formatId('provider', sourceId)}`);
  }

  async function live(communityId: number, sourceId: number) {
    await sourceOf(communityId, sourceId);
    const row = await trackers.liveTracker(db, communityId, sourceId);
    if (!row) throw notFound('tracker_not_found', `source ${formatId('provider', sourceId)} has no website tracker; enable one first`);
    return row;
  }

  /** The tracker a public route's key names, if it may take this caller's requests. */
  async function trackerFor(key: string, caller: TrackerCaller) {
    const match = KEY.exec(key);
    if (!match) throw new HearthError('invalid_tracker_key', `"${key.slice(0, 80)}" is not a tracker key (pk_<community>_<24 characters>)`);
    const communityId = Number(match[1]);
    const row = await readKey(communityId, key);
    if (!row) throw notFound('tracker_not_found', `no website tracker has the key ${key}`);
    if (row.revokedAt) throw forbidden(`the tracker key ${key} was revoked or replaced at ${row.revokedAt.toISOString()}; embed the source's current key`);
    // No origins named: no page is known to be the site's, so none is recorded (a safe default, not "any").
    if (!row.allowedOrigins.length) {
      throw forbidden(
        `the website tracker of source ${formatId('provider', row.sourceId)} names no allowedOrigins; an admin must name the site's origins before it records anything`,
      );
    }
    if (!caller.origin || !row.allowedOrigins.includes(caller.origin.toLowerCase())) {
      throw forbidden(`pages of ${caller.origin ?? 'an unnamed origin (no Origin header)'} may not send to this tracker`);
    }
    return { communityId, row };
  }

  /** The origin of a page URL, lower-cased, or null when it is not an http(s) URL (the visit's own check then says why). */
  function originOf(url: string): string | null {
    try {
      const parsed = new URL(url.trim());
      return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin.toLowerCase() : null;
    } catch {
      return null;
    }
  }

  return {
    /** Keeps keys in memory for as long as every change to them is heard. */
    async watchChanges(listen: Listen) {
      await listen(trackers.TRACKER_CHANGES, { ready: keys.listening, message: keys.changed, lost: keys.deaf });
    },

    /**
     * Enables the source's tracker with a new key and identify secret (the answer is the only one that shows
     * the secret), or changes the settings of the one it has.
     */
    async enable(writer: Writer, sourceId: number, input: { allowedOrigins?: string[]; allowUnverifiedIdentify?: boolean }) {
      await sourceOf(writer.communityId, sourceId);
      const allowedOrigins = input.allowedOrigins === undefined ? undefined : readOrigins(input.allowedOrigins);
      const settings = { allowedOrigins, allowUnverifiedIdentify: input.allowUnverifiedIdentify };
      try {
        const done = await db.transaction().execute(async (trx) => {
          const existing = await trackers.liveTracker(trx, writer.communityId, sourceId);
          const row = existing
            ? allowedOrigins === undefined && input.allowUnverifiedIdentify === undefined
              ? existing
              : await trackers.updateSettings(trx, writer.communityId, existing.id, settings)
            : await trackers.insertTracker(
                trx,
                writer.communityId,
                {
                  sourceId,
                  publicKey: newKey(writer.communityId),
                  allowedOrigins: allowedOrigins ?? [],
                  allowUnverifiedIdentify: input.allowUnverifiedIdentify ?? false,
                  identifySecret: newIdentifySecret(),
                },
                clock.now(),
              );
          await auditTx.recordWrite(trx, writer, {
            operation: existing ? 'tracker.update' : 'tracker.enable',
            entityIds: [formatId('provider', sourceId)],
            detail: { allowedOrigins: row.allowedOrigins, allowUnverifiedIdentify: row.allowUnverifiedIdentify },
          });
          return { created: !existing, tracker: view(row, !existing) };
        });
        keys.changed();
        return done;
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`source ${formatId('provider', sourceId)} was given a tracker meanwhile; ask again`);
        throw error;
      }
    },

    async get(communityId: number, sourceId: number) {
      return view(await live(communityId, sourceId));
    },

    /** The community's enabled trackers (for `hearth source list`). */
    async list(communityId: number) {
      return (await trackers.liveTrackers(db, communityId)).map((row) => view(row));
    },

    /** A new key and identify secret for the source's tracker; the old key is refused from now on. */
    async rotate(writer: Writer, sourceId: number) {
      const old = await live(writer.communityId, sourceId);
      const row = await db.transaction().execute(async (trx) => {
        const now = clock.now();
        await trackers.revokeTracker(trx, writer.communityId, old.id, now);
        const made = await trackers.insertTracker(
          trx,
          writer.communityId,
          {
            sourceId,
            publicKey: newKey(writer.communityId),
            allowedOrigins: old.allowedOrigins,
            allowUnverifiedIdentify: old.allowUnverifiedIdentify,
            identifySecret: newIdentifySecret(),
          },
          now,
        );
        await auditTx.recordWrite(trx, writer, {
          operation: 'tracker.rotate',
          entityIds: [formatId('provider', sourceId)],
          detail: { revokedKey: old.publicKey },
        });
        return made;
      });
      keys.changed();
      return view(row, true);
    },

    /**
     * A new identify secret for the source's tracker, its key unchanged: signatures made with the old secret
     * are refused from now on. A tracker enabled before secrets existed gets its first one this way.
     */
    async rotateSecret(writer: Writer, sourceId: number) {
      const old = await live(writer.communityId, sourceId);
      const row = await db.transaction().execute(async (trx) => {
        const made = await trackers.setIdentifySecret(trx, writer.communityId, old.id, newIdentifySecret(), clock.now());
        await auditTx.recordWrite(trx, writer, {
          operation: 'tracker.rotate_secret',
          entityIds: [formatId('provider', sourceId)],
          detail: { key: old.publicKey },
        });
        return made;
      });
      keys.changed();
      return view(row, true);
    },

    /** Turns the source's tracker off: its key is refused from now on; the visits it recorded stay. */
    async revoke(writer: Writer, sourceId: number) {
      const old = await live(writer.communityId, sourceId);
      await db.transaction().execute(async (trx) => {
        await trackers.revokeTracker(trx, writer.communityId, old.id, clock.now());
        await auditTx.recordWrite(trx, writer, {
          operation: 'tracker.revoke',
          entityIds: [formatId('provider', sourceId)],
          detail: { revokedKey: old.publicKey },
        });
      });
      // This process forgets the key at once; the others as the notification reaches them.
      keys.changed();
      return view(old);
    },

    /** A CORS preflight: the origin the answer allows (one of the tracker's origins). */
    async preflight(key: string, caller: TrackerCaller): Promise<string> {
      await trackerFor(key, caller);
      return caller.origin!;
    },

    /**
     * A page view; nothing is stored for a browser that asks not to be tracked. A page of an origin the
     * tracker does not name is refused: the key is public, so a page view may come from anywhere.
     */
    async pageView(key: string, caller: TrackerCaller, view: { url: string; anonymousId: string }): Promise<'accepted' | 'ignored'> {
      const { communityId, row } = await trackerFor(key, caller);
      if (caller.optedOut) return 'ignored';
      const origin = originOf(view.url);
      if (origin !== null && !row.allowedOrigins.includes(origin)) {
        throw forbidden(`url: pages of ${origin} are not among the tracker's allowedOrigins; they are not recorded`);
      }
      await deps.visits.recordPageView(communityId, row.sourceId, view);
      return 'accepted';
    },

    /**
     * Who a browser is. Signed with the tracker's identify secret, the call links the browser's visits to the
     * contact; unsigned, it does so only where an admin allowed it, and is otherwise kept apart. A signature
     * that does not match is refused. The answer never depends on whether the address is a contact's.
     */
    async identify(key: string, caller: TrackerCaller, given: { anonymousId: string; email: string; signature?: string }): Promise<'accepted' | 'ignored'> {
      const { communityId, row } = await trackerFor(key, caller);
      if (caller.optedOut) return 'ignored';
      let trust: 'signed' | 'allowed' | 'held';
      if (given.signature !== undefined) {
        if (!row.identifySecret) {
          throw forbidden(
            `the website tracker of source ${formatId('provider', row.sourceId)} has no identify secret yet; an admin makes one by rotating its secret`,
          );
        }
        if (!verifyIdentify(row.identifySecret, given.email, given.signature)) {
          throw forbidden("signature: it does not sign this address with the tracker's identify secret (hex HMAC-SHA256 of the trimmed, lower-cased address)");
        }
        trust = 'signed';
      } else {
        trust = row.allowUnverifiedIdentify ? 'allowed' : 'held';
      }
      await deps.visits.identify(communityId, { anonymousId: given.anonymousId, email: given.email, sourceId: row.sourceId, trust });
      return 'accepted';
    },
  };
}

export type TrackerService = ReturnType<typeof createTrackerService>;
