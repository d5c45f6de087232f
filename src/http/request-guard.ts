import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenService } from '../modules/tokens/index.ts';
import { HearthError, rateLimited } from '../core/errors.ts';
import type { ProbeCounter, RateLimiter } from './rate-limit.ts';
import { describeAuth, satisfies } from './scopes.ts';

const PRINTABLE_KEY = /^[\x21-\x7e]{1,100}$/;

/**
 * The one gate every request passes (an onRequest hook): authenticate the bearer token, count the request
 * against its token's limit (or its address's, without a valid token), then check the route's scopes. Both
 * usually answer from memory (core/listened-cache.ts, rate-limit.ts), so most requests add no database work here.
 * Every failure of authentication or scope is the same 403 `{status: "forbidden"}`; the reason is added.
 */
export function createRequestGuard(deps: { tokens: TokenService; rateLimiter: RateLimiter; probes: ProbeCounter }) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.context = null;
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

    const bearer = bearerToken(request.headers.authorization);
    let failure = bearer.reason;
    if (bearer.token) {
      const result = await deps.tokens.authenticate(bearer.token);
      if (result.ok) request.context = result.context;
      else failure = result.reason;
    }

    const limit = request.context
      ? await deps.rateLimiter.hit('token', `${request.context.communityId}:${request.context.tokenId}`)
      : await deps.rateLimiter.hit('address', request.ip);
    reply.header('X-RateLimit-Limit', limit.limit);
    reply.header('X-RateLimit-Remaining', limit.remaining);
    if (limit.exceeded) throw rateLimited(limit);

    if (auth === 'public') return;
    if (!request.context) throw new HearthError('forbidden', 'forbidden', failure ?? 'a bearer token is required');
    if (!satisfies(request.context.scopes, auth)) {
      throw new HearthError('forbidden', 'forbidden', `token lacks the scope this operation needs (${describeAuth(auth)})`);
    }
  };
}

function bearerToken(header: string | undefined): { token: string | null; reason: string | null } {
  if (!header) return { token: null, reason: 'a bearer token is required (Authorization: Bearer <token>)' };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return { token: null, reason: 'the Authorization header must be "Bearer <token>"' };
  return { token: match[1]!, reason: null };
}
