import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { RequestContext } from '../core/writer.ts';
import type { RouteAuth } from './scopes.ts';

/** Wire format of a route's errors: v2 `{success:false, error}`, core `{reason, docs}`, or `{success:false, message}`. */
export type ErrorFormat = 'v2' | 'core' | 'message';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Every route declares who may call it; the app refuses to start with a route that does not. */
    auth?: RouteAuth;
    /** Defaults by path: core under /community/v1, v2 elsewhere. */
    errors?: ErrorFormat;
    /** Health probes: no rate limit, no logging noise. */
    probe?: boolean;
    /**
     * A batch whose items the service checks one by one (text included), so that a bad item is named as such: it
     * refuses only itself (core batch pushes), or the answer names every bad item (prospector imports).
     */
    itemsCheckedAlone?: boolean;
    /**
     * The website tracker's public routes: counted against the tracker's limits (per key of the path's `key`,
     * and per client address) instead of the API's, since every visitor of a site calls them.
     */
    trackerLimits?: boolean;
    /**
     * A connector's public receiver: counted per receiver key (a platform sends every delivery of a connector
     * from a few addresses, which the per-address limit of anonymous requests would soon refuse), with the
     * tracker's per-key limit.
     */
    receiverLimits?: boolean;
    /** The body is the request's bytes, as sent (a signature is checked over them): no text check walks it. */
    rawBody?: boolean;
    /** A `text/plain` body is read as JSON (what `navigator.sendBeacon` sends a string as). */
    plainTextJson?: boolean;
  }
  interface FastifyRequest {
    /** Set for every request with a valid token or console session. */
    context: RequestContext | null;
    /** The console session that authenticated the request (none for a bearer token). */
    consoleSession: ConsoleSession | null;
  }
}

export interface ConsoleSession {
  id: number;
  via: 'password' | 'link';
  expiresAt: Date;
  /** The cookie's value (its secret): the CSRF token is derived from it, and signing out ends it. */
  cookie: string;
}

export type HearthApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** The authenticated context of a request whose route requires a token. */
export function contextOf(request: { context: RequestContext | null }): RequestContext {
  if (!request.context) throw new Error('route declared auth but no context was set');
  return request.context;
}
