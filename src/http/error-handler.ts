import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, HearthError, type ErrorCode, type ErrorExtra } from '../core/errors.ts';
import type { ErrorFormat } from './types.ts';
import { describeValidation } from '../core/validation.ts';

export const CORE_PREFIX = '/community/v1';

export function errorFormatFor(url: string): ErrorFormat {
  return url === CORE_PREFIX || url.startsWith(`${CORE_PREFIX}/`) ? 'core' : 'v2';
}

/** An error as it goes on the wire. */
interface WireError {
  status: number;
  code: ErrorCode;
  message: string;
  extra: ErrorExtra;
}

/**
 * The one error handler: turns whatever was thrown into a wire error, logs it (expected errors at warn,
 * bugs at error), and renders it in the route's wire format. 403 and 429 look the same in every family.
 */
export function createErrorHandler(docsUrl: string) {
  return function handleError(thrown: unknown, request: FastifyRequest, reply: FastifyReply) {
    const error = toWireError(thrown);
    // A refusal to take more work now is expected under load, not a failure of the service.
    if (error.status >= 500 && error.extra.retryAfterSeconds === undefined) request.log.error({ err: thrown }, 'request failed');
    else request.log.warn({ code: error.code, status: error.status }, error.message);

    const format = request.routeOptions.config?.errors ?? errorFormatFor(request.url);
    reply.code(error.status);
    if (error.extra.retryAfterSeconds !== undefined) reply.header('Retry-After', error.extra.retryAfterSeconds);

    const rateLimit = error.extra.rateLimit;
    if (rateLimit) {
      reply.header('X-RateLimit-Reset', rateLimit.resetAt);
      reply.header('Retry-After', rateLimit.resetSeconds);
      return reply.send({
        reason: error.message,
        rateLimit: {
          intervalLimit: rateLimit.limit,
          intervalRemaining: rateLimit.remaining,
          intervalResetSeconds: rateLimit.resetSeconds,
          waitMs: rateLimit.resetSeconds * 1000,
        },
      });
    }
    if (error.status === 403) return reply.send({ status: 'forbidden', reason: error.message });

    if (format === 'message') return reply.send({ success: false, message: error.message });
    if (format === 'v2') {
      const body: { code: string; message: string; invalidIds?: string[] } = { code: error.code, message: error.message };
      if (error.extra.invalidIds) body.invalidIds = error.extra.invalidIds;
      return reply.send({ success: false, error: body });
    }
    if (error.status === 404) return reply.send({ status: 'not-found', reason: error.message });
    if (error.status === 409) return reply.send({ status: 'conflict', reason: error.message });
    if (error.code === 'internal_server_error') return reply.send({ status: 'error', reason: 'internal-server-error' });
    const reason = error.extra.coreReason ?? error.code.replace(/_/g, '-');
    return reply.send({ reason, docs: docsUrl, detail: error.message });
  };
}

/** The code of each status the HTTP framework refuses with, from the registry; any other 4xx is `invalid_request`. */
const FRAMEWORK_CODES = new Map<number, ErrorCode>(
  (['invalid_parameters', 'not_found', 'method_not_allowed', 'not_acceptable', 'payload_too_large', 'unsupported_media_type'] as const).map((code) => [
    ERROR_CODES[code].status,
    code,
  ]),
);

/** PostgreSQL's query_canceled: the statement timeout, or a cancel because the client left. */
const QUERY_CANCELED = '57014';

function toWireError(thrown: unknown): WireError {
  if (thrown instanceof HearthError) {
    return { status: thrown.status, code: thrown.code, message: thrown.message, extra: thrown.extra };
  }
  const error = thrown as Partial<FastifyError>;
  if (error.code === QUERY_CANCELED) {
    return {
      status: ERROR_CODES.query_timeout.status,
      code: 'query_timeout',
      message: 'the query ran longer than the statement timeout (HEARTH_STATEMENT_TIMEOUT); narrow the filter or ask for fewer records',
      extra: {},
    };
  }
  if (error.validation) {
    const context = error.validationContext ?? 'request';
    return {
      status: ERROR_CODES.invalid_parameters.status,
      code: 'invalid_parameters',
      message: describeValidation(error.validation as never, context),
      extra: { coreReason: context === 'body' ? 'invalid-request-body' : 'invalid-request-parameters' },
    };
  }
  // Fastify's own refusals (an unsupported media type, a body too large, ...) keep their status.
  const status = error.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const body = error.code?.startsWith('FST_ERR_CTP') ?? false;
    return {
      status,
      code: FRAMEWORK_CODES.get(status) ?? 'invalid_request',
      message: error.message ?? 'bad request',
      extra: { coreReason: body ? 'invalid-request-body' : undefined },
    };
  }
  return { status: ERROR_CODES.internal_server_error.status, code: 'internal_server_error', message: 'internal server error', extra: {} };
}
