import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenService } from '../modules/tokens/index.ts';
import { sessionCookieOf, type AppUserService } from '../modules/app-users/index.ts';
import { HearthError, rateLimited } from '../core/errors.ts';
import type { ProbeCounter, RateLimiter } from './rate-limit.ts';
import { describeAuth, satisfies } from './scopes.ts';

const PRINTABLE_KEY = /^[\x21-\x7e]{1,100}$/;
/** A connector receiver's key, as made (modules/connectors). */
const RECEIVER_KEY = /^rk_[0-9]{1,16}_[A-Za-z0-9_-]{32}$/;

/**
 * The one gate every request passes (an onRequest hook): authenticate the bearer token, count the request
 * against its token's limit (or its address's, without a valid token), then check the route's scopes. Both
 * usually answer from memory (core/listened-cache.ts, rate-limit.ts), so most requests add no database work here.
 * Every failure of authentication or scope is the same 403 `{status: "forbidden"}`; the reason is added.
 */
export function createRequestGuard(deps: {
  tokens: TokenService;
  sessions: Pick<AppUserService, 'authenticate' | 'csrfMatches'>;
  rateLimiter: RateLimiter;
  probes: ProbeCounter;
  publicUrl: string;
}) {
  const publicOrigin = new URL(deps.publicUrl).origin;
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.context = null;
    request.consoleSession = null;
    const config = request.routeOptions.config;
    if (config.probe) {
      const count = deps.probes.hit(request.ip);
      reply.header('X-RateLimit-Limit', count.limit);
      reply.header('X-RateLimit-Remaining', count.remaining);
      return;
    }
    const auth = config.auth ?? 'public';
    if (config.trackerLimits) {
      // The address first: one address trying many keys spends its own allowance, not theirs.
      const byAddress = await deps.rateLimiter.hit('tracker-address', request.ip);
      const key = (request.params as { key?: unknown }).key;
      // A key that cannot be one (the route answers 400) has no bucket of its own: its text never reaches the counters.
      const byKey = typeof key === 'string' && PRINTABLE_KEY.test(key) && !byAddress.exceeded ? await deps.rateLimiter.hit('tracker-key', key) : null;
      const tighter = byKey && (byKey.exceeded || byKey.remaining < byAddress.remaining) ? byKey : byAddress;
      reply.header('X-RateLimit-Limit', tighter.limit);
      reply.header('X-RateLimit-Remaining', tighter.remaining);
      if (tighter.exceeded) throw rateLimited(tighter);
      return;
    }

    if (config.receiverLimits) {
      const key = (request.params as { key?: unknown }).key;
      // A key that cannot be one is counted by address, as any anonymous request: its text never reaches the counters.
      const count =
        typeof key === 'string' && RECEIVER_KEY.test(key)
          ? await deps.rateLimiter.hit('tracker-key', `receiver:${key}`)
          : await deps.rateLimiter.hit('address', request.ip);
      reply.header('X-RateLimit-Limit', count.limit);
      reply.header('X-RateLimit-Remaining', count.remaining);
      if (count.exceeded) throw rateLimited(count);
      return;
    }

    const bearer = bearerToken(request.headers.authorization);
    let failure = bearer.reason;
    if (bearer.token) {
      const result = await deps.tokens.authenticate(bearer.token);
      if (result.ok) request.context = result.context;
      else failure = result.reason;
    } else if (request.headers.authorization === undefined) {
      // The console's session cookie, only when no Authorization header is sent: the bearer path does no more work.
      const cookie = sessionCookieOf(request.headers.cookie);
      if (cookie !== null) failure = await authenticateSession(request, cookie);
    }

    const limit = request.context
      ? await deps.rateLimiter.hit('token', `${request.context.communityId}:${request.context.tokenId}`)
      : await deps.rateLimiter.hit('address', request.ip);
    reply.header('X-RateLimit-Limit', limit.limit);
    reply.header('X-RateLimit-Remaining', limit.remaining);
    if (limit.exceeded) throw rateLimited(limit);

    if (auth === 'public') return;
    if (!request.context) throw new HearthError('forbidden', failure ?? 'a bearer token is required');
    if (!satisfies(request.context.scopes, auth)) {
      const who = request.consoleSession ? "the signed-in user's role" : 'token';
      throw new HearthError('forbidden', `${who} lacks the scope this operation needs (${describeAuth(auth)})`);
    }
  };

  /**
   * Sets the request's context from a session cookie, or answers why not. A state-changing request made
   * with a cookie must also come from the console's origin (when the browser names one) and carry the
   * session's CSRF token in `X-CSRF-Token`: a page of another site can make the browser send the cookie,
   * but can neither read the token nor set the header without the console's consent (no CORS is granted).
   */
  async function authenticateSession(request: FastifyRequest, cookie: string): Promise<string | null> {
    const result = await deps.sessions.authenticate(cookie);
    if (!result.ok) return result.reason;
    if (!SAFE_METHODS.has(request.method)) {
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== publicOrigin) return `a request from ${origin} may not use the console's session`;
      const given = request.headers['x-csrf-token'];
      if (!deps.sessions.csrfMatches(cookie, typeof given === 'string' ? given : undefined)) {
        return 'the X-CSRF-Token header is missing or wrong (GET /api/v2/session gives the token of the session)';
      }
    }
    request.context = result.context;
    request.consoleSession = { id: result.id, via: result.via, expiresAt: result.expiresAt, cookie };
    return null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function bearerToken(header: string | undefined): { token: string | null; reason: string | null } {
  if (!header) return { token: null, reason: 'a bearer token is required (Authorization: Bearer <token>)' };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return { token: null, reason: 'the Authorization header must be "Bearer <token>"' };
  return { token: match[1]!, reason: null };
}
