import { randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Listen } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { HearthError, invalidParameters } from '../../core/errors.ts';
import { formatId, parseCoreId } from '../../core/ids.ts';
import { DEFAULT_SCOPES, isScope, withinRole, type Role, type Scope } from '../../core/scopes.ts';
import { auditTx } from '../audit/index.ts';
import { tokenActor, type RequestContext, type Writer } from '../../core/writer.ts';
import { createListenedCache } from '../../core/listened-cache.ts';
import * as tokens from './token.repository.ts';

export type Authentication = { ok: true; context: RequestContext } | { ok: false; reason: string };

export interface IssuedToken {
  token: string;
  jti: string;
}

/** What a user's removal or new role did to one of the tokens held to their role. */
export interface HeldTokenChange {
  jti: string;
  name: string;
  /** The scopes it lost. */
  dropped: string[];
  /** Revoked: the user was removed, or the token had no scope left. */
  revoked: boolean;
}

const ISSUER = 'hearth';
const ALGORITHM = 'HS256';
const MAX_VERIFIED_TOKENS = 10_000;
/** A token lives at least a minute and at most ten years; beyond that its expiry is not a date any more. */
export const MIN_TOKEN_LIFETIME_SECONDS = 60;
export const MAX_TOKEN_LIFETIME_SECONDS = 10 * 365 * 24 * 3600;

