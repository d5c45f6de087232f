import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseCoreId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { Forbidden } from '../../http/schemas.ts';
import {
  IdentifyBody,
  KeyParams,
  PageViewBody,
  PreflightParams,
  SourceParams,
  TrackerAnswer,
  TrackerResponse,
  TrackerSettingsBody,
} from './tracker.schemas.ts';
import type { TrackerCaller, TrackerService } from './tracker.service.ts';

/** The script, read once: served as it is, with an ETag of its content. */
const SCRIPT = fs.readFileSync(new URL('./tracker.browser.js', import.meta.url), 'utf8');
const SCRIPT_ETAG = `"${createHash('sha256').update(SCRIPT).digest('base64url').slice(0, 22)}"`;
/** Browsers and CDNs keep the script an hour and may use it a day longer while they revalidate it. */
const SCRIPT_CACHE = 'public, max-age=3600, stale-while-revalidate=86400';
/** A page view or identify call is a few hundred bytes; anything much larger is not the script's. */
const MAX_BODY_BYTES = 4096;

function callerOf(request: FastifyRequest): TrackerCaller {
  const origin = request.headers.origin;
  return {
    origin: typeof origin === 'string' && origin !== 'null' ? origin : null,
    optedOut: request.headers.dnt === '1' || request.headers['sec-gpc'] === '1',
  };
}

function matchesEtag(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim().replace(/^W\//, '');
    return value === SCRIPT_ETAG || value === '*';
  });
}

/**
 * Every answer of the public tracker routes, errors included, may be read by any page: a browser's script
 * learns what was wrong. Which pages may send at all is the tracker's `allowedOrigins`, checked on the server.
 */
async function allowAnyReader(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (!reply.hasHeader('Access-Control-Allow-Origin')) reply.header('Access-Control-Allow-Origin', '*');
  return payload;
}

