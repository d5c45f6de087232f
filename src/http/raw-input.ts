import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorFormatFor } from './error-handler.ts';
import { HearthError } from '../core/errors.ts';

/**
 * What reaches Hearth before a route does: JSON bodies as they arrive, and requests Node's HTTP parser
 * refuses on its own. Both answer in the documented error shapes.
 */

/** JSON nested deeper than this is refused before anything walks it (a lightFilter needs about 20 levels). */
export const MAX_BODY_DEPTH = 64;

/**
 * Request line and headers together. Node's default, 16 KB, refuses a long lightFilter before any route
 * knows the request, so the limit is far above what a filter of 100 clauses needs, and the route answers.
 */
export const MAX_HEADER_BYTES = 256 * 1024;

/**
 * How deep the JSON text nests, counted without parsing and stopping as soon as it passes `limit`, so no
 * walk over the value (validation, the text check, JSON.stringify of a custom field value) ever recurses
 * further than that.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index += 1; // a backslash: the next character is escaped
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth -= 1;
    }
  }
  return false;
}

/**
 * The JSON body parser: Fastify's own (prototype poisoning refused), except that an empty body is no body
 * (real clients send `Content-Type: application/json` on every request, DELETE and GET included), and a
 * body nested deeper than MAX_BODY_DEPTH is a 400 naming the limit.
 */
export function jsonBodyParser(app: Pick<FastifyInstance, 'getDefaultJsonParser'>) {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => {
    if (body.trim() === '') return done(null, undefined);
    if (jsonDepthExceeds(body, MAX_BODY_DEPTH)) {
      return done(
        new HearthError('invalid_parameters', `the JSON body is nested deeper than ${MAX_BODY_DEPTH} levels`, { coreReason: 'invalid-request-body' }),
        undefined,
      );
    }
    return parse(request, body, done);
  };
}

/**
 * `text/plain` bodies: JSON for a route that says so (`plainTextJson`: the website tracker, since
 * `navigator.sendBeacon` sends a string as text/plain and a page cannot send JSON across origins without a
 * preflight), read by the JSON parser above; for every other route the text as it came, as Fastify's own
 * parser gives it (and the route's schema refuses it).
 */
export function plainTextBodyParser(app: Pick<FastifyInstance, 'getDefaultJsonParser'>) {
  const json = jsonBodyParser(app);
  return (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => {
    if (request.routeOptions.config.plainTextJson) return json(request, body, done);
    return done(null, body);
  };
}

/** JSON Lines bodies (`application/x-ndjson`): the text as it came; the route reads it line by line. */
export const NDJSON = 'application/x-ndjson';

export function ndjsonBodyParser(_request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) {
  done(null, body);
}

/**
 * Requests Node's parser refuses before Fastify sees them (headers over MAX_HEADER_BYTES, a malformed
 * request line): answered in an error shape of ours, then the connection is closed, as Node itself does.
 * The family is the one the request line names when the parser still holds it; by the time a head of
 * 256 KB overflows, it usually does not, and the answer is in the v2 shape.
 */
export function createClientErrorHandler(docsUrl: string) {
  return function handleClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, code, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request_header_too_large', `the request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KB`]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'request_timeout', 'the request did not arrive in time']
          : [400, 'invalid_request', 'the request is not valid HTTP'];
    const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 2048).toString('latin1') : '';
    const path = /^[A-Z]+ (\S+)/.exec(raw)?.[1] ?? '/';
    const body = JSON.stringify(
      errorFormatFor(path) === 'core' ? { reason: code.replace(/_/g, '-'), docs: docsUrl, detail: message } : { success: false, error: { code, message } },
    );
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