export function createTokenService(deps: { db: Kysely<DB>; secret: string; clock: Clock }) {
  // Imported once: given raw bytes, jose imports the key again on every verification (a measurable share of
  // each request's CPU under load; docs/performance.md).
  const cache = createListenedCache<NonNullable<Awaited<ReturnType<typeof tokens.findActiveToken>>>>({
    ttlMs: 60_000,
    maxEntries: 10_000,
    now: () => Date.now(),
  });
  // A token string whose signature was checked once need not be checked again: the same bytes carry the same
  // signature. Only its time claims are looked at again, against the clock of each request.
  const verifiedTokens = new Map<string, JWTPayload>();
  const key = crypto.subtle.importKey('raw', new TextEncoder().encode(deps.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);

  return {
    /** A new token of the writer's community. */
    async issue(
      writer: Writer,
      input: {
        scopes?: string[];
        name?: string;
        appUserId?: number | null;
        /** Whether the token is held to its user's role: true for a token made through the API (see HeldTokenChange). */
        heldToRole?: boolean;
        expiresInSeconds?: number;
      },
    ): Promise<IssuedToken> {
      const scopes = normalizeScopes(input.scopes);
      const jti = randomUUID();
      const now = deps.clock.now();
      const lifetime = input.expiresInSeconds;
      if (lifetime !== undefined && !(Number.isInteger(lifetime) && lifetime >= MIN_TOKEN_LIFETIME_SECONDS && lifetime <= MAX_TOKEN_LIFETIME_SECONDS)) {
        throw invalidParameters(
          `expiresInSeconds must be a whole number of seconds from ${MIN_TOKEN_LIFETIME_SECONDS} to ${MAX_TOKEN_LIFETIME_SECONDS} (ten years)`,
        );
      }
      const expiresAt = lifetime ? new Date(now.getTime() + lifetime * 1000) : null;
      const name = input.name?.trim() || 'API token';
      await deps.db.transaction().execute(async (trx) => {
        const appUserId = input.appUserId ?? null;
        await tokens.insertToken(trx, {
          communityId: writer.communityId,
          jti,
          name,
          scopes,
          appUserId,
          heldToRole: appUserId !== null && input.heldToRole === true,
          expiresAt,
        });
        await auditTx.recordWrite(trx, writer, {
          operation: 'token.create',
          entityIds: [jti],
          detail: { name, scopes, expiresAt: expiresAt?.toISOString() ?? null },
        });
      });
      let jwt = new SignJWT({ com: formatId('community', writer.communityId), scope: scopes.join(' ') })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setIssuer(ISSUER)
        .setJti(jti)
        .setIssuedAt(Math.floor(now.getTime() / 1000));
      if (expiresAt) jwt = jwt.setExpirationTime(Math.floor(expiresAt.getTime() / 1000));
      return { token: await jwt.sign(await key), jti };
    },

    /** Keeps token rows in memory for as long as every change to them is heard (core/listened-cache.ts). */
    async watchChanges(listen: Listen) {
      await listen(tokens.TOKEN_CHANGES, { ready: cache.listening, message: cache.changed, lost: cache.deaf });
    },

    /**
     * The request context of a bearer token, or why there is none: the signature and claims are verified,
     * then the token's row, so a revoked token is refused at once.
     */
    async authenticate(token: string): Promise<Authentication> {
      const now = deps.clock.now();
      let claims = verifiedTokens.get(token);
      if (!claims || !inForce(claims, now)) {
        if (!isCanonicalJwt(token)) return { ok: false, reason: 'token is malformed' };
        try {
          claims = (await jwtVerify(token, await key, { algorithms: [ALGORITHM], issuer: ISSUER, currentDate: now })).payload;
        } catch (error) {
          verifiedTokens.delete(token);
          return { ok: false, reason: verificationFailure(error) };
        }
        if (verifiedTokens.size >= MAX_VERIFIED_TOKENS) verifiedTokens.clear();
        verifiedTokens.set(token, claims);
      }
      const communityId = typeof claims.com === 'string' ? safeCommunityId(claims.com) : null;
      if (!claims.jti || communityId === null) return { ok: false, reason: 'token claims are incomplete' };
      const cacheKey = `${communityId}:${claims.jti}`;
      let row = cache.get(cacheKey);
      if (!row) {
        const generation = cache.generation();
        row = await tokens.findActiveToken(deps.db, communityId, claims.jti);
        if (!row) return { ok: false, reason: 'token is not known to this service' };
        cache.put(cacheKey, row, generation);
      }
      if (row.revokedAt) return { ok: false, reason: 'token has been revoked' };
      if (row.expiresAt && row.expiresAt <= now) return { ok: false, reason: 'token has expired' };
      // Removal and demotion change the rows of the user's tokens (holdToRole); this covers a token made
      // while its user was being demoted, and a role changed by hand in the database.
      if (row.heldToRole && row.userRole === null) return { ok: false, reason: 'the user this token was made for has been removed' };
      return {
        ok: true,
        context: {
          communityId,
          actor: tokenActor(row),
          communityName: row.communityName,
          tokenId: claims.jti,
          scopes: row.heldToRole ? withinRole(row.scopes, row.userRole as Role) : row.scopes,
          userId: row.appUserId,
        },
      };
    },

    /**
     * Holds a user's tokens to what the user may still do, inside the caller's transaction (the user's
     * removal, with `role` null, or a new role): each token held to the user's role is revoked when the user
     * is removed, else loses the scopes the role does not grant, and is revoked when none is left. Tokens the
     * operator made at the command line are not held (their maker is not the user). Each change is recorded.
     * The caller calls `changed()` once its transaction has committed.
     */
    async holdToRole(trx: Transaction<DB>, writer: Writer, userId: number, role: Role | null): Promise<HeldTokenChange[]> {
      const changes: HeldTokenChange[] = [];
      for (const token of await tokens.liveTokensHeldTo(trx, writer.communityId, userId)) {
        const kept = role === null ? [] : withinRole(token.scopes, role);
        if (kept.length === token.scopes.length) continue;
        const dropped = token.scopes.filter((scope) => !kept.includes(scope));
        if (kept.length === 0) {
          await tokens.revokeToken(trx, token.jti, writer.communityId, deps.clock.now());
          await auditTx.recordWrite(trx, writer, {
            operation: 'token.revoke',
            entityIds: [token.jti],
            detail: { name: token.name, reason: role === null ? 'its user was removed' : `its user's role (${role}) grants none of its scopes` },
          });
        } else {
          await tokens.setScopes(trx, writer.communityId, token.jti, kept);
          await auditTx.recordWrite(trx, writer, {
            operation: 'token.update',
            entityIds: [token.jti],
            detail: { name: token.name, scopes: kept, dropped, reason: `its user's role is now ${role}` },
          });
        }
        changes.push({ jti: token.jti, name: token.name, dropped, revoked: kept.length === 0 });
      }
      return changes;
    },

    /** Token rows changed in a transaction that has committed: this process forgets what it kept of them now, before the database's notification. */
    changed() {
      cache.changed();
    },

    list(communityId: number | null) {
      return tokens.listTokens(deps.db, communityId);
    },

    /** The community of a token (the CLI revokes by jti alone). */
    async communityOf(jti: string): Promise<number> {
      const token = await tokens.findToken(deps.db, jti, null);
      if (!token) throw tokenNotFound(jti);
      return token.communityId;
    },

    /** Revokes a token of the writer's community; revoking a revoked token changes (and records) nothing. */
    async revoke(writer: Writer, jti: string) {
      const revoked = await deps.db.transaction().execute(async (trx) => {
        const row = await tokens.revokeToken(trx, jti, writer.communityId, deps.clock.now());
        if (row) await auditTx.recordWrite(trx, writer, { operation: 'token.revoke', entityIds: [jti], detail: { name: row.name } });
        return row;
      });
      // Other processes hear of it from the database; this one need not wait for its own notification.
      cache.changed();
      if (revoked) return revoked;
      const existing = await tokens.findToken(deps.db, jti, writer.communityId);
      if (existing) return existing;
      throw tokenNotFound(jti);
    },
  };
}

/**
 * Base64url decoders forgive padding and stray low bits, so `sig=` or a last character with other unused
 * bits decodes to the same signature. A token is one exact string: only the form Hearth signs is accepted.
 */
function isCanonicalJwt(token: string): boolean {
  const parts = token.split('.');
  return parts.length === 3 && parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part);
}

const tokenNotFound = (jti: string) => new HearthError('token_not_found', `no token with jti "${jti}"`);

export type TokenService = ReturnType<typeof createTokenService>;

export function normalizeScopes(requested: string[] | undefined): Scope[] {
  const scopes = (requested ?? []).map((scope) => scope.trim()).filter(Boolean);
  if (scopes.length === 0) return [...DEFAULT_SCOPES];
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length) {
    throw new HearthError('invalid_scopes', `unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  }
  return [...new Set(scopes as Scope[])];
}

/** Whether verified claims are still in force at `now`: not expired, not before their start. */
function inForce(claims: JWTPayload, now: Date): boolean {
  const seconds = Math.floor(now.getTime() / 1000);
  return (claims.exp === undefined || claims.exp > seconds) && (claims.nbf === undefined || claims.nbf <= seconds);
}

function safeCommunityId(value: string): number | null {
  try {
    return parseCoreId('community', value);
  } catch {
    return null;
  }
}

function verificationFailure(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'token has expired';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'token algorithm is not accepted';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `token claim "${error.claim}" is not valid`;
  return 'token is malformed';
}
