import type { RateLimitState } from './rate-limit.ts';

export interface ErrorExtra {
  /** Every offending ID, for v2 `error.invalidIds`. */
  invalidIds?: string[];
  /** For 429: the state of the exhausted limit. */
  rateLimit?: RateLimitState;
  /** core `reason` when it is not the code in kebab case (e.g. `invalid-request-body`). */
  coreReason?: string;
}

/**
 * The one error type. Services throw it; the error handler (error-handler.ts) renders it in the wire
 * format of the route's family. Anything else that reaches the handler is a bug and answers 500.
 */
export class HearthError extends Error {
  constructor(
    readonly status: number,
    /** v2 error code, e.g. `invalid_contact_id`, `contact_not_found`, `conflict`. */
    readonly code: string,
    message: string,
    readonly extra: ErrorExtra = {},
  ) {
    super(message);
    this.name = 'HearthError';
  }
}

export const invalidParameters = (message: string, invalidIds?: string[]) =>
  new HearthError(400, 'invalid_parameters', message, { invalidIds });

export const invalidId = (entity: string, value: string, expected: string) =>
  new HearthError(400, `invalid_${entity}_id`, `"${value}" is not a valid ${entity.replace(/_/g, ' ')} ID (expected ${expected})`, {
    invalidIds: [value],
  });

export const notFound = (code: string, message: string) => new HearthError(404, code, message);

export const conflict = (message: string) => new HearthError(409, 'conflict', message);

export const forbidden = (reason: string) => new HearthError(403, 'forbidden', reason);

export const rateLimited = (state: RateLimitState) =>
  new HearthError(429, 'rate_limited', `rate limit exceeded; retry in ${state.resetSeconds} s`, { rateLimit: state });