export function trackerRoutes(app: HearthApp, services: { trackers: TrackerService }) {
  const admin = { auth: { all: ['admin' as const] } };
  const sourceOf = (request: { params: { id: string } }) => parseCoreId('provider', request.params.id);

  app.get(
    '/api/v2/admin/sources/:id/tracker',
    {
      config: admin,
      schema: {
        operationId: 'getSourceTracker',
        tags: ['admin'],
        summary: "A source's website tracker: its public key, allowed origins and the snippet to embed",
        params: SourceParams,
        response: { 200: TrackerResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.trackers.get(contextOf(request).communityId, sourceOf(request)) }),
  );

  app.put(
    '/api/v2/admin/sources/:id/tracker',
    {
      config: admin,
      schema: {
        operationId: 'enableSourceTracker',
        tags: ['admin'],
        summary: "Enable a source's website tracker, or change its settings",
        description:
          'A source without a tracker gets one with a new public key and identify secret (201; the only answer that shows the secret); ' +
          'one that has a tracker keeps its key and secret and takes the `allowedOrigins` and `allowUnverifiedIdentify` given (200). ' +
          "A tracker records nothing until it names the site's origins.",
        params: SourceParams,
        body: TrackerSettingsBody,
        response: { 200: TrackerResponse, 201: TrackerResponse },
      },
    },
    async (request, reply) => {
      const { created, tracker } = await services.trackers.enable(contextOf(request), sourceOf(request), request.body ?? {});
      return reply.code(created ? 201 : 200).send({ success: true as const, data: tracker });
    },
  );

  app.post(
    '/api/v2/admin/sources/:id/tracker/rotate',
    {
      config: admin,
      schema: {
        operationId: 'rotateSourceTracker',
        tags: ['admin'],
        summary: "Give a source's website tracker a new public key and identify secret",
        description:
          "The old key is refused (403) from now on: put the new snippet in the site's pages first, or accept that page views are lost until they have it. " +
          "The answer shows the new identify secret, once; the site's backend must sign with it from now on.",
        params: SourceParams,
        response: { 200: TrackerResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.trackers.rotate(contextOf(request), sourceOf(request)) }),
  );

  app.post(
    '/api/v2/admin/sources/:id/tracker/rotate-secret',
    {
      config: admin,
      schema: {
        operationId: 'rotateSourceTrackerSecret',
        tags: ['admin'],
        summary: "Give a source's website tracker a new identify secret, keeping its key",
        description:
          'Signatures made with the old secret are refused (403) from now on. The answer shows the new secret, once. ' +
          'A tracker enabled before identify secrets existed gets its first one this way.',
        params: SourceParams,
        response: { 200: TrackerResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.trackers.rotateSecret(contextOf(request), sourceOf(request)) }),
  );

  app.delete(
    '/api/v2/admin/sources/:id/tracker',
    {
      config: admin,
      schema: {
        operationId: 'revokeSourceTracker',
        tags: ['admin'],
        summary: "Turn a source's website tracker off",
        description: 'Its key is refused (403) from now on; the visits it recorded stay. The answer is the tracker as it was.',
        params: SourceParams,
        response: { 200: TrackerResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.trackers.revoke(contextOf(request), sourceOf(request)) }),
  );

  app.get(
    '/t.js',
    {
      config: { auth: 'public', trackerLimits: true },
      schema: {
        operationId: 'getTrackerScript',
        tags: ['health'],
        summary: 'The website tracker script (JavaScript)',
        description:
          'A site embeds it with the `snippet` of `GET /api/v2/admin/sources/{id}/tracker` (a script element with `data-key="pk_…"`). ' +
          'Cached for an hour; `If-None-Match` with its ETag answers 304. docs/ingestion.md says what it collects.',
        response: {
          200: { description: 'The script', content: { 'application/javascript': { schema: { type: 'string' } } } },
          304: { description: 'The script the client holds (its ETag) is current', type: 'null' },
        },
      },
    },
    async (request, reply) => {
      reply.header('ETag', SCRIPT_ETAG).header('Cache-Control', SCRIPT_CACHE).header('Cross-Origin-Resource-Policy', 'cross-origin');
      if (matchesEtag(request.headers['if-none-match'])) return reply.code(304).send(null);
      return reply.type('application/javascript; charset=utf-8').send(SCRIPT);
    },
  );

  const publicRoute = {
    auth: 'public' as const,
    trackerLimits: true,
    plainTextJson: true,
  };
  const answers = { 202: TrackerAnswer, 403: Forbidden };

  app.options(
    '/community/v1/t/:key/:event',
    {
      config: { auth: 'public', trackerLimits: true },
      onSend: allowAnyReader,
      schema: {
        operationId: 'preflightTracker',
        tags: ['core'],
        summary: 'CORS preflight of the website tracker routes',
        description: "Allows the origin when it is one of the tracker's `allowedOrigins`; 403 otherwise (and for a tracker that names none).",
        params: PreflightParams,
        response: { 204: { description: 'Allowed: Access-Control-Allow-* headers', type: 'null' }, 403: Forbidden },
      },
    },
    async (request, reply) => {
      const allowed = await services.trackers.preflight(request.params.key, callerOf(request));
      return reply
        .code(204)
        .header('Access-Control-Allow-Origin', allowed)
        .header('Access-Control-Allow-Methods', 'POST')
        .header('Access-Control-Allow-Headers', 'Content-Type')
        .header('Access-Control-Max-Age', '86400')
        .header('Vary', 'Origin')
        .send(null);
    },
  );

  app.post(
    '/community/v1/t/:key/pageview',
    {
      config: publicRoute,
      bodyLimit: MAX_BODY_BYTES,
      onSend: allowAnyReader,
      schema: {
        operationId: 'recordTrackerPageView',
        tags: ['core'],
        summary: 'Record a page view (website tracker; no token: the public key of a source)',
        description:
          "What /t.js sends, as `text/plain` (sendBeacon) or JSON. The visit is stored as the source's, for the browser's anonymous ID, " +
          "and belongs to a contact once the site has identified that browser. The page URL's origin, like the request's `Origin`, must be " +
          "one of the tracker's `allowedOrigins` (403 otherwise). Counted against the tracker's own rate limits, per key and " +
          'per client address. A browser that sends `DNT: 1` or `Sec-GPC: 1` is answered `ignored` and nothing is stored.',
        consumes: ['text/plain', 'application/json'],
        params: KeyParams,
        body: PageViewBody,
        response: answers,
      },
    },
    async (request, reply) => reply.code(202).send({ status: await services.trackers.pageView(request.params.key, callerOf(request), request.body) }),
  );

  app.post(
    '/community/v1/t/:key/identify',
    {
      config: publicRoute,
      bodyLimit: MAX_BODY_BYTES,
      onSend: allowAnyReader,
      schema: {
        operationId: 'identifyTrackerVisitor',
        tags: ['core'],
        summary: 'Say who a browser is (website tracker: `hearth("identify", {email, signature})`)',
        description:
          "With a `signature` made by the site's backend (hex HMAC-SHA256 of the trimmed, lower-cased address under the tracker's identify " +
          "secret), the browser's earlier page views become the contact's that has this address, and so do its later ones; an address Hearth " +
          'does not know yet is kept, and the visits are linked once one of them finds its contact. A signature that does not match is a 403. ' +
          'Without one, the call is kept apart and links nothing, unless the tracker has `allowUnverifiedIdentify`. ' +
          'The answer never says whether a contact was found.',
        consumes: ['text/plain', 'application/json'],
        params: KeyParams,
        body: IdentifyBody,
        response: answers,
      },
    },
    async (request, reply) => reply.code(202).send({ status: await services.trackers.identify(request.params.key, callerOf(request), request.body) }),
  );
}
