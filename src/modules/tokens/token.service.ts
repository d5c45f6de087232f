import { randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { HearthError } from '../../http/errors.ts';
import { formatId, parseCoreId } from '../../http/ids.ts';
import { DEFAULT_SCOPES, isScope, type Scope } from '../../http/scopes.ts';
import * as tokens from './token.repository.ts';

/** Who is calling: established once per request from the token, passed explicitly to every service. */
export interface RequestContext {
  communityId: number;
  communityName: string;
  tokenId: string;
  scopes: string[];
  userId: number | null;
}

export type Authentication = { ok: true; context: RequestContext } | { ok: false; reason: string };

export interface IssuedToken {
  token: string;
  jti: string;
}

const ISSUER = 'hearth';
const ALGORITHM = 'HS256';

export function createTokenService(deps: { db: Kysely<DB>; secret: string; clock: Clock }) {
  // Imported once: given raw bytes, jose imports the key again on every verification (a measurable share of
  // each request's CPU under load; docs/performance.md).
  const key = crypto.subtle.importKey('raw', new TextEncoder().encode(deps.secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);

  return {
    async issue(input: {
      communityId: number;
      scopes?: string[];
      name?: string;
      appUserId?: number | null;
      expiresInSeconds?: number;
    }): Promise<IssuedToken> {
      const scopes = normalizeScopes(input.scopes);
      const jti = randomUUID();
      const now = deps.clock.now();
      const expiresAt = input.expiresInSeconds ? new Date(now.getTime() + input.expiresInSeconds * 1000) : null;
      await tokens.insertToken(deps.db, {
        communityId: input.communityId,
        jti,
        name: input.name?.trim() || 'API token',
        scopes,
        appUserId: input.appUserId ?? null,
        expiresAt,
      });
      let jwt = new SignJWT({ com: formatId('community', input.communityId), scope: scopes.join(' ') })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setIssuer(ISSUER)
        .setJti(jti)
        .setIssuedAt(Math.floor(now.getTime() / 1000));
      if (expiresAt) jwt = jwt.setExpirationTime(Math.floor(expiresAt.getTime() / 1000));
      return { token: await jwt.sign(await key), jti };
    },

    /** Verifies the signature and claims, then the token's row: a revoked token is refused at once. */
    /**
     * Authenticates a bearer token and counts the request against a rate-limit bucket in one database round
     * trip: the signature and claims are checked first, without the database; then one statement counts the
     * hit and reads the token's row, so revocation still takes effect at once. `bucket` names the counter
     * for a token whose signature holds (its own); a token that fails before that is counted nowhere here,
     * and the caller counts the request against the client's address instead.
     */
    async authenticate(
      token: string,
      count: { bucket: (communityId: number, jti: string) => string; windowStart: number },
    ): Promise<Authentication & { hits: number | null }> {
      let claims: { jti?: string; com?: unknown };
      try {
        const verified = await jwtVerify(token, await key, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          currentDate: deps.clock.now(),
        });
        claims = verified.payload;
      } catch (error) {
        return { ok: false, reason: verificationFailure(error), hits: null };
      }
      const communityId = typeof claims.com === 'string' ? safeCommunityId(claims.com) : null;
      if (!claims.jti || communityId === null) return { ok: false, reason: 'token claims are incomplete', hits: null };
      const { row, hits } = await tokens.findTokenCountingHit(deps.db, communityId, claims.jti, {
        bucket: count.bucket(communityId, claims.jti),
        windowStart: count.windowStart,
      });
      if (!row) return { ok: false, reason: 'token is not known to this service', hits };
      if (row.revokedAt) return { ok: false, reason: 'token has been revoked', hits };
      if (row.expiresAt && row.expiresAt <= deps.clock.now()) return { ok: false, reason: 'token has expired', hits };
      return {
        ok: true,
        context: {
          communityId,
          communityName: row.communityName,
          tokenId: claims.jti,
          scopes: row.scopes,
          userId: row.appUserId,
        },
        hits,
      };
    },

    list(communityId: number | null) {
      return tokens.listTokens(deps.db, communityId);
    },

    async revoke(jti: string, communityId: number | null) {
      const revoked = await tokens.revokeToken(deps.db, jti, communityId, deps.clock.now());
      if (revoked) return revoked;
      const existing = await tokens.findToken(deps.db, jti, communityId);
      if (existing) return existing;
      throw new HearthError(404, 'token_not_found', `no token with jti "${jti}"`);
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;

export function normalizeScopes(requested: string[] | undefined): Scope[] {
  const scopes = (requested ?? []).map((scope) => scope.trim()).filter(Boolean);
  if (scopes.length === 0) return [...DEFAULT_SCOPES];
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length) {
    throw new HearthError(400, 'invalid_scopes', `unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  }
  return [...new Set(scopes as Scope[])];
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
